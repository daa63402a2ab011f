//! A* under an evaluation limit.
//!
//! The planner's A* honours `Limits::time_limit` and `memory_limit` but not
//! `max_evaluations` (only its GBFS checks that). Node limits matter here:
//! the thesis's adjustment experiment caps nodes, and deterministic
//! labelling and tests need a limit that does not depend on the machine.
//! [`astar`] wraps the heuristic: after `max_evaluations` states it reports
//! every further state as a dead end, so the open list drains and A* stops;
//! a search that stopped that way without a plan is reported as
//! `EvaluationLimit`. The heuristic is called for exactly
//! `max_evaluations` states at most; A* may still expand the states already
//! in its open list, and may find a plan among them.

use planner::heuristics::{Heuristic, StateBatch, DEAD_END};
use planner::search::{Limits, SearchResult, SearchStatus};
use planner::Task;

struct Capped<'h> {
    inner: &'h mut dyn Heuristic,
    left: u64,
    hit: bool,
    rest: Vec<f64>,
}

impl Heuristic for Capped<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn evaluate_batch(&mut self, batch: StateBatch<'_>, out: &mut Vec<f64>) {
        let n = batch.len() as u64;
        if n <= self.left {
            self.left -= n;
            self.inner.evaluate_batch(batch, out);
            return;
        }
        self.hit = true;
        let keep = self.left as usize;
        self.left = 0;
        out.clear();
        if keep > 0 {
            self.inner.evaluate_batch(StateBatch::new(&batch.data[..keep * batch.words], batch.words), &mut self.rest);
            out.extend_from_slice(&self.rest);
        }
        out.resize(batch.len(), DEAD_END);
    }
}

/// The planner's A* with `limits.max_evaluations` enforced (see the module docs).
pub fn astar(task: &Task, h: &mut dyn Heuristic, limits: Limits) -> SearchResult {
    let Some(max) = limits.max_evaluations else {
        return planner::search::astar(task, h, limits);
    };
    let mut capped = Capped { inner: h, left: max, hit: false, rest: vec![] };
    let mut r = planner::search::astar(task, &mut capped, limits);
    if capped.hit && r.status == SearchStatus::Unsolvable {
        r.status = SearchStatus::EvaluationLimit;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::heuristics::by_name;

    #[test]
    fn evaluation_limit_stops_astar() {
        let domain = planner::generate::domain_pddl("blocksworld").unwrap();
        let text = planner::generate::generate(&planner::generate::Params::Blocksworld { blocks: 9 }, 3).unwrap();
        let task = planner::load_task_from_text(domain, "d", &text, "p").unwrap();
        let mut blind = by_name("blind", &task).unwrap();
        let r = astar(&task, blind.as_mut(), Limits::new(Some(500), None, None));
        assert_eq!(r.status, SearchStatus::EvaluationLimit);
        assert!(r.evaluations >= 500 && r.evaluations < 2000, "{}", r.evaluations);
        let mut ff = by_name("ff", &task).unwrap();
        let r = astar(&task, ff.as_mut(), Limits::new(Some(1_000_000), None, None));
        assert_eq!(r.status, SearchStatus::Solved);
    }
}
