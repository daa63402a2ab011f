//! Marom & Rosman's likely-admissible heuristics (ICAPS 2020) on the
//! permutation puzzles of `crates/puzzles`: the learning half.
//!
//! The method (notes `shared/notes/marom-rosman.md`): an FFNN predicts the
//! cost-to-go yhat and an aleatoric spread sigma_a; IDA* plans with the
//! (1 - alpha) quantile of N(yhat, sigma_t^2), likely admissible with
//! probability alpha; a Bayesian WUNN's epistemic uncertainty picks the
//! training tasks (GenerateTaskPrac), and LearnHeuristicPrac alternates
//! solving those tasks with training both networks on the plans found.
//!
//! - [`normal`]: the inverse normal CDF (Wichura's AS 241);
//! - [`rng`]: seeded ChaCha streams with normal deviates;
//! - [`features`]: the paper's inputs (one-hot tiles; PDB features for the
//!   24-puzzle, 24-pancake and 15-blocksworld), written into the caller's
//!   buffer;
//! - [`nn`]: the FFNN and the WUNN, hand-written, gradients by hand;
//! - [`heuristic`]: h(alpha) as a [`puzzles::Heuristic`] IDA* can use;
//! - [`inputs`]: a domain by name with its inputs (one-hot or a pattern
//!   set's PDB values), handed statically typed to the work;
//! - [`buffer`]: the FIFO memory buffer of (state, cost-to-go);
//! - [`settings`]: the hyper-parameters, the paper's and tiny ones;
//! - [`prac`]: GenerateTaskPrac and LearnHeuristicPrac as a resumable,
//!   serialisable [`prac::Learner`];
//! - [`efficiency`]: the efficiency test (Table 8): growing walks under a
//!   cumulative budget;
//! - [`test`]: solving test tasks with a final network and the paper's
//!   Table 7 columns.

pub mod buffer;
pub mod efficiency;
pub mod features;
pub mod heuristic;
pub mod inputs;
pub mod nn;
pub mod normal;
pub mod prac;
pub mod rng;
pub mod settings;
pub mod test;

/// What can go wrong, in words.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LikelyError {
    /// Inputs, targets or parameters of mismatched lengths.
    #[error("shape: {0}")]
    Shape(String),
    /// A setting out of its range.
    #[error("settings: {0}")]
    Settings(String),
    /// Training produced a non-finite loss or gradient.
    #[error("training diverged: {0}")]
    Diverged(String),
    /// A checkpoint that does not fit the domain or the features.
    #[error("checkpoint: {0}")]
    Checkpoint(String),
    #[error(transparent)]
    Puzzle(#[from] puzzles::PuzzleError),
}
