//! The job vocabulary shared by the coordinator and the workers.
//!
//! An experiment is data: a [`grid::Grid`] (read from `grids/*.toml`)
//! expands ([`expand::expand`]) into a DAG of [`Job`]s. A job's identity is
//! its [`JobKey`]: a hash of its kind, its parameters and its inputs' keys, so
//! the same work is the same key in every grid that asks for it (resume and
//! overlap come for free), and a grid can grow while it runs by adding jobs.

pub mod class;
pub mod expand;
pub mod graphlearn;
pub mod grid;
pub mod key;
pub mod likely;
pub mod model;
pub mod spec;
pub mod split;

pub use key::JobKey;
pub use spec::{Job, JobKind, JobSpec, KindInfo, Needs, Resource};
