//! Features of states as the network reads them: F_alpha counted from
//! scratch ([`subgraphs::Counter`]), optionally h_FF, and the input row the
//! model's vocabulary makes of them.
//!
//! Training states are counted from scratch (they come from many problems
//! and in no particular order); search evaluates successors incrementally
//! instead (see [`crate::heuristic`]). Both give the same counts: the
//! `subgraphs` crate tests that.

use planner::heuristics::{self, StateBatch};
use subgraphs::{Counter, Counts, Vocabulary};

use crate::problem::Problem;
use crate::Error;

/// A state's raw features.
#[derive(Debug, Clone, PartialEq)]
pub struct StateFeatures {
    /// F_alpha (graphs of at most alpha vertices).
    pub counts: Counts,
    /// h_FF of the state (None if not computed). Infinite at a relaxed dead end.
    pub ff: Option<f64>,
}

/// Counts F_alpha of packed states from scratch, reusing its scratch space.
#[derive(Debug)]
pub struct FeatureCounter {
    counter: Counter,
}

impl FeatureCounter {
    pub fn new(alpha: usize) -> Result<FeatureCounter, Error> {
        Ok(FeatureCounter { counter: Counter::new(alpha)? })
    }

    pub fn alpha(&self) -> usize {
        self.counter.alpha()
    }

    /// F_alpha of a packed state of `problem`.
    pub fn count(&mut self, problem: &Problem, state: &[u64]) -> Counts {
        self.counter.count(&problem.graphs().graph_of_packed(state))
    }
}

/// h_FF of each packed state of `problem`.
pub fn ff_values(problem: &Problem, states: &[&[u64]]) -> Vec<f64> {
    let mut ff = heuristics::by_name("ff", problem.task()).expect("the planner registers ff");
    let words = problem.words();
    let mut data = Vec::with_capacity(states.len() * words);
    for s in states {
        data.extend_from_slice(s);
    }
    let mut out = vec![];
    if !states.is_empty() {
        ff.evaluate_batch(StateBatch::new(&data, words), &mut out);
    }
    out
}

/// The unscaled input row of a state: its vocabulary vector, then h_FF if
/// `ff_input`. Returns the occurrences of graphs the vocabulary lacks.
pub fn input_row(vocab: &Vocabulary, f: &StateFeatures, ff_input: bool, row: &mut Vec<f32>) -> Result<usize, Error> {
    let (v, unknown) = vocab.vector(&f.counts)?;
    row.clear();
    row.extend_from_slice(&v);
    if ff_input {
        let ff =
            f.ff.ok_or_else(|| Error::Input("the model reads h_FF, but the state's h_FF was not computed".into()))?;
        if !ff.is_finite() {
            return Err(Error::Input("h_FF is infinite (a relaxed dead end): not a feature value".into()));
        }
        row.push(ff as f32);
    }
    Ok(unknown)
}
