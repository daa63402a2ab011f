//! The LM-cut heuristic (Helmert & Domshlak 2009).
//!
//! Repeat until the goal's hmax is 0: compute hmax with current operator
//! costs and each operator's hmax supporter (its most expensive
//! precondition); mark the goal zone (propositions from which the goal is
//! reached by zero-cost operators through their supporters); collect the cut:
//! operators reached from the state without entering the goal zone, whose
//! supporter is reached and which have an effect inside it. The cut is a
//! disjunctive action landmark; add its minimum cost to h and subtract it from
//! the cut's operators. After the first round, hmax is updated incrementally
//! from the cut's operators only.
//!
//! An artificial goal operator (precondition: the goals, cost 0) achieves an
//! artificial goal proposition, so "the goal" is a single proposition.

use super::queue::MonotoneQueue;
use super::relaxed::RelaxedTask;
use super::{per_state_heuristic, DEAD_END};
use crate::task::Task;

const UNREACHED: u32 = u32::MAX;
const NO_OP: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Zone {
    Unmarked,
    BeforeGoal,
    Goal,
}

pub struct LmCut {
    num_props: usize,
    goal_prop: u32,
    goal_op: u32,
    always_true: u32,
    num_facts: usize,
    negated_of: Vec<u32>,
    // Operators (the task's, then the goal operator), CSR.
    pre_start: Vec<u32>,
    pre: Vec<u32>,
    eff_start: Vec<u32>,
    eff: Vec<u32>,
    base_cost: Vec<u32>,
    // Propositions, CSR.
    pre_of_start: Vec<u32>,
    pre_of: Vec<u32>,
    ach_start: Vec<u32>,
    ach: Vec<u32>,
    // Per-evaluation state.
    cost: Vec<u32>,
    supporter: Vec<u32>,
    supporter_cost: Vec<u32>,
    unsat: Vec<u32>,
    hmax: Vec<u32>,
    zone: Vec<Zone>,
    queue: MonotoneQueue,
    init_props: Vec<u32>,
    stack: Vec<u32>,
    cut: Vec<u32>,
    touched: Vec<u32>,
}

impl LmCut {
    pub fn new(task: &Task) -> Self {
        let rt = RelaxedTask::new(task);
        let goal_prop = rt.num_props as u32;
        let num_props = rt.num_props + 1;
        let goal_op = rt.num_ops() as u32;
        let mut pre_start = rt.pre_start.clone();
        let mut pre = rt.pre.clone();
        pre.extend_from_slice(&rt.goal);
        if rt.goal.is_empty() {
            pre.push(rt.always_true);
        }
        pre_start.push(pre.len() as u32);
        let mut eff_start = rt.eff_start.clone();
        let mut eff = rt.eff.clone();
        eff.push(goal_prop);
        eff_start.push(eff.len() as u32);
        let mut base_cost = rt.op_cost.clone();
        base_cost.push(0);
        let num_ops = base_cost.len();

        let mut pre_of = vec![vec![]; num_props];
        let mut ach = vec![vec![]; num_props];
        for op in 0..num_ops {
            for &p in &pre[pre_start[op] as usize..pre_start[op + 1] as usize] {
                pre_of[p as usize].push(op as u32);
            }
            for &p in &eff[eff_start[op] as usize..eff_start[op + 1] as usize] {
                ach[p as usize].push(op as u32);
            }
        }
        let flatten = |lists: Vec<Vec<u32>>| {
            let mut start = vec![0u32];
            let mut flat = vec![];
            for l in lists {
                flat.extend(l);
                start.push(flat.len() as u32);
            }
            (start, flat)
        };
        let (pre_of_start, pre_of) = flatten(pre_of);
        let (ach_start, ach) = flatten(ach);
        LmCut {
            num_props,
            goal_prop,
            goal_op,
            always_true: rt.always_true,
            num_facts: rt.num_facts,
            negated_of: rt.negated_of.clone(),
            pre_start,
            pre,
            eff_start,
            eff,
            cost: base_cost.clone(),
            base_cost,
            pre_of_start,
            pre_of,
            ach_start,
            ach,
            supporter: vec![NO_OP; num_ops],
            supporter_cost: vec![0; num_ops],
            unsat: vec![0; num_ops],
            hmax: vec![UNREACHED; num_props],
            zone: vec![Zone::Unmarked; num_props],
            queue: MonotoneQueue::default(),
            init_props: vec![],
            stack: vec![],
            cut: vec![],
            touched: vec![],
        }
    }

    #[inline]
    fn pre_of_slice(&self, p: u32) -> std::ops::Range<usize> {
        self.pre_of_start[p as usize] as usize..self.pre_of_start[p as usize + 1] as usize
    }

    #[inline]
    fn eff_range(&self, op: u32) -> std::ops::Range<usize> {
        self.eff_start[op as usize] as usize..self.eff_start[op as usize + 1] as usize
    }

    #[inline]
    fn pre_range(&self, op: u32) -> std::ops::Range<usize> {
        self.pre_start[op as usize] as usize..self.pre_start[op as usize + 1] as usize
    }

    #[inline]
    fn enqueue(&mut self, p: u32, c: u32) {
        if c < self.hmax[p as usize] {
            self.hmax[p as usize] = c;
            self.queue.push(c as u64, p);
        }
    }

    fn collect_init_props(&mut self, state: &[u64]) {
        self.init_props.clear();
        crate::state::for_each_fact(state, |f| self.init_props.push(f));
        for (k, &fact) in self.negated_of.iter().enumerate() {
            if !crate::state::has(state, fact) {
                self.init_props.push((self.num_facts + k) as u32);
            }
        }
        self.init_props.push(self.always_true);
    }

    /// Full hmax computation with supporters, from scratch.
    fn first_exploration(&mut self) {
        self.hmax.fill(UNREACHED);
        for op in 0..self.unsat.len() {
            self.unsat[op] = self.pre_start[op + 1] - self.pre_start[op];
            self.supporter[op] = NO_OP;
        }
        self.queue.clear();
        for i in 0..self.init_props.len() {
            let p = self.init_props[i];
            self.enqueue(p, 0);
        }
        while let Some((c, p)) = self.queue.pop() {
            let c = c as u32;
            if c > self.hmax[p as usize] {
                continue;
            }
            for i in self.pre_of_slice(p) {
                let op = self.pre_of[i];
                let o = op as usize;
                self.unsat[o] -= 1;
                if self.unsat[o] == 0 {
                    // Popped in cost order: the last precondition is the most expensive.
                    self.supporter[o] = p;
                    self.supporter_cost[o] = c;
                    let target = c + self.cost[o];
                    for j in self.eff_range(op) {
                        let e = self.eff[j];
                        self.enqueue(e, target);
                    }
                }
            }
        }
    }

    /// Re-points `op`'s supporter at its most expensive precondition.
    fn update_supporter(&mut self, op: u32) {
        let mut best = NO_OP;
        let mut best_cost = 0;
        for i in self.pre_range(op) {
            let p = self.pre[i];
            let c = self.hmax[p as usize];
            if best == NO_OP || c > best_cost {
                best = p;
                best_cost = c;
            }
        }
        self.supporter[op as usize] = best;
        self.supporter_cost[op as usize] = best_cost;
    }

    /// hmax after the cut's costs dropped: only what can get cheaper is revisited.
    fn incremental_exploration(&mut self) {
        self.queue.clear();
        for i in 0..self.cut.len() {
            let op = self.cut[i];
            let target = self.supporter_cost[op as usize] + self.cost[op as usize];
            for j in self.eff_range(op) {
                let e = self.eff[j];
                self.enqueue(e, target);
            }
        }
        while let Some((c, p)) = self.queue.pop() {
            let c = c as u32;
            if c > self.hmax[p as usize] {
                continue;
            }
            for i in self.pre_of_slice(p) {
                let op = self.pre_of[i];
                let o = op as usize;
                if self.supporter[o] == p && self.supporter_cost[o] > c {
                    let old = self.supporter_cost[o];
                    self.update_supporter(op);
                    let new = self.supporter_cost[o];
                    if new != old {
                        let target = new + self.cost[o];
                        for j in self.eff_range(op) {
                            let e = self.eff[j];
                            self.enqueue(e, target);
                        }
                    }
                }
            }
        }
    }

    /// Marks the goal zone: backwards from the goal through zero-cost achievers' supporters.
    fn mark_goal_zone(&mut self) {
        self.stack.clear();
        self.stack.push(self.goal_prop);
        while let Some(p) = self.stack.pop() {
            if self.zone[p as usize] == Zone::Goal {
                continue;
            }
            self.zone[p as usize] = Zone::Goal;
            self.touched.push(p);
            for i in self.ach_start[p as usize] as usize..self.ach_start[p as usize + 1] as usize {
                let op = self.ach[i] as usize;
                if self.cost[op] == 0 && self.supporter[op] != NO_OP {
                    self.stack.push(self.supporter[op]);
                }
            }
        }
    }

    /// Forward from the state without entering the goal zone; fills `cut`.
    fn find_cut(&mut self) {
        self.cut.clear();
        self.stack.clear();
        for i in 0..self.init_props.len() {
            let p = self.init_props[i];
            if self.zone[p as usize] == Zone::Unmarked {
                self.zone[p as usize] = Zone::BeforeGoal;
                self.touched.push(p);
            }
            self.stack.push(p);
        }
        while let Some(p) = self.stack.pop() {
            for i in self.pre_of_slice(p) {
                let op = self.pre_of[i];
                if self.supporter[op as usize] != p {
                    continue;
                }
                let effs = self.eff_range(op);
                if self.eff[effs.clone()].iter().any(|&e| self.zone[e as usize] == Zone::Goal) {
                    self.cut.push(op);
                    continue;
                }
                for j in effs {
                    let e = self.eff[j];
                    if self.zone[e as usize] == Zone::Unmarked {
                        self.zone[e as usize] = Zone::BeforeGoal;
                        self.touched.push(e);
                        self.stack.push(e);
                    }
                }
            }
        }
    }

    /// The LM-cut value of `state` (`DEAD_END` if the goal is relaxed-unreachable).
    pub fn value(&mut self, state: &[u64]) -> f64 {
        self.collect_init_props(state);
        self.cost.copy_from_slice(&self.base_cost);
        self.first_exploration();
        if self.hmax[self.goal_prop as usize] == UNREACHED {
            return DEAD_END;
        }
        let mut h: u64 = 0;
        while self.hmax[self.goal_prop as usize] != 0 {
            self.mark_goal_zone();
            self.find_cut();
            let cut_cost = self.cut.iter().map(|&o| self.cost[o as usize]).min().unwrap_or(0);
            if self.cut.is_empty() || cut_cost == 0 {
                // Cannot happen for a correct hmax (the goal zone is entered at positive cost);
                // stop rather than loop.
                debug_assert!(false, "LM-cut found an empty or zero-cost cut");
                break;
            }
            for i in 0..self.cut.len() {
                let o = self.cut[i] as usize;
                self.cost[o] -= cut_cost;
            }
            h += cut_cost as u64;
            for i in 0..self.touched.len() {
                let p = self.touched[i];
                self.zone[p as usize] = Zone::Unmarked;
            }
            self.touched.clear();
            self.incremental_exploration();
        }
        for i in 0..self.touched.len() {
            let p = self.touched[i];
            self.zone[p as usize] = Zone::Unmarked;
        }
        self.touched.clear();
        let _ = (self.goal_op, self.num_props);
        h as f64
    }
}
per_state_heuristic!(LmCut, "lmcut");
