//! Trunda's per-domain heuristic learning (thesis: "Heuristic Learning for
//! Domain-independent Planning", Charles University 2023; notes in
//! `shared/notes/trunda-thesis.md`): a network over subgraph-count features
//! of the state's object graph ([`subgraphs`]) estimates h*, and A* uses it.
//!
//! - [`mlp`]: the network, its losses, Adam, scaling and early stopping.
//! - [`problem`]: a problem loaded for learning (task, object graphs).
//! - [`features`]: F_alpha (and h_FF) of states, turned into network inputs.
//! - [`model`]: a trained network with its vocabulary and scaling (serde).
//! - [`heuristic`]: the model as a planner heuristic, with incremental features.
//! - [`labels`]: states labelled with the cost-to-go of a plan (optimal or a domain solver's).
//! - [`sampling`]: the bootstrap's search, IDA* recording the states it expands.
//! - [`bootstrap`]: Algorithm 1 as a resumable, serialisable state machine.
//! - [`adjust`]: h_min, h_avg and h_shift from Delta-sets; Delta-set statistics.
//! - [`fit`]: a network's fit (MAE, ratio, error by target) and feature-target correlation.
//! - [`ipc`]: coverage and IPC scores.
//! - [`protocol`]: leave-one-out over a domain's problems, with the baselines.

pub mod adjust;
pub mod bootstrap;
pub mod features;
pub mod fit;
mod hash;
pub mod heuristic;
pub mod ipc;
pub mod labels;
pub mod mlp;
pub mod model;
pub mod problem;
pub mod protocol;
pub mod sampling;

pub use heuristic::LearnedHeuristic;
pub use model::{Model, ModelSettings};
pub use problem::Problem;

/// What can go wrong learning or using a heuristic.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Settings that cannot work (zero widths, a rate outside its range, ...).
    #[error("settings: {0}")]
    Settings(String),
    /// A stored model, scaling or checkpoint that is malformed.
    #[error("model: {0}")]
    Model(String),
    /// Input that does not fit (another domain's problem, a state of the wrong width, ...).
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Features(#[from] subgraphs::Error),
    #[error(transparent)]
    Load(#[from] planner::LoadError),
}
