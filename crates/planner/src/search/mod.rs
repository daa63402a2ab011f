//! Search engines over the grounded task: A* (optimal), eager greedy
//! best-first search, and [`gbfs_pddlsl`], greedy best-first search counted
//! as the authors of the IJCAI 2024 paper counted it (their tables' "evaluated
//! nodes"). All evaluate successors in batches through
//! [`Heuristic::evaluate_batch`](crate::heuristics::Heuristic) and stop
//! cleanly, with a status, at their time, memory or evaluation limits.

mod astar;
mod gbfs;
mod gbfs_pddlsl;
mod node_table;

pub use astar::astar;
pub use gbfs::gbfs;
pub use gbfs_pddlsl::gbfs_pddlsl;

use std::time::{Duration, Instant};

use crate::heuristics::Heuristic;

/// Which greedy best-first search a planning run uses. They find plans
/// alike but count evaluations differently, so under an evaluation budget
/// (the paper's 10^4) they solve and report differently.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Greedy {
    /// [`gbfs`]: goal test on expansion, each new state evaluated once, no
    /// reopening.
    #[default]
    Hfarm,
    /// [`gbfs_pddlsl`]: the authors' `a_star.py`, whose counts their tables print.
    Pddlsl,
}

impl Greedy {
    pub fn is_default(&self) -> bool {
        *self == Greedy::Hfarm
    }

    /// The search's name, as `hfarm plan --search` and `plan_runs.search` have it.
    pub fn name(self) -> &'static str {
        match self {
            Greedy::Hfarm => "gbfs",
            Greedy::Pddlsl => "gbfs-pddlsl",
        }
    }

    pub fn run(self, task: &Task, heuristic: &mut dyn Heuristic, limits: Limits) -> SearchResult {
        match self {
            Greedy::Hfarm => gbfs(task, heuristic, limits),
            Greedy::Pddlsl => gbfs_pddlsl(task, heuristic, limits),
        }
    }
}

use crate::task::{OpId, Task};

/// How a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchStatus {
    Solved,
    /// Proven: the whole reachable space was explored, or the goal is relaxed-unreachable.
    Unsolvable,
    TimeLimit,
    MemoryLimit,
    EvaluationLimit,
}

impl SearchStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            SearchStatus::Solved => "solved",
            SearchStatus::Unsolvable => "unsolvable",
            SearchStatus::TimeLimit => "time_limit",
            SearchStatus::MemoryLimit => "memory_limit",
            SearchStatus::EvaluationLimit => "evaluation_limit",
        }
    }
}

/// Resource limits; `None` means unlimited.
#[derive(Debug, Clone, Copy, Default)]
pub struct Limits {
    pub max_evaluations: Option<u64>,
    /// Wall-clock time.
    pub time_limit: Option<Duration>,
    /// CPU time of the searching thread: what the paper's code limits when
    /// it solves a generated instance, and what makes a try's outcome the
    /// same on a busy machine as on a quiet one.
    pub cpu_time_limit: Option<Duration>,
    /// Bytes of search data (state registry, node table, open list).
    pub memory_limit: Option<usize>,
}

impl Limits {
    /// These limits with the time counted on the searching thread's CPU
    /// clock instead of the wall clock.
    pub fn on_cpu_clock(self) -> Limits {
        Limits { cpu_time_limit: self.time_limit.or(self.cpu_time_limit), time_limit: None, ..self }
    }

    /// Limits in the units people write: seconds and MiB. Non-finite or
    /// non-positive seconds mean no time limit.
    pub fn new(max_evaluations: Option<u64>, time_s: Option<f64>, memory_mib: Option<u64>) -> Limits {
        Limits {
            max_evaluations,
            time_limit: time_s.filter(|t| t.is_finite() && *t > 0.0).map(Duration::from_secs_f64),
            cpu_time_limit: None,
            memory_limit: memory_mib.map(|m| (m as usize).saturating_mul(1 << 20)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    pub status: SearchStatus,
    /// Operator ids from the initial state to the goal (empty unless solved).
    pub plan: Vec<OpId>,
    pub cost: Option<u64>,
    pub expansions: u64,
    /// A* only: expansions before the last increase of f (independent of tie-breaking in the last layer).
    pub expansions_until_last_jump: u64,
    pub evaluations: u64,
    pub generated: u64,
    pub search_time: Duration,
    /// Peak bytes of search data.
    pub memory_bytes: usize,
}

impl SearchResult {
    /// A result with nothing found yet (status `Unsolvable` until the search says otherwise).
    pub(crate) fn unsolved() -> SearchResult {
        SearchResult {
            status: SearchStatus::Unsolvable,
            plan: vec![],
            cost: None,
            expansions: 0,
            expansions_until_last_jump: 0,
            evaluations: 0,
            generated: 0,
            search_time: Default::default(),
            memory_bytes: 0,
        }
    }
}

/// CPU time the calling thread has used.
pub fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; the clock id is a constant.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}

/// Watches the clocks and the memory estimate.
pub(crate) struct Budget {
    start: Instant,
    /// The thread's CPU time at the start, when there is a CPU-time limit.
    cpu_start: Option<Duration>,
    limits: Limits,
}

impl Budget {
    pub fn new(limits: Limits) -> Self {
        let cpu_start = limits.cpu_time_limit.map(|_| thread_cpu_time());
        Budget { start: Instant::now(), cpu_start, limits }
    }

    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// The status to stop with, if a limit is exceeded.
    pub fn exceeded(&self, memory_bytes: usize) -> Option<SearchStatus> {
        if let Some(t) = self.limits.time_limit {
            if self.start.elapsed() >= t {
                return Some(SearchStatus::TimeLimit);
            }
        }
        // A system call (~0.2 us): searches that set this one (optimal
        // solving, with LM-cut's tens of microseconds per expansion) do not
        // feel it.
        if let (Some(t), Some(c0)) = (self.limits.cpu_time_limit, self.cpu_start) {
            if thread_cpu_time().saturating_sub(c0) >= t {
                return Some(SearchStatus::TimeLimit);
            }
        }
        if let Some(m) = self.limits.memory_limit {
            if memory_bytes >= m {
                return Some(SearchStatus::MemoryLimit);
            }
        }
        None
    }
}

/// The cost of a plan (sum of operator costs).
pub fn plan_cost(task: &Task, plan: &[OpId]) -> u64 {
    plan.iter().map(|&o| task.operators[o as usize].cost as u64).sum()
}
