//! Marom & Rosman's experiment as a farm experiment kind (`[[likely]]`
//! blocks of a grid): LearnHeuristicPrac per (domain, seed), the optimal
//! cost of every test task, and a test run per (alpha, test task).
//!
//! ```toml
//! [[likely]]
//! domain = "15-puzzle"            # a sliding-tile puzzle, N-pancake or N-blocksworld
//! inputs = "one_hot"              # sliding tiles; or "pdb": PDB values as features,
//! # patterns = "marom-rosman"     # from this pattern set (default: the paper's, else the domain's first)
//! settings = "paper"              # or "tiny" (likely::Settings presets)
//! model = "quantile"              # or "mean" (the tables' N/A rows)
//! iterations = 50                 # NumIter
//! seeds = [1]
//! train_limits = { time_s = 60 }  # per training task; or max_generated
//! alphas = [0.95, 0.75, 0.5, 0.25, 0.05]
//! test = { set = "korf100:1-10" } # or { walks = 100, length = 1000, seed = 1 };
//! # a set's optima are re-found by IDA* and checked, or with
//! # optimal = "published" taken as published (hours to days each for the 24-puzzle)
//! test_limits = { time_s = 600 }
//! ```
//!
//! The efficiency experiment (the paper's Table 8) is the same block with
//! other task sources and the growing-walk test:
//!
//! ```toml
//! [[likely]]
//! domain = "15-puzzle"
//! model = "mean"                  # the code tests efficiency with yhat
//! iterations = 50
//! seeds = [1, 2, 3, 4, 5]
//! tasks = ["uncertainty", "k1", "k2", "k4", "k6", "k8", "k10"]  # GTP, LengthInc walks
//! train_limits = { time_s = 1 }   # the efficiency runs' t_max
//! test = { growing = 1000, sets = 5, budget_s = 60, seed = 1 }
//! test_limits = { time_s = 60 }   # per task (default: the budget)
//! ```
//!
//! `tasks` (default `["uncertainty"]`) crosses the learners with their
//! task source: GenerateTaskPrac, or `kN`, random walks of N moves in the
//! first iteration, 2N in the second, and so on. `growing` makes `sets`
//! sets of that many tasks, task j a walk of j + 1 moves
//! (`likely::efficiency`), each run by one `puzzle_efficiency` job per
//! learner and alpha, which stops once the set's time passes `budget_s`; no
//! optimal costs are needed.
//!
//! Jobs: `puzzle_learn` (one per seed; checkpointed after every
//! iteration, a new attempt resumes from the last one), `puzzle_solve`
//! (the optimal cost of a test task, IDA* with the family's
//! `optimal_heuristic`: PDBs, the gap heuristic for pancakes; shared by
//! every learner and alpha), `puzzle_test` (inputs: the learner, then the
//! task's solve job), `puzzle_efficiency` (a growing-walk set; input: the
//! learner).

use likely::inputs::{pattern_set, tiles};
use serde::{Deserialize, Serialize};

use crate::split::{FloatList, IntList};

/// Which of `likely::Settings`' presets a run uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Preset {
    /// The paper's hyper-parameters (the notes' section 1.1).
    Paper,
    /// Few tasks and small networks: demos and tests.
    Tiny,
}

impl Preset {
    /// Its name in grids and job specs.
    pub fn as_str(self) -> &'static str {
        match self {
            Preset::Paper => "paper",
            Preset::Tiny => "tiny",
        }
    }
}

/// What the network predicts and plans with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// Mean and aleatoric sigma; plans with the alpha quantile (the method).
    Quantile,
    /// Mean only; plans with yhat (the tables' N/A rows).
    Mean,
}

/// The network's inputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Inputs {
    /// One-hot tiles (the paper's 15-puzzle representation).
    OneHot,
    /// The values of a pattern set's PDBs and their group sums, with the
    /// domain's extra features (the paper's 24-puzzle, 24-pancake and
    /// 15-blocksworld representations: `likely::features`).
    Pdb,
}

/// Limits of one IDA* search: seconds, generated nodes, or both (None: none).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchLimits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_generated: Option<u64>,
}

/// Where a learner's training tasks come from (`likely::settings::TaskSource`),
/// written as the code names its runs: `uncertainty` (GenerateTaskPrac, the
/// tables' GTP) or `kN` (random walks of N x (iteration + 1) moves).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub enum TaskSource {
    #[default]
    Uncertainty,
    RandomWalk {
        length_inc: u32,
    },
}

impl TaskSource {
    /// GenerateTaskPrac: the default, left out of a learner's spec (and key).
    pub fn is_uncertainty(&self) -> bool {
        *self == TaskSource::Uncertainty
    }
}

impl std::fmt::Display for TaskSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TaskSource::Uncertainty => f.write_str("uncertainty"),
            TaskSource::RandomWalk { length_inc } => write!(f, "k{length_inc}"),
        }
    }
}

impl From<TaskSource> for String {
    fn from(t: TaskSource) -> String {
        t.to_string()
    }
}

/// The longest LengthInc (the paper's: 10).
pub const MAX_LENGTH_INC: u32 = 1000;

impl TryFrom<String> for TaskSource {
    type Error = String;
    fn try_from(s: String) -> Result<TaskSource, String> {
        if s == "uncertainty" {
            return Ok(TaskSource::Uncertainty);
        }
        match s.strip_prefix('k').map(str::parse::<u32>) {
            Some(Ok(n)) if (1..=MAX_LENGTH_INC).contains(&n) => Ok(TaskSource::RandomWalk { length_inc: n }),
            _ => Err(format!(
                "task source `{s}`: `uncertainty` (GenerateTaskPrac) or kN, random walks growing by N moves per \
                 iteration (1 <= N <= {MAX_LENGTH_INC})"
            )),
        }
    }
}

/// Where the test tasks come from.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TestTasks {
    /// A benchmark set with published optimal costs: `korf100`,
    /// `korf-felner24`, `korf-taylor24`, or part of one (`korf100:1-10`, ids
    /// 1-based).
    #[serde(default)]
    pub set: Option<String>,
    /// Random walks from the goal, as the authors' code makes test tasks.
    #[serde(default)]
    pub walks: Option<u32>,
    /// Moves per walk (the authors' code: 1000).
    #[serde(default = "default_walk_length")]
    pub length: u32,
    /// Seed of the first walk (then +1, +2, ...).
    #[serde(default = "default_walk_seed")]
    pub seed: u64,
    /// Where a set's optimal costs come from.
    #[serde(default)]
    pub optimal: OptimalFrom,
    /// The efficiency test: sets of this many growing walks (the code: 1000),
    /// task j a (j + 1)-move walk, each set stopped by `budget_s`.
    #[serde(default)]
    pub growing: Option<u32>,
    /// Sets of growing walks (the code: 5 per run); set i is drawn from
    /// (`seed`, i).
    #[serde(default = "default_sets")]
    pub sets: u32,
    /// The cumulative budget of a set, seconds (the code: 60).
    #[serde(default = "default_budget")]
    pub budget_s: f64,
}

fn default_sets() -> u32 {
    likely::efficiency::PAPER_SETS
}
fn default_budget() -> f64 {
    likely::efficiency::PAPER_BUDGET.as_secs_f64()
}

/// Where the optimal costs of a benchmark set's tasks come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OptimalFrom {
    /// The farm's IDA* (the family's `optimal_heuristic`), which must find the
    /// published optimum (a solve job fails otherwise).
    #[default]
    Search,
    /// The published optima as they are, without a search: for sets whose
    /// optima cost hours to days each (Korf & Felner's 24-puzzle fifty).
    Published,
}

/// The most test walks a block may ask for, and the longest walk: they
/// are made when the grid is read (`hfarm submit`).
pub const MAX_WALKS: u32 = 10_000;
pub const MAX_WALK_LENGTH: u32 = 100_000;
/// The most sets of growing walks (their walks are made by the workers).
pub const MAX_SETS: u32 = 1000;

fn default_walk_length() -> u32 {
    1000
}
fn default_walk_seed() -> u64 {
    1
}

/// A `[[likely]]` block.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    pub domain: String,
    #[serde(default = "default_inputs")]
    pub inputs: Inputs,
    /// The pattern set of PDB inputs (`puzzles::pdb::sets`).
    #[serde(default)]
    pub patterns: Option<String>,
    #[serde(default = "default_preset")]
    pub settings: Preset,
    #[serde(default = "default_rule")]
    pub model: Rule,
    pub iterations: u32,
    pub seeds: IntList,
    /// Training task sources, crossed with the seeds (default: GenerateTaskPrac).
    #[serde(default = "default_tasks")]
    pub tasks: Vec<TaskSource>,
    /// Per training task (the paper: 60 s; its efficiency runs: 1 s).
    #[serde(default)]
    pub train_limits: SearchLimits,
    /// Test alphas (a `mean` model plans once per task, without alpha).
    #[serde(default)]
    pub alphas: Option<FloatList>,
    pub test: TestTasks,
    #[serde(default)]
    pub test_limits: SearchLimits,
}

fn default_inputs() -> Inputs {
    Inputs::OneHot
}
fn default_preset() -> Preset {
    Preset::Paper
}
fn default_rule() -> Rule {
    Rule::Quantile
}
fn default_tasks() -> Vec<TaskSource> {
    vec![TaskSource::Uncertainty]
}

/// One test task: its start state as cells (`tiles[pos]`, 0 the blank),
/// and its published optimal cost where it comes from a benchmark set.
#[derive(Debug, Clone, PartialEq)]
pub struct TestTask {
    pub cells: Vec<u8>,
    pub published: Option<u32>,
}

/// The cells as job specs write them: numbers separated by spaces.
pub fn cells_text(cells: &[u8]) -> String {
    cells.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" ")
}

impl Block {
    /// The alphas a test runs under: None (yhat) for a mean model.
    pub fn test_alphas(&self) -> Vec<Option<f64>> {
        match self.model {
            Rule::Mean => vec![None],
            Rule::Quantile => self.alphas.as_ref().map_or(vec![], |a| a.0.iter().map(|&x| Some(x)).collect()),
        }
    }

    /// The pattern set of PDB inputs (None: one-hot inputs).
    pub fn pdb_patterns(&self) -> Result<Option<&'static str>, String> {
        match self.inputs {
            Inputs::OneHot => Ok(None),
            Inputs::Pdb => pattern_set(&self.domain, self.patterns.as_deref()).map(Some),
        }
    }

    /// Whether the block runs the efficiency test (growing walks).
    pub fn growing(&self) -> Option<u32> {
        self.test.growing
    }

    /// The test tasks, in order (deterministic: sets by id, walks by seed);
    /// none for growing walks, which their jobs make.
    pub fn test_tasks(&self) -> Result<Vec<TestTask>, String> {
        let d = puzzles::by_name(&self.domain).map_err(|e| e.to_string())?;
        match (&self.test.set, self.test.walks, self.test.growing) {
            (None, None, Some(_)) => Ok(vec![]),
            (Some(set), None, None) => {
                let cells = puzzles::Domain::size(&tiles(&self.domain)?);
                let all = puzzles::instances::set(set, cells)?;
                Ok(all.into_iter().map(|i| TestTask { cells: i.cells, published: Some(i.optimal) }).collect())
            }
            (None, Some(n), None) => Ok((0..n as u64)
                .map(|k| TestTask {
                    cells: d.random_walk(self.test.length, self.test.seed + k).cells().to_vec(),
                    published: None,
                })
                .collect()),
            _ => Err("give exactly one of `set`, `walks` and `growing`".into()),
        }
    }

    /// Checks what serde cannot; `at` is the block's key path.
    pub fn check(&self, at: &str) -> Result<(), String> {
        puzzles::by_name(&self.domain).map_err(|e| format!("{at}.domain: {e}"))?;
        match self.inputs {
            Inputs::OneHot if self.patterns.is_some() => {
                return Err(format!("{at}.patterns: only PDB inputs (inputs = \"pdb\") read a pattern set"))
            }
            Inputs::OneHot => {
                tiles(&self.domain).map_err(|e| format!("{at}.domain: {e}"))?;
            }
            Inputs::Pdb => {
                self.pdb_patterns().map_err(|e| format!("{at}.patterns: {e}"))?;
            }
        }
        if self.iterations == 0 {
            return Err(format!("{at}.iterations: must be at least 1"));
        }
        for (name, l) in [("train_limits", &self.train_limits), ("test_limits", &self.test_limits)] {
            if l.time_s.is_some_and(|t| !(t.is_finite() && t > 0.0)) || l.max_generated == Some(0) {
                return Err(format!("{at}.{name}: time_s and max_generated must be positive"));
            }
        }
        match (self.model, &self.alphas) {
            (Rule::Quantile, None) => return Err(format!("{at}.alphas: a quantile model needs test alphas")),
            (Rule::Mean, Some(_)) => return Err(format!("{at}.alphas: a mean model plans without alpha")),
            _ => {}
        }
        if let Some(a) = &self.alphas {
            if let Some((i, x)) = a.0.iter().enumerate().find(|(_, x)| !(**x > 0.0 && **x < 1.0)) {
                return Err(format!("{at}.alphas[{i}]: {x} is not a probability strictly between 0 and 1"));
            }
        }
        if self.test.optimal == OptimalFrom::Published && self.test.set.is_none() {
            return Err(format!("{at}.test.optimal: only a benchmark set has published optima (give `set`)"));
        }
        if self.test.walks == Some(0) || self.test.length == 0 {
            return Err(format!("{at}.test: walks and length must be positive"));
        }
        if self.tasks.is_empty() {
            return Err(format!("{at}.tasks: give at least one task source"));
        }
        if let Some((i, _)) = self.tasks.iter().enumerate().find(|(i, t)| self.tasks[..*i].contains(t)) {
            return Err(format!("{at}.tasks[{i}]: {} is given twice", self.tasks[i]));
        }
        if let Some(n) = self.test.growing {
            if n == 0 || n > MAX_WALKS || self.test.sets == 0 || self.test.sets > MAX_SETS {
                return Err(format!(
                    "{at}.test: growing must be 1..={MAX_WALKS} tasks, sets 1..={MAX_SETS} (the code: 1000 tasks, 5 sets)"
                ));
            }
            if !(self.test.budget_s.is_finite() && self.test.budget_s > 0.0) {
                return Err(format!("{at}.test.budget_s: must be positive"));
            }
        }
        // The walks are made while the grid is read: bound them.
        if self.test.walks.is_some_and(|n| n > MAX_WALKS) || self.test.length > MAX_WALK_LENGTH {
            return Err(format!(
                "{at}.test: at most {MAX_WALKS} walks of at most {MAX_WALK_LENGTH} moves (the authors' code: 1000 moves)"
            ));
        }
        self.test_tasks().map_err(|e| format!("{at}.test: {e}"))?;
        Ok(())
    }

    /// Jobs per seed and in all: (learn + tasks x (solve + alphas)) bounded without expanding.
    pub fn size(&self) -> (u64, u64) {
        let tasks = match (&self.test.set, self.test.walks, self.test.growing) {
            (_, _, Some(_)) => self.test.sets as u64,
            (_, Some(n), _) => n as u64,
            _ => 100,
        };
        let learners = (self.seeds.0.len() as u64).saturating_mul(self.tasks.len().max(1) as u64);
        let tests = learners.saturating_mul(tasks).saturating_mul(self.test_alphas().len() as u64);
        (learners.saturating_add(tasks).saturating_add(tests), tests.saturating_mul(2))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::likely::expand;
    use crate::JobSpec;

    fn block(text: &str) -> Result<Block, String> {
        let b: Block = toml::from_str(text).map_err(|e| e.to_string())?;
        b.check("likely[0]")?;
        Ok(b)
    }

    #[test]
    fn a_block_expands_into_learners_solves_and_tests() {
        let b = block(
            "domain = '8-puzzle'\nsettings = 'tiny'\niterations = 2\nseeds = [1, 2]\nalphas = [0.9, 0.5]\n\
             test = { walks = 3, length = 40 }\n",
        )
        .unwrap();
        let mut jobs = vec![];
        expand(&b, &mut |j| {
            let k = j.key.clone();
            jobs.push(j);
            k
        });
        let count = |kind: &str| jobs.iter().filter(|j| j.spec.kind().as_str() == kind).count();
        assert_eq!((count("puzzle_solve"), count("puzzle_learn"), count("puzzle_test")), (3, 2, 12));
        let (bound, _) = b.size();
        assert!(bound >= jobs.len() as u64);
        // The cost model and the database group learners by this name.
        for p in [Preset::Paper, Preset::Tiny] {
            assert_eq!(serde_json::to_value(p).unwrap(), p.as_str());
        }
        // Walks are seeded: the same block gives the same states.
        assert_eq!(b.test_tasks().unwrap(), b.test_tasks().unwrap());
    }

    /// A set's tasks carry their published optima to the solve jobs, which
    /// search and check them, or take them as they are when the grid says so.
    #[test]
    fn set_tasks_carry_their_published_optima() {
        let solves = |optimal: &str| {
            let b = block(&format!(
                "domain = '15-puzzle'\nsettings = 'tiny'\niterations = 1\nseeds = [1]\nalphas = [0.5]\n\
                 test = {{ set = 'korf100:12' {optimal} }}\n"
            ))
            .unwrap();
            let mut specs = vec![];
            expand(&b, &mut |j| {
                let k = j.key.clone();
                if let JobSpec::PuzzleSolve { published, trust_published, .. } = &j.spec {
                    specs.push((*published, *trust_published, k.clone()));
                }
                k
            });
            specs
        };
        let (searched, trusted) = (solves(""), solves(", optimal = 'published'"));
        assert_eq!((searched[0].0, searched[0].1), (Some(45), false));
        assert_eq!((trusted[0].0, trusted[0].1), (Some(45), true));
        assert_ne!(searched[0].2, trusted[0].2, "different work, different keys");
        // Walks have no published optimum: their keys stay as they were.
        let b = block("domain = '8-puzzle'\nsettings = 'tiny'\niterations = 1\nseeds = [1]\nalphas = [0.5]\ntest = { walks = 1 }\n")
            .unwrap();
        let spec = JobSpec::PuzzleSolve {
            domain: "8-puzzle".into(),
            state: cells_text(&b.test_tasks().unwrap()[0].cells),
            published: None,
            trust_published: false,
        };
        assert_eq!(serde_json::to_value(&spec).unwrap().as_object().unwrap().len(), 3, "kind, domain, state");
    }

    /// Table 8's block: learners per seed and task source, each tested on
    /// every set of growing walks; no solve jobs; GenerateTaskPrac learners
    /// keep the keys they had before task sources existed.
    #[test]
    fn an_efficiency_block_crosses_task_sources_and_tests_growing_walk_sets() {
        let b = block(
            "domain = '8-puzzle'\nsettings = 'tiny'\nmodel = 'mean'\niterations = 2\nseeds = [1, 2]\n\
             tasks = ['k1', 'k10', 'uncertainty']\ntrain_limits = { time_s = 1 }\n\
             test = { growing = 50, sets = 3, budget_s = 2.5, seed = 4 }\n",
        )
        .unwrap();
        assert!(b.test_tasks().unwrap().is_empty());
        let mut jobs = vec![];
        expand(&b, &mut |j| {
            let k = j.key.clone();
            jobs.push(j);
            k
        });
        let count = |kind: &str| jobs.iter().filter(|j| j.spec.kind().as_str() == kind).count();
        assert_eq!((count("puzzle_learn"), count("puzzle_solve"), count("puzzle_efficiency")), (6, 0, 18));
        assert!(b.size().0 >= jobs.len() as u64);
        let sources: Vec<String> = jobs
            .iter()
            .filter_map(|j| match &j.spec {
                JobSpec::PuzzleLearn { seed: 1, tasks, .. } => Some(tasks.to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(sources, ["k1", "k10", "uncertainty"]);
        let sets: Vec<(u32, u64, f64, Option<f64>)> = jobs
            .iter()
            .filter_map(|j| match &j.spec {
                JobSpec::PuzzleEfficiency { set, seed, budget_s, alpha, tasks: 50, .. } => {
                    assert_eq!(j.inputs.len(), 1, "the learner only");
                    Some((*set, *seed, *budget_s, *alpha))
                }
                _ => None,
            })
            .take(3)
            .collect();
        assert_eq!(sets, [(0, 4, 2.5, None), (1, 4, 2.5, None), (2, 4, 2.5, None)]);
        // A kN learner says so in its spec; GenerateTaskPrac is left out.
        let json = |t: &str| {
            let l = jobs
                .iter()
                .find(|j| matches!(&j.spec, JobSpec::PuzzleLearn { tasks, .. } if tasks.to_string() == t))
                .unwrap();
            serde_json::to_value(&l.spec).unwrap()
        };
        assert_eq!(json("k10")["tasks"], "k10");
        assert!(json("uncertainty").get("tasks").is_none());
        for (text, ok) in [("k2", true), ("uncertainty", true), ("k0", false), ("kx", false), ("gtp", false)] {
            assert_eq!(TaskSource::try_from(text.to_string()).is_ok(), ok, "{text}");
        }
        // The default test set sizes are the code's.
        let b = block(
            "domain = '8-puzzle'\nsettings = 'tiny'\nmodel = 'mean'\niterations = 1\nseeds = [1]\n\
             test = { growing = 1000 }\n",
        )
        .unwrap();
        assert_eq!((b.test.sets, b.test.budget_s, b.tasks.clone()), (5, 60.0, vec![TaskSource::Uncertainty]));
    }

    #[test]
    fn bad_blocks_name_their_key() {
        let base = "settings = 'tiny'\niterations = 2\nseeds = [1]\n";
        let cases = [
            ("domain = 'pancake-24'\nalphas = [0.5]\ntest = { walks = 2 }", "likely[0].domain"),
            ("domain = '24-pancake'\nalphas = [0.5]\ntest = { walks = 2 }", "give inputs = \"pdb\""),
            (
                "domain = '8-puzzle'\ninputs = 'pdb'\npatterns = 'x'\nalphas = [0.5]\ntest = { walks = 2 }",
                "no pattern set `x`",
            ),
            ("domain = '8-puzzle'\npatterns = '4-4'\nalphas = [0.5]\ntest = { walks = 2 }", "likely[0].patterns"),
            ("domain = '8-puzzle'\nalphas = [1.5]\ntest = { walks = 2 }", "likely[0].alphas[0]"),
            ("domain = '8-puzzle'\ntest = { walks = 2 }", "likely[0].alphas"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { set = 'korf100' }", "a set of 15-puzzle states"),
            ("domain = '15-puzzle'\nalphas = [0.5]\ntest = { set = 'korf100:200-300' }", "no instance has an id"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { }", "exactly one of"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { walks = 4000000000 }", "at most 10000 walks"),
            (
                "domain = '8-puzzle'\nalphas = [0.5]\ntest = { walks = 2, optimal = 'published' }",
                "likely[0].test.optimal",
            ),
            ("domain = '15-puzzle'\nalphas = [0.5]\ntest = { set = 'korf100', optimal = 'guess' }", "unknown variant"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { walks = 2, growing = 10 }", "exactly one of"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { growing = 0 }", "growing must be"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { growing = 10, sets = 0 }", "growing must be"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntest = { growing = 10, budget_s = -1 }", "likely[0].test.budget_s"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntasks = ['k3', 'k3']\ntest = { walks = 2 }", "likely[0].tasks[1]"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntasks = []\ntest = { walks = 2 }", "likely[0].tasks"),
            ("domain = '8-puzzle'\nalphas = [0.5]\ntasks = ['k-1']\ntest = { walks = 2 }", "task source `k-1`"),
        ];
        for (text, expected) in cases {
            let e = block(&format!("{base}{text}\n")).unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
        }
        let pancake =
            block(&format!("{base}domain = '24-pancake'\ninputs = 'pdb'\nalphas = [0.5]\ntest = {{ walks = 2 }}\n"));
        assert_eq!(pancake.unwrap().pdb_patterns().unwrap(), Some("marom-rosman"));
        let korf = block(&format!("{base}domain = '15-puzzle'\nalphas = [0.5]\ntest = {{ set = 'korf100:1-10' }}\n"));
        assert_eq!(korf.unwrap().test_tasks().unwrap().len(), 10);
    }
}
