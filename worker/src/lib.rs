pub mod compute;
pub mod queue;
