//! Heuristics: a value for any state, evaluated in batches.
//!
//! The search hands a heuristic all successors of an expanded state at once
//! (`evaluate_batch`): classical heuristics loop over them, a learned one runs
//! one forward pass. Values are `f64` so learned estimates fit; classical ones
//! are whole numbers. `f64::INFINITY` marks a dead end (no relaxed plan).
//!
//! Each classical heuristic describes itself where it is implemented, as a
//! [`HeuristicInfo`] (name, admissibility, constructor), and [`ALL`] registers
//! them; names ([`NAMES`], [`by_name`], [`info`]) come from there.
//!
//! # Adding a heuristic
//!
//! Implement [`Heuristic`] (for one state at a time, `per_state_heuristic!`
//! with the descriptor gives the name and the batched call), declare
//! `pub static NAME: HeuristicInfo` next to it, and add it to [`ALL`]. It is
//! then usable by `hfarm plan --heuristic`, `hfarm heuristics` and grids'
//! `baselines.heuristics`. Serving as a learner's bound or residual, or as a
//! stored label, is a separate choice made outside the planner (`jobs`'
//! `Bound` and `Residual`, `learner`'s `Classical`, `label.rs`).

mod blind;
mod lmcut;
mod queue;
mod relaxed;
mod relaxed_exploration;
mod unchecked;

pub use blind::{Blind, GoalCount};
pub use lmcut::LmCut;
pub use relaxed::RelaxedTask;
pub use relaxed_exploration::{Additive, FeatureValues, Ff, HMax, RelaxedPlanFeatures};

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
    /// it can serve as a lower bound.
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

/// The classical heuristics' names, in [`ALL`]'s order.
pub const NAMES: &[&str] = &NAME_ARRAY;

/// A classical heuristic's descriptor by name.
pub fn info(name: &str) -> Option<&'static HeuristicInfo> {
    ALL.iter().copied().find(|h| h.name == name)
}

/// The classical heuristics' names, in [`ALL`]'s order.
pub fn names() -> impl Iterator<Item = &'static str> {
    ALL.iter().map(|h| h.name)
}

/// Builds a classical heuristic by name, or None for an unknown name.
pub fn by_name(name: &str, task: &Task) -> Option<Box<dyn Heuristic>> {
    info(name).map(|h| (h.build)(task))
}

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
        for h in ALL {
            assert!(seen.insert(h.name), "{} registered twice", h.name);
            assert!(std::ptr::eq(info(h.name).unwrap(), *h));
            assert_eq!((h.build)(&task).name(), h.name);
            assert_eq!(by_name(h.name, &task).unwrap().evaluate(&crate::state::initial_state(&task)), 1.0);
        }
        assert_eq!(NAMES, names().collect::<Vec<_>>());
        assert_eq!(NAMES, ["blind", "goalcount", "hmax", "hadd", "ff", "lmcut"]);
        let admissible: Vec<_> = ALL.iter().filter(|h| h.admissible).map(|h| h.name).collect();
        assert_eq!(admissible, ["blind", "hmax", "lmcut"]);
        assert!(info("fancy").is_none() && by_name("fancy", &task).is_none());
    }
}
