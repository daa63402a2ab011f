//! LM-cut as pyperplan 2.1 computes it, in the authors' copy (IBM/pddlsl
//! `pddlsl/custom_pyperplan/lm_cut.py`): their planning-time l. It is an
//! LM-cut, so admissible, but its "hmax" is not Fast Downward's, and on some
//! states (visitall above all) its values are far lower than our `lmcut`.
//! This is a step-by-step transcription of what that code does, quirks
//! included, because the values depend on them:
//!
//! - Python's `heapq` over objects whose keys change while they sit in the
//!   heap (facts ordered by their current hmax, l. 45-50; operators likewise,
//!   l. 87-92): the heap's invariant breaks, facts are not popped in hmax
//!   order, and each fact is pushed once only (`facts_seen`, l. 262-265), so
//!   the forward pass (`compute_hmax`, l. 206-265) is not an exact hmax. We
//!   replay `heapq`'s exact sift operations on the same keys ([`PyHeap`]).
//! - An operator's hmax supporter is the precondition popped last, since it
//!   is set only when the last one arrives (l. 245-253), not its costliest.
//! - Operators cost 1 (the artificial goal operator 0), whatever the task says.
//! - The goal plateau follows zero-cost achievers' supporters (l. 304-317)
//!   through every achiever of a reached fact, including operators this
//!   evaluation never touched, whose cost and supporter are still those an
//!   earlier evaluation left (`RelaxedOp.clear` runs only on operators with a
//!   reached precondition, l. 240-242). So a value can depend on the states
//!   evaluated before; we keep the same state between calls.
//! - The cut is collected by a second exploration (`find_cut`, l. 319-354);
//!   the hmax update after a cut (l. 267-302) starts from the cut's operators
//!   in the order they entered it.
//!
//! Python iterates the state's facts and the cut as hash sets (string hashes,
//! object addresses), so pyperplan's own results depend on the interpreter.
//! Here the state's facts come in increasing fact id (then the always-true
//! fact), preconditions, effects and goals in the task's order and the cut in
//! insertion order; `tools/reference/pyperplan_values.py` pins pyperplan to
//! the same orders, and the golden test checks every value against it.
//!
//! Where pyperplan would fail we return a value instead: a state whose goal is
//! relaxed-unreachable is a dead end (pyperplan may read a goal hmax left by an
//! earlier state and raise on an empty cut); an empty cut or a zero-cost cut
//! (an error and an endless loop in Python) ends the computation with the
//! value reached so far, a lower bound still.

use super::pyperplan_ff::{distinct, Csr};
use super::{per_state_heuristic, HeuristicInfo, DEAD_END};
use crate::state::for_each_fact;
use crate::task::Task;

pub static LMCUT_PYPERPLAN: HeuristicInfo = HeuristicInfo {
    name: "lmcut-pyperplan",
    description:
        "LM-cut as pyperplan computes it (its approximate hmax and tie-breaking), the authors' planning-time l",
    admissible: true,
    detects_dead_ends: true,
    build: |task| Box::new(LmCutPyperplan::new(task)),
};

const NONE: u32 = u32::MAX;

/// Python's `heapq` on a list of indices compared by a key that may change
/// while they are in the list: the same pushes and pops move the same items,
/// comparing with `<` only, as `Modules/_heapqmodule.c` does.
struct PyHeap {
    items: Vec<u32>,
}

impl PyHeap {
    fn push(&mut self, item: u32, lt: &impl Fn(u32, u32) -> bool) {
        self.items.push(item);
        let last = self.items.len() - 1;
        self.sift_down(0, last, lt);
    }

    fn pop(&mut self, lt: &impl Fn(u32, u32) -> bool) -> Option<u32> {
        let last = self.items.pop()?;
        if self.items.is_empty() {
            return Some(last);
        }
        let top = std::mem::replace(&mut self.items[0], last);
        self.sift_up(0, lt);
        Some(top)
    }

    /// `_siftdown`: moves the item at `pos` up towards `start` while it is
    /// smaller than its parent.
    fn sift_down(&mut self, start: usize, mut pos: usize, lt: &impl Fn(u32, u32) -> bool) {
        let item = self.items[pos];
        while pos > start {
            let parent = (pos - 1) >> 1;
            if !lt(item, self.items[parent]) {
                break;
            }
            self.items[pos] = self.items[parent];
            pos = parent;
        }
        self.items[pos] = item;
    }

    /// `_siftup`: moves the smaller child up until a leaf, then sifts the
    /// item back down from there.
    fn sift_up(&mut self, mut pos: usize, lt: &impl Fn(u32, u32) -> bool) {
        let end = self.items.len();
        let start = pos;
        let item = self.items[pos];
        let mut child = 2 * pos + 1;
        while child < end {
            let right = child + 1;
            if right < end && !lt(self.items[child], self.items[right]) {
                child = right;
            }
            self.items[pos] = self.items[child];
            pos = child;
            child = 2 * pos + 1;
        }
        self.items[pos] = item;
        self.sift_down(start, pos, lt);
    }
}

/// Marks with the number of the pass that set them (Python's per-call sets).
struct Marks {
    pass: Vec<u32>,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks { pass: vec![0; n] }
    }
    #[inline]
    fn has(&self, i: u32, pass: u32) -> bool {
        self.pass[i as usize] == pass
    }
    /// Marks `i`; false if it was marked already.
    #[inline]
    fn mark(&mut self, i: u32, pass: u32) -> bool {
        let was = self.pass[i as usize] == pass;
        self.pass[i as usize] = pass;
        !was
    }
}

pub struct LmCutPyperplan {
    /// Facts: the task's, then the always-true fact (precondition of the
    /// operators without one, if any), then the artificial goal.
    always_true: Option<u32>,
    goal: u32,
    /// Operators: the task's, then the goal operator.
    goal_op: u32,
    pre_of: Csr,
    effect_of: Csr,
    pre: Csr,
    eff: Csr,
    // Fact and operator attributes, kept between evaluations as pyperplan keeps them.
    fact_hmax: Vec<f64>,
    op_hmax: Vec<f64>,
    op_cost: Vec<f64>,
    op_supporter: Vec<u32>,
    op_unsat: Vec<i64>,
    op_cut_unsat: Vec<i64>,
    // Per-call sets.
    pass: u32,
    reachable: Marks,
    facts_seen: Marks,
    fact_cleared: Marks,
    op_cleared: Marks,
    plateau: Marks,
    in_cut: Marks,
    heap: PyHeap,
    start: Vec<u32>,
    cut: Vec<u32>,
    stack: Vec<u32>,
}

impl LmCutPyperplan {
    pub fn new(task: &Task) -> Self {
        let n = task.num_facts() as u32;
        let ops = task.operators.len() as u32;
        let needs_always_true = task.operators.iter().any(|o| o.pre.is_empty());
        let always_true = needs_always_true.then_some(n);
        let goal = n + u32::from(needs_always_true);
        let facts = goal as usize + 1;
        let goal_op = ops;
        let mut pre_of = vec![vec![]; facts];
        let mut effect_of = vec![vec![]; facts];
        let mut pre = vec![];
        let mut eff = vec![];
        for (i, op) in task.operators.iter().enumerate() {
            let p = match always_true {
                Some(t) if op.pre.is_empty() => vec![t],
                _ => distinct(&op.pre),
            };
            let e = distinct(&op.add);
            for &f in &p {
                pre_of[f as usize].push(i as u32);
            }
            for &f in &e {
                effect_of[f as usize].push(i as u32);
            }
            pre.push(p);
            eff.push(e);
        }
        let goals = distinct(&task.goal);
        for &g in &goals {
            pre_of[g as usize].push(goal_op);
        }
        effect_of[goal as usize].push(goal_op);
        pre.push(goals);
        eff.push(vec![goal]);
        let all_ops = ops as usize + 1;
        let mut op_cost = vec![1.0; all_ops];
        op_cost[goal_op as usize] = 0.0;
        LmCutPyperplan {
            always_true,
            goal,
            goal_op,
            pre_of: Csr::from_rows(&pre_of),
            effect_of: Csr::from_rows(&effect_of),
            pre: Csr::from_rows(&pre),
            eff: Csr::from_rows(&eff),
            fact_hmax: vec![f64::INFINITY; facts],
            op_hmax: vec![f64::INFINITY; all_ops],
            op_cost,
            op_supporter: vec![NONE; all_ops],
            op_unsat: vec![0; all_ops],
            op_cut_unsat: vec![0; all_ops],
            pass: 0,
            reachable: Marks::new(facts),
            facts_seen: Marks::new(facts),
            fact_cleared: Marks::new(facts),
            op_cleared: Marks::new(all_ops),
            plateau: Marks::new(facts),
            in_cut: Marks::new(all_ops),
            heap: PyHeap { items: vec![] },
            start: vec![],
            cut: vec![],
            stack: vec![],
        }
    }

    fn next_pass(&mut self) -> u32 {
        self.pass += 1;
        self.pass
    }

    /// `compute_hmax`: returns whether the artificial goal was popped.
    fn compute_hmax(&mut self) -> bool {
        let pass = self.next_pass();
        let mut goal_reached = false;
        self.heap.items.clear();
        for i in 0..self.start.len() {
            let f = self.start[i];
            self.reachable.mark(f, pass);
            self.fact_hmax[f as usize] = 0.0;
            self.fact_cleared.mark(f, pass);
            self.facts_seen.mark(f, pass);
            let hm = &self.fact_hmax;
            self.heap.push(f, &|a, b| hm[a as usize] < hm[b as usize]);
        }
        loop {
            let hm = &self.fact_hmax;
            let Some(f) = self.heap.pop(&|a, b| hm[a as usize] < hm[b as usize]) else { break };
            if f == self.goal {
                goal_reached = true;
            }
            self.reachable.mark(f, pass);
            let v = self.fact_hmax[f as usize];
            for &op in self.pre_of.row(f) {
                let o = op as usize;
                if self.op_cleared.mark(op, pass) {
                    self.op_unsat[o] = self.pre.row(op).len() as i64;
                    if op != self.goal_op {
                        self.op_cost[o] = 1.0;
                    }
                    self.op_supporter[o] = NONE;
                    self.op_hmax[o] = f64::INFINITY;
                }
                self.op_unsat[o] -= 1;
                if self.op_unsat[o] != 0 {
                    continue;
                }
                let s = self.op_supporter[o];
                if s == NONE || v > self.fact_hmax[s as usize] {
                    self.op_supporter[o] = f;
                    self.op_hmax[o] = v + self.op_cost[o];
                }
                let next = self.fact_hmax[self.op_supporter[o] as usize] + self.op_cost[o];
                for &e in self.eff.row(op) {
                    if self.fact_cleared.mark(e, pass) {
                        self.fact_hmax[e as usize] = f64::INFINITY;
                    }
                    if next < self.fact_hmax[e as usize] {
                        self.fact_hmax[e as usize] = next;
                    }
                    if self.facts_seen.mark(e, pass) {
                        let hm = &self.fact_hmax;
                        self.heap.push(e, &|a, b| hm[a as usize] < hm[b as usize]);
                    }
                }
            }
        }
        goal_reached
    }

    /// `compute_goal_plateau` from the artificial goal; the marked set does
    /// not depend on the visiting order.
    fn mark_goal_plateau(&mut self, reach_pass: u32) -> u32 {
        let pass = self.next_pass();
        self.stack.clear();
        self.stack.push(self.goal);
        while let Some(f) = self.stack.pop() {
            if !self.reachable.has(f, reach_pass) || !self.plateau.mark(f, pass) {
                continue;
            }
            for &op in self.effect_of.row(f) {
                let s = self.op_supporter[op as usize];
                // pyperplan would raise on a zero-cost operator without a
                // supporter; it cannot lead anywhere, so it is skipped.
                if self.op_cost[op as usize] == 0.0 && s != NONE {
                    self.stack.push(s);
                }
            }
        }
        pass
    }

    /// `find_cut`: the operators reached from the state without entering the
    /// plateau that add a plateau fact, in the order they are found.
    fn find_cut(&mut self, plateau_pass: u32) {
        let pass = self.next_pass();
        self.cut.clear();
        self.heap.items.clear();
        for i in 0..self.start.len() {
            let f = self.start[i];
            self.facts_seen.mark(f, pass);
            let hm = &self.fact_hmax;
            self.heap.push(f, &|a, b| hm[a as usize] < hm[b as usize]);
        }
        loop {
            let hm = &self.fact_hmax;
            let Some(f) = self.heap.pop(&|a, b| hm[a as usize] < hm[b as usize]) else { break };
            for &op in self.pre_of.row(f) {
                let o = op as usize;
                if self.op_cleared.mark(op, pass) {
                    self.op_cut_unsat[o] = self.pre.row(op).len() as i64;
                }
                self.op_cut_unsat[o] -= 1;
                if self.op_cut_unsat[o] != 0 {
                    continue;
                }
                for &e in self.eff.row(op) {
                    if self.facts_seen.has(e, pass) {
                        continue;
                    }
                    if self.plateau.has(e, plateau_pass) {
                        if self.in_cut.mark(op, pass) {
                            self.cut.push(op);
                        }
                    } else {
                        self.facts_seen.mark(e, pass);
                        let hm = &self.fact_hmax;
                        self.heap.push(e, &|a, b| hm[a as usize] < hm[b as usize]);
                    }
                }
            }
        }
    }

    /// `compute_hmax_from_last_cut`.
    fn update_hmax_from_cut(&mut self) {
        self.heap.items.clear();
        for i in 0..self.cut.len() {
            let op = self.cut[i] as usize;
            let s = self.op_supporter[op];
            if s == NONE {
                continue; // cannot happen: a cut operator was reached, so it has a supporter
            }
            self.op_hmax[op] = self.fact_hmax[s as usize] + self.op_cost[op];
            let oh = &self.op_hmax;
            self.heap.push(op as u32, &|a, b| oh[a as usize] < oh[b as usize]);
        }
        loop {
            let oh = &self.op_hmax;
            let Some(op) = self.heap.pop(&|a, b| oh[a as usize] < oh[b as usize]) else { break };
            let next = self.op_hmax[op as usize];
            for &f in self.eff.row(op) {
                if self.fact_hmax[f as usize] <= next {
                    continue;
                }
                self.fact_hmax[f as usize] = next;
                for &nop in self.pre_of.row(f) {
                    let n = nop as usize;
                    if self.op_supporter[n] != f {
                        continue;
                    }
                    let cost = self.op_cost[n];
                    self.op_hmax[n] = next + cost;
                    for &s in self.pre.row(nop) {
                        if self.fact_hmax[s as usize] + cost > self.op_hmax[n] {
                            self.op_supporter[n] = s;
                            self.op_hmax[n] = self.fact_hmax[s as usize] + cost;
                        }
                    }
                    let oh = &self.op_hmax;
                    self.heap.push(nop, &|a, b| oh[a as usize] < oh[b as usize]);
                }
            }
        }
    }

    pub fn value(&mut self, state: &[u64]) -> f64 {
        // One evaluation uses at most two passes per cut, and there are at
        // most as many cuts as operators: restart the numbering long before
        // it could wrap, forgetting every old mark so none reads as current.
        if self.pass > u32::MAX / 2 {
            for m in [
                &mut self.reachable,
                &mut self.facts_seen,
                &mut self.fact_cleared,
                &mut self.op_cleared,
                &mut self.plateau,
                &mut self.in_cut,
            ] {
                m.pass.fill(0);
            }
            self.pass = 0;
        }
        self.start.clear();
        for_each_fact(state, |f| self.start.push(f));
        if let Some(t) = self.always_true {
            self.start.push(t);
        }
        let goal_reached = self.compute_hmax();
        let reach_pass = self.pass;
        if !goal_reached || self.fact_hmax[self.goal as usize] == f64::INFINITY {
            return DEAD_END;
        }
        let mut h = 0.0;
        while self.fact_hmax[self.goal as usize] != 0.0 {
            let plateau_pass = self.mark_goal_plateau(reach_pass);
            self.find_cut(plateau_pass);
            let Some(min) = self.cut.iter().map(|&o| self.op_cost[o as usize]).min_by(f64::total_cmp) else {
                break;
            };
            if min <= 0.0 {
                break;
            }
            h += min;
            for &o in &self.cut {
                self.op_cost[o as usize] -= min;
            }
            self.update_hmax_from_cut();
        }
        h
    }
}
per_state_heuristic!(LmCutPyperplan, LMCUT_PYPERPLAN);
