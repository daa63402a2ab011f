pub mod bench;
pub mod farm;
pub mod generate;
pub mod heuristics;
pub mod plan;
pub mod validate;
