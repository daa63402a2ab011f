//! The coordinator: turns grid files into jobs in PostgreSQL and reports
//! progress. (Dispatch through Redis, leases and the scheduler loop come
//! next; the job table already carries their state.)

pub mod submit;

pub use submit::{status, submit, StatusReport, SubmitReport};
