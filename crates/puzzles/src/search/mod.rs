//! Optimal search on a [`Domain`](crate::Domain): IDA* (the paper's search)
//! and A*, both generic over the domain and the heuristic so that a move is
//! inlined code; breadth-first distances for small puzzles (tests, checks).
//!
//! Node counts follow the paper's code: *generated* counts every child a
//! search creates (parent pruning skips the reverse move before counting),
//! *expanded* every node whose children were generated. IDA* counts every
//! iteration.

mod astar;
mod bfs;
mod ida;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

pub use astar::astar;
pub use bfs::distances_from_goal;
pub use ida::ida_star;

/// When a search gives up. `None` is no limit.
#[derive(Debug, Clone, Default)]
pub struct Limits {
    pub time: Option<Duration>,
    /// Generated nodes (A*: also a bound on the nodes it stores).
    pub generated: Option<u64>,
    /// Set from elsewhere to stop the search (a worker whose job was
    /// cancelled, reassigned or handed back): looked at as often as the
    /// clock, so a search without limits still ends within milliseconds.
    pub cancel: Option<Arc<AtomicBool>>,
}

impl Limits {
    /// Whether `cancel` was set.
    #[inline]
    pub fn cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Solved,
    /// The search space was exhausted: no plan exists.
    Unsolvable,
    TimeLimit,
    NodeLimit,
    /// Stopped through [`Limits::cancel`].
    Cancelled,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Unsolvable => "unsolvable",
            Status::TimeLimit => "time_limit",
            Status::NodeLimit => "node_limit",
            Status::Cancelled => "cancelled",
        }
    }
}

/// A search's outcome. `plan` holds the operators from the start to the
/// goal when solved (empty otherwise); `cost` is its length.
#[derive(Debug, Clone)]
pub struct SearchResult<Op> {
    pub status: Status,
    pub cost: Option<u32>,
    pub plan: Vec<Op>,
    pub generated: u64,
    pub expanded: u64,
    /// IDA*: cost bounds tried; A*: 1.
    pub iterations: u32,
    /// The heuristic's value at the start state.
    pub initial_h: u32,
    pub elapsed: Duration,
}

/// Which search `DynDomain::solve` runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchKind {
    IdaStar,
    AStar,
}

impl SearchKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchKind::IdaStar => "idastar",
            SearchKind::AStar => "astar",
        }
    }
}

impl std::str::FromStr for SearchKind {
    type Err = crate::PuzzleError;
    fn from_str(s: &str) -> Result<SearchKind, crate::PuzzleError> {
        match s {
            "idastar" | "ida*" | "ida" => Ok(SearchKind::IdaStar),
            "astar" | "a*" => Ok(SearchKind::AStar),
            _ => Err(crate::PuzzleError::Unknown(format!("search {s:?}: known are idastar, astar"))),
        }
    }
}
