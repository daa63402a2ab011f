//! Trunda's experiment as a farm experiment kind (`[[graphlearn]]` blocks
//! of a grid): per configuration (alpha x loss x with/without hFF) and
//! seed, the bootstrap of Algorithm 1 over the problems, then
//! leave-one-out: a network trained without each problem searches it with
//! A*; and A* with the baseline heuristics on every problem.
//!
//! ```toml
//! [[graphlearn]]
//! domain = "blocksworld"
//! problems = { seeds = "1..2", blocks = [5, 6, 7] }  # the domain's generator
//! # or your own files, read by `hfarm submit` relative to the grid file:
//! # domain_file = "ipc/domain.pddl"
//! # problem_files = ["ipc/probBLOCKS-4-0.pddl", ...]   # or a directory: ["ipc/"]
//! alphas = [2, 3, 4]
//! losses = ["mse", "log_mse"]
//! ff_input = [false, true]
//! samples = "shared"          # one bootstrap over every problem; or "per_fold"
//! adjustments = ["min", "avg", "shift"]   # also search with h_min, h_avg, h_shift
//! # the thesis's adjustment experiment (section 5.2.2): classical heuristics
//! # adjusted by the Delta-sets of their values (modes: all three by default)
//! value_adjustments = { heuristics = ["goalcount", "ff"], modes = ["min", "avg", "shift"] }
//! seeds = [1]
//! baselines = ["ff", "goalcount"]
//! bootstrap = { rounds = 5, unit_expansions = 2000, enough_samples = 2000 }
//! network = { patience = 15, max_epochs = 200 }
//! search = { time_s = 60, max_evaluations = 200000 }
//! ```
//!
//! Jobs: `graph_bootstrap` (checkpointed after every round, a new attempt
//! resumes from the last; stores the problems and their samples),
//! `graph_fold` (input: the bootstrap; one row per held-out problem),
//! `graph_baseline` (one row per problem and heuristic).
//!
//! `value_adjustments`: the folds of the block's *first* configuration (per
//! seed) also search each held-out problem with each heuristic adjusted by
//! the Delta-sets of its values over the other problems' samples (rows
//! `goalcount:min`; the thesis used its one data set, here that
//! configuration's bootstrap). Adjusted rows, of networks too, count the
//! states whose Delta-set no training sample had (fallbacks to plain h).
//!
//! "shared": a bootstrap per (configuration, seed) over all problems, and
//! each fold trains on the samples of the others (cheap; the held-out
//! problem influenced which states the bootstrap's models picked).
//! "per_fold": a bootstrap per fold over its training problems only (the
//! held-out problem never influences training; n times the bootstraps).
//! The thesis does not say which it did.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::split::{IntList, SplitSeed};

/// A problem as jobs carry it: a name (unique in its block) and its PDDL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NamedProblem {
    pub name: String,
    pub pddl: String,
}

/// The regression loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    Mse,
    LogMse,
}

/// One learned configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Configuration {
    pub alpha: u32,
    pub loss: Loss,
    pub ff_input: bool,
}

impl Configuration {
    /// `a3-logmse+ff`: the name report rows carry (as graphlearn's).
    pub fn name(&self) -> String {
        let loss = match self.loss {
            Loss::Mse => "mse",
            Loss::LogMse => "logmse",
        };
        format!("a{}-{loss}{}", self.alpha, if self.ff_input { "+ff" } else { "" })
    }
}

/// A Delta-set adjustment of a learned heuristic (thesis, section 5): the
/// least, the mean, or h clamped into the range of h* among the training
/// samples with the same feature vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Adjustment {
    Min,
    Avg,
    Shift,
}

/// A classical heuristic adjusted by the Delta-sets of its values.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ValueAdjustment {
    pub heuristic: String,
    pub mode: Adjustment,
}

/// A block's `value_adjustments`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValueAdjustments {
    pub heuristics: Vec<String>,
    #[serde(default = "all_modes")]
    pub modes: Vec<Adjustment>,
}

fn all_modes() -> Vec<Adjustment> {
    vec![Adjustment::Min, Adjustment::Avg, Adjustment::Shift]
}

impl ValueAdjustments {
    /// Heuristic by heuristic, each mode in order.
    pub fn list(&self) -> Vec<ValueAdjustment> {
        let mut out = vec![];
        for h in &self.heuristics {
            for &mode in &self.modes {
                out.push(ValueAdjustment { heuristic: h.clone(), mode });
            }
        }
        out
    }
}

/// Where a fold's training samples come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Samples {
    Shared,
    PerFold,
}

/// Algorithm 1's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BootstrapParams {
    /// Rounds at most.
    #[serde(default = "default_rounds")]
    pub rounds: u32,
    /// Round L searches each problem under L times this many expansions
    /// (deterministic) ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_expansions: Option<u64>,
    /// ... or seconds (the thesis: minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_seconds: Option<f64>,
    /// Stop once this many samples are labelled.
    #[serde(default = "default_enough")]
    pub enough_samples: u64,
    /// A*+LM-cut's evaluation limit per labelled state (domains without a solver).
    #[serde(default = "default_label_evaluations")]
    pub label_max_evaluations: u64,
    /// A registered near-optimal domain solver to label with
    /// (`planner::solvers`: `blocksworld-goodtower`, `zenotravel-ga`); by
    /// default the solver registered for the PDDL domain's name, else
    /// A*+LM-cut. Name it for your own files of a solver's domain (the IPC
    /// blocksworld's domain is called `blocks`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub solver: Option<String>,
}

fn default_rounds() -> u32 {
    5
}
fn default_enough() -> u64 {
    5000
}
fn default_label_evaluations() -> u64 {
    200_000
}

impl Default for BootstrapParams {
    fn default() -> Self {
        BootstrapParams {
            rounds: default_rounds(),
            unit_expansions: None,
            unit_seconds: None,
            enough_samples: default_enough(),
            label_max_evaluations: default_label_evaluations(),
            solver: None,
        }
    }
}

/// The network and its training (the thesis's MLP unless set).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkParams {
    /// Hidden widths (the thesis: 256, 512, 128, 64, 32).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<Vec<usize>>,
    /// Epochs without a better validation loss before stopping (the thesis: 1000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub patience: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_epochs: Option<usize>,
    /// Seconds of training at most per network (machine-dependent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_seconds: Option<f64>,
}

/// Limits of an evaluation search (A*).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchParams {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_s: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_evaluations: Option<u64>,
}

impl Default for SearchParams {
    /// The thesis's main experiment: 30 minutes per problem.
    fn default() -> Self {
        SearchParams { time_s: Some(1800.0), max_evaluations: Some(5_000_000) }
    }
}

/// A `[[graphlearn]]` block.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Block {
    /// A domain of the planner's generators, or any name with `domain_file`.
    pub domain: String,
    /// Generated problems: `seeds` and the domain's generator parameters.
    #[serde(default)]
    pub problems: Option<toml::Table>,
    #[serde(default)]
    pub domain_file: Option<String>,
    #[serde(default)]
    pub problem_files: Vec<String>,
    pub alphas: IntList,
    #[serde(default = "both_losses")]
    pub losses: Vec<Loss>,
    #[serde(default = "both_ff")]
    pub ff_input: Vec<bool>,
    #[serde(default = "default_samples")]
    pub samples: Samples,
    /// Each fold also searches with its network adjusted (rows `a3-mse:min`).
    #[serde(default)]
    pub adjustments: Vec<Adjustment>,
    /// The thesis's adjustment experiment, on the first configuration's folds.
    #[serde(default)]
    pub value_adjustments: Option<ValueAdjustments>,
    pub seeds: IntList,
    #[serde(default = "default_baselines")]
    pub baselines: Vec<String>,
    #[serde(default)]
    pub bootstrap: BootstrapParams,
    #[serde(default)]
    pub network: NetworkParams,
    #[serde(default)]
    pub search: SearchParams,
    /// The domain's and the problems' PDDL once known: generated by
    /// [`Block::check`], or read from the files by [`Block::read_files`].
    #[serde(skip)]
    pub loaded: Option<(String, Vec<NamedProblem>)>,
}

fn both_losses() -> Vec<Loss> {
    vec![Loss::Mse, Loss::LogMse]
}
fn both_ff() -> Vec<bool> {
    vec![false, true]
}
fn default_samples() -> Samples {
    Samples::Shared
}
fn default_baselines() -> Vec<String> {
    vec!["ff".into(), "goalcount".into()]
}

/// The most problems a block may have (it runs a fold per problem and
/// configuration; generated ones are made when the grid is read).
pub const MAX_PROBLEMS: usize = 1000;

/// The largest problem file `hfarm submit` reads.
const MAX_FILE_BYTES: u64 = 4 << 20;

impl Block {
    pub fn configurations(&self) -> Vec<Configuration> {
        let mut out = vec![];
        for &alpha in &self.alphas.0 {
            for &loss in &self.losses {
                for &ff_input in &self.ff_input {
                    out.push(Configuration { alpha: alpha as u32, loss, ff_input });
                }
            }
        }
        out
    }

    /// Checks what serde cannot and generates the problems of a
    /// `problems` table; `at` is the block's key path.
    pub fn check(&mut self, at: &str) -> Result<(), String> {
        if let Some((i, a)) = self.alphas.0.iter().enumerate().find(|(_, a)| !(2..=5).contains(*a)) {
            return Err(format!("{at}.alphas[{i}]: {a} is outside 2..5 (subgraphs of 2 to 5 vertices)"));
        }
        if self.losses.is_empty() || self.ff_input.is_empty() {
            return Err(format!("{at}: losses and ff_input must list at least one value"));
        }
        for (i, h) in self.baselines.iter().enumerate() {
            if planner::heuristics::info(h).is_none() {
                return Err(format!(
                    "{at}.baselines[{i}]: unknown heuristic `{h}`; expected one of {}",
                    planner::heuristics::NAMES.join(", ")
                ));
            }
        }
        if let Some(v) = &self.value_adjustments {
            if v.heuristics.is_empty() || v.modes.is_empty() {
                return Err(format!("{at}.value_adjustments: heuristics and modes must list at least one value"));
            }
            // A row is named by heuristic and mode: a repeat would be a second row of the same name.
            if let Some(i) = (1..v.heuristics.len()).find(|&i| v.heuristics[..i].contains(&v.heuristics[i])) {
                return Err(format!("{at}.value_adjustments.heuristics[{i}]: `{}` is listed twice", v.heuristics[i]));
            }
            if let Some(i) = (1..v.modes.len()).find(|&i| v.modes[..i].contains(&v.modes[i])) {
                return Err(format!("{at}.value_adjustments.modes[{i}]: listed twice"));
            }
            for (i, h) in v.heuristics.iter().enumerate() {
                if planner::heuristics::info(h).is_none() {
                    return Err(format!(
                        "{at}.value_adjustments.heuristics[{i}]: unknown heuristic `{h}`; expected one of {}",
                        planner::heuristics::NAMES.join(", ")
                    ));
                }
            }
        }
        let b = &self.bootstrap;
        if b.rounds == 0 || b.enough_samples == 0 || b.label_max_evaluations == 0 {
            return Err(format!("{at}.bootstrap: rounds, enough_samples and label_max_evaluations must be positive"));
        }
        match (b.unit_expansions, b.unit_seconds) {
            (Some(n), None) if n > 0 => {}
            (None, Some(s)) if s.is_finite() && s > 0.0 => {}
            (None, None) => return Err(format!("{at}.bootstrap: give unit_expansions or unit_seconds")),
            _ => return Err(format!("{at}.bootstrap: give one positive unit_expansions or unit_seconds")),
        }
        if let Some(name) = &b.solver {
            if planner::solvers::by_name(name).is_none() {
                let names: Vec<&str> = planner::solvers::names().collect();
                return Err(format!("{at}.bootstrap.solver: no solver `{name}`; expected one of {}", names.join(", ")));
            }
        }
        let s = &self.search;
        if s.time_s.is_some_and(|t| !(t.is_finite() && t > 0.0)) || s.max_evaluations == Some(0) {
            return Err(format!("{at}.search: time_s and max_evaluations must be positive"));
        }
        let n = &self.network;
        if n.hidden.as_ref().is_some_and(|h| h.is_empty() || h.contains(&0))
            || n.patience == Some(0)
            || n.max_epochs == Some(0)
            || n.max_seconds.is_some_and(|t| !(t.is_finite() && t > 0.0))
        {
            return Err(format!("{at}.network: widths, patience, max_epochs and max_seconds must be positive"));
        }
        match (&self.problems, self.domain_file.is_some() || !self.problem_files.is_empty()) {
            (Some(table), false) => self.loaded = Some(self.generate(table, at)?),
            (None, true) if self.domain_file.is_none() => {
                return Err(format!("{at}.domain_file: problem_files need their domain's file"))
            }
            (None, true) if self.problem_files.is_empty() => {
                return Err(format!("{at}.problem_files: name the problem files (or a directory of them)"))
            }
            (None, true) => {}
            _ => return Err(format!("{at}: give either `problems` (generated) or `domain_file` and `problem_files`")),
        }
        Ok(())
    }

    fn generate(&self, table: &toml::Table, at: &str) -> Result<(String, Vec<NamedProblem>), String> {
        let Some(info) = planner::generate::domain(&self.domain) else {
            let names: Vec<_> = planner::generate::names().collect();
            return Err(format!(
                "{at}.domain: `{}` has no generator (one of {}); give domain_file and problem_files instead",
                self.domain,
                names.join(", ")
            ));
        };
        let split = serde::de::DeserializeSeed::deserialize(SplitSeed(info), toml::Value::Table(table.clone()))
            .map_err(|e| format!("{at}.problems: {e}"))?;
        if split.planning.is_some() || split.limits.is_some() {
            return Err(format!("{at}.problems: takes seeds and {}'s generator parameters only", info.name));
        }
        let domain_pddl = planner::generate::domain_pddl(info.name).ok_or(format!("{at}.domain: no domain file"))?;
        // The problems are generated while the grid is read: bound them first.
        let combos = split.combinations(info.name);
        if combos.len().saturating_mul(split.seeds.0.len()) > MAX_PROBLEMS {
            return Err(format!(
                "{at}.problems: {} x {} seeds is more than {MAX_PROBLEMS} problems (leave-one-out runs a fold per problem)",
                combos.len(),
                split.seeds.0.len()
            ));
        }
        let mut problems = vec![];
        for params in combos {
            let values: Vec<String> = params.values().iter().map(|(k, v)| format!("{k}{v}")).collect();
            for &seed in &split.seeds.0 {
                let pddl = planner::generate::generate(&params, seed).map_err(|e| format!("{at}.problems: {e}"))?;
                problems.push(NamedProblem { name: format!("{}-s{seed}", values.join("-")), pddl });
            }
        }
        if problems.len() < 2 {
            return Err(format!("{at}.problems: leave-one-out needs 2 or more problems"));
        }
        Ok((domain_pddl.to_string(), problems))
    }

    /// Reads `domain_file` and `problem_files`, relative to `base`. Names
    /// are the files' stems; errors name the key and the file.
    pub fn read_files(&mut self, base: &Path, at: &str) -> Result<(), String> {
        let Some(domain_file) = &self.domain_file else { return Ok(()) };
        let read = |key: String, path: &Path| -> Result<String, String> {
            let len = std::fs::metadata(path).map_err(|e| format!("{key}: {}: {e}", path.display()))?.len();
            if len > MAX_FILE_BYTES {
                return Err(format!("{key}: {}: larger than {MAX_FILE_BYTES} bytes", path.display()));
            }
            std::fs::read_to_string(path).map_err(|e| format!("{key}: {}: {e}", path.display()))
        };
        let domain_path = base.join(domain_file);
        let domain_pddl = read(format!("{at}.domain_file"), &domain_path)?;
        // Parsed here, so that a broken file is refused at submission with
        // its line and column, not by every job that reads it.
        let domain = planner::pddl::parse_domain(&domain_pddl, &domain_path.display().to_string())
            .map_err(|e| format!("{at}.domain_file: {e}"))?;
        let mut problems: Vec<NamedProblem> = vec![];
        for (i, f) in self.problem_files.iter().enumerate() {
            let key = format!("{at}.problem_files[{i}]");
            // A directory stands for its *.pddl files (the domain's excepted), by name.
            let dir = base.join(f);
            let files: Vec<std::path::PathBuf> = if dir.is_dir() {
                let mut found = vec![];
                for entry in std::fs::read_dir(&dir).map_err(|e| format!("{key}: {}: {e}", dir.display()))? {
                    let path = entry.map_err(|e| format!("{key}: {}: {e}", dir.display()))?.path();
                    if path.extension().is_some_and(|x| x == "pddl") && path != domain_path {
                        found.push(path);
                    }
                }
                found.sort();
                if found.is_empty() {
                    return Err(format!("{key}: {}: no .pddl problem files", dir.display()));
                }
                found
            } else {
                vec![dir]
            };
            for path in files {
                let pddl = read(key.clone(), &path)?;
                planner::pddl::parse_problem(&pddl, &path.display().to_string(), &domain)
                    .map_err(|e| format!("{key}: {e}"))?;
                let name = path.file_stem().map_or(f.clone(), |s| s.to_string_lossy().into_owned());
                if problems.iter().any(|p| p.name == name) {
                    return Err(format!("{key}: a second problem named `{name}`"));
                }
                problems.push(NamedProblem { name, pddl });
            }
        }
        if problems.len() < 2 || problems.len() > MAX_PROBLEMS {
            return Err(format!(
                "{at}.problem_files: leave-one-out needs 2 to {MAX_PROBLEMS} problems, got {}",
                problems.len()
            ));
        }
        self.loaded = Some((domain_pddl, problems));
        Ok(())
    }

    /// At most how many jobs the block expands into, and inputs they name.
    pub fn size(&self) -> (u64, u64) {
        let problems = self.loaded.as_ref().map_or(self.problem_files.len(), |(_, p)| p.len()) as u64;
        let runs = (self.configurations().len() as u64).saturating_mul(self.seeds.0.len() as u64);
        let boots = match self.samples {
            Samples::Shared => runs,
            Samples::PerFold => runs.saturating_mul(problems),
        };
        let folds = runs.saturating_mul(problems);
        let baselines = (self.baselines.len() as u64).saturating_mul(problems);
        (boots.saturating_add(folds).saturating_add(baselines), folds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expand::graphlearn::expand;
    use crate::JobSpec;

    fn block(text: &str) -> Result<Block, String> {
        let mut b: Block = toml::from_str(text).map_err(|e| e.to_string())?;
        b.check("graphlearn[0]")?;
        Ok(b)
    }

    const BASE: &str = "seeds = [1]\nalphas = [2, 3]\nlosses = ['mse']\nff_input = [false]\n\
                        bootstrap = { unit_expansions = 100 }\n";

    #[test]
    fn generated_problems_expand_into_bootstraps_folds_and_baselines() {
        for (samples, boots) in [("shared", 2), ("per_fold", 6)] {
            let text =
                format!("{BASE}domain = 'blocksworld'\nproblems = {{ seeds = [1], blocks = [3, 4, 5] }}\nsamples = '{samples}'\n");
            let b = block(&text).unwrap();
            let mut jobs = vec![];
            expand(&b, &mut |j| {
                let k = j.key.clone();
                jobs.push(j);
                k
            });
            let count = |kind: &str| jobs.iter().filter(|j| j.spec.kind().as_str() == kind).count();
            assert_eq!((count("graph_bootstrap"), count("graph_fold"), count("graph_baseline")), (boots, 6, 6));
            assert!(b.size().0 >= jobs.len() as u64);
            let names: Vec<&str> = b.loaded.as_ref().unwrap().1.iter().map(|p| p.name.as_str()).collect();
            assert_eq!(names, ["blocks3-s1", "blocks4-s1", "blocks5-s1"]);
        }
    }

    #[test]
    fn value_adjustments_ride_on_the_first_configurations_folds() {
        let text = format!(
            "{BASE}domain = 'blocksworld'\nproblems = {{ seeds = [1], blocks = [3, 4] }}\n\
             value_adjustments = {{ heuristics = ['goalcount', 'ff'], modes = ['min', 'shift'] }}\n"
        );
        let b = block(&text).unwrap();
        let mut jobs = vec![];
        expand(&b, &mut |j| {
            let k = j.key.clone();
            jobs.push(j);
            k
        });
        let mut per_config = vec![];
        for j in &jobs {
            if let JobSpec::GraphFold { configuration, value_adjustments, .. } = &j.spec {
                let names: Vec<String> =
                    value_adjustments.iter().map(|v| format!("{}:{:?}", v.heuristic, v.mode)).collect();
                per_config.push((configuration.alpha, names));
            }
        }
        let all = ["goalcount:Min", "goalcount:Shift", "ff:Min", "ff:Shift"].map(String::from).to_vec();
        assert_eq!(per_config, [(2, all.clone()), (2, all), (3, vec![]), (3, vec![])]);
        // Modes default to all three; bad names are refused with their key.
        let b = block(&text.replace(", modes = ['min', 'shift']", "")).unwrap();
        assert_eq!(b.value_adjustments.unwrap().list().len(), 6);
        let e = block(&text.replace("'ff'", "'nope'")).unwrap_err();
        assert!(e.starts_with("graphlearn[0].value_adjustments.heuristics[1]: unknown heuristic `nope`"), "{e}");
        let e = block(&text.replace("'min', 'shift'", "")).unwrap_err();
        assert!(e.contains("graphlearn[0].value_adjustments"), "{e}");
        assert!(block(&text.replace("modes =", "mode =")).unwrap_err().contains("unknown field"));
        let e = block(&text.replace("'ff'", "'goalcount'")).unwrap_err();
        assert!(e.starts_with("graphlearn[0].value_adjustments.heuristics[1]: `goalcount` is listed twice"), "{e}");
        let e = block(&text.replace("'min', 'shift'", "'min', 'min'")).unwrap_err();
        assert!(e.starts_with("graphlearn[0].value_adjustments.modes[1]"), "{e}");
    }

    #[test]
    fn bad_blocks_name_their_key() {
        let cases = [
            ("domain = 'blocksworld'\nproblems = { seeds = [1], blocks = [3] }", "2 or more problems"),
            ("domain = 'blocksworld'\nproblems = { seeds = [1], towers = [3] }", "graphlearn[0].problems"),
            ("domain = 'sokoban'\nproblems = { seeds = [1, 2] }", "has no generator"),
            ("domain = 'x'\nproblem_files = ['a.pddl', 'b.pddl']", "graphlearn[0].domain_file"),
            ("domain = 'x'", "give either"),
            ("domain = 'blocksworld'\nproblems = { seeds = '1..2000', blocks = [3] }", "more than 1000 problems"),
        ];
        for (text, expected) in cases {
            let e = block(&format!("{BASE}{text}\n")).unwrap_err();
            assert!(e.contains(expected), "{text}: {e}");
        }
        let e = block(&format!(
            "{}domain = 'blocksworld'\nproblems = {{ seeds = [1, 2], blocks = 3 }}\n",
            "seeds = [1]\nalphas = [6]\nbootstrap = { unit_expansions = 1 }\n"
        ))
        .unwrap_err();
        assert!(e.contains("graphlearn[0].alphas[0]"), "{e}");
    }

    #[test]
    fn files_are_read_relative_to_the_grid_and_missing_ones_named() {
        let dir = std::env::temp_dir().join(format!("hfarm-graphlearn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("domain.pddl"), planner::generate::domain_pddl("blocksworld").unwrap()).unwrap();
        for n in [3, 4] {
            let params = planner::generate::Params::Blocksworld { blocks: n };
            std::fs::write(dir.join(format!("p{n}.pddl")), planner::generate::generate(&params, 1).unwrap()).unwrap();
        }
        let text =
            format!("{BASE}domain = 'bw'\ndomain_file = 'domain.pddl'\nproblem_files = ['p3.pddl', 'p4.pddl']\n");
        let mut b = block(&text).unwrap();
        b.read_files(&dir, "graphlearn[0]").unwrap();
        assert_eq!(b.loaded.as_ref().unwrap().1.len(), 2);
        // A directory: its problems by name, the domain file left out.
        let mut whole = block(&text.replace("['p3.pddl', 'p4.pddl']", "['.']")).unwrap();
        whole.read_files(&dir, "graphlearn[0]").unwrap();
        let names: Vec<&str> = whole.loaded.as_ref().unwrap().1.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["p3", "p4"]);
        // A broken problem file is refused with its line and column.
        std::fs::write(dir.join("broken.pddl"), "(define (problem b)\n  (:domain blocksworld)\n  (:init (on a))")
            .unwrap();
        let mut broken = block(&text.replace("p4.pddl", "broken.pddl")).unwrap();
        let e = broken.read_files(&dir, "graphlearn[0]").unwrap_err();
        assert!(e.starts_with("graphlearn[0].problem_files[1]: ") && e.contains("broken.pddl:"), "{e}");
        std::fs::remove_file(dir.join("broken.pddl")).unwrap();
        let mut missing = block(&text.replace("p4.pddl", "p9.pddl")).unwrap();
        let e = missing.read_files(&dir, "graphlearn[0]").unwrap_err();
        assert!(e.starts_with("graphlearn[0].problem_files[1]: ") && e.contains("p9.pddl"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
