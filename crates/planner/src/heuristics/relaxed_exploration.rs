//! hmax, hadd and hFF: one Dijkstra-style exploration of the delete
//! relaxation, combining precondition costs by max or by sum.
//!
//! An operator fires when its last unsatisfied precondition is popped; its
//! effects are then offered at (combined precondition cost + operator cost).
//! The exploration stops once every goal proposition is popped, since their
//! costs are final then. For hFF, each proposition remembers the operator that
//! last lowered its cost (its best supporter, under hadd), and the relaxed plan
//! is the set of supporters reached backwards from the goals.

use std::sync::Arc;

use super::queue::MonotoneQueue;
use super::relaxed::RelaxedTask;
use super::unchecked::{at, at_mut};
use super::{per_state_heuristic, HeuristicInfo, DEAD_END};
use crate::task::{OpId, Task};

pub static HMAX: HeuristicInfo = HeuristicInfo {
    name: "hmax",
    description: "the costliest goal under the max delete relaxation (Bonet & Geffner)",
    admissible: true,
    detects_dead_ends: true,
    build: |task| Box::new(HMax::new(task)),
};

pub static HADD: HeuristicInfo = HeuristicInfo {
    name: "hadd",
    description: "the sum of the goals' costs under the additive delete relaxation (Bonet & Geffner)",
    admissible: false,
    detects_dead_ends: true,
    build: |task| Box::new(Additive::new(task)),
};

pub static FF: HeuristicInfo = HeuristicInfo {
    name: "ff",
    description: "the cost of a relaxed plan from hadd best supporters (Hoffmann & Nebel)",
    admissible: false,
    detects_dead_ends: true,
    build: |task| Box::new(Ff::new(task)),
};

const UNREACHED: u64 = u64::MAX;
const NO_OP: u32 = u32::MAX;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Combine {
    Max,
    Sum,
}

/// Per-proposition exploration data; valid only when `epoch` is current.
#[derive(Clone, Copy)]
struct PropState {
    cost: u64,
    supporter: u32,
    epoch: u32,
}

/// Per-operator exploration data; valid only when `epoch` is current.
#[derive(Clone, Copy)]
struct OpState {
    /// Preconditions not yet reached.
    unsat: u32,
    epoch: u32,
    /// Max or sum of the reached preconditions' costs.
    acc: u64,
}

/// Reusable buffers for one exploration at a time.
///
/// Entries carry the number of the evaluation (epoch) that last wrote them,
/// so starting an evaluation costs nothing: an entry from an older epoch reads
/// as "unreached". With early termination, an evaluation then touches only
/// the part of the task it explores, which matters on tasks with 10^5 operators.
struct Exploration {
    rt: Arc<RelaxedTask>,
    combine: Combine,
    props: Vec<PropState>,
    ops: Vec<OpState>,
    epoch: u32,
    is_goal: Vec<bool>,
    queue: MonotoneQueue,
}

impl Exploration {
    fn new(rt: Arc<RelaxedTask>, combine: Combine) -> Self {
        let mut is_goal = vec![false; rt.num_props];
        for &g in &rt.goal {
            is_goal[g as usize] = true;
        }
        Exploration {
            props: vec![PropState { cost: UNREACHED, supporter: NO_OP, epoch: 0 }; rt.num_props],
            ops: vec![OpState { unsat: 0, epoch: 0, acc: 0 }; rt.num_ops()],
            epoch: 0,
            is_goal,
            queue: MonotoneQueue::default(),
            combine,
            rt,
        }
    }

    #[inline]
    fn cost(&self, p: u32) -> u64 {
        let s = &self.props[p as usize];
        if s.epoch == self.epoch {
            s.cost
        } else {
            UNREACHED
        }
    }

    #[inline]
    fn supporter(&self, p: u32) -> u32 {
        let s = &self.props[p as usize];
        if s.epoch == self.epoch {
            s.supporter
        } else {
            NO_OP
        }
    }

    #[inline]
    fn offer(&mut self, p: u32, c: u64, by: u32) {
        let epoch = self.epoch;
        let s = at_mut(&mut self.props, p as usize);
        if s.epoch != epoch || c < s.cost {
            *s = PropState { cost: c, supporter: by, epoch };
            self.queue.push(c, p);
        }
    }

    /// Starts a new epoch; on wrap-around, really clears the tables.
    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.props.iter_mut().for_each(|s| s.epoch = u32::MAX);
            self.ops.iter_mut().for_each(|s| s.epoch = u32::MAX);
            self.epoch = 1;
        }
    }

    /// Runs the exploration from `state`; returns false if a goal is unreachable.
    fn run(&mut self, state: &[u64]) -> bool {
        let rt = Arc::clone(&self.rt);
        self.next_epoch();
        let epoch = self.epoch;
        self.queue.clear();
        rt.for_each_true_prop(state, |p| self.offer(p, 0, NO_OP));
        let mut goals_left = rt.goal.len();
        if goals_left == 0 {
            return true;
        }
        while let Some((c, p)) = self.queue.pop() {
            if c > at(&self.props, p as usize).cost {
                continue; // stale entry
            }
            if *at(&self.is_goal, p as usize) {
                goals_left -= 1;
                if goals_left == 0 {
                    return true;
                }
            }
            for &op in rt.pre_of(p) {
                let o = op as usize;
                let st = at_mut(&mut self.ops, o);
                if st.epoch != epoch {
                    let unsat = at(&rt.pre_start, o + 1) - at(&rt.pre_start, o);
                    *st = OpState { unsat, epoch, acc: 0 };
                }
                st.acc = match self.combine {
                    Combine::Max => st.acc.max(c),
                    Combine::Sum => st.acc.saturating_add(c),
                };
                st.unsat -= 1;
                if st.unsat == 0 {
                    let target = st.acc.saturating_add(*at(&rt.op_cost, o) as u64);
                    for &e in rt.eff(op) {
                        self.offer(e, target, op);
                    }
                }
            }
        }
        false
    }

    fn goal_value(&self) -> u64 {
        let costs = self.rt.goal.iter().map(|&g| self.cost(g));
        match self.combine {
            Combine::Max => costs.max().unwrap_or(0),
            Combine::Sum => costs.fold(0u64, |a, c| a.saturating_add(c)),
        }
    }
}

/// hmax: the cost of the most expensive goal in the max-relaxation.
pub struct HMax(Exploration);

impl HMax {
    pub fn new(task: &Task) -> Self {
        Self::with_relaxation(Arc::new(RelaxedTask::new(task)))
    }

    pub fn with_relaxation(rt: Arc<RelaxedTask>) -> Self {
        HMax(Exploration::new(rt, Combine::Max))
    }

    pub fn value(&mut self, state: &[u64]) -> f64 {
        if self.0.run(state) {
            self.0.goal_value() as f64
        } else {
            DEAD_END
        }
    }
}

/// hadd: the sum of the goals' additive costs.
pub struct Additive(Exploration);

impl Additive {
    pub fn new(task: &Task) -> Self {
        Additive(Exploration::new(Arc::new(RelaxedTask::new(task)), Combine::Sum))
    }

    pub fn value(&mut self, state: &[u64]) -> f64 {
        if self.0.run(state) {
            self.0.goal_value() as f64
        } else {
            DEAD_END
        }
    }
}

/// hFF: the cost of a relaxed plan built from hadd best supporters.
pub struct Ff {
    ex: Exploration,
    marked_prop: Vec<bool>,
    /// The propositions marked by the last extraction, to unmark them cheaply.
    marked_list: Vec<u32>,
    marked_op: Vec<bool>,
    stack: Vec<u32>,
    plan: Vec<OpId>,
}

impl Ff {
    pub fn new(task: &Task) -> Self {
        Self::with_relaxation(Arc::new(RelaxedTask::new(task)))
    }

    pub fn with_relaxation(rt: Arc<RelaxedTask>) -> Self {
        Ff {
            marked_prop: vec![false; rt.num_props],
            marked_list: vec![],
            marked_op: vec![false; rt.num_ops()],
            stack: vec![],
            plan: vec![],
            ex: Exploration::new(rt, Combine::Sum),
        }
    }

    /// The relaxed plan from `state` (operators in no particular order), or
    /// None at a relaxed dead end.
    pub fn relaxed_plan(&mut self, state: &[u64]) -> Option<&[OpId]> {
        if !self.ex.run(state) {
            return None;
        }
        for &op in &self.plan {
            self.marked_op[op as usize] = false;
        }
        for &p in &self.marked_list {
            self.marked_prop[p as usize] = false;
        }
        self.marked_list.clear();
        self.plan.clear();
        self.stack.clear();
        self.stack.extend_from_slice(&self.ex.rt.goal);
        while let Some(p) = self.stack.pop() {
            if std::mem::replace(&mut self.marked_prop[p as usize], true) {
                continue;
            }
            self.marked_list.push(p);
            let op = self.ex.supporter(p);
            if op == NO_OP || self.marked_op[op as usize] {
                continue;
            }
            self.marked_op[op as usize] = true;
            self.plan.push(op);
            self.stack.extend_from_slice(self.ex.rt.pre(op));
        }
        Some(&self.plan)
    }

    pub fn value(&mut self, state: &[u64]) -> f64 {
        let rt = Arc::clone(&self.ex.rt);
        match self.relaxed_plan(state) {
            Some(plan) => plan.iter().map(|&o| rt.op_cost[o as usize] as f64).sum(),
            None => DEAD_END,
        }
    }
}

/// The relaxed-plan features of Gomoluch et al. (2017), which the paper's
/// linear model reads.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct FeatureValues {
    pub goal_count: f64,
    pub ff: f64,
    /// Delete effects of the relaxed plan's actions, which the relaxation ignores.
    pub deletes_ignored: f64,
    /// `deletes_ignored` per action of the relaxed plan (0 for an empty plan).
    pub mean_deletes_ignored: f64,
}

/// Computes [`FeatureValues`] for states.
pub struct RelaxedPlanFeatures {
    ff: Ff,
    goals: super::GoalCount,
}

impl RelaxedPlanFeatures {
    pub fn new(task: &Task) -> Self {
        RelaxedPlanFeatures { ff: Ff::new(task), goals: super::GoalCount::new(task) }
    }

    /// None at a relaxed dead end.
    pub fn features(&mut self, state: &[u64]) -> Option<FeatureValues> {
        let goal_count = self.goals.value(state);
        let rt = Arc::clone(&self.ff.ex.rt);
        let plan = self.ff.relaxed_plan(state)?;
        let ff: f64 = plan.iter().map(|&o| rt.op_cost[o as usize] as f64).sum();
        let deletes: u64 = plan.iter().map(|&o| rt.op_num_deletes[o as usize] as u64).sum();
        let mean = if plan.is_empty() { 0.0 } else { deletes as f64 / plan.len() as f64 };
        Some(FeatureValues { goal_count, ff, deletes_ignored: deletes as f64, mean_deletes_ignored: mean })
    }
}

per_state_heuristic!(HMax, HMAX);
per_state_heuristic!(Additive, HADD);
per_state_heuristic!(Ff, FF);
