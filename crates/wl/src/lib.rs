//! Weisfeiler-Leman (WL) features of planning states and a linear heuristic
//! on them: the learned baseline of the IPC 2023 learning track (Chen,
//! Trevizan & Thiébaux, "Return to Tradition: Learning Reliable Heuristics
//! with Classical Machine Learning", ICAPS 2024; WL-GOOSE / WLPlan).
//!
//! Pipeline, one module per stage:
//! - [`benchmark`] reads the track's problems from `benchmarks/ipc2023-learning`;
//! - [`graph`] builds a task's instance learning graph (ILG) for any state,
//!   its static part computed once per task;
//! - [`refine`] runs WL colour refinement on it against a colour dictionary
//!   built on training data;
//! - [`ridge`] fits the linear regressor (ridge regression, conjugate gradients);
//! - [`rank`] fits the ranking variant (pairwise squared-hinge RankSVM, Newton-CG);
//! - [`train`] collects (state, h*) from optimal plans of training problems,
//!   and for the ranker the plan steps' siblings, and produces a [`model::Model`];
//! - [`heuristic`] evaluates a model inside the planner's searches.
//!
//! Pure library: no I/O beyond reading the archives a caller names.

pub mod benchmark;
pub mod graph;
pub mod heuristic;
pub mod model;
pub mod rank;
pub mod refine;
pub mod ridge;
pub mod train;

pub use heuristic::WlHeuristic;
pub use model::Model;
