//! Features per second along a random walk: from scratch (build G(s), count
//! every subgraph) against the EOG (each successor's EOG derived from its
//! parent's by [`Eog::successor`], as a search that keeps one per node
//! would), and against [`LocalCounter`], which keeps only counts per node.
//! `examples/features_rate.rs` prints these for IPC problems.

use std::time::{Duration, Instant};

use planner::state::{initial_state, set};
use planner::successors::{apply, SuccessorGenerator};
use planner::task::{FactId, OpId};
use planner::Task;

use crate::enumerate::Counter;
use crate::incremental::{AddMode, Eog, Workspace};
use crate::local::LocalCounter;
use crate::object_graph::TaskGraph;
use crate::Error;

/// A seeded random walk from the initial state: `steps` operators, each
/// chosen uniformly among the applicable ones (SplitMix64, so it needs no
/// generator crate and is the same on every platform). Stops early at a
/// state without successors.
pub fn random_walk(task: &Task, steps: usize, seed: u64) -> Vec<OpId> {
    let succ = SuccessorGenerator::new(task);
    let mut state = initial_state(task);
    let mut next = state.clone();
    let mut ops = vec![];
    let mut walk = vec![];
    let mut x = seed;
    for _ in 0..steps {
        succ.applicable(task, &state, &mut ops);
        if ops.is_empty() {
            break;
        }
        x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        let op = ops[(z % ops.len() as u64) as usize];
        apply(task, &state, op, &mut next);
        std::mem::swap(&mut state, &mut next);
        walk.push(op);
    }
    walk
}

/// The fluent facts true in each state of a walk (initial state first).
pub fn walk_states(task: &Task, walk: &[OpId]) -> Vec<Vec<FactId>> {
    let mut state = initial_state(task);
    let mut next = state.clone();
    let mut out = vec![facts_of(&state)];
    for &op in walk {
        apply(task, &state, op, &mut next);
        std::mem::swap(&mut state, &mut next);
        out.push(facts_of(&state));
    }
    out
}

fn facts_of(state: &[u64]) -> Vec<FactId> {
    let mut f = vec![];
    planner::state::for_each_fact(state, |x| f.push(x));
    f
}

/// The packed state with these facts true.
pub fn pack_state(task: &Task, facts: &[FactId]) -> Vec<u64> {
    let mut s = vec![0; planner::state::words_for(task.num_facts())];
    for &f in facts {
        set(&mut s, f);
    }
    s
}

/// States per second of each method over (a prefix of) one walk.
#[derive(Debug, Clone)]
pub struct Rate {
    pub alpha: usize,
    /// States counted from scratch, and per second.
    pub scratch_states: usize,
    pub scratch_per_sec: f64,
    /// Successor EOGs derived with rooted insertion, and per second.
    pub rooted_states: usize,
    pub rooted_per_sec: f64,
    /// Rooted insertion applied in place (no copy per state: apply/undo in a depth-first search).
    pub in_place_states: usize,
    pub in_place_per_sec: f64,
    /// Successor EOGs with the thesis's AddVertex + AddEdge sequence.
    pub edge_by_edge_states: usize,
    pub edge_by_edge_per_sec: f64,
    /// Successor counts from the parent's by [`LocalCounter::successor`] (no stored occurrences).
    pub local_states: usize,
    pub local_per_sec: f64,
    /// Occurrences (sum of F_alpha) in the walk's first state.
    pub occurrences: u64,
    /// Distinct feature graphs over the states counted from scratch.
    pub distinct_graphs: usize,
}

/// Measures each method along `walk`, spending at most about `budget` on each.
pub fn bench(task: &Task, tg: &TaskGraph, alpha: usize, walk: &[OpId], budget: Duration) -> Result<Rate, Error> {
    let states = walk_states(task, walk);
    let mut counter = Counter::new(alpha)?;
    let mut seen = rustc_hash::FxHashSet::default();
    let start = Instant::now();
    let mut scratch_states = 0;
    let mut occurrences = 0;
    for s in &states {
        let g = tg.graph(s.iter().copied());
        let counts = counter.count_ids(&g);
        if scratch_states == 0 {
            occurrences = counts.iter().sum();
        }
        seen.extend(counts.iter().enumerate().filter(|(_, &c)| c > 0).map(|(i, _)| i));
        scratch_states += 1;
        if start.elapsed() > budget {
            break;
        }
    }
    let scratch_per_sec = scratch_states as f64 / start.elapsed().as_secs_f64();
    let incremental = |mode: AddMode, copy: bool| -> Result<(usize, f64), Error> {
        let mut ws = Workspace::new(alpha)?.with_mode(mode);
        let mut eog = Eog::for_state(tg, states[0].iter().copied(), &mut ws);
        let start = Instant::now();
        let mut n = 0;
        for &op in walk {
            if copy {
                eog = eog.successor(tg, &task.operators[op as usize], &mut ws);
            } else {
                eog.apply(tg, &task.operators[op as usize], &mut ws);
            }
            std::hint::black_box(eog.count_ids());
            n += 1;
            if start.elapsed() > budget {
                break;
            }
        }
        Ok((n, n as f64 / start.elapsed().as_secs_f64()))
    };
    let (rooted_states, rooted_per_sec) = incremental(AddMode::Rooted, true)?;
    let (in_place_states, in_place_per_sec) = incremental(AddMode::Rooted, false)?;
    let (edge_by_edge_states, edge_by_edge_per_sec) = incremental(AddMode::EdgeByEdge, true)?;
    // Counts only: each successor's counts from its parent's (apply, then undo the graph).
    let mut lc = LocalCounter::new(tg, alpha)?;
    lc.set_state(tg, states[0].iter().copied());
    let mut counts = lc.count();
    let (mut local_states, mut local_time) = (0, Duration::ZERO);
    for &op in walk {
        let op = &task.operators[op as usize];
        let t = Instant::now();
        std::hint::black_box(lc.successor(tg, &counts, op));
        local_time += t.elapsed();
        local_states += 1;
        lc.apply(tg, &mut counts, op);
        if local_time > budget {
            break;
        }
    }
    Ok(Rate {
        alpha,
        scratch_states,
        scratch_per_sec,
        rooted_states,
        rooted_per_sec,
        in_place_states,
        in_place_per_sec,
        edge_by_edge_states,
        edge_by_edge_per_sec,
        local_states,
        local_per_sec: local_states as f64 / local_time.as_secs_f64(),
        occurrences,
        distinct_graphs: seen.len(),
    })
}
