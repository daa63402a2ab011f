//! The bootstrap's sampling search (thesis, Algorithm 1): IDA* under a limit,
//! recording every state it expands.
//!
//! The thesis samples with IDA* and deploys with A*; we follow it. IDA*
//! re-expands states across iterations; a state is recorded once, in the
//! order it was first expanded. Heuristic values are computed once per
//! state (cached), rounded up to whole numbers as the planner's A* does, so
//! that thresholds grow in whole steps. States on the current path are not
//! re-entered (cycle check). The limit is on expansions (deterministic) or
//! on seconds.

use std::time::Instant;

use planner::heuristics::{Heuristic, StateBatch};
use planner::state::{initial_state, is_goal};
use planner::successors::{apply, SuccessorGenerator};
use planner::task::OpId;
use planner::Task;
use serde::{Deserialize, Serialize};

use crate::hash::FxMap;

/// A limit on one search.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SearchLimit {
    /// At most this many expansions (deterministic).
    Expansions(u64),
    /// At most this many seconds.
    Seconds(f64),
}

impl SearchLimit {
    /// `k` units of this limit (the bootstrap's L * unit).
    pub fn times(self, k: u64) -> SearchLimit {
        match self {
            SearchLimit::Expansions(n) => SearchLimit::Expansions(n.saturating_mul(k)),
            SearchLimit::Seconds(s) => SearchLimit::Seconds(s * k as f64),
        }
    }
}

/// What an IDA* run found.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    pub solved: bool,
    /// The plan found (empty unless solved).
    pub plan: Vec<OpId>,
    pub expansions: u64,
    /// Each expanded state once, in order of first expansion.
    pub expanded: Vec<Vec<u64>>,
    /// Completed and started threshold iterations.
    pub iterations: u32,
    /// True if the whole space within every threshold was searched without a plan.
    pub exhausted: bool,
}

fn int_h(v: f64) -> u64 {
    if v <= 0.0 {
        0
    } else {
        v.ceil().min(u32::MAX as f64) as u64
    }
}

struct Frame {
    state: Vec<u64>,
    g: u64,
    /// (state, operator, cost, h) sorted by h.
    children: Vec<(Vec<u64>, OpId, u64, u64)>,
    next: usize,
}

/// IDA*'s state across iterations.
struct Ida<'t, 'h> {
    task: &'t Task,
    h: &'h mut dyn Heuristic,
    succ: SuccessorGenerator,
    limit: SearchLimit,
    start: Instant,
    words: usize,
    /// Heuristic values by state (each state evaluated once).
    values: FxMap<Box<[u64]>, f64>,
    /// States expanded so far (any iteration).
    seen: FxMap<Box<[u64]>, ()>,
    /// States on the current path.
    on_path: FxMap<Box<[u64]>, ()>,
    stack: Vec<Frame>,
    ops: Vec<OpId>,
    batch: Vec<u64>,
    hs: Vec<f64>,
    result: Sampled,
}

impl Ida<'_, '_> {
    fn out_of_budget(&self) -> bool {
        match self.limit {
            SearchLimit::Expansions(n) => self.result.expansions >= n,
            SearchLimit::Seconds(s) => self.start.elapsed().as_secs_f64() >= s,
        }
    }

    /// Visits a state within the threshold: goal test, then expansion (its
    /// frame pushed). Some(true): solved; Some(false): out of budget.
    fn visit(&mut self, state: Vec<u64>, g: u64) -> Option<bool> {
        if is_goal(self.task, &state) {
            self.result.solved = true;
            self.result.plan = self.stack.iter().map(|f| f.children[f.next - 1].1).collect();
            return Some(true);
        }
        if self.out_of_budget() {
            return Some(false);
        }
        self.result.expansions += 1;
        if self.seen.insert(state.clone().into(), ()).is_none() {
            self.result.expanded.push(state.clone());
        }
        self.ops.clear();
        self.succ.applicable(self.task, &state, &mut self.ops);
        let mut children = Vec::with_capacity(self.ops.len());
        self.batch.clear();
        let mut fresh: Vec<Vec<u64>> = vec![];
        for &op in &self.ops {
            let mut child = vec![0u64; self.words];
            apply(self.task, &state, op, &mut child);
            if self.on_path.contains_key(child.as_slice()) || child == state {
                continue;
            }
            if !self.values.contains_key(child.as_slice()) && !fresh.contains(&child) {
                self.batch.extend_from_slice(&child);
                fresh.push(child.clone());
            }
            children.push((child, op, self.task.operators[op as usize].cost as u64, 0));
        }
        if !fresh.is_empty() {
            self.h.evaluate_batch(StateBatch::new(&self.batch, self.words), &mut self.hs);
            for (s, &v) in fresh.into_iter().zip(&self.hs) {
                self.values.insert(s.into(), v);
            }
        }
        let values = &self.values;
        children.retain_mut(|c| {
            let v = values[c.0.as_slice()];
            c.3 = int_h(v);
            v.is_finite()
        });
        // Most promising first (stable: ties keep the operators' order).
        children.sort_by_key(|c| c.3);
        self.on_path.insert(state.clone().into(), ());
        self.stack.push(Frame { state, g, children, next: 0 });
        None
    }

    /// One depth-first iteration under `threshold`: Some(stop) if it solved
    /// or ran out of budget, else the next threshold (u64::MAX: none).
    fn iteration(&mut self, init: &[u64], threshold: u64) -> Result<Option<bool>, u64> {
        self.result.iterations += 1;
        self.stack.clear();
        self.on_path.clear();
        let mut next_threshold = u64::MAX;
        if let Some(stop) = self.visit(init.to_vec(), 0) {
            return Ok(Some(stop));
        }
        while let Some(top) = self.stack.last_mut() {
            if top.next == top.children.len() {
                let done = self.stack.pop().expect("non-empty");
                self.on_path.remove(done.state.as_slice());
                continue;
            }
            let (child, _, cost, hv) = top.children[top.next].clone();
            top.next += 1;
            let g = top.g + cost;
            if g + hv > threshold {
                next_threshold = next_threshold.min(g + hv);
                continue;
            }
            if let Some(stop) = self.visit(child, g) {
                return Ok(Some(stop));
            }
        }
        Err(next_threshold)
    }
}

/// IDA* from the initial state of `task` with heuristic `h` under `limit`.
pub fn ida_star(task: &Task, h: &mut dyn Heuristic, limit: SearchLimit) -> Sampled {
    let init = initial_state(task);
    let mut ida = Ida {
        task,
        succ: SuccessorGenerator::new(task),
        limit,
        start: Instant::now(),
        words: init.len(),
        values: FxMap::default(),
        seen: FxMap::default(),
        on_path: FxMap::default(),
        stack: vec![],
        ops: vec![],
        batch: vec![],
        hs: vec![],
        result: Sampled {
            solved: false,
            plan: vec![],
            expansions: 0,
            expanded: vec![],
            iterations: 0,
            exhausted: false,
        },
        h,
    };
    let h0 = ida.h.evaluate(&init);
    ida.values.insert(init.clone().into(), h0);
    if !h0.is_finite() || task.unsolvable.is_some() {
        ida.result.exhausted = true;
        return ida.result;
    }
    let mut threshold = int_h(h0);
    loop {
        match ida.iteration(&init, threshold) {
            Ok(_) => return ida.result,
            Err(u64::MAX) => {
                ida.result.exhausted = true;
                return ida.result;
            }
            Err(next) => threshold = next,
        }
    }
}
