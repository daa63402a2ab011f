//! The efficiency test (the paper's Table 8; the code's `TestEfficiency`
//! and `SolveTestData` with a timeout): a final network plans with yhat on a
//! set of growing walks, task j being a (j + 1)-move random walk from the
//! goal, in order, each search under a per-task limit (the code: 60 s),
//! until the whole set's time passes a cumulative budget (the code: 60 s).
//! "Solved Test" is the share of the set's tasks solved within it.
//!
//! As the code: the budget is looked at before each task (`if (timeout !=
//! null && sw.ElapsedMilliseconds > timeout) break`), so the task started
//! just before it runs out keeps its full per-task limit; a task counts as
//! solved when a plan of cost > 0 is found (`SolvedCost > 0`: a walk that
//! came back to the goal is not counted); the share is over the whole set,
//! attempted or not. The code makes 5 sets of 1000 tasks per run from an
//! unseeded generator; here set `set` of test seed `seed` is
//! [`Stream::new`]`(seed, set)`, the walks drawn from it in order.

use std::time::{Duration, Instant};

use puzzles::search::{ida_star, Limits, Status};
use puzzles::walk::random_walk_with;
use puzzles::{Domain, State};
use serde::Serialize;

use crate::features::Features;
use crate::heuristic::{LearnedHeuristic, Rule};
use crate::nn::Ffnn;
use crate::rng::Stream;
use crate::LikelyError;

/// The code's sets: 1000 tasks each, 5 per run, a 60 s budget per set.
pub const PAPER_TASKS: u32 = 1000;
pub const PAPER_SETS: u32 = 5;
pub const PAPER_BUDGET: Duration = Duration::from_secs(60);

/// A set of growing walks: `tasks` tasks, task j a (j + 1)-move walk.
pub fn growing_walks<D: Domain>(d: &D, tasks: u32, seed: u64, set: u64) -> Vec<State> {
    let mut rng = Stream::new(seed, set);
    (0..tasks).map(|j| random_walk_with(d, j + 1, rng.rng())).collect()
}

/// One task of a set as the protocol ran it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskRun {
    /// Moves of its walk (j + 1).
    pub walk: u32,
    pub status: Status,
    pub cost: Option<u32>,
    pub generated: u64,
    pub seconds: f64,
}

/// A set's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SetRun {
    /// Tasks in the set.
    pub tasks: u32,
    /// Tasks started before the budget ran out.
    pub attempted: u32,
    /// Tasks solved (a plan of cost > 0).
    pub solved: u32,
    /// The whole set's time, seconds.
    pub seconds: f64,
    /// Whether the budget stopped the set before its last task.
    pub stopped_by_budget: bool,
    pub runs: Vec<TaskRun>,
}

impl SetRun {
    /// Solved tasks over the set's tasks, in percent (Table 8's "Solved Test").
    pub fn solved_pct(&self) -> f64 {
        if self.tasks == 0 {
            0.0
        } else {
            100.0 * self.solved as f64 / self.tasks as f64
        }
    }
}

/// Runs the protocol on `tasks` in order under `rule` (the paper: yhat),
/// each search under `per_task`, the set stopping once `budget` has passed.
pub fn run_set<D: Domain, F: Features>(
    d: &D,
    ffnn: &Ffnn,
    features: &mut F,
    tasks: &[State],
    rule: Rule,
    budget: Duration,
    per_task: &Limits,
) -> Result<SetRun, LikelyError> {
    let start = Instant::now();
    run_set_with_clock(d, ffnn, features, tasks, rule, budget, per_task, &mut || start.elapsed())
}

/// [`run_set`] with the set's clock given: `elapsed` is the time since the
/// set started (tests drive it).
#[allow(clippy::too_many_arguments)]
pub fn run_set_with_clock<D: Domain, F: Features>(
    d: &D,
    ffnn: &Ffnn,
    features: &mut F,
    tasks: &[State],
    rule: Rule,
    budget: Duration,
    per_task: &Limits,
    elapsed: &mut dyn FnMut() -> Duration,
) -> Result<SetRun, LikelyError> {
    let mut runs = Vec::new();
    let mut stopped_by_budget = false;
    for (j, start) in tasks.iter().enumerate() {
        if elapsed() > budget {
            stopped_by_budget = true;
            break;
        }
        let mut h = LearnedHeuristic::new(ffnn, &mut *features, rule)?;
        let r = ida_star(d, start, &mut h, per_task);
        runs.push(TaskRun {
            walk: j as u32 + 1,
            status: r.status,
            cost: r.cost.filter(|_| r.status == Status::Solved),
            generated: r.generated,
            seconds: r.elapsed.as_secs_f64(),
        });
    }
    let solved = runs.iter().filter(|r| r.cost.is_some_and(|c| c > 0)).count() as u32;
    Ok(SetRun {
        tasks: tasks.len() as u32,
        attempted: runs.len() as u32,
        solved,
        seconds: elapsed().as_secs_f64(),
        stopped_by_budget,
        runs,
    })
}

#[cfg(test)]
mod tests {
    use puzzles::tiles::SlidingTile;

    use super::*;
    use crate::features::OneHotTiles;
    use crate::nn::Outputs;

    fn net(inputs: usize) -> Ffnn {
        Ffnn::new(inputs, 8, Outputs::Mean, 0.0, 1e-3, &mut Stream::new(1, 0)).unwrap()
    }

    #[test]
    fn walks_grow_by_one_move_and_are_seeded() {
        let d = SlidingTile::new(3, 3).unwrap();
        let a = growing_walks(&d, 30, 7, 0);
        assert_eq!(a.len(), 30);
        assert_eq!(a, growing_walks(&d, 30, 7, 0), "a function of (seed, set)");
        assert_ne!(a, growing_walks(&d, 30, 7, 1), "sets differ");
        // Task j is a (j + 1)-move walk: at most j + 1 moves from the goal,
        // and of the walk's parity (every move changes the blank's cell parity).
        let h = puzzles::search::distances_from_goal(&d, 200_000).unwrap();
        for (j, s) in a.iter().enumerate() {
            let dist = h[s];
            assert!(dist <= j as u32 + 1, "task {j} is {dist} moves from the goal");
            assert_eq!(dist % 2, (j as u32 + 1) % 2);
        }
        assert_eq!(h[&a[0]], 1);
    }

    /// The budget is looked at before each task: with a clock that moves 10 s
    /// per look, a 25 s budget lets three tasks start (at 0, 10 and 20 s).
    #[test]
    fn the_cumulative_budget_stops_the_set() {
        let d = SlidingTile::new(3, 3).unwrap();
        let tasks = growing_walks(&d, 20, 3, 0);
        let mut features = OneHotTiles::new(&d);
        let ffnn = net(features.inputs());
        let mut t = Duration::ZERO;
        let mut clock = || {
            let now = t;
            t += Duration::from_secs(10);
            now
        };
        let limits = Limits { generated: Some(100_000), ..Limits::default() };
        let r = run_set_with_clock(
            &d,
            &ffnn,
            &mut features,
            &tasks,
            Rule::Mean,
            Duration::from_secs(25),
            &limits,
            &mut clock,
        )
        .unwrap();
        assert_eq!((r.tasks, r.attempted), (20, 3));
        assert!(r.stopped_by_budget);
        assert_eq!(r.runs.iter().map(|t| t.walk).collect::<Vec<_>>(), [1, 2, 3]);
        assert!(r.solved <= 3);
        assert!((r.solved_pct() - 100.0 * r.solved as f64 / 20.0).abs() < 1e-12);
        // With room for every task, every one is attempted and the budget stops nothing.
        let r = run_set(&d, &ffnn, &mut features, &tasks, Rule::Mean, Duration::from_secs(3600), &limits).unwrap();
        assert_eq!((r.attempted, r.stopped_by_budget), (20, false));
        // Short walks are solved whatever the network says (IDA* is complete);
        // a walk back to the goal (cost 0) would not count.
        assert_eq!(r.runs[0].cost, Some(1));
        let zero = r.runs.iter().filter(|t| t.cost == Some(0)).count() as u32;
        let found = r.runs.iter().filter(|t| t.cost.is_some()).count() as u32;
        assert_eq!(r.solved, found - zero);
    }

    /// A real clock and a zero budget: the first look already finds it spent.
    #[test]
    fn a_spent_budget_attempts_nothing_more() {
        let d = SlidingTile::new(3, 3).unwrap();
        let tasks = growing_walks(&d, 5, 1, 0);
        let mut features = OneHotTiles::new(&d);
        let ffnn = net(features.inputs());
        let mut calls = 0;
        let mut clock = || {
            calls += 1;
            if calls == 1 {
                Duration::ZERO
            } else {
                Duration::from_millis(1)
            }
        };
        let r = run_set_with_clock(
            &d,
            &ffnn,
            &mut features,
            &tasks,
            Rule::Mean,
            Duration::ZERO,
            &Limits::default(),
            &mut clock,
        )
        .unwrap();
        assert_eq!(r.attempted, 1, "the first task starts at 0, not past the budget");
        assert!(r.stopped_by_budget);
    }
}
