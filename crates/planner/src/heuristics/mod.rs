//! Heuristics: a value for any state, evaluated in batches.
//!
//! The search hands a heuristic all successors of an expanded state at once
//! (`evaluate_batch`): classical heuristics loop over them, a learned one runs
//! one forward pass. Values are `f64` so learned estimates fit; classical ones
//! are whole numbers. `f64::INFINITY` marks a dead end (no relaxed plan).

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

/// Implements the batched call for heuristics that evaluate one state at a time.
macro_rules! per_state_heuristic {
    ($ty:ty, $name:expr) => {
        impl $crate::heuristics::Heuristic for $ty {
            fn name(&self) -> &str {
                $name
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

/// The classical heuristics by command-line name.
pub const NAMES: &[&str] = &["blind", "goalcount", "hmax", "hadd", "ff", "lmcut"];

/// Builds a classical heuristic by name, or None for an unknown name.
pub fn by_name(name: &str, task: &Task) -> Option<Box<dyn Heuristic>> {
    Some(match name {
        "blind" => Box::new(Blind::new(task)),
        "goalcount" => Box::new(GoalCount::new(task)),
        "hmax" => Box::new(HMax::new(task)),
        "hadd" => Box::new(Additive::new(task)),
        "ff" => Box::new(Ff::new(task)),
        "lmcut" => Box::new(LmCut::new(task)),
        _ => return None,
    })
}
