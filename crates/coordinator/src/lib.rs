//! The coordinator: turns grid files into jobs in PostgreSQL, runs the
//! scheduler that announces ready jobs on Redis and recovers from lost
//! workers and a lost Redis, and serves the status API, dashboard, metrics
//! and reports.
//!
//! Map: [`submit`] (grids in, counts out) · [`scheduler`] · [`api`] (one
//! axum router per module, merged) · [`state`] · [`report`] (rendering) ·
//! [`published`] (a paper's tables beside ours: `hfarm report --against`) ·
//! [`compare`] (two experiments cell by cell: `--against-experiment`).
//! Invariant: no SQL (`schema` has it), no learner or libtorch.

pub mod api;
pub mod compare;
pub mod cost;
pub mod published;
pub mod report;
pub mod scheduler;
pub mod state;
pub mod submit;

pub use state::AppState;
pub use submit::{status, submit, StatusReport, SubmitReport};
