//! Stateless workers: pull job keys from Redis, claim them in PostgreSQL,
//! run them, record results and the outcome in one transaction.
//!
//! Map: [`run`] is the worker loop (slots, heartbeats, graceful SIGTERM);
//! [`kinds`] holds one module per job kind (load -> compute -> store);
//! [`job`] what they share; [`isolate`] where their heavy computation runs
//! (child processes under real memory and time limits), [`compute`] what it
//! is; [`learned`] the bridge from stored labels and
//! checkpoints to the learner; [`joblog`] each job's own log lines, stored
//! with its attempt. Invariant: no SQL here (`schema` has it) and
//! no Redis beyond popping and handing back keys (`queue`).

pub mod compute;
pub mod isolate;
pub mod job;
pub mod joblog;
pub mod kinds;
pub mod learned;
pub mod machine;
pub mod pdb_store;
pub mod run;

pub use isolate::Isolation;
pub use run::{run_worker, TrainGroups, WorkerConfig};
