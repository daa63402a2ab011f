//! What each kind of job does, with the parameters that define it.

use planner::generate::Params;
use serde::{Deserialize, Serialize};

use crate::grid::{Bound, Distribution, Model, PlanLimits, Residual, Sigma, SolveLimits, Split};
use crate::JobKey;

/// The resource class a job needs: its Redis queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    Cpu,
    Gpu,
}

/// How a plan job computes its heuristic.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "source", rename_all = "snake_case")]
pub enum PlanHeuristic {
    /// A classical heuristic by name (blind, goalcount, hmax, hadd, ff, lmcut).
    Classical { name: String },
    /// The point estimate of the model trained by the job's first input (its
    /// best-validation-MSE weights): E[x], or for a Gaussian model with
    /// `clip`, mu clipped into [l, inf) for l of that bound (N+clip).
    Learned {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clip: Option<Bound>,
    },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobSpec {
    /// Generate an instance and solve it optimally (A*+LM-cut) within the
    /// limits; regenerate with derived seeds up to `limits.tries` times when
    /// it is unsolved in time or trivial (goal true at the start).
    Generate { domain: String, split: Split, params: Params, seed: u64, limits: SolveLimits },
    /// Label every state on the input instance's optimal plan with h* and the
    /// classical heuristics and relaxed-plan features. Input: the generate job.
    Label { domain: String, split: Split },
    /// Greedy best-first search on one test instance. Inputs: the generate
    /// job, preceded by the train job for a learned heuristic.
    Plan { domain: String, heuristic: PlanHeuristic, limits: PlanLimits },
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    Generate,
    Label,
    Plan,
    Train,
    Evaluate,
    Noop,
}

impl JobKind {
    pub const ALL: [JobKind; 5] = [JobKind::Generate, JobKind::Label, JobKind::Train, JobKind::Evaluate, JobKind::Plan];

    pub fn as_str(self) -> &'static str {
        match self {
            JobKind::Generate => "generate",
            JobKind::Label => "label",
            JobKind::Plan => "plan",
            JobKind::Train => "train",
            JobKind::Evaluate => "evaluate",
            JobKind::Noop => "noop",
        }
    }
}

impl JobSpec {
    pub fn kind(&self) -> JobKind {
        match self {
            JobSpec::Generate { .. } => JobKind::Generate,
            JobSpec::Label { .. } => JobKind::Label,
            JobSpec::Plan { .. } => JobKind::Plan,
            JobSpec::Train { .. } => JobKind::Train,
            JobSpec::Evaluate { .. } => JobKind::Evaluate,
            JobSpec::Noop { .. } => JobKind::Noop,
        }
    }

    pub fn resource(&self) -> Resource {
        match self {
            JobSpec::Train { .. } => Resource::Gpu,
            _ => Resource::Cpu,
        }
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

/// The generator seed of a generate job's `attempt`-th try (0-based): derived
/// from the split too, so that a train and a test instance with the same
/// parameters and seed number are different instances.
pub fn generator_seed(split: crate::grid::Split, seed: u64, attempt: u32) -> u64 {
    let k = JobKey::of(&("generator-seed", split, seed, attempt), &[]);
    u64::from_str_radix(&k.0[..16], 16).expect("hex digest")
}
