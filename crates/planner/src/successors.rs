//! Applicable-operator lookup and successor construction.
//!
//! Each operator is "watched" by one of its preconditions, the one shared by
//! the fewest operators; for a state we visit the watch lists of its true
//! facts only, then check the rest of each candidate's precondition. This
//! visits each operator at most once and skips most inapplicable ones without
//! touching them (the role of Fast Downward's successor generator).

use crate::state::{clear, for_each_fact, has, set};
use crate::task::{OpId, Task};

pub struct SuccessorGenerator {
    /// Operators with no positive precondition: always candidates.
    unconditional: Vec<OpId>,
    /// CSR: operators watched by each fact.
    watch_start: Vec<u32>,
    watch_ops: Vec<OpId>,
}

impl SuccessorGenerator {
    pub fn new(task: &Task) -> Self {
        let mut uses = vec![0u32; task.num_facts()];
        for op in &task.operators {
            for &f in &op.pre {
                uses[f as usize] += 1;
            }
        }
        let mut unconditional = vec![];
        let mut watched_by: Vec<(u32, OpId)> = vec![];
        for (i, op) in task.operators.iter().enumerate() {
            match op.pre.iter().min_by_key(|&&f| (uses[f as usize], f)) {
                Some(&f) => watched_by.push((f, i as OpId)),
                None => unconditional.push(i as OpId),
            }
        }
        watched_by.sort_unstable();
        let mut watch_start = vec![0u32; task.num_facts() + 1];
        for &(f, _) in &watched_by {
            watch_start[f as usize + 1] += 1;
        }
        for i in 0..task.num_facts() {
            watch_start[i + 1] += watch_start[i];
        }
        let watch_ops = watched_by.into_iter().map(|(_, o)| o).collect();
        SuccessorGenerator { unconditional, watch_start, watch_ops }
    }

    /// Appends the operators applicable in `state` to `out` (in increasing id order).
    pub fn applicable(&self, task: &Task, state: &[u64], out: &mut Vec<OpId>) {
        let first = out.len();
        let ok = |o: OpId| {
            let op = &task.operators[o as usize];
            op.pre.iter().all(|&f| has(state, f)) && op.neg_pre.iter().all(|&f| !has(state, f))
        };
        for &o in &self.unconditional {
            if ok(o) {
                out.push(o);
            }
        }
        for_each_fact(state, |f| {
            let (a, b) = (self.watch_start[f as usize] as usize, self.watch_start[f as usize + 1] as usize);
            for &o in &self.watch_ops[a..b] {
                if ok(o) {
                    out.push(o);
                }
            }
        });
        // A stable, task-defined order keeps searches deterministic and matches id order.
        out[first..].sort_unstable();
    }
}

/// Writes the successor of `state` under operator `op` into `out`.
#[inline]
pub fn apply(task: &Task, state: &[u64], op: OpId, out: &mut [u64]) {
    out.copy_from_slice(state);
    let op = &task.operators[op as usize];
    for &f in &op.del {
        clear(out, f);
    }
    for &f in &op.add {
        set(out, f);
    }
}

/// True if `op` is applicable in `state`.
pub fn is_applicable(task: &Task, state: &[u64], op: OpId) -> bool {
    let op = &task.operators[op as usize];
    op.pre.iter().all(|&f| has(state, f)) && op.neg_pre.iter().all(|&f| !has(state, f))
}
