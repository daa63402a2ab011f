//! IDA* as the paper's code runs it (`IDAStar.cs`), without its per-node
//! allocations: one state modified in place (apply, recurse, apply the
//! reverse), the plan as a stack of operators, parent pruning by the
//! reverse of the move that led to a node, integer h.
//!
//! A node's f = g + h is compared with the bound first: above it, the node
//! only proposes the next bound; at or below it, the goal test, then the
//! expansion (the comparison happens in the parent, so that such leaves
//! cost no call). The first goal found ends the search, so with an inadmissible
//! h the plan may be longer than optimal (what the paper measures).
//! Limits are checked every [`CHECK_EVERY`] expanded nodes rather than at
//! every node (the paper's code reads its stopwatch at each one).

use std::time::Instant;

use super::{Limits, SearchResult, Status};
use crate::domain::Domain;
use crate::heuristic::Heuristic;
use crate::state::State;

/// Expanded nodes between two looks at the clock and the node count.
const CHECK_EVERY: u64 = 1 << 15;

/// The search's working set, hottest fields first in one cache line (the
/// state, the bounds, the counters).
#[repr(C, align(64))]
struct Ida<'a, D: Domain, H> {
    state: State,
    bound: u32,
    next_bound: u32,
    generated: u64,
    /// Expansions before the next look at the limits; the expanded count is
    /// `expanded_before + chunk - countdown` (one decrement per node counts
    /// and schedules the check at once).
    countdown: u64,
    d: &'a D,
    h: &'a mut H,
    chunk: u64,
    expanded_before: u64,
    plan: Vec<D::Op>,
    deadline: Option<Instant>,
    max_generated: u64,
    limits: &'a Limits,
    /// Set when a limit stopped the search (the recursion then unwinds as
    /// from a goal, without writing the plan).
    stopped: Option<Status>,
}

impl<D: Domain, H: Heuristic<D>> Ida<'_, D, H> {
    /// Expands the current state, whose f = g + `hv` is within the bound
    /// (children beyond it are counted and bound the next iteration, but
    /// are never entered: most generated nodes are such leaves, and an
    /// incremental h prices them without even applying the move). `rev`:
    /// the reverse of the move that led here, never applied here (parent
    /// pruning); at the root (`ROOT`) any operator, unused. Returns true to
    /// unwind: a goal was found (the plan is written while the recursion
    /// unwinds, last move first, so nodes that lead nowhere cost no
    /// bookkeeping) or a limit was reached (`stopped`).
    fn dfs<const ROOT: bool>(&mut self, g: u32, hv: u32, rev: D::Op) -> bool {
        let d = self.d;
        if d.is_goal(&self.state) {
            return true;
        }
        self.countdown -= 1;
        if self.countdown == 0 && self.out_of_limits() {
            return true;
        }
        let gc = g + 1;
        for op in d.ops(&self.state) {
            if !ROOT && op == rev {
                continue;
            }
            self.generated += 1;
            let moved = self.h.h_move(&self.state, op, hv);
            if let Some(hc) = moved {
                if gc + hc > self.bound {
                    self.propose(gc + hc);
                    continue;
                }
            }
            let back = d.apply(&mut self.state, op);
            let hc = match moved {
                Some(v) => v,
                None => {
                    let hc = self.h.h(&self.state);
                    if gc + hc > self.bound {
                        self.propose(gc + hc);
                        d.undo(&mut self.state, op, back);
                        continue;
                    }
                    hc
                }
            };
            if self.dfs::<false>(gc, hc, back) {
                if self.stopped.is_none() {
                    self.plan.push(op);
                }
                return true;
            }
            d.undo(&mut self.state, op, back);
        }
        false
    }

    fn expanded(&self) -> u64 {
        self.expanded_before + self.chunk - self.countdown
    }

    /// An f beyond the bound: the next bound is the least of them.
    #[inline]
    fn propose(&mut self, f: u32) {
        if f < self.next_bound {
            self.next_bound = f;
        }
    }

    /// Whether a limit is reached (then `stopped` says which).
    /// Called by the node that ends a chunk of expansions.
    #[cold]
    fn out_of_limits(&mut self) -> bool {
        self.stopped = if self.generated >= self.max_generated {
            Some(Status::NodeLimit)
        } else if self.limits.cancelled() {
            Some(Status::Cancelled)
        } else {
            match self.deadline {
                Some(t) if Instant::now() >= t => Some(Status::TimeLimit),
                _ => None,
            }
        };
        // This node is not expanded if the search stops here.
        self.expanded_before += self.chunk - self.stopped.is_some() as u64;
        self.chunk = next_chunk(self.generated, self.max_generated);
        self.countdown = self.chunk;
        self.stopped.is_some()
    }
}
/// Expansions until the next look at the limits: [`CHECK_EVERY`], fewer
/// near a node limit (an expansion generates at most a few hundred nodes in
/// these domains, so the limit is overshot by well under 1%).
fn next_chunk(generated: u64, max_generated: u64) -> u64 {
    (max_generated.saturating_sub(generated) / 256).clamp(1, CHECK_EVERY)
}

/// IDA* from `start` with heuristic `h`.
pub fn ida_star<D: Domain, H: Heuristic<D>>(d: &D, start: &State, h: &mut H, limits: &Limits) -> SearchResult<D::Op> {
    let t0 = Instant::now();
    let initial_h = h.h(start);
    let max_generated = limits.generated.unwrap_or(u64::MAX);
    let mut ida = Ida {
        d,
        h,
        state: *start,
        bound: initial_h,
        next_bound: u32::MAX,
        generated: 0,
        countdown: next_chunk(0, max_generated),
        chunk: next_chunk(0, max_generated),
        expanded_before: 0,
        plan: Vec::with_capacity(256),
        deadline: limits.time.map(|t| t0 + t),
        max_generated,
        limits,
        stopped: None,
    };
    let mut iterations = 0;
    // Any operator serves as the root's unused `rev`; without one the start
    // has no successors, and one pass decides.
    let any_op = d.ops(start).next();
    let status = loop {
        iterations += 1;
        ida.next_bound = u32::MAX;
        // The root's f is h(start), never above the bound.
        let unwound = match any_op {
            Some(op) => ida.dfs::<true>(0, initial_h, op),
            None => d.is_goal(start),
        };
        if unwound {
            break ida.stopped.unwrap_or(Status::Solved);
        }
        if ida.next_bound == u32::MAX {
            break Status::Unsolvable;
        }
        ida.bound = ida.next_bound;
    };
    let solved = status == Status::Solved;
    ida.plan.reverse();
    SearchResult {
        status,
        cost: solved.then_some(ida.plan.len() as u32),
        plan: if solved { std::mem::take(&mut ida.plan) } else { Vec::new() },
        generated: ida.generated,
        expanded: ida.expanded(),
        iterations,
        initial_h,
        elapsed: t0.elapsed(),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::domain::replay;
    use crate::heuristic::Zero;
    use crate::tiles::{Manhattan, SlidingTile};

    #[test]
    fn solves_korf_instance_12_optimally() {
        // Korf (1985) instance 12: optimal cost 45.
        let d = SlidingTile::new(4, 4).unwrap();
        let s = d.parse_state("14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15").unwrap();
        let r = ida_star(&d, &s, &mut Manhattan::new(&d), &Limits::default());
        assert_eq!(r.status, Status::Solved);
        assert_eq!(r.cost, Some(45));
        assert_eq!(r.plan.len(), 45);
        assert!(d.is_goal(replay(&d, &s, &r.plan).last().unwrap()));
        assert!(r.generated > r.expanded && r.expanded > 0);
    }

    #[test]
    fn the_goal_costs_nothing_and_limits_stop() {
        let d = SlidingTile::new(3, 3).unwrap();
        let r = ida_star(&d, d.goal(), &mut Zero, &Limits::default());
        assert_eq!((r.status, r.cost, r.generated), (Status::Solved, Some(0), 0));
        let s = d.parse_state("8 7 6 5 4 3 2 1 0").unwrap();
        let r = ida_star(&d, &s, &mut Zero, &Limits { generated: Some(1000), ..Limits::default() });
        assert_eq!(r.status, Status::NodeLimit);
        assert!(r.plan.is_empty() && r.cost.is_none());
        let r = ida_star(&d, &s, &mut Zero, &Limits { time: Some(Duration::ZERO), ..Limits::default() });
        assert_eq!(r.status, Status::TimeLimit);
    }

    /// A search without limits (blind, on a 15-puzzle state that would take
    /// it years) ends soon after another thread sets its cancel flag.
    #[test]
    fn a_cancelled_search_ends_at_once() {
        use std::sync::atomic::{AtomicBool, Ordering};
        use std::sync::Arc;
        let d = SlidingTile::new(4, 4).unwrap();
        let s = d.parse_state("14 1 9 6 4 8 12 5 7 2 3 0 10 11 13 15").unwrap();
        let flag = Arc::new(AtomicBool::new(false));
        let limits = Limits { cancel: Some(flag.clone()), ..Limits::default() };
        let setter = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::Relaxed);
            Instant::now()
        });
        let r = ida_star(&d, &s, &mut Zero, &limits);
        let set_at = setter.join().unwrap();
        assert_eq!(r.status, Status::Cancelled);
        assert!(r.plan.is_empty() && r.cost.is_none() && r.generated > 0);
        assert!(set_at.elapsed() < Duration::from_secs(1), "ended {:?} after the flag", set_at.elapsed());
    }
}
