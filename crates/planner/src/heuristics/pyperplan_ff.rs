//! hFF as pyperplan 2.1 computes it, in the authors' copy
//! (IBM/pddlsl `pddlsl/custom_pyperplan/relaxation.py`, `hFFHeuristic`), the
//! heuristic their planning runs and linear features use. Our `ff` follows
//! Fast Downward; this one follows pyperplan wherever the two can differ:
//!
//! - every operator costs 1, whatever the task says (`RelaxedOperator.cost`,
//!   relaxation.py:79);
//! - the forward pass is a Dijkstra over facts on (distance, push counter)
//!   (l. 145-158, 271-274): a dedicated start fact first (it triggers the
//!   operators without preconditions), then the state's facts, then every
//!   improved fact in the order it improved. An operator fires when its last
//!   precondition is popped (l. 255-258) and offers each add effect, in effect
//!   order, the sum of its preconditions' distances + 1; a fact keeps the
//!   first operator that offered its lowest distance (strict `<`, l. 263) as
//!   its cheapest achiever. The pass stops once every goal was popped
//!   (l. 233), when the achievers that matter are final;
//! - the value is the number of distinct cheapest achievers of the facts
//!   reached backwards from the goals through achievers' preconditions
//!   (l. 436-461; the test `cheapest_achiever in relaxed_plan` there compares
//!   an operator with names and never holds, which changes nothing since each
//!   fact is visited once); infinite when a goal is unreached.
//!
//! Python iterates the state and each operator's add effects as hash sets, so
//! pyperplan's own tie-breaking depends on the interpreter's string hash seed.
//! Here the state's facts are taken in increasing fact id and add effects in
//! the task's order; `tools/reference/pyperplan_values.py` pins pyperplan to
//! the same orders, and the golden test checks every value against it.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{per_state_heuristic, HeuristicInfo, DEAD_END};
use crate::state::for_each_fact;
use crate::task::{OpId, Task};

pub static FF_PYPERPLAN: HeuristicInfo = HeuristicInfo {
    name: "ff-pyperplan",
    description: "hFF as pyperplan computes it (unit costs, its tie-breaking), the authors' planning-time hFF",
    admissible: false,
    detects_dead_ends: true,
    build: |task| Box::new(FfPyperplan::new(task)),
};

const INF: u64 = u64::MAX;
const NONE: u32 = u32::MAX;

/// Compressed rows: `row(i)` is `data[start[i]..start[i + 1]]`.
pub(super) struct Csr {
    start: Vec<u32>,
    data: Vec<u32>,
}

impl Csr {
    pub(super) fn from_rows(rows: &[Vec<u32>]) -> Csr {
        let mut start = Vec::with_capacity(rows.len() + 1);
        let mut data = vec![];
        start.push(0);
        for r in rows {
            data.extend_from_slice(r);
            start.push(data.len() as u32);
        }
        Csr { start, data }
    }

    #[inline]
    pub(super) fn row(&self, i: u32) -> &[u32] {
        &self.data[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// `items` without repeats, first occurrences kept in order (pyperplan holds
/// preconditions, effects and goals in sets).
pub(super) fn distinct(items: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(items.len());
    for &x in items {
        if !out.contains(&x) {
            out.push(x);
        }
    }
    out
}

pub struct FfPyperplan {
    /// Operators by precondition, in operator order; row `num_facts` is the
    /// start fact's: the operators without preconditions.
    pre_of: Csr,
    pre: Csr,
    add: Csr,
    goals: Vec<u32>,
    is_goal: Vec<bool>,
    dist: Vec<u64>,
    achiever: Vec<u32>,
    expanded: Vec<bool>,
    counter: Vec<i64>,
    goal_popped: Vec<bool>,
    in_plan: Vec<bool>,
    closed: Vec<bool>,
    heap: BinaryHeap<Reverse<(u64, u64, u32)>>,
    stack: Vec<u32>,
}

impl FfPyperplan {
    pub fn new(task: &Task) -> Self {
        let n = task.num_facts();
        let mut pre_of = vec![vec![]; n + 1];
        let mut pre = vec![];
        let mut add = vec![];
        for (i, op) in task.operators.iter().enumerate() {
            let p = distinct(&op.pre);
            if p.is_empty() {
                pre_of[n].push(i as u32);
            }
            for &f in &p {
                pre_of[f as usize].push(i as u32);
            }
            pre.push(p);
            add.push(distinct(&op.add));
        }
        let goals = distinct(&task.goal);
        let mut is_goal = vec![false; n + 1];
        for &g in &goals {
            is_goal[g as usize] = true;
        }
        let ops = task.operators.len();
        FfPyperplan {
            pre_of: Csr::from_rows(&pre_of),
            pre: Csr::from_rows(&pre),
            add: Csr::from_rows(&add),
            goals,
            is_goal,
            dist: vec![INF; n + 1],
            achiever: vec![NONE; n + 1],
            expanded: vec![false; n + 1],
            counter: vec![0; ops],
            goal_popped: vec![false; n + 1],
            in_plan: vec![false; ops],
            closed: vec![false; n + 1],
            heap: BinaryHeap::new(),
            stack: vec![],
        }
    }

    /// `hFFHeuristic.__call__`: the search-time value.
    pub fn value(&mut self, state: &[u64]) -> f64 {
        self.evaluate_relaxed(state, true, None)
    }

    /// `hFFHeuristic.calc_h_with_plan` (relaxation.py:389-421), which the
    /// authors' linear model reads its features from
    /// (`pyperplan_heuristic_gomoluch.py:42`): the same value, except that
    /// this forward pass has no start fact, so operators without
    /// preconditions never fire. Writes the relaxed plan's operators into
    /// `plan` (cleared first; in no particular order, as pyperplan's is a set).
    pub fn value_with_plan(&mut self, state: &[u64], plan: &mut Vec<OpId>) -> f64 {
        plan.clear();
        self.evaluate_relaxed(state, false, Some(plan))
    }

    fn evaluate_relaxed(&mut self, state: &[u64], with_start: bool, mut plan: Option<&mut Vec<OpId>>) -> f64 {
        let start = (self.dist.len() - 1) as u32;
        self.dist.fill(INF);
        self.achiever.fill(NONE);
        self.expanded.fill(false);
        self.goal_popped.fill(false);
        for (op, c) in self.counter.iter_mut().enumerate() {
            *c = self.pre.row(op as u32).len() as i64;
        }
        self.heap.clear();
        let mut tie = 0u64;
        // The start fact is pushed at distance 0 (its own distance stays
        // infinite, as pyperplan's does), then the state's facts.
        if with_start {
            self.heap.push(Reverse((0, tie, start)));
        }
        for_each_fact(state, |f| {
            self.dist[f as usize] = 0;
            tie += 1;
            self.heap.push(Reverse((0, tie, f)));
        });
        let mut goals_left = self.goals.len();
        while goals_left > 0 {
            let Some(Reverse((_, _, fact))) = self.heap.pop() else { break };
            if self.is_goal[fact as usize] && !self.goal_popped[fact as usize] {
                self.goal_popped[fact as usize] = true;
                goals_left -= 1;
            }
            if self.expanded[fact as usize] {
                continue;
            }
            for &op in self.pre_of.row(fact) {
                self.counter[op as usize] -= 1;
                if self.counter[op as usize] > 0 {
                    continue;
                }
                let cost = self.pre.row(op).iter().map(|&p| self.dist[p as usize]).fold(0u64, u64::saturating_add);
                let cost = cost.saturating_add(1);
                for &n in self.add.row(op) {
                    if cost < self.dist[n as usize] {
                        self.dist[n as usize] = cost;
                        self.achiever[n as usize] = op;
                        tie += 1;
                        self.heap.push(Reverse((cost, tie, n)));
                    }
                }
            }
            self.expanded[fact as usize] = true;
        }
        if self.goals.iter().any(|&g| self.dist[g as usize] == INF) {
            return DEAD_END;
        }
        // Backward pass: each fact once, each achiever counted once.
        self.closed.fill(false);
        self.in_plan.fill(false);
        self.stack.clear();
        for &g in &self.goals {
            self.stack.push(g);
            self.closed[g as usize] = true;
        }
        let mut count = 0u64;
        while let Some(fact) = self.stack.pop() {
            let op = self.achiever[fact as usize];
            if op == NONE {
                continue;
            }
            for &p in self.pre.row(op) {
                if !self.closed[p as usize] {
                    self.closed[p as usize] = true;
                    self.stack.push(p);
                }
            }
            if !self.in_plan[op as usize] {
                self.in_plan[op as usize] = true;
                count += 1;
                if let Some(p) = plan.as_deref_mut() {
                    p.push(op);
                }
            }
        }
        count as f64
    }
}
per_state_heuristic!(FfPyperplan, FF_PYPERPLAN);
/// The linear model's features as the authors compute them
/// (`pyperplan_heuristic_gomoluch.py:27-62`): `calc_h_with_plan`'s value
/// and the delete effects of its relaxed plan. The goal count is the
/// caller's: the state's own in their training data, the root's in their
/// planning.
pub struct PyperplanFeatures {
    ff: FfPyperplan,
    deletes: Vec<u32>,
    plan: Vec<OpId>,
}

impl PyperplanFeatures {
    pub fn new(task: &Task) -> Self {
        let deletes = task.operators.iter().map(|o| o.del.len() as u32).collect();
        PyperplanFeatures { ff: FfPyperplan::new(task), deletes, plan: vec![] }
    }

    /// None at a relaxed dead end.
    pub fn features(&mut self, state: &[u64], goal_count: f64) -> Option<super::FeatureValues> {
        let ff = self.ff.value_with_plan(state, &mut self.plan);
        if !ff.is_finite() {
            return None;
        }
        let deletes: u64 = self.plan.iter().map(|&o| u64::from(self.deletes[o as usize])).sum();
        let mean = if self.plan.is_empty() { 0.0 } else { deletes as f64 / self.plan.len() as f64 };
        Some(super::FeatureValues { goal_count, ff, deletes_ignored: deletes as f64, mean_deletes_ignored: mean })
    }
}
