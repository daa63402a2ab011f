pub mod bench;
pub mod bench_learner;
pub mod bench_queue;
pub mod farm;
pub mod generate;
pub mod heuristics;
pub mod plan;
pub mod validate;
