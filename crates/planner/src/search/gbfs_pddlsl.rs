//! Greedy best-first search as the authors of IBM/pddlsl ran it
//! (`pddlsl/custom_pyperplan/a_star.py`, `greedy_best_first_search` into
//! `astar_search` with `early_goal_checking=True`), so that "evaluated
//! nodes" mean what their planning tables mean:
//!
//! - the open list is ordered by (h, insertion counter): first in, first out
//!   among equal h; the initial state is entry 0 and is pushed even when its
//!   h is infinite (a_star.py:137-139);
//! - a popped node is expanded only if its g is still the best known for its
//!   state (l. 156), and `expansions` counts it before the goal test (l. 157);
//! - successors are generated in operator order (pyperplan's
//!   `get_successor_states`) and each is goal-tested when generated, before it
//!   is evaluated (l. 174-181);
//! - **every** generated successor is evaluated, duplicates included
//!   (l. 195-197); the initial state counts as evaluation 1 (l. 144);
//! - right after an evaluation the search fails once `evaluations >=
//!   max_evaluations` (l. 199-202), so at most `max_evaluations` values are
//!   computed, and the successor that spends the budget is not queued;
//! - a successor with h = infinity is dropped (l. 204-207); otherwise it is
//!   queued when its g beats the best known g of its state, which reopens
//!   expanded states (l. 208-214);
//! - g counts steps: pyperplan ignores action costs (`searchspace.py`,
//!   `make_child_node`), so do we here.
//!
//! Successors of one expansion are evaluated in one batch (the part before
//! the first goal successor and within the budget), in generation order, so
//! the counts and values equal the one-at-a-time loop's. A NaN value is
//! treated as a dead end (Python would queue it and compare it with nothing).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{plan_cost, Budget, Limits, SearchResult, SearchStatus};
use crate::heuristics::{Heuristic, StateBatch};
use crate::state::{initial_state, is_goal, StateRegistry};
use crate::successors::{apply, SuccessorGenerator};
use crate::task::{OpId, Task};

const NONE: u32 = u32::MAX;

/// One search node: pyperplan makes a node per queued path, not per state.
#[derive(Clone, Copy)]
struct Node {
    state: u32,
    g: u32,
    parent: u32,
    op: OpId,
}

/// (h as an ordered integer, insertion counter, node index).
type Entry = Reverse<(u64, u64, u32)>;

/// Orders f64 values as integers (NaN never reaches the open list).
fn order_key(h: f64) -> u64 {
    let bits = h.to_bits();
    if bits >> 63 == 0 {
        bits | (1 << 63)
    } else {
        !bits
    }
}

fn extract_plan(nodes: &[Node], mut n: u32) -> Vec<OpId> {
    let mut plan = vec![];
    while nodes[n as usize].parent != NONE {
        plan.push(nodes[n as usize].op);
        n = nodes[n as usize].parent;
    }
    plan.reverse();
    plan
}

/// The authors' GBFS under `limits`. `evaluations` counts heuristic values
/// as a_star.py does; on an unsolved run it is the count when the search
/// stopped (their `plan.py:314-316` then records `max_evaluations` for every
/// unsolved run, budget or not: a caller reproducing their tables does the
/// same). Time and memory are checked before each expansion.
pub fn gbfs_pddlsl(task: &Task, heuristic: &mut dyn Heuristic, limits: Limits) -> SearchResult {
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
    // Best g per state id (pyperplan's `state_cost`); NONE: never queued.
    let mut best_g: Vec<u32> = vec![];
    let mut nodes: Vec<Node> = vec![];
    let mut open: BinaryHeap<Entry> = BinaryHeap::new();
    let mut tiebreak: u64 = 0;

    let (init_id, _) = registry.insert(&init);
    best_g.push(0);
    let h0 = heuristic.evaluate(&init);
    result.evaluations = 1;
    nodes.push(Node { state: init_id, g: 0, parent: NONE, op: NONE });
    // Queued whatever its value, as a_star.py:139 does.
    open.push(Reverse((order_key(if h0.is_nan() { f64::INFINITY } else { h0 }), tiebreak, 0)));

    let mut applicable: Vec<OpId> = vec![];
    let mut children: Vec<u64> = vec![];
    let mut values: Vec<f64> = vec![];
    let memory = |r: &StateRegistry, n: &Vec<Node>, g: &Vec<u32>, o: &BinaryHeap<Entry>| {
        r.memory_bytes()
            + n.capacity() * std::mem::size_of::<Node>()
            + g.capacity() * 4
            + o.capacity() * std::mem::size_of::<Entry>()
    };

    while let Some(Reverse((_, _, n))) = open.pop() {
        let node = nodes[n as usize];
        if best_g[node.state as usize] != node.g {
            continue; // a cheaper path to this state was queued after this one
        }
        let mem = memory(&registry, &nodes, &best_g, &open);
        result.memory_bytes = result.memory_bytes.max(mem);
        if let Some(stop) = budget.exceeded(mem) {
            result.status = stop;
            result.search_time = budget.elapsed();
            return result;
        }
        result.expansions += 1;
        let state = registry.get(node.state).to_vec();
        if is_goal(task, &state) {
            return solved(task, result, extract_plan(&nodes, n), &budget);
        }

        applicable.clear();
        succ.applicable(task, &state, &mut applicable);
        children.clear();
        children.resize(applicable.len() * words, 0);
        let mut goal_at = None;
        for (i, &op) in applicable.iter().enumerate() {
            let child = &mut children[i * words..(i + 1) * words];
            apply(task, &state, op, child);
            if is_goal(task, child) {
                goal_at = Some(i);
                break;
            }
        }
        // Successors evaluated before the search stops: those before the
        // first goal successor, and no more than the budget has left (the
        // evaluation that reaches it ends the search).
        let before_goal = goal_at.unwrap_or(applicable.len());
        let left = max_evals.saturating_sub(result.evaluations).max(1);
        let evaluate = (before_goal as u64).min(left) as usize;
        let out_of_budget = (before_goal as u64) >= left;
        result.generated += (evaluate + usize::from(goal_at.is_some() && !out_of_budget)) as u64;
        if evaluate > 0 {
            heuristic.evaluate_batch(StateBatch::new(&children[..evaluate * words], words), &mut values);
            result.evaluations += evaluate as u64;
        }
        if out_of_budget {
            result.status = SearchStatus::EvaluationLimit;
            result.search_time = budget.elapsed();
            return result;
        }
        let g = node.g + 1;
        for (i, &h) in values.iter().enumerate().take(evaluate) {
            if h.is_nan() || h == f64::INFINITY {
                continue;
            }
            let (cid, new) = registry.insert(&children[i * words..(i + 1) * words]);
            if new {
                best_g.push(NONE);
            }
            if g < best_g[cid as usize] {
                best_g[cid as usize] = g;
                tiebreak += 1;
                nodes.push(Node { state: cid, g, parent: n, op: applicable[i] });
                open.push(Reverse((order_key(h), tiebreak, nodes.len() as u32 - 1)));
            }
        }
        if let Some(i) = goal_at {
            nodes.push(Node { state: NONE, g, parent: n, op: applicable[i] });
            return solved(task, result, extract_plan(&nodes, nodes.len() as u32 - 1), &budget);
        }
    }
    result.search_time = budget.elapsed();
    result
}

fn solved(task: &Task, mut result: SearchResult, plan: Vec<OpId>, budget: &Budget) -> SearchResult {
    result.cost = Some(plan_cost(task, &plan));
    result.plan = plan;
    result.status = SearchStatus::Solved;
    result.search_time = budget.elapsed();
    result
}
