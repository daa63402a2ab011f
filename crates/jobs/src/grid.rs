//! Experiment grids as data (`grids/*.toml`).
//!
//! Unknown keys and bad values are errors that name the key path
//! (`domains.gripper.train.balls: ...`). Numbers may be given as one value,
//! a list, or an inclusive range string `"5..16"`.
//!
//! Domains, and the generator parameters each split may set, come from the
//! domains' descriptors (`planner::generate::DOMAINS`): a split's keys are
//! `seeds`, `planning`, `limits` and its domain's parameters.

use std::collections::BTreeMap;
use std::fmt;

use planner::generate::{self as generators, DomainInfo, Generator, Kind, Param, ParamValues, Params, Value};
use planner::heuristics::{Definitions, ResidualBase};
use planner::search::Greedy;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

use crate::expand::{MAX_INPUTS, MAX_JOBS};

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

impl Model {
    /// The name grids, job specs and the `model` column use.
    pub fn as_str(self) -> &'static str {
        match self {
            Model::Linear => "linear",
            Model::Nlm => "nlm",
            Model::Hgn => "hgn",
        }
    }

    /// Where its learned heuristic is evaluated best inside a search. The
    /// relational networks (NLM, HGN) cost a tensor program per evaluation
    /// that a GPU runs for hundreds of searches at once (`learner::many`);
    /// the linear model's cost is its hFF features, which a GPU cannot help.
    pub fn plans_on(self) -> crate::Resource {
        match self {
            Model::Linear => crate::Resource::Cpu,
            Model::Nlm | Model::Hgn => crate::Resource::Gpu,
        }
    }
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
    /// generator seed derived from (x, s, i) ([`crate::spec::generator_seed`]),
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
            Splits::Disjoint => crate::spec::generator_seed(split, seed, attempt),
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

/// Limits for solving a generated instance optimally.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SolveLimits {
    /// CPU seconds per try (the authors' code limits CPU time), so that a
    /// grid's instances are the same on a busy machine and a quiet one.
    #[serde(default = "default_solve_time")]
    pub time_s: f64,
    #[serde(default = "default_solve_memory")]
    pub memory_mib: u64,
    /// Generation attempts before the slot is left without an instance.
    #[serde(default = "default_tries")]
    pub tries: u32,
    /// Stop after this many tries in a row ran out of time or memory: the
    /// next random instance of the same size is as unlikely to be solved.
    /// None: every try is used (the authors' code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub give_up_after: Option<u32>,
    /// Skip a slot, trying nothing, when the CPU its accepted try is
    /// predicted to take exceeds this many times `time_s`. The prediction
    /// extrapolates the same seed's chain of easier slots geometrically:
    /// the last accepted try's CPU times its growth over the one before
    /// (`worker::kinds::generate::predicted_cpu_s`). The run time of optimal
    /// search grows about geometrically with size, so a chain's last step
    /// says where the next one lands. None: every slot is tried (the
    /// authors' code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_predicted_over: Option<f64>,
    /// Skip a slot, trying nothing, when the same size's previous this-many
    /// seeds (in the split's seed order) all ended without an instance:
    /// once a size has failed for K seeds in a row, the next seed's random
    /// instance is as unlikely to be solved. Such a slot waits for those
    /// seeds; a slot without a gate (the split's easiest size) is always
    /// tried. None: every seed is tried (the authors' code).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skip_after_failed_seeds: Option<u32>,
    /// Skip a slot, trying nothing, when the same seed's next easier slot
    /// (`jobs::expand::difficulty_gate`) ended without an instance. On by
    /// default; false tries every slot, as the authors' code does.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub skip_after_easier_failed: bool,
}

fn yes() -> bool {
    true
}
fn is_true(b: &bool) -> bool {
    *b
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
        SolveLimits {
            time_s: default_solve_time(),
            memory_mib: default_solve_memory(),
            tries: default_tries(),
            give_up_after: None,
            skip_predicted_over: None,
            skip_after_failed_seeds: None,
            skip_after_easier_failed: true,
        }
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

/// A list of integers: `7`, `[5, 6, 9]` or `"5..16"` (inclusive).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
#[derive(Debug, Clone)]
pub struct SplitSpec {
    /// Generator seeds; every parameter combination is generated with each.
    pub seeds: IntList,
    /// Values of the domain's generator parameters, by parameter name, each
    /// checked against the domain's descriptor (kind and range); optional
    /// parameters may be absent (visitall's `height`: square grids).
    pub params: BTreeMap<&'static str, Vec<Value>>,
    /// Test split: how many instances get planning runs: the first that many
    /// solved slots in a fixed order of the slots (`expand::planning_slots`).
    pub planning: Option<usize>,
    /// Overrides `limits.generate` for this split.
    pub limits: Option<SolveLimits>,
}

#[derive(Debug, Clone)]
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

/// `domains`: a table of domain names, each a registered domain whose splits
/// are read against its descriptor.
fn deserialize_domains<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, DomainSpec>, D::Error> {
    struct Domains;
    impl<'de> Visitor<'de> for Domains {
        type Value = BTreeMap<String, DomainSpec>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a table of domains")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(name) = map.next_key::<String>()? {
                let spec = map.next_value_seed(DomainSeed(generators::domain(&name)))?;
                out.insert(name, spec);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Domains)
}

/// One domain's table; an unregistered domain is an error at its key.
struct DomainSeed(Option<&'static DomainInfo>);

impl<'de> DeserializeSeed<'de> for DomainSeed {
    type Value = DomainSpec;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<DomainSpec, D::Error> {
        let Some(info) = self.0 else {
            let names: Vec<_> = generators::names().collect();
            return Err(de::Error::custom(format!("unknown domain; expected one of {}", names.join(", "))));
        };
        d.deserialize_map(DomainVisitor(info))
    }
}

struct DomainVisitor(&'static DomainInfo);

impl<'de> Visitor<'de> for DomainVisitor {
    type Value = DomainSpec;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a table with train, validation and test")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<DomainSpec, A::Error> {
        const SPLITS: &[&str] = &["train", "validation", "test"];
        let mut splits: [Option<SplitSpec>; 3] = [None, None, None];
        while let Some(key) = map.next_key::<String>()? {
            let Some(i) = SPLITS.iter().position(|s| *s == key) else {
                let message = format!("unknown field `{key}`, expected one of `train`, `validation`, `test`");
                match map.next_value_seed(Refuse(message))? {}
            };
            if splits[i].is_some() {
                return Err(de::Error::duplicate_field(SPLITS[i]));
            }
            splits[i] = Some(map.next_value_seed(SplitSeed(self.0))?);
        }
        let [train, validation, test] = splits;
        Ok(DomainSpec {
            train: train.ok_or_else(|| de::Error::missing_field("train"))?,
            validation: validation.ok_or_else(|| de::Error::missing_field("validation"))?,
            test: test.ok_or_else(|| de::Error::missing_field("test"))?,
        })
    }
}

/// One split's table, read against its domain's descriptor.
pub(crate) struct SplitSeed(pub(crate) &'static DomainInfo);

impl<'de> DeserializeSeed<'de> for SplitSeed {
    type Value = SplitSpec;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<SplitSpec, D::Error> {
        d.deserialize_map(self)
    }
}

/// The keys of a split that are not generator parameters.
const SPLIT_KEYS: &[&str] = &["seeds", "planning", "limits"];

impl<'de> Visitor<'de> for SplitSeed {
    type Value = SplitSpec;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a table of seeds and {}'s generator parameters", self.0.name)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SplitSpec, A::Error> {
        let info = self.0;
        let takes = || info.params.iter().map(|p| p.name).collect::<Vec<_>>().join(", ");
        let (mut seeds, mut planning, mut limits, mut params) = (None, None, None, BTreeMap::new());
        while let Some(key) = map.next_key::<String>()? {
            let duplicate = match key.as_str() {
                "seeds" => seeds.replace(map.next_value::<IntList>()?).is_some(),
                "planning" => planning.replace(map.next_value::<usize>()?).is_some(),
                "limits" => limits.replace(map.next_value::<SolveLimits>()?).is_some(),
                _ => match info.param(&key) {
                    Some(p) => params.insert(p.name, map.next_value_seed(ParamSeed(p))?).is_some(),
                    None => {
                        let message = if generators::DOMAINS.iter().any(|d| d.param(&key).is_some()) {
                            format!("does not apply to {} (it takes {})", info.name, takes())
                        } else {
                            let expected: Vec<String> = SPLIT_KEYS
                                .iter()
                                .chain(info.params.iter().map(|p| &p.name))
                                .map(|k| format!("`{k}`"))
                                .collect();
                            format!("unknown field `{key}`, expected one of {}", expected.join(", "))
                        };
                        match map.next_value_seed(Refuse(message))? {}
                    }
                },
            };
            if duplicate {
                return Err(de::Error::custom(format!("duplicate field `{key}`")));
            }
        }
        if let Some(p) = info.params.iter().find(|p| !p.optional && !params.contains_key(p.name)) {
            return Err(de::Error::custom(format!("missing `{}`", p.name)));
        }
        Ok(SplitSpec { seeds: seeds.ok_or_else(|| de::Error::missing_field("seeds"))?, params, planning, limits })
    }
}

/// A parameter's values: a value, a list or (integers) an inclusive range,
/// each checked against the parameter's kind and range.
struct ParamSeed(&'static Param);

impl<'de> DeserializeSeed<'de> for ParamSeed {
    type Value = Vec<Value>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<Value>, D::Error> {
        let values: Vec<Value> = match self.0.kind {
            Kind::Int { .. } => IntList::deserialize(d)?.0.into_iter().map(Value::Int).collect(),
            Kind::Float { .. } => FloatList::deserialize(d)?.0.into_iter().map(Value::Float).collect(),
        };
        values.into_iter().map(|v| self.0.check(v).map_err(de::Error::custom)).collect()
    }
}

/// A value refused at its key: the error's path ends with the key (a
/// parameter of another domain, an unknown key).
struct Refuse(String);

impl<'de> DeserializeSeed<'de> for Refuse {
    type Value = std::convert::Infallible;
    fn deserialize<D: Deserializer<'de>>(self, _: D) -> Result<Self::Value, D::Error> {
        Err(de::Error::custom(self.0))
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

impl SplitSpec {
    /// Every generator parameter combination of this split, for `domain`:
    /// the domain's parameters crossed in its descriptor's order (the first
    /// varies slowest). Empty for an unknown domain or values its descriptor
    /// refuses, which [`Grid::parse`] never lets through.
    pub fn combinations(&self, domain: &str) -> Vec<Params> {
        let Some(info) = generators::domain(domain) else { return vec![] };
        let mut combos = vec![ParamValues::new()];
        for p in info.params {
            let Some(values) = self.params.get(p.name) else { continue };
            combos = combos.into_iter().flat_map(|c| values.iter().map(move |&v| c.clone().with(p.name, v))).collect();
        }
        combos.iter().map(|v| info.make(v)).collect::<Result<_, _>>().unwrap_or_default()
    }
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
        let size = crate::expand::size(self);
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
