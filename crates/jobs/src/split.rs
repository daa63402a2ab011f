//! A domain's splits as a grid writes them: which split (`Split`), its
//! seeds and generator parameters, read against the domain's descriptor
//! (`planner::generate::DOMAINS`) so that a bad value is refused at its key,
//! how many of its slots are planned, and the limits of solving its slots
//! (`SolveLimits`). Numbers may be one value, a list, or an inclusive range
//! string `"5..16"` (`IntList`, `FloatList`). Grids (`crate::grid`) and the
//! other seeds' blocks (`crate::likely`, `crate::graphlearn`) read them.

use std::collections::BTreeMap;
use std::fmt;

use planner::generate::{self as generators, DomainInfo, Kind, Param, ParamValues, Params, Value};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};

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
pub(crate) fn deserialize_domains<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, DomainSpec>, D::Error> {
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

impl SplitSpec {
    /// Every generator parameter combination of this split, for `domain`:
    /// the domain's parameters crossed in its descriptor's order (the first
    /// varies slowest). Empty for an unknown domain or values its descriptor
    /// refuses, which [`crate::grid::Grid::parse`] never lets through.
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
