//! What each kind of job does, with the parameters that define it.

use planner::generate::Params;
use planner::heuristics::Definitions;
use serde::{Deserialize, Serialize};

use crate::graphlearn::{
    Adjustment, BootstrapParams, Configuration, NamedProblem, NetworkParams, SearchParams, ValueAdjustment,
};
use crate::grid::{Bound, Distribution, Instances, Model, PlanLimits, Planning, Residual, Sigma};
use crate::likely::{Preset, Rule, SearchLimits, TaskSource};
use crate::split::{SolveLimits, Split};
use crate::JobKey;

/// The resource class a job needs: its Redis queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Cpu,
    Gpu,
}

impl Resource {
    pub const ALL: [Resource; 2] = [Resource::Cpu, Resource::Gpu];

    /// The queue's name (`hfarm worker --class cpu|gpu`).
    pub fn as_str(self) -> &'static str {
        match self {
            Resource::Cpu => "cpu",
            Resource::Gpu => "gpu",
        }
    }
}

/// The Redis list a queued job waits on (`{prefix}:queue:{lane}`), and so
/// which workers may take it. A job's [`Resource`] says what it needs (and
/// what the cost model charges); its lane adds whether that need is strict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lane {
    /// CPU-class jobs: every worker without CUDA may take them.
    Cpu,
    /// Jobs that need a GPU-class worker: training (on a farm without CUDA,
    /// the GPU-class workers are the ones its operator set aside for it).
    Gpu,
    /// Jobs of a CPU kind that run faster on a GPU: learned plan jobs of the
    /// relational models. CUDA workers take them; every other worker too,
    /// while no live worker has CUDA, so that on a CPU-only farm they never
    /// wait for the one worker that also trains.
    GpuPreferred,
}

impl Lane {
    pub const ALL: [Lane; 3] = [Lane::Cpu, Lane::Gpu, Lane::GpuPreferred];

    /// The list's name under the prefix.
    pub fn as_str(self) -> &'static str {
        match self {
            Lane::Cpu => "cpu",
            Lane::Gpu => "gpu",
            Lane::GpuPreferred => "gpu-preferred",
        }
    }

    /// The lane of a job of `kind` placed on `resource` (`JobSpec::resource`,
    /// as stored in the jobs table): a job placed on the GPU although its
    /// kind runs on a CPU only prefers the GPU.
    pub fn of(kind: JobKind, resource: Resource) -> Lane {
        match (resource, kind.describe().resource) {
            (Resource::Cpu, _) => Lane::Cpu,
            (Resource::Gpu, Resource::Cpu) => Lane::GpuPreferred,
            (Resource::Gpu, Resource::Gpu) => Lane::Gpu,
        }
    }

    /// The lanes a worker of `class` pops, in order of preference. `cuda`:
    /// this worker's network runs on CUDA (only a GPU-class worker's counts);
    /// `cuda_alive`: some live worker advertises CUDA. A worker without CUDA
    /// computes on its CPU whatever its class, so it serves its own class
    /// first and then whatever a CPU may run; a CUDA worker keeps its GPU
    /// for GPU work.
    pub fn served(class: Resource, cuda: bool, cuda_alive: bool) -> Vec<Lane> {
        let fallback = !cuda_alive;
        match class {
            Resource::Gpu if cuda => vec![Lane::Gpu, Lane::GpuPreferred],
            Resource::Gpu if fallback => vec![Lane::Gpu, Lane::GpuPreferred, Lane::Cpu],
            Resource::Gpu => vec![Lane::Gpu, Lane::Cpu],
            Resource::Cpu if fallback => vec![Lane::Cpu, Lane::GpuPreferred],
            Resource::Cpu => vec![Lane::Cpu],
        }
    }
}

impl std::str::FromStr for Resource {
    type Err = String;
    fn from_str(s: &str) -> Result<Resource, String> {
        Resource::ALL.into_iter().find(|r| r.as_str() == s).ok_or_else(|| format!("unknown resource class `{s}`"))
    }
}

/// How a plan job computes its heuristic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum PlanHeuristic {
    /// A registered classical heuristic by name (`planner::heuristics::NAMES`).
    Classical { name: String },
    /// The point estimate of the model trained by the job's first input (its
    /// best-validation-MSE weights): E[x], or for a Gaussian model with
    /// `clip`, mu clipped into [l, inf) for l of that bound (N+clip).
    Learned {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clip: Option<Bound>,
        /// The trained model's kind: decides the resource class the search
        /// runs on ([`Model::plans_on`]). Absent in specs stored before
        /// plan jobs were routed by model: those run on CPU workers.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<Model>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobSpec {
    /// Generate an instance and solve it optimally (A*+LM-cut) within the
    /// limits; regenerate with derived seeds up to `limits.tries` times when
    /// it is unsolved in time or trivial (goal true at the start).
    Generate {
        domain: String,
        split: Split,
        params: Params,
        seed: u64,
        limits: SolveLimits,
        #[serde(default, skip_serializing_if = "Instances::is_default")]
        instances: Instances,
    },
    /// Label every state on the input instance's optimal plan with h* and the
    /// classical heuristics and relaxed-plan features (the latter by
    /// `features`' definitions: the grid's `[planning] heuristics`, since the
    /// authors' linear model reads pyperplan's in training and in planning).
    /// Input: the generate job.
    Label {
        domain: String,
        split: Split,
        #[serde(default, skip_serializing_if = "Definitions::is_default")]
        features: Definitions,
    },
    /// Whether one test slot's instance is in the planning sample: the
    /// sample is the first `n` slots, in a fixed order of the test slots,
    /// that have an instance (the authors drew their 100 planning instances
    /// from the *solved* test instances). `rank` is the slot's place in that
    /// order. Inputs: the slot's generate job, then the draw of the slot
    /// ranked just before (none for rank 0), so that draws decide in order
    /// and each reads one count. A slot that is not drawn has no result for
    /// the plan jobs that need it, which are skipped.
    Draw { domain: String, n: u32, rank: u32 },
    /// Greedy best-first search on one test instance. Inputs: the train job
    /// for a learned heuristic, then the slot's draw where the grid plans a
    /// sample of its test slots, then the generate job.
    Plan {
        domain: String,
        heuristic: PlanHeuristic,
        limits: PlanLimits,
        #[serde(default, skip_serializing_if = "Planning::is_default")]
        planning: Planning,
    },
    /// Train one model. Inputs: the label jobs of the train and validation splits.
    Train {
        domain: String,
        model: Model,
        distribution: Distribution,
        sigma: Sigma,
        /// None for the Gaussian, whose training ignores the bound.
        bound: Option<Bound>,
        residual: Residual,
        seed: u64,
        steps: u64,
        train_instances: u32,
    },
    /// Test metrics of a trained model. Inputs: the train job, then the test labels.
    Evaluate { domain: String, bound: Bound },
    /// Does nothing: measures the queue's own overhead (`hfarm bench queue`).
    Noop { id: u64 },
    /// LearnHeuristicPrac (Marom & Rosman) for `iterations` outer
    /// iterations; checkpointed after each ([`crate::likely`]).
    PuzzleLearn {
        domain: String,
        /// PDB inputs from this pattern set; None: one-hot tiles.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pdb_inputs: Option<String>,
        settings: Preset,
        model: Rule,
        iterations: u32,
        seed: u64,
        /// GenerateTaskPrac (left out of the spec) or LengthInc walks.
        #[serde(default, skip_serializing_if = "TaskSource::is_uncertainty")]
        tasks: TaskSource,
        limits: SearchLimits,
    },
    /// The optimal cost of a test task: IDA* with the family's
    /// `optimal_heuristic` (PDBs; gap for pancakes). A task
    /// from a benchmark set carries its published optimum: the search must
    /// find it, or, where `trust_published` (the grid's `optimal =
    /// "published"`), it is recorded without a search.
    PuzzleSolve {
        domain: String,
        state: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        published: Option<u32>,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        trust_published: bool,
    },
    /// IDA* with a learned heuristic on one test task under one alpha
    /// (None: yhat). Inputs: the learn job, then the task's solve job.
    PuzzleTest {
        domain: String,
        /// As the learner's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pdb_inputs: Option<String>,
        state: String,
        alpha: Option<f64>,
        limits: SearchLimits,
    },
    /// The efficiency test on one set of growing walks (`likely::efficiency`):
    /// `tasks` walks drawn from (`seed`, `set`), solved in order under
    /// `alpha` (None: yhat, as the paper) until the set's time passes
    /// `budget_s`, each search under `limits`. Input: the learn job.
    PuzzleEfficiency {
        domain: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pdb_inputs: Option<String>,
        alpha: Option<f64>,
        tasks: u32,
        seed: u64,
        set: u32,
        budget_s: f64,
        limits: SearchLimits,
    },
    /// Trunda's bootstrap (Algorithm 1) for one configuration over the
    /// problems, without `held_out` when set; checkpointed after each round
    /// ([`crate::graphlearn`]).
    GraphBootstrap {
        domain: String,
        domain_pddl: String,
        problems: Vec<NamedProblem>,
        held_out: Option<String>,
        configuration: Configuration,
        bootstrap: BootstrapParams,
        network: NetworkParams,
        seed: u64,
    },
    /// A network trained on the bootstrap's samples of every problem but
    /// `held_out`, then A* with it on `held_out`. Input: the bootstrap.
    GraphFold {
        domain: String,
        held_out: String,
        configuration: Configuration,
        /// Also searched with these Delta-set adjustments (one row each).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        adjustments: Vec<Adjustment>,
        /// The thesis's adjustment experiment: classical heuristics adjusted
        /// by value Delta-sets of the training samples (one row each).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        value_adjustments: Vec<ValueAdjustment>,
        network: NetworkParams,
        search: SearchParams,
        seed: u64,
    },
    /// A* with a classical heuristic on one problem.
    GraphBaseline {
        domain: String,
        domain_pddl: String,
        problem: NamedProblem,
        heuristic: String,
        search: SearchParams,
    },
}

/// The kinds of job, in pipeline order. This enum is the one list of kinds:
/// the database, the dashboard and `/metrics` read it (`ALL`, `describe`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    Generate,
    Label,
    Train,
    Evaluate,
    Draw,
    Plan,
    Noop,
    PuzzleLearn,
    PuzzleSolve,
    PuzzleTest,
    PuzzleEfficiency,
    GraphBootstrap,
    GraphFold,
    GraphBaseline,
}

/// What a job kind is, for people and dashboards.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct KindInfo {
    pub name: &'static str,
    pub description: &'static str,
    /// Its queue.
    pub resource: Resource,
    /// Part of an experiment's pipeline (false: a measurement aid such as `noop`).
    pub pipeline: bool,
    /// Which inputs it cannot run without.
    pub needs: Needs,
}

/// Which of a job's inputs it cannot run without. When one of those has no
/// result (a slot left without an instance, a skipped job), the job is
/// skipped; the other inputs it uses as far as they exist.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Needs {
    /// Every input (a label job's instance; a plan job's model and instance).
    All,
    /// The first input (an evaluation's model; its test labels as far as they exist).
    First,
    /// None in particular (a training uses the labels that exist).
    Any,
}

impl Needs {
    /// Whether the input at `position` is required.
    pub fn requires(self, position: usize) -> bool {
        match self {
            Needs::All => true,
            Needs::First => position == 0,
            Needs::Any => false,
        }
    }
}

impl JobKind {
    pub const ALL: [JobKind; 14] = [
        JobKind::Generate,
        JobKind::Label,
        JobKind::Train,
        JobKind::Evaluate,
        JobKind::Draw,
        JobKind::Plan,
        JobKind::Noop,
        JobKind::PuzzleLearn,
        JobKind::PuzzleSolve,
        JobKind::PuzzleTest,
        JobKind::PuzzleEfficiency,
        JobKind::GraphBootstrap,
        JobKind::GraphFold,
        JobKind::GraphBaseline,
    ];

    pub fn describe(self) -> KindInfo {
        let (name, description, resource, pipeline, needs) = match self {
            JobKind::Generate => (
                "generate",
                "generate an instance and solve it optimally (A*+LM-cut); no instance if every try fails",
                Resource::Cpu,
                true,
                // Its gate (the same seed's easier slot); the same size's
                // lower seeds after it, where a grid asks for
                // `skip_after_failed_seeds`, only as far as they ended.
                Needs::First,
            ),
            JobKind::Label => (
                "label",
                "label the states of an optimal plan with h* and classical values",
                Resource::Cpu,
                true,
                Needs::All,
            ),
            JobKind::Train => ("train", "train one model (configuration x seed)", Resource::Gpu, true, Needs::Any),
            JobKind::Evaluate => ("evaluate", "test metrics of a trained model", Resource::Cpu, true, Needs::First),
            // Its own slot's instance decides, the previous draw only counts:
            // it runs whatever the others ended with.
            JobKind::Draw => (
                "draw",
                "draw a solved test instance into the planning sample (the first n in a fixed order)",
                Resource::Cpu,
                true,
                Needs::Any,
            ),
            // Learned heuristics of relational models go to GPU workers (`JobSpec::resource`).
            JobKind::Plan => ("plan", "greedy best-first search on a test instance", Resource::Cpu, true, Needs::All),
            JobKind::Noop => ("noop", "does nothing: measures the queue's overhead", Resource::Cpu, false, Needs::All),
            // Marom & Rosman: hand-written networks, one forward pass per IDA* node: CPU.
            JobKind::PuzzleLearn => (
                "puzzle_learn",
                "LearnHeuristicPrac on a permutation puzzle, checkpointed per iteration",
                Resource::Cpu,
                true,
                Needs::All,
            ),
            JobKind::PuzzleSolve => {
                ("puzzle_solve", "optimal cost of a puzzle test task (IDA*, PDBs)", Resource::Cpu, true, Needs::All)
            }
            JobKind::PuzzleTest => {
                ("puzzle_test", "IDA* with a learned heuristic under one alpha", Resource::Cpu, true, Needs::All)
            }
            JobKind::PuzzleEfficiency => (
                "puzzle_efficiency",
                "a learned heuristic on growing walks under a cumulative time budget",
                Resource::Cpu,
                true,
                Needs::All,
            ),
            // Trunda: a small MLP by hand; the searches dominate: CPU.
            JobKind::GraphBootstrap => (
                "graph_bootstrap",
                "bootstrapped training samples (Trunda, Algorithm 1), checkpointed per round",
                Resource::Cpu,
                true,
                Needs::All,
            ),
            JobKind::GraphFold => {
                ("graph_fold", "leave-one-out: train without one problem, A* on it", Resource::Cpu, true, Needs::All)
            }
            JobKind::GraphBaseline => {
                ("graph_baseline", "A* with a classical heuristic on one problem", Resource::Cpu, true, Needs::All)
            }
        };
        KindInfo { name, description, resource, pipeline, needs }
    }

    pub fn as_str(self) -> &'static str {
        self.describe().name
    }
}

impl std::fmt::Display for JobKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for JobKind {
    type Err = String;
    fn from_str(s: &str) -> Result<JobKind, String> {
        JobKind::ALL.into_iter().find(|k| k.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = JobKind::ALL.iter().map(|k| k.as_str()).collect();
            format!("unknown job kind `{s}`; expected one of {}", names.join(", "))
        })
    }
}

impl JobSpec {
    pub fn kind(&self) -> JobKind {
        match self {
            JobSpec::Generate { .. } => JobKind::Generate,
            JobSpec::Label { .. } => JobKind::Label,
            JobSpec::Draw { .. } => JobKind::Draw,
            JobSpec::Plan { .. } => JobKind::Plan,
            JobSpec::Train { .. } => JobKind::Train,
            JobSpec::Evaluate { .. } => JobKind::Evaluate,
            JobSpec::Noop { .. } => JobKind::Noop,
            JobSpec::PuzzleLearn { .. } => JobKind::PuzzleLearn,
            JobSpec::PuzzleSolve { .. } => JobKind::PuzzleSolve,
            JobSpec::PuzzleTest { .. } => JobKind::PuzzleTest,
            JobSpec::PuzzleEfficiency { .. } => JobKind::PuzzleEfficiency,
            JobSpec::GraphBootstrap { .. } => JobKind::GraphBootstrap,
            JobSpec::GraphFold { .. } => JobKind::GraphFold,
            JobSpec::GraphBaseline { .. } => JobKind::GraphBaseline,
        }
    }

    /// The resource class this job goes to: its kind's, except that a plan
    /// job with a learned heuristic goes where its model evaluates best.
    pub fn resource(&self) -> Resource {
        match self {
            JobSpec::Plan { heuristic: PlanHeuristic::Learned { model: Some(model), .. }, .. } => model.plans_on(),
            _ => self.kind().describe().resource,
        }
    }

    /// The Redis list it waits on: a relational model's learned plan job
    /// prefers a GPU but runs anywhere ([`Lane::GpuPreferred`]).
    pub fn lane(&self) -> Lane {
        Lane::of(self.kind(), self.resource())
    }
}

/// A node of the experiment DAG.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Job {
    pub key: JobKey,
    pub spec: JobSpec,
    /// Keys of the jobs whose results this one reads, in a meaningful order.
    pub inputs: Vec<JobKey>,
}

impl Job {
    pub fn new(spec: JobSpec, inputs: Vec<JobKey>) -> Job {
        Job { key: JobKey::of(&spec, &inputs), spec, inputs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Training needs a GPU-class worker; a relational model's learned plan
    /// job prefers one; workers without CUDA take those while no CUDA
    /// worker is alive, and a CUDA worker keeps to GPU work.
    #[test]
    fn lanes_route_gpu_preferring_jobs_to_whoever_is_free_without_cuda() {
        assert_eq!(Lane::of(JobKind::Train, Resource::Gpu), Lane::Gpu);
        assert_eq!(Lane::of(JobKind::Plan, Resource::Gpu), Lane::GpuPreferred);
        assert_eq!(Lane::of(JobKind::Plan, Resource::Cpu), Lane::Cpu);
        assert_eq!(Lane::served(Resource::Gpu, true, true), [Lane::Gpu, Lane::GpuPreferred]);
        assert_eq!(Lane::served(Resource::Cpu, false, true), [Lane::Cpu]);
        assert_eq!(Lane::served(Resource::Cpu, false, false), [Lane::Cpu, Lane::GpuPreferred]);
        assert_eq!(Lane::served(Resource::Gpu, false, false), [Lane::Gpu, Lane::GpuPreferred, Lane::Cpu]);
        assert_eq!(Lane::served(Resource::Gpu, false, true), [Lane::Gpu, Lane::Cpu]);
        for kind in JobKind::ALL {
            for resource in Resource::ALL {
                let lane = Lane::of(kind, resource);
                // Whatever the farm, some worker serves every lane.
                assert!(Lane::served(Resource::Gpu, true, true).contains(&lane) || lane == Lane::Cpu);
                assert!(Lane::served(Resource::Gpu, false, false).contains(&lane));
                assert_eq!(resource.as_str().parse::<Resource>(), Ok(resource));
            }
        }
    }

    /// Stored specs (the database, the queue) read back as they were
    /// written; bounds and residuals are checked against the registry.
    #[test]
    fn stored_specs_read_back_and_heuristic_names_are_checked() {
        for json in [
            r#"{"kind":"train","domain":"blocksworld","model":"nlm","distribution":"truncated","sigma":"learn","bound":"lmcut","residual":"ff","seed":3,"steps":40000,"train_instances":400}"#,
            r#"{"kind":"train","domain":"gripper","model":"linear","distribution":"gaussian","sigma":"fixed","bound":null,"residual":"none","seed":1,"steps":100,"train_instances":4}"#,
            r#"{"kind":"evaluate","domain":"gripper","bound":"blind"}"#,
            r#"{"kind":"plan","domain":"gripper","heuristic":{"source":"learned","clip":"hmax"},"limits":{"max_evaluations":10000,"time_s":600.0,"memory_mib":4096}}"#,
        ] {
            let spec: JobSpec = serde_json::from_str(json).unwrap();
            assert_eq!(serde_json::to_string(&spec).unwrap(), json);
        }
        let spec: JobSpec = serde_json::from_str(r#"{"kind":"evaluate","domain":"gripper","bound":"hmax"}"#).unwrap();
        assert!(matches!(spec, JobSpec::Evaluate { bound, .. } if bound.name() == "hmax"));
        let e = serde_json::from_str::<JobSpec>(r#"{"kind":"evaluate","domain":"gripper","bound":"ff"}"#).unwrap_err();
        assert!(e.to_string().contains("`ff` is not admissible"), "{e}");
        let train = r#"{"kind":"train","domain":"gripper","model":"linear","distribution":"gaussian","sigma":"fixed","bound":null,"residual":"fancy","seed":1,"steps":100,"train_instances":4}"#;
        let e = serde_json::from_str::<JobSpec>(train).unwrap_err();
        assert!(e.to_string().contains("unknown heuristic `fancy`"), "{e}");
        assert_eq!(crate::grid::Residual::new("none").unwrap(), crate::grid::Residual::NONE);
    }
}
