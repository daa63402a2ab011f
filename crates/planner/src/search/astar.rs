//! A*: f = g + h, ties broken towards lower h, then first in first out;
//! closed states are reopened when reached more cheaply, so the returned plan
//! is optimal for admissible h (consistency is not required).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::node_table::{Node, NodeTable, NONE};
use super::{plan_cost, Budget, Limits, SearchResult, SearchStatus};
use crate::heuristics::{Heuristic, StateBatch};
use crate::state::{initial_state, is_goal, StateRegistry};
use crate::successors::{apply, SuccessorGenerator};
use crate::task::{OpId, Task};

/// Open-list entry: (f, h) packed for one comparison, then insertion order.
type Entry = Reverse<(u64, u64, u32)>;

fn key(g: u32, h: u32) -> u64 {
    ((g as u64 + h as u64) << 32) | h as u64
}

/// Integer heuristic value for A*: learned values are rounded up (an
/// admissible estimate stays admissible with integer costs), negatives clamp to 0.
fn int_h(v: f64) -> u32 {
    if v <= 0.0 {
        0
    } else {
        v.ceil().min((u32::MAX / 2) as f64) as u32
    }
}

/// A* under `limits`: time and memory are checked before each expansion, and
/// so is the evaluation budget: once it is spent the search stops with
/// `EvaluationLimit` (the last expansion's successors may pass it, since an
/// expansion's successors are evaluated together).
pub fn astar(task: &Task, heuristic: &mut dyn Heuristic, limits: Limits) -> SearchResult {
    let budget = Budget::new(limits);
    let max_evals = limits.max_evaluations.unwrap_or(u64::MAX);
    let mut result = SearchResult::unsolved();
    if task.unsolvable.is_some() {
        result.search_time = budget.elapsed();
        return result;
    }
    let succ = SuccessorGenerator::new(task);
    let init = initial_state(task);
    let words = init.len();
    let mut registry = StateRegistry::new(words);
    let mut nodes = NodeTable::default();
    let mut open: BinaryHeap<Entry> = BinaryHeap::new();
    let mut seq: u64 = 0;

    let (init_id, _) = registry.insert(&init);
    let h0 = heuristic.evaluate(&init);
    result.evaluations = 1;
    if h0.is_infinite() {
        result.search_time = budget.elapsed();
        return result;
    }
    nodes.nodes.push(Node { g: 0, h: h0, parent: NONE, op: NONE, closed: false });
    open.push(Reverse((key(0, int_h(h0)), seq, init_id)));

    let mut applicable: Vec<OpId> = vec![];
    let mut child = vec![0u64; words];
    let mut batch: Vec<u64> = vec![];
    let mut batch_ids: Vec<u32> = vec![];
    let mut values: Vec<f64> = vec![];
    let memory = |r: &StateRegistry, n: &NodeTable, o: &BinaryHeap<Entry>| {
        r.memory_bytes() + n.memory_bytes() + o.capacity() * std::mem::size_of::<Entry>()
    };

    let mut last_f = 0u64;
    while let Some(Reverse((k, _, id))) = open.pop() {
        let node = nodes.nodes[id as usize];
        if node.closed || key(node.g, int_h(node.h)) != k {
            continue; // already expanded at this g, or a stale entry for an improved g
        }
        if k >> 32 > last_f {
            last_f = k >> 32;
            result.expansions_until_last_jump = result.expansions;
        }
        let mem = memory(&registry, &nodes, &open);
        result.memory_bytes = result.memory_bytes.max(mem);
        if let Some(stop) = budget.exceeded(mem) {
            result.status = stop;
            break;
        }
        let state = registry.get(id).to_vec();
        if is_goal(task, &state) {
            result.plan = nodes.extract_plan(id);
            result.cost = Some(plan_cost(task, &result.plan));
            result.status = SearchStatus::Solved;
            break;
        }
        if result.evaluations >= max_evals {
            result.status = SearchStatus::EvaluationLimit;
            break;
        }
        nodes.nodes[id as usize].closed = true;
        result.expansions += 1;

        applicable.clear();
        succ.applicable(task, &state, &mut applicable);
        batch.clear();
        batch_ids.clear();
        for &op in &applicable {
            result.generated += 1;
            apply(task, &state, op, &mut child);
            let g = node.g + task.operators[op as usize].cost;
            let (cid, new) = registry.insert(&child);
            if new {
                nodes.nodes.push(Node { g, h: f64::NAN, parent: id, op, closed: false });
                batch.extend_from_slice(&child);
                batch_ids.push(cid);
                continue;
            }
            let c = &mut nodes.nodes[cid as usize];
            if g < c.g {
                c.g = g;
                c.parent = id;
                c.op = op;
                if !c.h.is_nan() && c.h.is_finite() {
                    // Reopen (or re-queue) with the better g; h is cached.
                    c.closed = false;
                    seq += 1;
                    open.push(Reverse((key(g, int_h(c.h)), seq, cid)));
                }
            }
        }
        if batch_ids.is_empty() {
            continue;
        }
        heuristic.evaluate_batch(StateBatch::new(&batch, words), &mut values);
        result.evaluations += batch_ids.len() as u64;
        for (&cid, &h) in batch_ids.iter().zip(&values) {
            let c = &mut nodes.nodes[cid as usize];
            c.h = h;
            if h.is_finite() {
                seq += 1;
                open.push(Reverse((key(c.g, int_h(h)), seq, cid)));
            }
        }
    }
    result.search_time = budget.elapsed();
    result
}
