//! Eager greedy best-first search: expand the open state with the lowest h
//! (first in, first out among equals), evaluate each newly generated state
//! once, never reopen (a cheaper path to a known state only re-points its
//! parent, so plans get shorter). The evaluation budget counts heuristic values, the
//! initial state's included; the last batch is cut to what the budget allows.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::node_table::{Node, NodeTable, NONE};
use super::{plan_cost, Budget, Limits, SearchResult, SearchStatus};
use crate::heuristics::{Heuristic, StateBatch};
use crate::state::{initial_state, is_goal, StateRegistry};
use crate::successors::{apply, SuccessorGenerator};
use crate::task::{OpId, Task};

/// Orders f64 values as integers (valid for the non-NaN values we store).
fn order_key(h: f64) -> u64 {
    let bits = h.to_bits();
    if bits >> 63 == 0 {
        bits | (1 << 63)
    } else {
        !bits
    }
}

type Entry = Reverse<(u64, u64, u32)>;

pub fn gbfs(task: &Task, heuristic: &mut dyn Heuristic, limits: Limits) -> SearchResult {
    let budget = Budget::new(limits);
    let max_evals = limits.max_evaluations.unwrap_or(u64::MAX);
    let mut result = SearchResult::unsolved();
    if task.unsolvable.is_some() {
        result.search_time = budget.elapsed();
        return result;
    }
    if max_evals == 0 {
        result.status = SearchStatus::EvaluationLimit;
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
    nodes.nodes.push(Node { g: 0, h: h0, parent: NONE, op: NONE, closed: false });
    if h0.is_nan() || h0.is_infinite() {
        result.search_time = budget.elapsed();
        return result;
    }
    open.push(Reverse((order_key(h0), seq, init_id)));

    let mut applicable: Vec<OpId> = vec![];
    let mut child = vec![0u64; words];
    let mut batch: Vec<u64> = vec![];
    let mut batch_ids: Vec<u32> = vec![];
    let mut values: Vec<f64> = vec![];
    let mut budget_hit = false;

    while let Some(Reverse((_, _, id))) = open.pop() {
        if nodes.nodes[id as usize].closed {
            continue;
        }
        let mem = registry.memory_bytes() + nodes.memory_bytes() + open.capacity() * std::mem::size_of::<Entry>();
        result.memory_bytes = result.memory_bytes.max(mem);
        if let Some(stop) = budget.exceeded(mem) {
            result.status = stop;
            result.search_time = budget.elapsed();
            return result;
        }
        let state = registry.get(id).to_vec();
        if is_goal(task, &state) {
            result.plan = nodes.extract_plan(id);
            result.cost = Some(plan_cost(task, &result.plan));
            result.status = SearchStatus::Solved;
            result.search_time = budget.elapsed();
            return result;
        }
        nodes.nodes[id as usize].closed = true;
        result.expansions += 1;
        let g = nodes.nodes[id as usize].g;

        applicable.clear();
        succ.applicable(task, &state, &mut applicable);
        batch.clear();
        batch_ids.clear();
        for &op in &applicable {
            result.generated += 1;
            apply(task, &state, op, &mut child);
            if result.evaluations + batch_ids.len() as u64 >= max_evals {
                budget_hit = true;
                break;
            }
            let (cid, new) = registry.insert(&child);
            let cost = task.operators[op as usize].cost;
            if !new {
                // A cheaper path to a known state: keep it for the plan (as Fast
                // Downward does without reopening), without re-evaluating or re-queueing.
                let known = &mut nodes.nodes[cid as usize];
                if g + cost < known.g {
                    known.g = g + cost;
                    known.parent = id;
                    known.op = op;
                }
                continue;
            }
            nodes.nodes.push(Node { g: g + cost, h: f64::NAN, parent: id, op, closed: false });
            batch.extend_from_slice(&child);
            batch_ids.push(cid);
        }
        if !batch_ids.is_empty() {
            heuristic.evaluate_batch(StateBatch::new(&batch, words), &mut values);
            result.evaluations += batch_ids.len() as u64;
            for (&cid, &h) in batch_ids.iter().zip(&values) {
                nodes.nodes[cid as usize].h = h;
                if h.is_finite() {
                    seq += 1;
                    open.push(Reverse((order_key(h), seq, cid)));
                }
            }
        }
        if budget_hit {
            break;
        }
    }
    result.status = if budget_hit { SearchStatus::EvaluationLimit } else { SearchStatus::Unsolvable };
    result.search_time = budget.elapsed();
    result
}
