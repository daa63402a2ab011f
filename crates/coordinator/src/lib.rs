//! The coordinator: turns grid files into jobs in PostgreSQL, reports
//! progress, and runs the scheduler that announces ready jobs on Redis and
//! recovers from lost workers and a lost Redis.

pub mod api;
pub mod dashboard;
pub mod metrics;
pub mod report;
pub mod scheduler;
pub mod submit;

pub use submit::{status, submit, StatusReport, SubmitReport};
