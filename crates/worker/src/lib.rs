//! Stateless workers: pull job keys from Redis, claim them in PostgreSQL,
//! run them, record results and the outcome in one transaction.
//!
//! `compute` holds the CPU work of each job kind as plain functions;
//! `execute` loads inputs and writes results; `run` is the worker loop
//! (concurrency, heartbeats, graceful SIGTERM).

pub mod compute;
pub mod execute;
pub mod learning;
pub mod run;

pub use run::{run_worker, WorkerConfig};
