//! Experiment grids as data (`grids/*.toml`).
//!
//! Unknown keys and bad values are errors that name the key path
//! (`domains.gripper.train.balls: ...`). A grid's domains and their splits
//! are read by [`crate::split`]; the other seeds' blocks by their own
//! modules. [`size`] bounds what a grid may expand into before it is
//! expanded.

use std::collections::BTreeMap;
use std::fmt;

use planner::generate::Generator;
use planner::heuristics::{Definitions, ResidualBase};
use planner::search::Greedy;
use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};

use crate::key::JobKey;
use crate::split::{deserialize_domains, DomainSpec, IntList, SolveLimits, Split};

/// A grid file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct GridError {
    pub file: String,
    pub message: String,
}

/// A learned model: the registry's (`crate::model`), re-exported here,
/// where grids name it.
pub use crate::model::{Model, ModelInfo};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Distribution {
    Gaussian,
    Truncated,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Sigma {
    Learn,
    Fixed,
}

/// The admissible lower bound of the truncated Gaussian (and of a Gaussian's
/// +clip estimate): a registered heuristic that can bound
/// (`planner::heuristics`), serialized as its name (`"lmcut"`). Named in a
/// grid, a heuristic that is unknown or not admissible is refused at its
/// key (`learning[0].bounds[1]: ...`).
pub use planner::heuristics::LowerBound as Bound;

/// The residual base of a model: a registered heuristic that can be one, or
/// none; serialized as its name or `"none"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Residual(pub Option<ResidualBase>);

impl Residual {
    /// No residual: mu = delta_mu.
    pub const NONE: Residual = Residual(None);
    const NONE_NAME: &'static str = "none";

    /// `"none"` or a registered heuristic that can be a residual base.
    pub fn new(name: &str) -> Result<Residual, String> {
        if name == Residual::NONE_NAME {
            return Ok(Residual::NONE);
        }
        ResidualBase::new(name).map(|b| Residual(Some(b))).map_err(|e| format!("{e}, or none"))
    }

    pub fn as_str(self) -> &'static str {
        self.0.map_or(Residual::NONE_NAME, ResidualBase::name)
    }
}

impl std::str::FromStr for Residual {
    type Err = String;
    fn from_str(s: &str) -> Result<Residual, String> {
        Residual::new(s)
    }
}

impl fmt::Display for Residual {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Residual {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Residual {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Residual, D::Error> {
        Residual::new(&String::deserialize(d)?).map_err(de::Error::custom)
    }
}

/// How a grid's splits relate to one another (`[instances] splits`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Splits {
    /// Each split draws its own instances: try i of seed s in split x uses a
    /// generator seed derived from (x, s, i) ([`generator_seed`]),
    /// so no validation or test instance is a training instance, and model
    /// selection and test metrics measure generalisation. The default for new
    /// experiments.
    #[default]
    Disjoint,
    /// Every split draws from the same instances, as IBM/pddlsl does
    /// (`generate_datum.py:386`): try i of seed s uses generator seed
    /// s * 1000 + i whatever the split, so a validation instance is the
    /// training instance of the same parameters and seed (when both were
    /// accepted at the same try). For reproducing the authors' numbers.
    Shared,
}

impl Splits {
    /// The generator seed of a generate job's `attempt`-th try (0-based).
    pub fn generator_seed(self, split: Split, seed: u64, attempt: u32) -> u64 {
        match self {
            Splits::Disjoint => generator_seed(split, seed, attempt),
            Splits::Shared => seed.saturating_mul(SHARED_SEED_STRIDE).saturating_add(attempt.into()),
        }
    }

    fn is_disjoint(&self) -> bool {
        *self == Splits::Disjoint
    }
}

/// The code's seed stride: try i of seed s is s * 1000 + i, which is why it
/// allows fewer than 1000 tries (`generate_datum.py:382-386`, `assert
/// args.retry < 1000`).
pub const SHARED_SEED_STRIDE: u64 = 1000;

/// Where a grid's instances come from (`[instances]`), carried by every
/// generate job (absent from its key where it is the default, so the keys
/// of grids without it did not change).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Instances {
    /// Which generators write the problems: hfarm's (the default) or
    /// `"pddl-generators"`, the authors' (the same text for the same seed).
    #[serde(default, skip_serializing_if = "Generator::is_default")]
    pub generator: Generator,
    #[serde(default, skip_serializing_if = "Splits::is_disjoint")]
    pub splits: Splits,
}

impl Instances {
    pub fn is_default(&self) -> bool {
        *self == Instances::default()
    }
}

/// How plan jobs search (`[planning]`): which greedy search counts the
/// evaluations, and whose definitions compute what the authors computed with
/// pyperplan: at planning time the baselines, a model's bound and residual;
/// and the linear model's relaxed-plan features, in planning and in the
/// labels it trains on (so label jobs carry `heuristics` too). Absent from
/// job keys where it is the default, so the keys of grids without it did
/// not change.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Planning {
    /// `"hfarm"` (the default) or `"pddlsl"`: the authors' GBFS
    /// (`custom_pyperplan/a_star.py`), whose evaluation counts their tables print.
    #[serde(default, skip_serializing_if = "Greedy::is_default")]
    pub search: Greedy,
    /// `"hfarm"` (the default: Fast Downward's definitions) or
    /// `"pyperplan"`: the authors' hFF and LM-cut (`experiments/plan.py:34-49`,
    /// `generate_datum.py:276-300`). Labels' heuristic values stay Fast
    /// Downward's either way, as the authors' are.
    #[serde(default, skip_serializing_if = "Definitions::is_default")]
    pub heuristics: Definitions,
}

impl Planning {
    pub fn is_default(&self) -> bool {
        *self == Planning::default()
    }
}

/// Limits of one planning run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLimits {
    #[serde(default = "default_max_evaluations")]
    pub max_evaluations: u64,
    /// Seconds, or `"none"`: the authors' code plans without a time limit.
    #[serde(default = "default_plan_time")]
    pub time_s: TimeLimit,
    #[serde(default = "default_plan_memory")]
    pub memory_mib: u64,
}

/// A time limit in seconds, or none (`"none"` in grids and job specs). A
/// limit serializes as the bare number, as the `f64` it replaced did, so
/// the keys of jobs with a limit did not change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TimeLimit(pub Option<f64>);

impl TimeLimit {
    pub const NONE: TimeLimit = TimeLimit(None);

    pub fn seconds(s: f64) -> TimeLimit {
        TimeLimit(Some(s))
    }
}

impl Serialize for TimeLimit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Some(x) => s.serialize_f64(x),
            None => s.serialize_str("none"),
        }
    }
}

impl<'de> Deserialize<'de> for TimeLimit {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Seconds(f64),
            Word(String),
        }
        match Raw::deserialize(d).map_err(|_| de::Error::custom("expected a number of seconds or \"none\""))? {
            Raw::Seconds(x) => Ok(TimeLimit(Some(x))),
            Raw::Word(w) if w == "none" => Ok(TimeLimit(None)),
            Raw::Word(w) => Err(de::Error::custom(format!("expected a number of seconds or \"none\", got {w:?}"))),
        }
    }
}

fn default_max_evaluations() -> u64 {
    10_000
}
fn default_plan_time() -> TimeLimit {
    TimeLimit::seconds(600.0)
}
fn default_plan_memory() -> u64 {
    4096
}

impl Default for PlanLimits {
    fn default() -> Self {
        PlanLimits {
            max_evaluations: default_max_evaluations(),
            time_s: default_plan_time(),
            memory_mib: default_plan_memory(),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    #[serde(default)]
    pub generate: Option<SolveLimits>,
    #[serde(default)]
    pub plan: Option<PlanLimits>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baselines {
    /// Classical heuristics for greedy best-first search on the planning instances.
    pub heuristics: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Learning {
    pub models: Vec<Model>,
    pub distributions: Vec<Distribution>,
    pub sigma: Vec<Sigma>,
    /// Registered admissible heuristics, checked while reading.
    pub bounds: Vec<Bound>,
    /// `none` or registered heuristics, checked while reading.
    pub residuals: Vec<Residual>,
    #[serde(default = "default_steps")]
    pub steps: u64,
    #[serde(default = "default_train_instances")]
    pub train_instances: u32,
    /// The bound a Gaussian model's N+clip plans clip at; absent: the
    /// block's bound. The authors' planning clips at hLMcut whatever l the
    /// model was trained with (`plan_all_nlm.sh:18`, `--l-test lmcut ninf`).
    #[serde(default)]
    pub clip: Option<Bound>,
}

fn default_steps() -> u64 {
    40_000
}
fn default_train_instances() -> u32 {
    400
}

/// An experiment: what to generate, label, train and plan.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Grid {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Seeds of the learning runs (the paper uses 5).
    #[serde(default)]
    pub seeds: IntList,
    #[serde(default, deserialize_with = "deserialize_domains")]
    pub domains: BTreeMap<String, DomainSpec>,
    /// Where the instances come from: generators and how splits relate.
    #[serde(default)]
    pub instances: Instances,
    #[serde(default)]
    pub limits: Limits,
    /// How plan jobs search and compute their classical heuristics.
    #[serde(default)]
    pub planning: Planning,
    pub baselines: Option<Baselines>,
    /// Blocks of learning axes, each crossed on its own (`[[learning]]`):
    /// a main grid plus ablations, without crossing the ablations together.
    #[serde(default)]
    pub learning: Vec<Learning>,
    /// Marom & Rosman's experiment kind ([`crate::likely`]).
    #[serde(default)]
    pub likely: Vec<crate::likely::Block>,
    /// Trunda's experiment kind ([`crate::graphlearn`]).
    #[serde(default)]
    pub graphlearn: Vec<crate::graphlearn::Block>,
}

impl Grid {
    /// Parses and checks a grid; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Grid, GridError> {
        let err = |message: String| GridError { file: file.to_string(), message };
        let de = toml::Deserializer::parse(text).map_err(|e| err(e.to_string().trim_end().to_string()))?;
        let mut grid: Grid = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner().message().to_string();
            if path == "." {
                err(inner)
            } else {
                err(format!("{path}: {inner}"))
            }
        })?;
        grid.check().map_err(err)?;
        Ok(grid)
    }

    /// Reads the files a grid names (`[[graphlearn]]`'s `domain_file` and
    /// `problem_files`), relative to `base` (the grid file's directory).
    /// Only `hfarm submit` does this: a grid parsed from elsewhere reads
    /// nothing from the disk.
    pub fn read_files(&mut self, base: &std::path::Path, file: &str) -> Result<(), GridError> {
        for (i, b) in self.graphlearn.iter_mut().enumerate() {
            b.read_files(base, &format!("graphlearn[{i}]"))
                .map_err(|message| GridError { file: file.to_string(), message })?;
        }
        Ok(())
    }

    fn check(&mut self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("name: must not be empty".into());
        }
        if self.domains.is_empty() && self.likely.is_empty() && self.graphlearn.is_empty() {
            return Err("domains: at least one domain (or a [[likely]] or [[graphlearn]] block) is needed".into());
        }
        if !self.learning.is_empty() && self.seeds.0.is_empty() {
            return Err("seeds: [[learning]] needs the seeds of its runs".into());
        }
        for (i, b) in self.likely.iter().enumerate() {
            b.check(&format!("likely[{i}]"))?;
        }
        for (i, b) in self.graphlearn.iter_mut().enumerate() {
            b.check(&format!("graphlearn[{i}]"))?;
        }
        // Domain names and generator parameters were checked while reading.
        for (name, spec) in &self.domains {
            for split in Split::ALL {
                let s = spec.split(split);
                let at = format!("domains.{name}.{}", split.as_str());
                if s.planning.is_some() && split != Split::Test {
                    return Err(format!("{at}.planning: only the test split has planning runs"));
                }
                if let Some(l) = &s.limits {
                    check_solve_limits(l, &format!("{at}.limits"))?;
                }
            }
        }
        if let Some(l) = &self.limits.generate {
            check_solve_limits(l, "limits.generate")?;
        }
        let generator = self.instances.generator;
        if let Some(name) = self.domains.keys().find(|d| !generator.supports(d)) {
            return Err(format!("instances.generator: {generator} does not make {name} problems"));
        }
        if self.instances.splits == Splits::Shared {
            let stride = SHARED_SEED_STRIDE;
            let tries = |l: Option<SolveLimits>| l.or(self.limits.generate).unwrap_or_default().tries;
            for (name, spec) in &self.domains {
                for split in Split::ALL {
                    if u64::from(tries(spec.split(split).limits)) >= stride {
                        return Err(format!(
                            "domains.{name}.{}.limits.tries: with instances.splits = \"shared\" a slot has fewer \
                             than {stride} tries (try i of seed s is generator seed s * {stride} + i)",
                            split.as_str()
                        ));
                    }
                }
            }
        }
        if let Some(l) = &self.limits.plan {
            let time_ok = l.time_s.0.is_none_or(|t| t.is_finite() && t > 0.0);
            if !time_ok || l.memory_mib == 0 || l.max_evaluations == 0 {
                return Err("limits.plan: time_s (or \"none\"), memory_mib and max_evaluations must be positive".into());
            }
        }
        if let Some(b) = &self.baselines {
            for (i, h) in b.heuristics.iter().enumerate() {
                if planner::heuristics::info(h).is_none() {
                    return Err(format!(
                        "baselines.heuristics[{i}]: unknown heuristic `{h}`; expected one of {}",
                        planner::heuristics::registered().map(|h| h.name).collect::<Vec<_>>().join(", ")
                    ));
                }
            }
        }
        for (i, l) in self.learning.iter().enumerate() {
            let axes: [(&str, bool); 5] = [
                ("models", l.models.is_empty()),
                ("distributions", l.distributions.is_empty()),
                ("sigma", l.sigma.is_empty()),
                ("bounds", l.bounds.is_empty()),
                ("residuals", l.residuals.is_empty()),
            ];
            if let Some((axis, _)) = axes.iter().find(|(_, empty)| *empty) {
                return Err(format!("learning[{i}].{axis}: must list at least one value"));
            }
            if l.steps == 0 || l.train_instances == 0 {
                return Err(format!("learning[{i}]: steps and train_instances must be positive"));
            }
        }
        // Last: the bound reads the checked values.
        let size = size(self);
        if size.jobs > MAX_JOBS || size.inputs > MAX_INPUTS {
            return Err(format!(
                "the grid expands into up to {} jobs naming {} inputs; a grid may have at most {MAX_JOBS} jobs \
                 and {MAX_INPUTS} inputs (fewer seeds or parameter values, or several grids)",
                size.jobs, size.inputs
            ));
        }
        Ok(())
    }
}

/// The generator seed of a generate job's `attempt`-th try (0-based) in
/// disjoint splits ([`Splits`]): derived from the split too, so
/// that a train and a test instance with the same parameters and seed number
/// are different instances.
pub fn generator_seed(split: Split, seed: u64, attempt: u32) -> u64 {
    let k = JobKey::of(&("generator-seed", split, seed, attempt), &[]);
    u64::from_str_radix(&k.0[..16], 16).expect("hex digest")
}

/// At most how many jobs a grid expands into, and how many inputs they
/// name in all, counted without expanding it (a job that several parts of
/// the grid ask for is counted each time: an upper bound). `Grid::parse`
/// refuses a grid beyond [`MAX_JOBS`] or [`MAX_INPUTS`], so that a small
/// file cannot ask `hfarm submit` for more than its memory, or a farm's
/// database, can hold ("0..1000000" in every split is a few bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub jobs: u64,
    pub inputs: u64,
}

/// The most jobs a grid may expand into: ten times the paper's grid.
pub const MAX_JOBS: u64 = 1_000_000;

/// The most inputs its jobs may name in all (each is a key in memory and a
/// row in PostgreSQL); the paper's grid names about 500,000.
pub const MAX_INPUTS: u64 = 10_000_000;

/// The upper bound of [`Size`], mirroring `crate::expand::expand`'s loops (saturating).
pub fn size(grid: &Grid) -> Size {
    let (mut jobs, mut inputs) = (0u64, 0u64);
    let mut add_one = |n: u64, inputs_each: u64| {
        jobs = jobs.saturating_add(n);
        inputs = inputs.saturating_add(n.saturating_mul(inputs_each));
    };
    let seeds = grid.seeds.0.len() as u64;
    for spec in grid.domains.values() {
        // Instances per split: parameter combinations times seeds.
        let [train, validation, test] = Split::ALL.map(|split| {
            let s = spec.split(split);
            s.params.values().fold(s.seeds.0.len() as u64, |n, values| n.saturating_mul(values.len() as u64))
        });
        for (split, n) in Split::ALL.into_iter().zip([train, validation, test]) {
            // generate: its gate and, with the cross-seed rule, that many seeds
            let peers = spec.split(split).limits.or(grid.limits.generate).and_then(|l| l.skip_after_failed_seeds);
            add_one(n, 1 + peers.unwrap_or(0) as u64);
        }
        add_one(train + validation + test, 1); // label
                                               // A sample of the test slots plans on every slot behind a draw each
                                               // (`planning_slots`): one more input per plan job.
        let sampled = spec.test.planning.is_some_and(|n| n > 0 && (n as u64) < test);
        if sampled {
            add_one(test, 2); // draw: its slot and the previous draw
        }
        let planning = if spec.test.planning == Some(0) { 0 } else { test };
        let plan_inputs = u64::from(sampled);
        if let Some(b) = &grid.baselines {
            add_one((b.heuristics.len() as u64).saturating_mul(planning), 1 + plan_inputs);
        }
        for l in &grid.learning {
            let configs = [l.models.len(), l.distributions.len(), l.sigma.len(), l.residuals.len(), l.bounds.len()]
                .into_iter()
                .fold(seeds, |n, k| n.saturating_mul(k as u64));
            add_one(configs, train.saturating_add(validation)); // train reads every train and validation label
            add_one(configs, test.saturating_add(1)); // evaluate: the model and every test label
            add_one(configs.saturating_mul(2).saturating_mul(planning), 2 + plan_inputs);
            // plan: mu and clipped mu
        }
    }
    for b in &grid.likely {
        let (n, i) = b.size();
        jobs = jobs.saturating_add(n);
        inputs = inputs.saturating_add(i);
    }
    for b in &grid.graphlearn {
        let (n, i) = b.size();
        jobs = jobs.saturating_add(n);
        inputs = inputs.saturating_add(i);
    }
    Size { jobs, inputs }
}

fn check_solve_limits(l: &SolveLimits, at: &str) -> Result<(), String> {
    if !(l.time_s > 0.0 && l.time_s.is_finite()) {
        return Err(format!("{at}.time_s: must be a positive number of seconds"));
    }
    if l.memory_mib == 0 {
        return Err(format!("{at}.memory_mib: must be positive"));
    }
    if l.tries == 0 {
        return Err(format!("{at}.tries: must be at least 1"));
    }
    if l.skip_predicted_over.is_some_and(|f| !(f > 0.0 && f.is_finite())) {
        return Err(format!("{at}.skip_predicted_over: must be a positive multiple of time_s"));
    }
    if l.skip_after_failed_seeds == Some(0) {
        return Err(format!("{at}.skip_after_failed_seeds: must be at least 1"));
    }
    Ok(())
}
