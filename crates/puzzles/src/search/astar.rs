//! A* with a closed list: f = g + h, ties to the lower h, then first in
//! first out. A node reached again by a cheaper path is updated and queued
//! again (reopening), so plans stay optimal with admissible but
//! inconsistent heuristics. Parent pruning as in IDA*: the reverse of the
//! move that led to a node is not generated.

use std::cmp::Reverse;
use std::collections::hash_map::Entry;
use std::collections::BinaryHeap;
use std::time::Instant;

use super::{Limits, SearchResult, Status};
use crate::domain::Domain;
use crate::fxhash::FxHashMap;
use crate::heuristic::Heuristic;
use crate::state::State;

struct Node<Op> {
    state: State,
    g: u32,
    h: u32,
    parent: u32,
    /// The move from the parent, and its reverse (for parent pruning).
    op: Option<(Op, Op)>,
}

const NO_PARENT: u32 = u32::MAX;

/// A* from `start` with heuristic `h`.
pub fn astar<D: Domain, H: Heuristic<D>>(d: &D, start: &State, h: &mut H, limits: &Limits) -> SearchResult<D::Op> {
    let t0 = Instant::now();
    let deadline = limits.time.map(|t| t0 + t);
    let max_generated = limits.generated.unwrap_or(u64::MAX);
    let initial_h = h.h(start);
    let mut nodes: Vec<Node<D::Op>> = vec![Node { state: *start, g: 0, h: initial_h, parent: NO_PARENT, op: None }];
    let mut index: FxHashMap<State, u32> = FxHashMap::default();
    index.insert(*start, 0);
    // (f, h, sequence number, node): the smallest first.
    let mut open = BinaryHeap::new();
    open.push(Reverse((initial_h, initial_h, 0u64, 0u32, 0u32)));
    let (mut generated, mut expanded, mut seq) = (0u64, 0u64, 0u64);
    let finish = |status, plan: Vec<D::Op>, generated, expanded| SearchResult {
        status,
        cost: (status == Status::Solved).then_some(plan.len() as u32),
        plan,
        generated,
        expanded,
        iterations: 1,
        initial_h,
        elapsed: t0.elapsed(),
    };
    while let Some(Reverse((_, _, _, g, id))) = open.pop() {
        let node = &nodes[id as usize];
        if g != node.g {
            continue; // a cheaper path to it was queued since
        }
        if d.is_goal(&node.state) {
            let mut plan = Vec::new();
            let mut at = id;
            while let Some((op, _)) = nodes[at as usize].op {
                plan.push(op);
                at = nodes[at as usize].parent;
            }
            plan.reverse();
            return finish(Status::Solved, plan, generated, expanded);
        }
        if generated >= max_generated {
            return finish(Status::NodeLimit, Vec::new(), generated, expanded);
        }
        if expanded % 1024 == 0 {
            if deadline.is_some_and(|t| Instant::now() >= t) {
                return finish(Status::TimeLimit, Vec::new(), generated, expanded);
            }
            if limits.cancelled() {
                return finish(Status::Cancelled, Vec::new(), generated, expanded);
            }
        }
        expanded += 1;
        let (state, hv, rev) = (node.state, node.h, node.op.map(|(_, r)| r));
        for op in d.ops(&state) {
            if Some(op) == rev {
                continue;
            }
            generated += 1;
            let mut child = state;
            let moved_h = h.h_move(&state, op, hv);
            let back = d.apply(&mut child, op);
            let cg = g + 1;
            let child_id = match index.entry(child) {
                Entry::Occupied(e) => {
                    let cid = *e.get();
                    let c = &mut nodes[cid as usize];
                    if cg >= c.g {
                        continue;
                    }
                    c.g = cg;
                    c.parent = id;
                    c.op = Some((op, back));
                    cid
                }
                Entry::Vacant(e) => {
                    let ch = moved_h.unwrap_or_else(|| h.h(&child));
                    let cid = nodes.len() as u32;
                    e.insert(cid);
                    nodes.push(Node { state: child, g: cg, h: ch, parent: id, op: Some((op, back)) });
                    cid
                }
            };
            let ch = nodes[child_id as usize].h;
            seq += 1;
            open.push(Reverse((cg + ch, ch, seq, cg, child_id)));
        }
    }
    finish(Status::Unsolvable, Vec::new(), generated, expanded)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::replay;
    use crate::search::ida_star;
    use crate::tiles::{Manhattan, SlidingTile};

    #[test]
    fn astar_and_idastar_agree_on_a_15_puzzle_instance() {
        // Korf (1985) instance 79: optimal cost 42.
        let d = SlidingTile::new(4, 4).unwrap();
        let s = d.parse_state("0 1 9 7 11 13 5 3 14 12 4 2 8 6 10 15").unwrap();
        let a = astar(&d, &s, &mut Manhattan::new(&d), &Limits::default());
        let i = ida_star(&d, &s, &mut Manhattan::new(&d), &Limits::default());
        assert_eq!((a.status, a.cost), (Status::Solved, Some(42)));
        assert_eq!(i.cost, Some(42));
        assert!(d.is_goal(replay(&d, &s, &a.plan).last().unwrap()));
        assert!(a.expanded < i.expanded, "A* expands each state once");
    }
}
