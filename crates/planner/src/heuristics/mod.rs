//! Heuristics: a value for any state, evaluated in batches.
//!
//! The search hands a heuristic all successors of an expanded state at once
//! (`evaluate_batch`): classical heuristics loop over them, a learned one runs
//! one forward pass. Values are `f64` so learned estimates fit; classical ones
//! are whole numbers. `f64::INFINITY` marks a dead end (no relaxed plan).
//!
//! Each classical heuristic describes itself where it is implemented, as a
//! [`HeuristicInfo`] (name, admissibility, constructor), and [`ALL`] registers
//! them; names ([`NAMES`], [`by_name`], [`info`]) and the roles a learner
//! gives them ([`LowerBound`], [`ResidualBase`]) come from there.
//!
//! # Adding a heuristic
//!
//! 1. In a new file `heuristics/myh.rs`, implement [`Heuristic`] (for one
//!    state at a time, `per_state_heuristic!(MyH, MYH)` gives the name and
//!    the batched call) and declare its descriptor next to it:
//!    `pub static MYH: HeuristicInfo = HeuristicInfo { name: "myh",
//!    description, admissible, detects_dead_ends, build: |task|
//!    Box::new(MyH::new(task)) };`
//! 2. Register it: `mod myh;` and `&myh::MYH` in [`ALL`] (the one
//!    registration line; a `pub use` is optional, for callers that want the
//!    type or the descriptor by path).
//!
//! Nothing else names it. From the registry it is then:
//! - usable by `hfarm plan --heuristic myh`, listed by `hfarm heuristics`,
//!   and accepted in grids' `baselines.heuristics`;
//! - computed for every labelled state (`label::label` evaluates every
//!   [`registered`] heuristic, [`ALL`] and [`PYPERPLAN`]; the farm stores the values by name, in
//!   `labelled_states.heuristics`, so no column or migration is needed);
//! - accepted as a residual base (`learning.residuals`, a model's
//!   `residual`): every registered heuristic may be one
//!   ([`HeuristicInfo::can_residual`]);
//! - accepted as the truncated Gaussian's lower bound (`learning.bounds`, a
//!   model's `lower`, a Gaussian's +clip bound) if and only if it is declared
//!   `admissible` ([`HeuristicInfo::can_bound`]). Declare that only with a
//!   proof: a bound above h* cuts the true value out of the distribution's
//!   support. `tests/random_tasks.rs` checks every admissible heuristic
//!   against h* on random tasks.
//!
//! States labelled before it was registered lack its value: a model that
//! names it as bound or residual refuses them (relabel: run the label jobs
//! again).

mod blind;
mod lmcut;
mod pyperplan_ff;
mod pyperplan_lmcut;
mod queue;
mod relaxed;
mod relaxed_exploration;
mod support_edges;
mod unchecked;

pub use blind::{Blind, GoalCount, BLIND, GOALCOUNT};
pub use lmcut::{LmCut, LMCUT};
pub use pyperplan_ff::{FfPyperplan, PyperplanFeatures, FF_PYPERPLAN};
pub use pyperplan_lmcut::{LmCutPyperplan, LMCUT_PYPERPLAN};
pub use relaxed::RelaxedTask;
pub use relaxed_exploration::{Additive, FeatureValues, Ff, HMax, RelaxedPlanFeatures, FF, HADD, HMAX};

use crate::task::Task;

/// A value meaning "no plan exists from this state".
pub const DEAD_END: f64 = f64::INFINITY;

/// Contiguous packed states of equal width: the unit a heuristic evaluates.
#[derive(Clone, Copy)]
pub struct StateBatch<'a> {
    pub data: &'a [u64],
    pub words: usize,
}

impl<'a> StateBatch<'a> {
    pub fn new(data: &'a [u64], words: usize) -> Self {
        debug_assert!(words > 0 && data.len().is_multiple_of(words));
        StateBatch { data, words }
    }

    pub fn len(&self) -> usize {
        self.data.len() / self.words
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn get(&self, i: usize) -> &'a [u64] {
        &self.data[i * self.words..(i + 1) * self.words]
    }

    pub fn iter(&self) -> impl Iterator<Item = &'a [u64]> + 'a {
        self.data.chunks_exact(self.words)
    }
}

/// A state evaluator.
pub trait Heuristic {
    /// The name used on the command line and in reports.
    fn name(&self) -> &str;

    /// Writes one value per state of `batch` into `out` (cleared first).
    fn evaluate_batch(&mut self, batch: StateBatch<'_>, out: &mut Vec<f64>);

    /// Evaluates a single state.
    fn evaluate(&mut self, state: &[u64]) -> f64 {
        let mut out = Vec::with_capacity(1);
        self.evaluate_batch(StateBatch::new(state, state.len()), &mut out);
        out[0]
    }
}

/// Implements the batched call for heuristics that evaluate one state at a
/// time (`value(&mut self, state) -> f64`), named by their [`HeuristicInfo`].
macro_rules! per_state_heuristic {
    ($ty:ty, $info:expr) => {
        impl $crate::heuristics::Heuristic for $ty {
            fn name(&self) -> &str {
                $info.name
            }
            fn evaluate_batch(&mut self, batch: $crate::heuristics::StateBatch<'_>, out: &mut Vec<f64>) {
                out.clear();
                for s in batch.iter() {
                    out.push(self.value(s));
                }
            }
        }
    };
}
pub(crate) use per_state_heuristic;

/// A classical heuristic, described by itself.
#[derive(Debug)]
pub struct HeuristicInfo {
    /// The name on the command line, in grids and in reports.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// Never above the true cost h*: an A* with it finds optimal plans, and
    /// it can serve as a lower bound ([`HeuristicInfo::can_bound`]).
    pub admissible: bool,
    /// Built on the delete relaxation: [`DEAD_END`] wherever the relaxation
    /// has no plan. A task that grounding found unsolvable
    /// (`Task::unsolvable`; its contradicted goal may have been compiled
    /// away) is a dead end for it too, which callers apply. Without this
    /// flag a heuristic never returns [`DEAD_END`].
    pub detects_dead_ends: bool,
    /// The heuristic for a task.
    pub build: fn(&Task) -> Box<dyn Heuristic>,
}

impl HeuristicInfo {
    /// Whether it may serve as the lower bound l of a truncated Gaussian
    /// model of h* (and as the bound a Gaussian's +clip estimate uses):
    /// exactly the admissible heuristics, since l <= h* is what the
    /// truncation assumes.
    pub fn can_bound(&self) -> bool {
        self.admissible
    }

    /// Whether it may serve as a residual base, mu = delta_mu + h(s): every
    /// registered heuristic. The residual only moves the origin of what the
    /// network learns, so any heuristic is sound there (admissible or not;
    /// where it reports a dead end, so does the learned heuristic). The
    /// paper uses ff and lmcut.
    pub fn can_residual(&self) -> bool {
        true
    }
}

/// Every classical heuristic, in the order they are listed to users.
pub static ALL: &[&HeuristicInfo] = &[
    &blind::BLIND,
    &blind::GOALCOUNT,
    &relaxed_exploration::HMAX,
    &relaxed_exploration::HADD,
    &relaxed_exploration::FF,
    &lmcut::LMCUT,
];

const NAME_ARRAY: [&str; ALL.len()] = {
    let mut names = [""; ALL.len()];
    let mut i = 0;
    while i < ALL.len() {
        names[i] = ALL[i].name;
        i += 1;
    }
    names
};

/// Whose definitions of the classical heuristics a planning run computes:
/// ours (Fast Downward's, which labels carry), or pyperplan's, as the
/// authors' planning computes hFF and LM-cut for baselines, bounds,
/// residuals and the linear model's features (`experiments/plan.py:34-49`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Definitions {
    #[default]
    Hfarm,
    Pyperplan,
}

impl Definitions {
    pub fn is_default(&self) -> bool {
        *self == Definitions::Hfarm
    }

    /// The heuristic to compute for `name` under these definitions: its
    /// pyperplan counterpart where it has one (hFF, LM-cut; hmax and blind
    /// have no ties to break, so they are the same), else itself.
    pub fn resolve(self, name: &str) -> Option<&'static HeuristicInfo> {
        match self {
            Definitions::Hfarm => info(name),
            Definitions::Pyperplan => pyperplan_counterpart(name).or_else(|| info(name)),
        }
    }
}

/// The classical heuristics' names, in [`ALL`]'s order.
pub const NAMES: &[&str] = &NAME_ARRAY;

/// The authors' planning-time heuristics (IBM/pddlsl computes l, the
/// residual and the linear model's features during search with pyperplan's
/// hFF and LM-cut, `experiments/plan.py:34-49`), registered beside ours under
/// their own names. They are not in [`ALL`] (the list users pick ours from,
/// and [`NAMES`]), but every labelled state carries their values too, and
/// the learner roles accept them: the authors' truncated-Gaussian runs read
/// pyperplan's LM-cut as l (`docs/reproduction-linear-test.md`, "Their
/// truncated-Gaussian cells read pyperplan's LM-cut as l"), which
/// `bounds = ["lmcut-pyperplan"]` reproduces. A model trained on `lmcut`
/// plans with `lmcut-pyperplan` under [`Definitions::Pyperplan`] through
/// [`pyperplan_counterpart`].
pub static PYPERPLAN: &[&HeuristicInfo] = &[&pyperplan_ff::FF_PYPERPLAN, &pyperplan_lmcut::LMCUT_PYPERPLAN];

/// Every registered heuristic: [`ALL`], then [`PYPERPLAN`].
pub fn registered() -> impl Iterator<Item = &'static HeuristicInfo> {
    ALL.iter().chain(PYPERPLAN).copied()
}

/// A registered heuristic's descriptor by name ([`ALL`] or [`PYPERPLAN`]).
pub fn info(name: &str) -> Option<&'static HeuristicInfo> {
    registered().find(|h| h.name == name)
}

/// The pyperplan version of a heuristic of ours, as the authors' planning
/// computes it: `ff` -> `ff-pyperplan`, `lmcut` -> `lmcut-pyperplan`.
pub fn pyperplan_counterpart(name: &str) -> Option<&'static HeuristicInfo> {
    match name {
        "ff" => Some(&pyperplan_ff::FF_PYPERPLAN),
        "lmcut" => Some(&pyperplan_lmcut::LMCUT_PYPERPLAN),
        _ => None,
    }
}

/// The classical heuristics' names, in [`ALL`]'s order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALL.iter().map(|h| h.name)
}

/// Builds a classical heuristic by name, or None for an unknown name.
pub fn by_name(name: &str, task: &Task) -> Option<Box<dyn Heuristic>> {
    info(name).map(|h| (h.build)(task))
}

/// The names of the heuristics that may bound ([`HeuristicInfo::can_bound`]).
pub fn bound_names() -> Vec<&'static str> {
    registered().filter(|h| h.can_bound()).map(|h| h.name).collect()
}

/// The names of the heuristics that may be residual bases
/// ([`HeuristicInfo::can_residual`]).
pub fn residual_names() -> Vec<&'static str> {
    registered().filter(|h| h.can_residual()).map(|h| h.name).collect()
}

/// A registered heuristic in one of the roles a learner gives heuristics,
/// checked against the registry when it is named (parsed, deserialized):
/// copied freely, compared and hashed by name, serialized as its name.
macro_rules! role {
    ($(#[$doc:meta])* $ty:ident, $allowed:ident, $names:ident, $refusal:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $ty(&'static HeuristicInfo);

        impl $ty {
            /// The registered heuristic `name` in this role; the error says
            /// why not and lists the names that are accepted.
            pub fn new(name: &str) -> Result<$ty, String> {
                let accepted = || $names().join(", ");
                match info(name) {
                    Some(h) if h.$allowed() => Ok($ty(h)),
                    Some(_) => Err(format!($refusal, name, accepted())),
                    None => Err(format!("unknown heuristic `{name}`; expected one of {}", accepted())),
                }
            }

            pub fn name(self) -> &'static str {
                self.0.name
            }

            pub fn info(self) -> &'static HeuristicInfo {
                self.0
            }

            /// The heuristic for a task.
            pub fn build(self, task: &Task) -> Box<dyn Heuristic> {
                (self.0.build)(task)
            }
        }

        impl std::str::FromStr for $ty {
            type Err = String;
            fn from_str(s: &str) -> Result<$ty, String> {
                $ty::new(s)
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}({:?})", stringify!($ty), self.0.name)
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0.name)
            }
        }

        impl PartialEq for $ty {
            fn eq(&self, other: &$ty) -> bool {
                self.0.name == other.0.name
            }
        }

        impl Eq for $ty {}

        impl std::hash::Hash for $ty {
            fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
                self.0.name.hash(state)
            }
        }

        impl PartialOrd for $ty {
            fn partial_cmp(&self, other: &$ty) -> Option<std::cmp::Ordering> {
                Some(self.cmp(other))
            }
        }

        impl Ord for $ty {
            fn cmp(&self, other: &$ty) -> std::cmp::Ordering {
                self.0.name.cmp(other.0.name)
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.0.name)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<$ty, D::Error> {
                let name = String::deserialize(d)?;
                $ty::new(&name).map_err(serde::de::Error::custom)
            }
        }
    };
}

role!(
    /// An admissible registered heuristic: the lower bound l of a truncated
    /// Gaussian model of h*, or the bound of a Gaussian's +clip estimate
    /// (`"lmcut"` in grids, job specs and model configurations).
    LowerBound,
    can_bound,
    bound_names,
    "`{}` is not admissible, so it cannot bound the truncated Gaussian; expected one of {}"
);

impl LowerBound {
    /// The same bound as the authors' pyperplan computes it
    /// ([`pyperplan_counterpart`]: `lmcut` -> `lmcut-pyperplan`), if it differs.
    pub fn pyperplan_counterpart(self) -> Option<LowerBound> {
        pyperplan_counterpart(self.name()).and_then(|h| LowerBound::new(h.name).ok())
    }
}

role!(
    /// A registered heuristic whose value a model learns a residual on,
    /// mu = delta_mu + h(s) (`"ff"` in grids, job specs and model
    /// configurations).
    ResidualBase,
    can_residual,
    residual_names,
    "`{}` cannot serve as a residual base; expected one of {}"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_names_are_unique_and_name_what_they_build() {
        let task = crate::load_task_from_text(
            "(define (domain d) (:predicates (p) (q)) (:action a :parameters () :precondition (p) :effect (q)))",
            "d",
            "(define (problem x) (:domain d) (:init (p)) (:goal (q)))",
            "p",
        )
        .unwrap();
        let mut seen = std::collections::HashSet::new();
        for h in registered() {
            assert!(seen.insert(h.name), "{} registered twice", h.name);
            assert!(std::ptr::eq(info(h.name).unwrap(), h));
            assert_eq!((h.build)(&task).name(), h.name);
            assert_eq!(by_name(h.name, &task).unwrap().evaluate(&crate::state::initial_state(&task)), 1.0);
        }
        assert_eq!(NAMES, names().collect::<Vec<_>>());
        assert_eq!(NAMES, ["blind", "goalcount", "hmax", "hadd", "ff", "lmcut"]);
        let admissible: Vec<_> = registered().filter(|h| h.admissible).map(|h| h.name).collect();
        assert_eq!(admissible, ["blind", "hmax", "lmcut", "lmcut-pyperplan"]);
        assert_eq!(bound_names(), admissible);
        let every: Vec<_> = registered().map(|h| h.name).collect();
        assert_eq!(residual_names(), every);
        assert!(info("fancy").is_none() && by_name("fancy", &task).is_none());
        let pyperplan: Vec<_> = PYPERPLAN.iter().map(|h| h.name).collect();
        assert_eq!(pyperplan, ["ff-pyperplan", "lmcut-pyperplan"]);
        assert_eq!(registered().count(), ALL.len() + PYPERPLAN.len());
        assert_eq!(pyperplan_counterpart("ff").map(|h| h.name), Some("ff-pyperplan"));
        assert_eq!(pyperplan_counterpart("lmcut").map(|h| h.name), Some("lmcut-pyperplan"));
        assert!(pyperplan_counterpart("hmax").is_none());
        // `none` means "no residual" in grids and job specs.
        assert!(info("none").is_none(), "no heuristic may be called `none`");
    }

    #[test]
    fn roles_are_checked_against_the_registry() {
        let lmcut = LowerBound::new("lmcut").unwrap();
        assert_eq!((lmcut.name(), lmcut.to_string()), ("lmcut", "lmcut".to_string()));
        assert!(std::ptr::eq(lmcut.info(), &LMCUT));
        assert_eq!("hmax".parse::<LowerBound>().unwrap().name(), "hmax");
        assert_eq!(
            LowerBound::new("hadd").unwrap_err(),
            "`hadd` is not admissible, so it cannot bound the truncated Gaussian; expected one of blind, hmax, lmcut, lmcut-pyperplan"
        );
        assert_eq!(
            LowerBound::new("fancy").unwrap_err(),
            "unknown heuristic `fancy`; expected one of blind, hmax, lmcut, lmcut-pyperplan"
        );
        for name in NAMES {
            assert_eq!(ResidualBase::new(name).unwrap().name(), *name);
        }
        assert!(ResidualBase::new("none").unwrap_err().starts_with("unknown heuristic `none`; expected one of blind,"));
        assert_eq!(LowerBound::new("lmcut").unwrap(), lmcut);
        assert!(LowerBound::new("blind").unwrap() < lmcut, "ordered by name");
        // Labels carry pyperplan's values too, so the roles take them by
        // their own names (admissibility as declared).
        assert_eq!(LowerBound::new("lmcut-pyperplan").unwrap().name(), "lmcut-pyperplan");
        assert!(LowerBound::new("ff-pyperplan").unwrap_err().starts_with("`ff-pyperplan` is not admissible"));
        assert_eq!(ResidualBase::new("ff-pyperplan").unwrap().name(), "ff-pyperplan");
        let counterpart = |b: &str| LowerBound::new(b).unwrap().pyperplan_counterpart().map(LowerBound::name);
        assert_eq!((counterpart("lmcut"), counterpart("hmax")), (Some("lmcut-pyperplan"), None));
    }

    #[test]
    fn roles_serialize_as_their_names() {
        let lmcut = LowerBound::new("lmcut").unwrap();
        assert_eq!(serde_json::to_string(&lmcut).unwrap(), "\"lmcut\"");
        assert_eq!(serde_json::from_str::<LowerBound>("\"lmcut\"").unwrap(), lmcut);
        let e = serde_json::from_str::<LowerBound>("\"ff\"").unwrap_err().to_string();
        assert!(e.starts_with("`ff` is not admissible"), "{e}");
        let ff: Option<ResidualBase> = serde_json::from_str("\"ff\"").unwrap();
        assert_eq!(ff.map(ResidualBase::name), Some("ff"));
        assert_eq!(serde_json::from_str::<Option<ResidualBase>>("null").unwrap(), None);
    }
}
