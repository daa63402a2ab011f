//! Seeded, deterministic instance generators, one file per domain, and the
//! domain files that ship with the project.
//!
//! The same (parameters, seed) always gives the same problem text: the random
//! stream is ChaCha8 seeded with the seed, which does not change across
//! platforms or library versions.
//!
//! Each domain describes itself in its own file, as a [`DomainInfo`]: its
//! name, its PDDL domain file, its generator parameters ([`Param`]: name,
//! help, kind and range) and its generator. [`DOMAINS`] registers them; grids
//! (`jobs::grid`) and the command line (`hfarm generate`, `hfarm domain`) take
//! names, parameters and ranges from there and nowhere else.
//!
//! # Adding a domain
//!
//! 1. `domains/NAME.pddl`, the domain file;
//! 2. `generate/NAME.rs`, declaring `pub static DOMAIN: DomainInfo` and the
//!    generator (see `gripper.rs`, the smallest);
//! 3. `mod NAME;` and one line in [`DOMAINS`];
//! 4. a [`Params`] variant, whose fields are the descriptor's parameters
//!    (same names), and its arm in [`Params::info`], which the compiler asks
//!    for. `Params` is the parameters' serialized form, part of every
//!    generate job's key: that is why it is a typed enum and not a map, and
//!    why no existing variant may change how it serializes. The descriptor's
//!    `build` and `values` convert between it and [`ParamValues`]; the unit
//!    tests check that they agree with the descriptor and with serde.

mod blocksworld;
mod ferry;
mod generator;
mod gripper;
mod pddl_generators;
mod visitall;
mod zenotravel;

pub use generator::{domain_pddl_like, generate_with, Generator};

use std::fmt;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Every domain we generate, in the order they are listed to users.
pub static DOMAINS: &[&DomainInfo] =
    &[&blocksworld::DOMAIN, &ferry::DOMAIN, &gripper::DOMAIN, &visitall::DOMAIN, &zenotravel::DOMAIN];

/// Parameter names a domain may not use: the grid's split keys (`seeds`,
/// `planning`, `limits`), the command line's `--seed`, and `domain`, the tag
/// of [`Params`]' serialized form.
pub const RESERVED_PARAM_NAMES: &[&str] = &["domain", "seed", "seeds", "planning", "limits"];

/// A registered domain by name.
pub fn domain(name: &str) -> Option<&'static DomainInfo> {
    DOMAINS.iter().copied().find(|d| d.name == name)
}

/// The registered domains' names.
pub fn names() -> impl Iterator<Item = &'static str> {
    DOMAINS.iter().map(|d| d.name)
}

/// The PDDL domain file for a domain name.
pub fn domain_pddl(name: &str) -> Option<&'static str> {
    domain(name).map(|d| d.pddl)
}

/// A domain generator, described by itself (in the manner of Fast Downward's
/// plugins): everything grids and the command line need to know about it.
#[derive(Debug)]
pub struct DomainInfo {
    /// The name on the command line, in grids and in `Params`' `domain` tag.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// The domain file's text.
    pub pddl: &'static str,
    /// The generator's parameters, in the order grids cross them.
    pub params: &'static [Param],
    /// Typed parameters from values that [`DomainInfo::check`] accepted.
    pub build: fn(&ParamValues) -> Result<Params, String>,
    /// The inverse of `build`, for this domain's variant of [`Params`] only.
    pub values: fn(&Params) -> ParamValues,
    /// A problem's text from checked values, a seed (named in the problem)
    /// and the random stream seeded with it.
    pub generate: fn(&ParamValues, u64, &mut ChaCha8Rng) -> Result<String, String>,
}

/// One generator parameter.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Param {
    /// The key in grids and the flag (`--NAME`) on the command line; not one
    /// of [`RESERVED_PARAM_NAMES`].
    pub name: &'static str,
    /// What it means, for `--help`.
    pub help: &'static str,
    /// Its type and inclusive range.
    pub kind: Kind,
    /// Whether it may be left out (the domain then uses its default).
    pub optional: bool,
    /// Whether instances get harder as it grows (more blocks, balls, cars):
    /// a grid stops trying a slot once the same seed's slot with no larger
    /// such values has no instance within the same limits (`jobs::expand`).
    pub harder_as_it_grows: bool,
}

/// A parameter's type and inclusive range.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    Int { min: u64, max: u64 },
    Float { min: f64, max: f64 },
}

/// A parameter's value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Value {
    Int(u64),
    Float(f64),
}

impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(v.into())
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Float(v)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Value::Int(v) => write!(f, "{v}"),
            Value::Float(v) => write!(f, "{v}"),
        }
    }
}

impl Param {
    /// A required integer parameter in `min..=max`.
    pub const fn int(name: &'static str, help: &'static str, min: u64, max: u64) -> Param {
        Param { name, help, kind: Kind::Int { min, max }, optional: false, harder_as_it_grows: false }
    }

    /// A required real parameter in `min..=max`.
    pub const fn float(name: &'static str, help: &'static str, min: f64, max: f64) -> Param {
        Param { name, help, kind: Kind::Float { min, max }, optional: false, harder_as_it_grows: false }
    }

    /// The same parameter, optional.
    pub const fn optional(self) -> Param {
        Param { optional: true, ..self }
    }

    /// The same parameter, marked as making instances harder as it grows.
    pub const fn harder_as_it_grows(self) -> Param {
        Param { harder_as_it_grows: true, ..self }
    }

    /// Checks a value's kind and range; an integer where a real is expected
    /// becomes a real. The message says what is wrong (`must be between 1 and
    /// 1000, got 0`), without the parameter's name.
    pub fn check(&self, v: Value) -> Result<Value, String> {
        match (self.kind, v) {
            (Kind::Int { min, max }, Value::Int(n)) if n < min || n > max => Err(if min == 0 {
                format!("must be at most {max}, got {n}")
            } else {
                format!("must be between {min} and {max}, got {n}")
            }),
            (Kind::Int { .. }, Value::Int(_)) => Ok(v),
            (Kind::Int { .. }, Value::Float(x)) => Err(format!("must be a whole number, got {x}")),
            (Kind::Float { .. }, Value::Int(n)) => self.check(Value::Float(n as f64)),
            (Kind::Float { min, max }, Value::Float(x)) if !(min..=max).contains(&x) => {
                Err(format!("must be between {min} and {max}, got {x}"))
            }
            (Kind::Float { .. }, Value::Float(_)) => Ok(v),
        }
    }

    /// Reads a value of the parameter's kind from text (a command-line
    /// flag); its range is checked with the others' ([`DomainInfo::make`]).
    pub fn parse(&self, text: &str) -> Result<Value, String> {
        Ok(match self.kind {
            Kind::Int { .. } => {
                Value::Int(text.trim().parse().map_err(|_| format!("expected a non-negative integer, got {text:?}"))?)
            }
            Kind::Float { .. } => {
                Value::Float(text.trim().parse().map_err(|_| format!("expected a number, got {text:?}"))?)
            }
        })
    }
}

/// Values of a domain's parameters, by name; an optional parameter may be
/// absent.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParamValues(Vec<(&'static str, Value)>);

impl ParamValues {
    pub fn new() -> ParamValues {
        ParamValues::default()
    }

    /// Sets a value (replacing any earlier one of that name).
    pub fn set(&mut self, name: &'static str, v: impl Into<Value>) {
        let v = v.into();
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = v,
            None => self.0.push((name, v)),
        }
    }

    /// `self` with a value set.
    pub fn with(mut self, name: &'static str, v: impl Into<Value>) -> ParamValues {
        self.set(name, v);
        self
    }

    /// `self` with a value set when there is one.
    pub fn with_opt(self, name: &'static str, v: Option<impl Into<Value>>) -> ParamValues {
        match v {
            Some(v) => self.with(name, v),
            None => self,
        }
    }

    pub fn get(&self, name: &str) -> Option<Value> {
        self.0.iter().find(|(n, _)| *n == name).map(|&(_, v)| v)
    }

    /// The values set, in the order they were first set.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, Value)> + '_ {
        self.0.iter().copied()
    }

    /// An integer parameter that may be absent.
    pub fn opt_int(&self, name: &str) -> Result<Option<u32>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Int(n)) => u32::try_from(n).map(Some).map_err(|_| format!("`{name}` is too large: {n}")),
            Some(Value::Float(x)) => Err(format!("`{name}` must be a whole number, got {x}")),
        }
    }

    /// A required integer parameter.
    pub fn int(&self, name: &str) -> Result<u32, String> {
        self.opt_int(name)?.ok_or_else(|| format!("missing `{name}`"))
    }

    /// A required real parameter.
    pub fn float(&self, name: &str) -> Result<f64, String> {
        match self.get(name) {
            None => Err(format!("missing `{name}`")),
            Some(Value::Int(n)) => Ok(n as f64),
            Some(Value::Float(x)) => Ok(x),
        }
    }
}

/// Why values do not make parameters of a domain. Callers word it for their
/// users (a grid names key paths, the command line names flags).
#[derive(Debug, Clone, PartialEq)]
pub enum ParamError {
    /// A value for a parameter the domain does not take.
    DoesNotApply(&'static str),
    /// A required parameter without a value.
    Missing(&'static str),
    /// A value of the wrong kind or out of range: the parameter, and what is
    /// wrong with it (see [`Param::check`]).
    Invalid(&'static str, String),
    /// The descriptor's `build` refused checked values (a bug in the descriptor).
    Build(String),
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self {
            ParamError::DoesNotApply(p) => write!(f, "`{p}` does not apply"),
            ParamError::Missing(p) => write!(f, "missing `{p}`"),
            ParamError::Invalid(p, m) => write!(f, "{p} {m}"),
            ParamError::Build(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ParamError {}

impl DomainInfo {
    /// The parameter of this name, if the domain takes it.
    pub fn param(&self, name: &str) -> Option<&'static Param> {
        self.params.iter().find(|p| p.name == name)
    }

    /// Checks values: every one is a parameter of the domain (first error in
    /// the values' order), every required parameter has one, and each is of
    /// its kind and in its range (in the descriptor's order).
    pub fn check(&self, values: &ParamValues) -> Result<(), ParamError> {
        self.checked(values).map(|_| ())
    }

    /// The values checked as [`DomainInfo::check`] does, each as its
    /// parameter's kind (an integer given for a real becomes a real).
    fn checked(&self, values: &ParamValues) -> Result<ParamValues, ParamError> {
        if let Some((name, _)) = values.iter().find(|(n, _)| self.param(n).is_none()) {
            return Err(ParamError::DoesNotApply(name));
        }
        let mut checked = ParamValues::new();
        for p in self.params {
            match values.get(p.name) {
                None if p.optional => {}
                None => return Err(ParamError::Missing(p.name)),
                Some(v) => checked.set(p.name, p.check(v).map_err(|m| ParamError::Invalid(p.name, m))?),
            }
        }
        Ok(checked)
    }

    /// Checked values to typed parameters.
    pub fn make(&self, values: &ParamValues) -> Result<Params, ParamError> {
        (self.build)(&self.checked(values)?).map_err(ParamError::Build)
    }
}

/// Generator parameters, one variant per domain (appendix C.2 of the paper).
///
/// This is the parameters' serialized form, hashed into generate jobs' keys:
/// a variant's serialization must never change (see the pinned strings in
/// the tests). Each variant is described by its domain's [`DomainInfo`].
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "domain", rename_all = "lowercase")]
pub enum Params {
    /// Initial and goal states uniform over all blocksworld states (Slaney & Thiébaux).
    Blocksworld {
        blocks: u32,
    },
    Ferry {
        locations: u32,
        cars: u32,
    },
    /// Each ball's initial and goal room, and the robot's room, drawn at random.
    Gripper {
        balls: u32,
    },
    /// A size x size grid (size x height when `height` is given); each cell
    /// is a goal with probability `ratio` (the start cell always).
    Visitall {
        size: u32,
        ratio: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        height: Option<u32>,
    },
    /// Each plane's and person's city, each plane's fuel level, each person's
    /// goal city and a third of the planes' goal cities drawn at random (the
    /// IPC 2002 problems' distribution); `fuel_levels` defaults to the IPC's 7.
    Zenotravel {
        cities: u32,
        planes: u32,
        persons: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fuel_levels: Option<u32>,
    },
}

impl Params {
    /// The descriptor of the domain these parameters belong to.
    pub fn info(&self) -> &'static DomainInfo {
        match self {
            Params::Blocksworld { .. } => &blocksworld::DOMAIN,
            Params::Ferry { .. } => &ferry::DOMAIN,
            Params::Gripper { .. } => &gripper::DOMAIN,
            Params::Visitall { .. } => &visitall::DOMAIN,
            Params::Zenotravel { .. } => &zenotravel::DOMAIN,
        }
    }

    pub fn domain(&self) -> &'static str {
        self.info().name
    }

    /// The parameters as values, by name.
    pub fn values(&self) -> ParamValues {
        (self.info().values)(self)
    }

    /// Checks the parameters' ranges (`blocks must be between 1 and 1000, got 0`).
    pub fn validate(&self) -> Result<(), String> {
        self.info().check(&self.values()).map_err(|e| e.to_string())
    }
}

/// Generates a problem file's text.
pub fn generate(params: &Params, seed: u64) -> Result<String, String> {
    let info = params.info();
    let values = params.values();
    info.check(&values).map_err(|e| e.to_string())?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (info.generate)(&values, seed, &mut rng)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_params() -> Vec<Params> {
        vec![
            Params::Blocksworld { blocks: 7 },
            Params::Ferry { locations: 3, cars: 4 },
            Params::Gripper { balls: 4 },
            Params::Visitall { size: 4, ratio: 0.5, height: None },
            Params::Visitall { size: 3, ratio: 0.5, height: Some(5) },
            Params::Zenotravel { cities: 3, planes: 2, persons: 4, fuel_levels: None },
            Params::Zenotravel { cities: 4, planes: 1, persons: 3, fuel_levels: Some(3) },
        ]
    }

    /// Generate jobs' keys hash these strings: they must never change.
    #[test]
    fn serialized_params_are_pinned() {
        let pinned = [
            (Params::Blocksworld { blocks: 7 }, r#"{"domain":"blocksworld","blocks":7}"#),
            (Params::Ferry { locations: 3, cars: 4 }, r#"{"domain":"ferry","locations":3,"cars":4}"#),
            (Params::Gripper { balls: 3 }, r#"{"domain":"gripper","balls":3}"#),
            (Params::Visitall { size: 4, ratio: 0.5, height: None }, r#"{"domain":"visitall","size":4,"ratio":0.5}"#),
            (Params::Visitall { size: 5, ratio: 1.0, height: None }, r#"{"domain":"visitall","size":5,"ratio":1.0}"#),
            (
                Params::Visitall { size: 3, ratio: 0.5, height: Some(5) },
                r#"{"domain":"visitall","size":3,"ratio":0.5,"height":5}"#,
            ),
            (
                Params::Zenotravel { cities: 3, planes: 2, persons: 4, fuel_levels: None },
                r#"{"domain":"zenotravel","cities":3,"planes":2,"persons":4}"#,
            ),
            (
                Params::Zenotravel { cities: 3, planes: 2, persons: 4, fuel_levels: Some(5) },
                r#"{"domain":"zenotravel","cities":3,"planes":2,"persons":4,"fuel_levels":5}"#,
            ),
        ];
        for (p, json) in pinned {
            assert_eq!(serde_json::to_string(&p).unwrap(), json);
            assert_eq!(serde_json::from_str::<Params>(json).unwrap(), p);
        }
    }

    /// Each descriptor agrees with itself, with its `Params` variant and with
    /// serde: `build` and `values` are inverse, the variant names the
    /// descriptor, and the serialized fields are the descriptor's parameters.
    #[test]
    fn descriptors_agree_with_params() {
        let mut seen = std::collections::HashSet::new();
        for d in DOMAINS {
            assert!(seen.insert(d.name), "{} registered twice", d.name);
            assert!(std::ptr::eq(domain(d.name).unwrap(), *d));
            crate::pddl::parse_domain(d.pddl, "domain.pddl").unwrap_or_else(|e| panic!("{}: {e}", d.name));
            let mut names = std::collections::HashSet::new();
            for p in d.params {
                assert!(names.insert(p.name), "{}: {} twice", d.name, p.name);
                assert!(!RESERVED_PARAM_NAMES.contains(&p.name), "{}: {} is reserved", d.name, p.name);
                assert!(p.name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{}", p.name);
            }
            // Every parameter at its smallest and at its largest value.
            for pick in [0, 1] {
                let mut values = ParamValues::new();
                for p in d.params {
                    let v = match p.kind {
                        Kind::Int { min, max } => Value::Int([min.max(1), max.min(40)][pick]),
                        Kind::Float { min, max } => Value::Float([min, max][pick]),
                    };
                    values.set(p.name, v);
                }
                let params = d.make(&values).unwrap();
                assert!(std::ptr::eq(params.info(), *d), "{}", d.name);
                assert_eq!(params.values(), values, "{}", d.name);
                let json = serde_json::to_value(params).unwrap();
                let json = json.as_object().unwrap();
                assert_eq!(json["domain"], d.name);
                assert_eq!(json.len(), 1 + d.params.len(), "{}: {json:?}", d.name);
                for p in d.params {
                    assert!(json.contains_key(p.name), "{}: {} is not serialized", d.name, p.name);
                }
                // Optional parameters may go.
                let mut required = ParamValues::new();
                for (n, v) in values.iter().filter(|(n, _)| !d.param(n).unwrap().optional) {
                    required.set(n, v);
                }
                let params = d.make(&required).unwrap();
                assert_eq!(params.values(), required);
                assert!(generate(&params, 1).is_ok());
            }
        }
        assert_eq!(names().collect::<Vec<_>>(), ["blocksworld", "ferry", "gripper", "visitall", "zenotravel"]);
        assert!(domain("sokoban").is_none() && domain_pddl("sokoban").is_none());
    }

    #[test]
    fn values_are_checked_against_the_descriptor() {
        let ferry = domain("ferry").unwrap();
        let v = ParamValues::new().with("locations", 3u32);
        assert_eq!(ferry.make(&v), Err(ParamError::Missing("cars")));
        assert_eq!(
            ferry.make(&v.clone().with("cars", 2u32).with("balls", 3u32)),
            Err(ParamError::DoesNotApply("balls"))
        );
        assert_eq!(ferry.make(&v.clone().with("cars", 2u32)), Ok(Params::Ferry { locations: 3, cars: 2 }));
        let e = ferry.make(&v.clone().with("cars", 20_000u32)).unwrap_err();
        assert_eq!(e.to_string(), "cars must be at most 10000, got 20000");
        let e = ferry.make(&v.with("cars", 2.5)).unwrap_err();
        assert_eq!(e.to_string(), "cars must be a whole number, got 2.5");
        let visitall = domain("visitall").unwrap();
        // An integer ratio is a real.
        let v = ParamValues::new().with("size", 3u32).with("ratio", Value::Int(1));
        assert_eq!(visitall.make(&v), Ok(Params::Visitall { size: 3, ratio: 1.0, height: None }));
        let (ratio, height) = (visitall.param("ratio").unwrap(), visitall.param("height").unwrap());
        assert_eq!(ratio.parse("0.25"), Ok(Value::Float(0.25)));
        assert!(ratio.parse("x").is_err() && height.parse("-1").is_err() && height.parse("2.5").is_err());
        assert_eq!(height.parse("0"), Ok(Value::Int(0)));
        assert_eq!(height.check(Value::Int(0)), Err("must be between 1 and 200, got 0".to_string()));
    }

    #[test]
    fn visitall_grids_are_width_by_height() {
        let text = generate(&Params::Visitall { size: 5, ratio: 1.0, height: Some(7) }, 1).unwrap();
        let objects = &text[text.find("(:objects").unwrap()..text.find("- place)").unwrap()];
        assert_eq!(objects.matches(" loc-x").count(), 35, "35 objects");
        assert!(text.contains("loc-x4-y6") && !text.contains("loc-x5-") && !text.contains("-y7"));
        // Square grids keep their text (and so the golden fixtures and job keys).
        let square = Params::Visitall { size: 4, ratio: 0.5, height: None };
        assert_eq!(
            generate(&square, 3).unwrap(),
            generate(&Params::Visitall { size: 4, ratio: 0.5, height: Some(4) }, 3).unwrap()
        );
        assert_eq!(serde_json::to_string(&square).unwrap(), r#"{"domain":"visitall","size":4,"ratio":0.5}"#);
    }

    #[test]
    fn same_seed_same_text_other_seed_other_text() {
        for p in all_params() {
            let a = generate(&p, 7).unwrap();
            assert_eq!(a, generate(&p, 7).unwrap());
            let differs = (8..20).any(|s| generate(&p, s).unwrap() != a);
            assert!(differs, "{p:?}");
        }
    }

    #[test]
    fn generated_problems_parse_and_ground() {
        for p in all_params() {
            for seed in 0..5 {
                let text = generate(&p, seed).unwrap();
                let domain = domain_pddl(p.domain()).unwrap();
                let task = crate::load_task_from_text(domain, "domain.pddl", &text, "problem.pddl")
                    .unwrap_or_else(|e| panic!("{p:?} seed {seed}: {e}\n{text}"));
                assert!(task.unsolvable.is_none(), "{p:?} seed {seed}");
            }
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert_eq!(
            generate(&Params::Blocksworld { blocks: 0 }, 1).unwrap_err(),
            "blocks must be between 1 and 1000, got 0"
        );
        assert_eq!(
            generate(&Params::Visitall { size: 3, ratio: 1.5, height: None }, 1).unwrap_err(),
            "ratio must be between 0 and 1, got 1.5"
        );
        assert!(Params::Visitall { size: 3, ratio: 0.5, height: Some(201) }.validate().is_err());
        assert!(Params::Gripper { balls: 10_000 }.validate().is_ok());
    }
}
