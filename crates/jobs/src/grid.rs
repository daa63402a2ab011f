//! Experiment grids as data (`grids/*.toml`).
//!
//! Unknown keys and bad values are errors that name the key path
//! (`domains.gripper.train.balls: ...`). Numbers may be given as one value,
//! a list, or an inclusive range string `"5..16"`.

use std::collections::BTreeMap;
use std::fmt;

use planner::generate::Params;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

/// A grid file could not be used.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct GridError {
    pub file: String,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    Train,
    Validation,
    Test,
}

impl Split {
    pub const ALL: [Split; 3] = [Split::Train, Split::Validation, Split::Test];

    pub fn as_str(self) -> &'static str {
        match self {
            Split::Train => "train",
            Split::Validation => "validation",
            Split::Test => "test",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Model {
    Linear,
    Nlm,
    Hgn,
}

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

/// The admissible lower bound of the truncated Gaussian.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Lmcut,
    Hmax,
    Blind,
}

impl Bound {
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Lmcut => "lmcut",
            Bound::Hmax => "hmax",
            Bound::Blind => "blind",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Residual {
    None,
    Ff,
    Lmcut,
}

/// Limits for solving a generated instance optimally.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveLimits {
    #[serde(default = "default_solve_time")]
    pub time_s: f64,
    #[serde(default = "default_solve_memory")]
    pub memory_mib: u64,
    /// Generation attempts before the job fails.
    #[serde(default = "default_tries")]
    pub tries: u32,
}

fn default_solve_time() -> f64 {
    300.0
}
fn default_solve_memory() -> u64 {
    8192
}
fn default_tries() -> u32 {
    20
}

impl Default for SolveLimits {
    fn default() -> Self {
        SolveLimits { time_s: default_solve_time(), memory_mib: default_solve_memory(), tries: default_tries() }
    }
}

/// Limits of one planning run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLimits {
    #[serde(default = "default_max_evaluations")]
    pub max_evaluations: u64,
    #[serde(default = "default_plan_time")]
    pub time_s: f64,
    #[serde(default = "default_plan_memory")]
    pub memory_mib: u64,
}

fn default_max_evaluations() -> u64 {
    10_000
}
fn default_plan_time() -> f64 {
    600.0
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

/// A list of integers: `7`, `[5, 6, 9]` or `"5..16"` (inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntList(pub Vec<u64>);

impl<'de> Deserialize<'de> for IntList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = IntList;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a non-negative integer, a list of them, or a range such as \"1..38\"")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<IntList, E> {
                u64::try_from(v)
                    .map(|v| IntList(vec![v]))
                    .map_err(|_| E::custom(format!("expected a non-negative integer, got {v}")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<IntList, E> {
                Ok(IntList(vec![v]))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IntList, E> {
                let bad = || E::custom(format!("expected a range such as \"1..38\", got {v:?}"));
                let (a, b) = v.split_once("..").ok_or_else(bad)?;
                let (a, b): (u64, u64) = (a.trim().parse().map_err(|_| bad())?, b.trim().parse().map_err(|_| bad())?);
                if a > b {
                    return Err(E::custom(format!("the range {v:?} is empty")));
                }
                if b - a > 1_000_000 {
                    return Err(E::custom(format!("the range {v:?} is too large")));
                }
                Ok(IntList((a..=b).collect()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<IntList, A::Error> {
                let mut out = vec![];
                while let Some(v) = seq.next_element::<u64>()? {
                    out.push(v);
                }
                if out.is_empty() {
                    return Err(de::Error::custom("the list is empty"));
                }
                Ok(IntList(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// A list of numbers: `0.5` or `[0.5, 1.0]`.
#[derive(Debug, Clone, PartialEq)]
pub struct FloatList(pub Vec<f64>);

impl<'de> Deserialize<'de> for FloatList {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            One(f64),
            Many(Vec<f64>),
        }
        let v = match Raw::deserialize(d).map_err(|_| de::Error::custom("expected a number or a list of numbers"))? {
            Raw::One(x) => vec![x],
            Raw::Many(v) if v.is_empty() => return Err(de::Error::custom("the list is empty")),
            Raw::Many(v) => v,
        };
        Ok(FloatList(v))
    }
}

/// One split of one domain: generator parameters crossed with seeds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SplitSpec {
    /// Generator seeds; every parameter combination is generated with each.
    pub seeds: IntList,
    pub blocks: Option<IntList>,
    pub locations: Option<IntList>,
    pub cars: Option<IntList>,
    pub balls: Option<IntList>,
    pub size: Option<IntList>,
    /// visitall: grid heights crossed with `size` (widths); square grids without it.
    pub height: Option<IntList>,
    pub ratio: Option<FloatList>,
    /// Test split: how many instances (sampled deterministically) get planning runs.
    pub planning: Option<usize>,
    /// Overrides `limits.generate` for this split.
    pub limits: Option<SolveLimits>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DomainSpec {
    pub train: SplitSpec,
    pub validation: SplitSpec,
    pub test: SplitSpec,
}

impl DomainSpec {
    pub fn split(&self, s: Split) -> &SplitSpec {
        match s {
            Split::Train => &self.train,
            Split::Validation => &self.validation,
            Split::Test => &self.test,
        }
    }
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
    pub bounds: Vec<Bound>,
    pub residuals: Vec<Residual>,
    #[serde(default = "default_steps")]
    pub steps: u64,
    #[serde(default = "default_train_instances")]
    pub train_instances: u32,
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
    pub seeds: IntList,
    pub domains: BTreeMap<String, DomainSpec>,
    #[serde(default)]
    pub limits: Limits,
    pub baselines: Option<Baselines>,
    /// Blocks of learning axes, each crossed on its own (`[[learning]]`):
    /// a main grid plus ablations, without crossing the ablations together.
    #[serde(default)]
    pub learning: Vec<Learning>,
}

/// Generator parameters a split may leave out.
const OPTIONAL_PARAMS: &[&str] = &["height"];

/// The generator parameters a domain takes, in the order they are crossed.
fn domain_params(domain: &str) -> Option<&'static [&'static str]> {
    Some(match domain {
        "blocksworld" => &["blocks"],
        "ferry" => &["locations", "cars"],
        "gripper" => &["balls"],
        "visitall" => &["size", "height", "ratio"],
        _ => return None,
    })
}

impl SplitSpec {
    fn given(&self) -> Vec<&'static str> {
        [
            ("blocks", self.blocks.is_some()),
            ("locations", self.locations.is_some()),
            ("cars", self.cars.is_some()),
            ("balls", self.balls.is_some()),
            ("size", self.size.is_some()),
            ("height", self.height.is_some()),
            ("ratio", self.ratio.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, g)| g.then_some(k))
        .collect()
    }

    /// Every generator parameter combination of this split, for `domain`.
    pub fn combinations(&self, domain: &str) -> Vec<Params> {
        let ints =
            |l: &Option<IntList>| l.as_ref().map_or(vec![], |l| l.0.iter().map(|&v| v as u32).collect::<Vec<u32>>());
        let mut out = vec![];
        match domain {
            "blocksworld" => out.extend(ints(&self.blocks).into_iter().map(|blocks| Params::Blocksworld { blocks })),
            "ferry" => {
                for locations in ints(&self.locations) {
                    for cars in ints(&self.cars) {
                        out.push(Params::Ferry { locations, cars });
                    }
                }
            }
            "gripper" => out.extend(ints(&self.balls).into_iter().map(|balls| Params::Gripper { balls })),
            "visitall" => {
                let heights: Vec<Option<u32>> = match &self.height {
                    None => vec![None],
                    h => ints(h).into_iter().map(Some).collect(),
                };
                for size in ints(&self.size) {
                    for &height in &heights {
                        for &ratio in self.ratio.as_ref().map_or(&vec![], |r| &r.0) {
                            out.push(Params::Visitall { size, ratio, height });
                        }
                    }
                }
            }
            _ => {}
        }
        out
    }
}

impl Grid {
    /// Parses and checks a grid; `file` names it in errors.
    pub fn parse(text: &str, file: &str) -> Result<Grid, GridError> {
        let err = |message: String| GridError { file: file.to_string(), message };
        let de = toml::Deserializer::parse(text).map_err(|e| err(e.to_string().trim_end().to_string()))?;
        let grid: Grid = serde_path_to_error::deserialize(de).map_err(|e| {
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

    fn check(&self) -> Result<(), String> {
        if self.name.trim().is_empty() {
            return Err("name: must not be empty".into());
        }
        if self.domains.is_empty() {
            return Err("domains: at least one domain is needed".into());
        }
        for (name, spec) in &self.domains {
            let Some(params) = domain_params(name) else {
                return Err(format!(
                    "domains.{name}: unknown domain; expected one of {}",
                    planner::generate::DOMAINS.join(", ")
                ));
            };
            for split in Split::ALL {
                let s = spec.split(split);
                let at = format!("domains.{name}.{}", split.as_str());
                for g in s.given() {
                    if !params.contains(&g) {
                        return Err(format!("{at}.{g}: does not apply to {name} (it takes {})", params.join(", ")));
                    }
                }
                for p in params.iter().filter(|p| !OPTIONAL_PARAMS.contains(p)) {
                    if !s.given().contains(p) {
                        return Err(format!("{at}: missing `{p}`"));
                    }
                }
                for combo in s.combinations(name) {
                    combo.validate().map_err(|e| format!("{at}: {}", e.replace("--", "")))?;
                }
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
        if let Some(l) = &self.limits.plan {
            if !(l.time_s.is_finite() && l.time_s > 0.0) || l.memory_mib == 0 || l.max_evaluations == 0 {
                return Err("limits.plan: time_s, memory_mib and max_evaluations must be positive".into());
            }
        }
        if let Some(b) = &self.baselines {
            for (i, h) in b.heuristics.iter().enumerate() {
                if !planner::heuristics::NAMES.contains(&h.as_str()) {
                    return Err(format!(
                        "baselines.heuristics[{i}]: unknown heuristic `{h}`; expected one of {}",
                        planner::heuristics::NAMES.join(", ")
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
        Ok(())
    }
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
    Ok(())
}
