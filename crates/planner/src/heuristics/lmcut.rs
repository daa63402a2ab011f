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
//! Operator and proposition data are arrays of structs: the inner loops touch
//! several fields of the same operator, and one cache line serves them all.
//!
//! The cut search, run once per round, takes most of the time (about half
//! on `benchmarks/astar-lmcut`). It walks only the operators each reached
//! proposition supports (`support_edges`), and stops as soon as it holds
//! every operator that could join the cut (counted while marking the zone),
//! so it finds the same operators in the same order as the full search;
//! that order decides ties in the incremental hmax, hence the value.

use super::queue::MonotoneQueue;
use super::relaxed::RelaxedTask;
use super::support_edges::SupportEdges;
use super::unchecked::{at, at_mut};
use super::{per_state_heuristic, HeuristicInfo, DEAD_END};
use crate::task::Task;

pub static LMCUT: HeuristicInfo = HeuristicInfo {
    name: "lmcut",
    description: "the landmark-cut heuristic (Helmert & Domshlak)",
    admissible: true,
    detects_dead_ends: true,
    build: |task| Box::new(LmCut::new(task)),
};

const UNREACHED: u32 = u32::MAX;
const NONE: u32 = u32::MAX;

/// Goal-zone marks, bytes rather than an enum so the cut search can mark
/// without branching: `UNMARKED | 1` is `BEFORE_GOAL`, the others keep theirs.
type Zone = u8;
const UNMARKED: Zone = 0;
const BEFORE_GOAL: Zone = 1;
const GOAL: Zone = 2;

#[derive(Clone, Copy)]
struct Op {
    pre: (u32, u32),
    eff: (u32, u32),
    cost: u32,
    base_cost: u32,
    supporter: u32,
    supporter_cost: u32,
    /// The supporter's edge in `LmCut::supports`.
    supporter_slot: u32,
}

/// What the cut search reads of an operator, in one record of `CutRecords`:
/// `[round, operator, number of effects, effects...]`, where `round` is the
/// round in which the operator was found to achieve a goal-zone proposition
/// (set while marking the zone, read while finding the cut). One record is
/// one or two cache lines and one chain of loads, where separate tables for
/// the round, the effect range and the effects would be three.
struct CutRecords {
    data: Vec<u32>,
    /// Each operator's record.
    of_op: Vec<u32>,
}

impl CutRecords {
    fn new(ops: &[Op], eff: &[u32]) -> Self {
        let (mut data, mut of_op) = (vec![], vec![]);
        for (o, op) in ops.iter().enumerate() {
            of_op.push(data.len() as u32);
            data.extend([0, o as u32, op.eff.1 - op.eff.0]);
            data.extend_from_slice(&eff[range(op.eff)]);
        }
        CutRecords { data, of_op }
    }

    /// Marks `o` as achieving the goal zone in `round`; false if it already was.
    #[inline]
    fn set_round(&mut self, o: u32, round: u32) -> bool {
        let r = *at(&self.of_op, o as usize);
        let old = std::mem::replace(at_mut(&mut self.data, r as usize), round);
        old != round
    }

    #[inline]
    fn round(&self, o: u32) -> u32 {
        *at(&self.data, *at(&self.of_op, o as usize) as usize)
    }

    fn clear_rounds(&mut self) {
        for &r in &self.of_op {
            self.data[r as usize] = 0;
        }
    }
}

/// The cut search (see `LmCut::find_cut`), on borrowed tables so the
/// compiler keeps them in registers across the stores to `zones`.
/// `edge_rec[i]` is the record of operator `pre_of[i]`. It stops once the
/// cut has `size` operators: no other operator can join it then, and the
/// search's marks are not read after it.
#[allow(clippy::too_many_arguments)]
fn search_cut(
    init_props: &[u32],
    supports: &SupportEdges,
    props: &[Prop],
    edge_rec: &[u32],
    rec: &[u32],
    zones: &mut [Zone],
    stack: &mut [u32],
    round: u32,
    size: usize,
    cut: &mut Vec<u32>,
) {
    // Every proposition is pushed at most once (it is marked when pushed,
    // the initial ones first), so `top` stays within `stack`.
    let mut top = 0;
    for &p in init_props {
        let zone = at_mut(zones, p as usize);
        if *zone == UNMARKED {
            *zone = BEFORE_GOAL;
        }
        *at_mut(stack, top) = p;
        top += 1;
    }
    while top > 0 {
        top -= 1;
        let p = *at(stack, top);
        // The operators p supports, in the order of p's "precondition of" list.
        let first = at(props, p as usize).pre_of.0 as usize;
        let complete = !supports.for_each_while(p, |i| {
            let r = *at(edge_rec, first + i as usize) as usize;
            if *at(rec, r) == round {
                cut.push(*at(rec, r + 1));
                return cut.len() < size;
            }
            let n = *at(rec, r + 2) as usize;
            for j in r + 3..r + 3 + n {
                let e = *at(rec, j);
                let zone = at_mut(zones, e as usize);
                if *zone == UNMARKED {
                    *zone = BEFORE_GOAL;
                    *at_mut(stack, top) = e;
                    top += 1;
                }
            }
            true
        });
        if complete {
            return;
        }
    }
}

#[derive(Clone, Copy)]
struct Prop {
    hmax: u32,
    /// Operators this proposition is a precondition of.
    pre_of: (u32, u32),
    /// Operators that achieve it.
    achievers: (u32, u32),
}

pub struct LmCut {
    ops: Vec<Op>,
    cut_records: CutRecords,
    /// The cut record of each entry of `pre_of`'s operator.
    edge_rec: Vec<u32>,
    /// Preconditions not yet reached in the first exploration, apart from
    /// `ops` so its hottest loop touches 4 bytes per operator; reset from
    /// `num_pre`.
    unsat: Vec<u32>,
    num_pre: Vec<u32>,
    props: Vec<Prop>,
    /// Goal-zone marks, apart from `props` so clearing them is a memset.
    zones: Vec<Zone>,
    pre: Vec<u32>,
    /// The slot in `supports` of each entry of `pre` (operator, precondition).
    pre_slot: Vec<u32>,
    eff: Vec<u32>,
    pre_of: Vec<u32>,
    /// The edges (proposition, operator) along which the operator's supporter is the proposition.
    supports: SupportEdges,
    achievers: Vec<u32>,
    goal_prop: u32,
    relaxed: RelaxedTask,
    queue: MonotoneQueue,
    init_props: Vec<u32>,
    /// The cut search's stack: one slot per proposition and one spare, so
    /// a push can be written unconditionally and kept by advancing the top.
    stack: Vec<u32>,
    /// Depth-first marking: (proposition, index of its next achiever).
    zone_stack: Vec<(u32, u32)>,
    /// Operators with a cost and a supporter that achieve a goal-zone
    /// proposition, and how many of them have their supporter outside the
    /// zone: the most the cut can hold, which ends its search early.
    cut_candidates: Vec<u32>,
    cut_size: usize,
    cut: Vec<u32>,
    /// Numbers the cut rounds (see `Op::achieves_zone_round`).
    round: u32,
}

#[inline]
fn range(r: (u32, u32)) -> std::ops::Range<usize> {
    r.0 as usize..r.1 as usize
}

impl LmCut {
    pub fn new(task: &Task) -> Self {
        let rt = RelaxedTask::new(task);
        let goal_prop = rt.num_props as u32;
        let num_props = rt.num_props + 1;
        let mut pre = rt.pre.clone();
        let mut eff = rt.eff.clone();
        let mut ops: Vec<Op> = (0..rt.num_ops())
            .map(|o| Op {
                pre: (rt.pre_start[o], rt.pre_start[o + 1]),
                eff: (rt.eff_start[o], rt.eff_start[o + 1]),
                cost: rt.op_cost[o],
                base_cost: rt.op_cost[o],
                supporter: NONE,
                supporter_cost: 0,
                supporter_slot: 0,
            })
            .collect();
        // The artificial goal operator.
        let pre_begin = pre.len() as u32;
        pre.extend_from_slice(&rt.goal);
        if rt.goal.is_empty() {
            pre.push(rt.always_true);
        }
        let eff_begin = eff.len() as u32;
        eff.push(goal_prop);
        ops.push(Op {
            pre: (pre_begin, pre.len() as u32),
            eff: (eff_begin, eff.len() as u32),
            cost: 0,
            base_cost: 0,
            supporter: NONE,
            supporter_cost: 0,
            supporter_slot: 0,
        });

        let mut pre_of_lists = vec![vec![]; num_props];
        let mut ach_lists = vec![vec![]; num_props];
        // Where each precondition sits in its proposition's list (a slot, below).
        let mut pre_slot = vec![0u32; pre.len()];
        for (o, op) in ops.iter().enumerate() {
            for k in range(op.pre) {
                let list = &mut pre_of_lists[pre[k] as usize];
                pre_slot[k] = list.len() as u32;
                list.push(o as u32);
            }
            for &p in &eff[range(op.eff)] {
                ach_lists[p as usize].push(o as u32);
            }
        }
        let supports = SupportEdges::new(pre_of_lists.iter().map(Vec::len));
        for k in 0..pre.len() {
            pre_slot[k] = supports.slot(pre[k], pre_slot[k]);
        }
        let mut pre_of = vec![];
        let mut achievers = vec![];
        let props = (0..num_props)
            .map(|p| {
                let a = pre_of.len() as u32;
                pre_of.extend_from_slice(&pre_of_lists[p]);
                let b = achievers.len() as u32;
                achievers.extend_from_slice(&ach_lists[p]);
                Prop { hmax: UNREACHED, pre_of: (a, pre_of.len() as u32), achievers: (b, achievers.len() as u32) }
            })
            .collect();
        let cut_records = CutRecords::new(&ops, &eff);
        LmCut {
            unsat: vec![0; ops.len()],
            num_pre: ops.iter().map(|op| op.pre.1 - op.pre.0).collect(),
            edge_rec: pre_of.iter().map(|&o| cut_records.of_op[o as usize]).collect(),
            cut_records,
            stack: vec![0; num_props + 1],
            ops,
            zones: vec![UNMARKED; num_props],
            props,
            pre,
            pre_slot,
            eff,
            pre_of,
            supports,
            achievers,
            goal_prop,
            relaxed: rt,
            queue: MonotoneQueue::default(),
            init_props: vec![],
            zone_stack: vec![],
            cut_candidates: vec![],
            cut_size: 0,
            cut: vec![],
            round: 0,
        }
    }

    #[inline]
    fn enqueue(&mut self, p: u32, c: u32) {
        let prop = at_mut(&mut self.props, p as usize);
        if c < prop.hmax {
            prop.hmax = c;
            self.queue.push(c as u64, p);
        }
    }

    /// Full hmax computation with supporters, from scratch.
    fn first_exploration(&mut self) {
        for p in &mut self.props {
            p.hmax = UNREACHED;
        }
        self.unsat.copy_from_slice(&self.num_pre);
        for op in &mut self.ops {
            op.supporter = NONE;
            op.cost = op.base_cost;
        }
        self.supports.clear();
        self.queue.clear();
        for i in 0..self.init_props.len() {
            let p = self.init_props[i];
            self.enqueue(p, 0);
        }
        while let Some((c, p)) = self.queue.pop() {
            let c = c as u32;
            let prop = *at(&self.props, p as usize);
            if c > prop.hmax {
                continue;
            }
            for i in range(prop.pre_of) {
                let o = *at(&self.pre_of, i) as usize;
                let unsat = at_mut(&mut self.unsat, o);
                *unsat -= 1;
                if *unsat == 0 {
                    let op = at_mut(&mut self.ops, o);
                    // Popped in cost order: the last precondition is the most expensive.
                    op.supporter = p;
                    op.supporter_cost = c;
                    op.supporter_slot = self.supports.slot(p, i as u32 - prop.pre_of.0);
                    self.supports.set(op.supporter_slot);
                    let (target, effs) = (c + op.cost, op.eff);
                    for j in range(effs) {
                        let e = *at(&self.eff, j);
                        self.enqueue(e, target);
                    }
                }
            }
        }
    }

    /// hmax after the cut's costs dropped: only what can get cheaper is revisited.
    fn incremental_exploration(&mut self) {
        self.queue.clear();
        for i in 0..self.cut.len() {
            let op = self.ops[self.cut[i] as usize];
            let target = op.supporter_cost + op.cost;
            for j in range(op.eff) {
                let e = *at(&self.eff, j);
                self.enqueue(e, target);
            }
        }
        while let Some((c, p)) = self.queue.pop() {
            let c = c as u32;
            let prop = *at(&self.props, p as usize);
            if c > prop.hmax {
                continue;
            }
            for i in range(prop.pre_of) {
                let o = *at(&self.pre_of, i) as usize;
                let op = *at(&self.ops, o);
                if op.supporter != p || op.supporter_cost <= c {
                    continue;
                }
                // Re-point the supporter at the most expensive precondition; on ties
                // the current supporter stays, then the first in order (as Fast Downward).
                let mut best = p;
                let mut best_cost = c;
                let mut best_slot = op.supporter_slot;
                for k in range(op.pre) {
                    let q = *at(&self.pre, k);
                    let qc = at(&self.props, q as usize).hmax;
                    if qc > best_cost {
                        best = q;
                        best_cost = qc;
                        best_slot = *at(&self.pre_slot, k);
                    }
                }
                if best_slot != op.supporter_slot {
                    self.supports.unset(op.supporter_slot);
                    self.supports.set(best_slot);
                }
                let op = at_mut(&mut self.ops, o);
                op.supporter = best;
                op.supporter_slot = best_slot;
                if best_cost != op.supporter_cost {
                    op.supporter_cost = best_cost;
                    let (target, effs) = (best_cost + op.cost, op.eff);
                    for j in range(effs) {
                        let e = *at(&self.eff, j);
                        self.enqueue(e, target);
                    }
                }
            }
        }
    }

    /// Marks the goal zone: backwards from the goal through zero-cost
    /// achievers' supporters, depth first (the order matters for the choices
    /// below, so this follows the recursive definition exactly).
    ///
    /// Precondition choice (Lauer & Fickert, HSDIP 2020; Fast Downward's
    /// default since 2025): a zero-cost achiever may switch its supporter to
    /// another precondition of equal hmax, preferring one already in the goal
    /// zone, else one on its border (all of whose achievers cost something).
    /// This keeps goal zones small and cuts closer to the goal.
    fn mark_goal_zone(&mut self) {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.cut_records.clear_rounds();
            self.round = 1;
        }
        self.zone_stack.clear();
        self.cut_candidates.clear();
        self.enter_goal_zone(self.goal_prop);
        while let Some(&(p, next)) = self.zone_stack.last() {
            let achievers = at(&self.props, p as usize).achievers;
            let i = achievers.0 + next;
            if i >= achievers.1 {
                self.zone_stack.pop();
                continue;
            }
            if let Some(top) = self.zone_stack.last_mut() {
                top.1 += 1;
            }
            let o = *at(&self.achievers, i as usize);
            let first_time = self.cut_records.set_round(o, self.round);
            let op = at(&self.ops, o as usize);
            if op.supporter == NONE {
                continue;
            }
            if op.cost != 0 {
                if first_time {
                    self.cut_candidates.push(o);
                }
                continue;
            }
            let s = self.choose_supporter(o);
            if *at(&self.zones, s as usize) != GOAL {
                self.enter_goal_zone(s);
            }
        }
        // The cut's operators are the candidates whose supporter the search
        // reaches. It cannot reach one in the zone, nor one (not in the state:
        // hmax > 0) whose every achiever is unreached, achieves the zone (the
        // search stops there) or has its supporter in the zone.
        // (Looking further back than one achiever, recursively, costs more
        // than the earlier stops save.)
        let mut size = 0;
        for &o in &self.cut_candidates {
            let s = at(&self.ops, o as usize).supporter;
            if *at(&self.zones, s as usize) == GOAL {
                continue;
            }
            let prop = at(&self.props, s as usize);
            let blocked = prop.hmax > 0
                && self.achievers[range(prop.achievers)].iter().all(|&a| {
                    let supporter = at(&self.ops, a as usize).supporter;
                    supporter == NONE
                        || self.cut_records.round(a) == self.round
                        || *at(&self.zones, supporter as usize) == GOAL
                });
            size += !blocked as usize;
        }
        self.cut_size = size;
    }

    fn enter_goal_zone(&mut self, p: u32) {
        *at_mut(&mut self.zones, p as usize) = GOAL;
        self.zone_stack.push((p, 0));
    }

    /// The supporter of zero-cost operator `o` for goal-zone marking (see `mark_goal_zone`).
    fn choose_supporter(&mut self, o: u32) -> u32 {
        let op = *at(&self.ops, o as usize);
        let tied = |q: u32| at(&self.props, q as usize).hmax == op.supporter_cost;
        let pre = |k: usize| *at(&self.pre, k);
        let in_zone = range(op.pre).find(|&k| tied(pre(k)) && *at(&self.zones, pre(k) as usize) == GOAL);
        let chosen = in_zone.or_else(|| {
            range(op.pre).find(|&k| {
                tied(pre(k))
                    && self.achievers[range(at(&self.props, pre(k) as usize).achievers)]
                        .iter()
                        .all(|&a| at(&self.ops, a as usize).cost > 0)
            })
        });
        match chosen {
            Some(k) => {
                let (q, slot) = (pre(k), *at(&self.pre_slot, k));
                if slot != op.supporter_slot {
                    self.supports.unset(op.supporter_slot);
                    self.supports.set(slot);
                }
                let op = at_mut(&mut self.ops, o as usize);
                op.supporter = q;
                op.supporter_slot = slot;
                q
            }
            None => op.supporter,
        }
    }

    /// Forward from the state without entering the goal zone; fills `cut`.
    fn find_cut(&mut self) {
        self.cut.clear();
        search_cut(
            &self.init_props,
            &self.supports,
            &self.props,
            &self.edge_rec,
            &self.cut_records.data,
            &mut self.zones,
            &mut self.stack,
            self.round,
            self.cut_size,
            &mut self.cut,
        );
    }

    /// Unmarks every proposition. The forward exploration marks most of
    /// them, so one pass over the table is cheaper than remembering which.
    fn clear_zones(&mut self) {
        self.zones.fill(UNMARKED);
    }

    /// The LM-cut value of `state` (`DEAD_END` if the goal is relaxed-unreachable).
    pub fn value(&mut self, state: &[u64]) -> f64 {
        let mut init_props = std::mem::take(&mut self.init_props);
        init_props.clear();
        self.relaxed.for_each_true_prop(state, |p| init_props.push(p));
        self.init_props = init_props;
        self.first_exploration();
        if self.props[self.goal_prop as usize].hmax == UNREACHED {
            return DEAD_END;
        }
        let mut h: u64 = 0;
        while self.props[self.goal_prop as usize].hmax != 0 {
            self.mark_goal_zone();
            self.find_cut();
            self.clear_zones();
            let cut_cost = self.cut.iter().map(|&o| self.ops[o as usize].cost).min().unwrap_or(0);
            if cut_cost == 0 {
                // Impossible when hmax is right (the goal zone is entered at positive cost);
                // stop rather than loop forever.
                debug_assert!(false, "LM-cut found an empty or zero-cost cut");
                break;
            }
            for &o in &self.cut {
                self.ops[o as usize].cost -= cut_cost;
            }
            h += cut_cost as u64;
            self.incremental_exploration();
        }
        h as f64
    }
}
per_state_heuristic!(LmCut, LMCUT);
