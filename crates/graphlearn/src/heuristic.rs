//! The learned heuristic as a planner [`Heuristic`]: F_alpha of each
//! evaluated state (optionally with h_FF), scaled, through the network,
//! clipped at 0 (thesis, section 5: negative outputs clipped).
//!
//! # Features in search
//!
//! The planner's A* hands over the successors of one expanded state per
//! [`Heuristic::evaluate_batch`] call, but not the expanded state itself. The
//! thesis derives each successor's features from its parent's (the EOG kept
//! with every open node). Here a node keeps only its count vector (the
//! `subgraphs` crate's [`LocalCounter`]): counts of every evaluated state are
//! cached by state, and for each batch the parent is found by undoing each
//! operator that could have produced the first successor and looking the
//! result up in the cache. The counter is moved to that parent, and every
//! successor's counts follow from the parent's by the facts that differ
//! (`LocalCounter::successor` with the difference as a pseudo-operator).
//! States without a cached parent (the initial state, or once the cache is
//! full) are counted from scratch. The cache holds a count vector per
//! evaluated state, as the thesis's open list holds an EOG per node; it is
//! capped ([`LearnedHeuristic::with_cache_limit`]) and not counted by the
//! search's memory limit.
//!
//! # Unknown feature graphs
//!
//! A graph met in search that training never saw has no input. Its
//! occurrences are counted per state ([`FeatureStats`]) and the graphs are
//! listed ([`LearnedHeuristic::unknown_graphs`]), never dropped silently.
//!
//! # h_FF
//!
//! With h_FF as an input, h_FF is computed for every evaluated state; where
//! it is infinite (no relaxed plan: a dead end) the learned heuristic
//! reports [`DEAD_END`] too, since infinity is no input value.

use std::collections::BTreeSet;

use planner::heuristics::{self, Heuristic, StateBatch, DEAD_END};
use planner::state::{for_each_fact, has};
use planner::successors::{apply, is_applicable};
use planner::task::{FactId, OpId, Operator};
use subgraphs::LocalCounter;

use crate::hash::FxMap;
use crate::mlp::Workspace;
use crate::model::Model;
use crate::problem::Problem;
use crate::Error;

const NO_SLOT: u32 = u32::MAX;

/// How the features of evaluated states were obtained, and what training never saw.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FeatureStats {
    pub evaluations: u64,
    /// Counts derived from a cached state's by the facts that differ.
    pub incremental: u64,
    /// Counts from scratch.
    pub from_scratch: u64,
    /// Counts found in the cache (a state evaluated twice).
    pub cached: u64,
    /// Batches whose parent was found in the cache.
    pub parents_found: u64,
    /// Evaluated states with at least one occurrence of an unknown graph.
    pub states_with_unknown: u64,
    /// Occurrences of unknown graphs, summed over evaluated states.
    pub unknown_occurrences: u64,
}

/// A trained [`Model`] evaluating states of one problem.
pub struct LearnedHeuristic<'a> {
    model: &'a Model,
    problem: &'a Problem,
    name: String,
    counter: LocalCounter,
    ff: Option<Box<dyn Heuristic>>,
    /// Input slot of each canonical id of the counter (NO_SLOT: unknown to the vocabulary).
    slots: Vec<u32>,
    cache: FxMap<Box<[u64]>, Box<[u32]>>,
    cache_limit: usize,
    /// The counter's current state and its counts.
    base: Option<(Vec<u64>, Vec<u32>)>,
    /// Operators by their first added fact (to undo them).
    by_first_add: Vec<Vec<OpId>>,
    /// Largest number of facts an operator changes.
    max_effect: usize,
    /// Differences above this many facts are counted from scratch.
    max_diff: usize,
    pseudo: Operator,
    candidate: Vec<u64>,
    check: Vec<u64>,
    inputs: Vec<f32>,
    outputs: Vec<f32>,
    ff_values: Vec<f64>,
    /// The scaled input row of a state with every count 0.
    zero_row: Vec<f32>,
    ws: Workspace,
    stats: FeatureStats,
    unknown_ids: BTreeSet<u32>,
}

impl<'a> LearnedHeuristic<'a> {
    /// The heuristic of `model` on `problem` (of the model's domain).
    pub fn new(model: &'a Model, problem: &'a Problem) -> Result<LearnedHeuristic<'a>, Error> {
        if problem.graphs().symbols() != model.vocabulary.symbols() {
            return Err(Error::Input(format!(
                "problem {} is of domain {}, the model of domain {}",
                problem.name,
                problem.graphs().symbols().domain,
                model.vocabulary.symbols().domain
            )));
        }
        let task = problem.task();
        let mut by_first_add = vec![vec![]; task.num_facts()];
        for (i, op) in task.operators.iter().enumerate() {
            if let Some(&f) = op.add.first() {
                by_first_add[f as usize].push(i as OpId);
            }
        }
        let max_effect = task.operators.iter().map(|o| o.add.len() + o.del.len()).max().unwrap_or(0);
        let ff = if model.settings.ff_input { heuristics::by_name("ff", task) } else { None };
        let width = model.input_width();
        let zero_row = (0..width).map(|i| model.scaling.scale(i, 0.0)).collect();
        Ok(LearnedHeuristic {
            model,
            problem,
            name: format!("learned:{}", model.settings.name()),
            counter: LocalCounter::new(problem.graphs(), model.settings.alpha)?,
            ff,
            slots: vec![],
            cache: FxMap::default(),
            cache_limit: 4_000_000,
            base: None,
            by_first_add,
            max_effect,
            max_diff: (4 * max_effect).max(8),
            pseudo: Operator { name: String::new(), pre: vec![], neg_pre: vec![], add: vec![], del: vec![], cost: 0 },
            candidate: vec![],
            check: vec![],
            inputs: vec![],
            outputs: vec![],
            ff_values: vec![],
            zero_row,
            ws: Workspace::default(),
            stats: FeatureStats::default(),
            unknown_ids: BTreeSet::new(),
        })
    }

    /// Caches the counts of at most `limit` states (default 4 million);
    /// beyond it, states whose parent is not cached are counted from scratch.
    pub fn with_cache_limit(mut self, limit: usize) -> Self {
        self.cache_limit = limit;
        self
    }

    pub fn stats(&self) -> &FeatureStats {
        &self.stats
    }

    /// The graphs met in evaluated states that the model's vocabulary lacks (printed canonical forms).
    pub fn unknown_graphs(&self) -> Vec<String> {
        self.unknown_ids.iter().map(|&id| self.counter.canonicalizer().form(id).to_string()).collect()
    }

    /// The counts (per canonical id of the counter) of `state`.
    fn counts_of(&mut self, state: &[u64]) -> Vec<u32> {
        if let Some(c) = self.cache.get(state) {
            self.stats.cached += 1;
            return c.to_vec();
        }
        let tg = self.problem.graphs();
        let counts = match &self.base {
            Some((base, base_counts)) => {
                self.pseudo.add.clear();
                self.pseudo.del.clear();
                let mut differ = 0;
                for (w, (&b, &c)) in base.iter().zip(state).enumerate() {
                    let mut x = b ^ c;
                    differ += x.count_ones() as usize;
                    while x != 0 && differ <= self.max_diff {
                        let f = (w * 64) as FactId + x.trailing_zeros();
                        if has(state, f) {
                            self.pseudo.add.push(f);
                        } else {
                            self.pseudo.del.push(f);
                        }
                        x &= x - 1;
                    }
                }
                if differ <= self.max_diff {
                    self.stats.incremental += 1;
                    Some(self.counter.successor(tg, base_counts, &self.pseudo))
                } else {
                    None
                }
            }
            None => None,
        };
        let counts = match counts {
            Some(c) => c,
            None => {
                // From scratch; the state becomes the counter's current state.
                self.stats.from_scratch += 1;
                let mut facts = vec![];
                for_each_fact(state, |f| facts.push(f));
                self.counter.set_state(tg, facts);
                let c = self.counter.count();
                self.base = Some((state.to_vec(), c.clone()));
                c
            }
        };
        if self.cache.len() < self.cache_limit {
            let end = counts.iter().rposition(|&c| c > 0).map_or(0, |i| i + 1);
            self.cache.insert(state.into(), counts[..end].into());
        }
        counts
    }

    /// A cached predecessor of `child`: undo each operator that could have
    /// produced it (p = child minus the adds it did not need, plus its
    /// deletes and preconditions), keep the candidates the operator really
    /// takes to `child`, and look them up.
    fn find_parent(&mut self, child: &[u64]) -> Option<Vec<u64>> {
        let task = self.problem.task();
        let mut facts = vec![];
        for_each_fact(child, |f| facts.push(f));
        self.check.resize(child.len(), 0);
        for f in facts {
            for &o in &self.by_first_add[f as usize] {
                let op = &task.operators[o as usize];
                if !op.add.iter().all(|&a| has(child, a)) {
                    continue;
                }
                self.candidate.clear();
                self.candidate.extend_from_slice(child);
                for &a in &op.add {
                    if !op.pre.contains(&a) {
                        planner::state::clear(&mut self.candidate, a);
                    }
                }
                for &d in op.del.iter().chain(&op.pre) {
                    if !op.add.contains(&d) || op.pre.contains(&d) {
                        planner::state::set(&mut self.candidate, d);
                    }
                }
                if !is_applicable(task, &self.candidate, o) {
                    continue;
                }
                apply(task, &self.candidate, o, &mut self.check);
                if self.check != child {
                    continue;
                }
                if self.cache.contains_key(self.candidate.as_slice()) {
                    return Some(self.candidate.clone());
                }
            }
        }
        None
    }

    /// Makes a cached state the counter's current state.
    fn move_base(&mut self, state: Vec<u64>) {
        let Some(counts) = self.cache.get(state.as_slice()).map(|c| c.to_vec()) else { return };
        let mut facts = vec![];
        for_each_fact(&state, |f| facts.push(f));
        self.counter.set_state(self.problem.graphs(), facts);
        self.base = Some((state, counts));
    }

    /// The number of facts in which the counter's current state and `s` differ.
    fn distance_to_base(&self, s: &[u64]) -> usize {
        match &self.base {
            Some((b, _)) => b.iter().zip(s).map(|(x, y)| (x ^ y).count_ones() as usize).sum(),
            None => usize::MAX,
        }
    }

    /// Evaluates `batch`; with `keys`, also writes each state's raw feature
    /// vector (its Delta-set key, see [`crate::adjust`]).
    pub(crate) fn evaluate_inner(
        &mut self,
        batch: StateBatch<'_>,
        out: &mut Vec<f64>,
        mut keys: Option<&mut Vec<Vec<u64>>>,
    ) {
        out.clear();
        if let Some(k) = keys.as_deref_mut() {
            k.clear();
        }
        let n = batch.len();
        if n == 0 {
            return;
        }
        let first = batch.get(0);
        if self.distance_to_base(first) > self.max_effect && !self.cache.contains_key(first) {
            if let Some(p) = self.find_parent(first) {
                self.stats.parents_found += 1;
                self.move_base(p);
            }
        }
        if let Some(ff) = self.ff.as_mut() {
            ff.evaluate_batch(batch, &mut self.ff_values);
        }
        let width = self.model.input_width();
        let vocab_len = self.model.vocabulary.len();
        self.inputs.resize(n * width, 0.0);
        for b in 0..n {
            let counts = self.counts_of(batch.get(b));
            let row = b * width;
            self.inputs[row..row + width].copy_from_slice(&self.zero_row);
            let mut unknown = 0u64;
            let mut key = keys.as_ref().map(|_| vec![0u64; vocab_len + 2]);
            for (id, &c) in counts.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                let slot = self.slot(id);
                if slot == NO_SLOT {
                    unknown += c as u64;
                    self.unknown_ids.insert(id as u32);
                } else {
                    self.inputs[row + slot as usize] = self.model.scaling.scale(slot as usize, c as f32);
                    if let Some(k) = key.as_mut() {
                        k[slot as usize] = c as u64;
                    }
                }
            }
            if self.model.settings.ff_input {
                let ff = self.ff_values[b];
                let v = if ff.is_finite() { ff as f32 } else { 0.0 };
                self.inputs[row + vocab_len] = self.model.scaling.scale(vocab_len, v);
                if let Some(k) = key.as_mut() {
                    k[vocab_len + 1] = ff.to_bits();
                }
            }
            self.stats.evaluations += 1;
            if unknown > 0 {
                self.stats.states_with_unknown += 1;
                self.stats.unknown_occurrences += unknown;
            }
            if let (Some(keys), Some(mut k)) = (keys.as_deref_mut(), key) {
                k[vocab_len] = unknown;
                keys.push(k);
            }
        }
        self.outputs.resize(n, 0.0);
        self.model.net.infer_batch(&self.inputs, n, &mut self.ws, &mut self.outputs);
        for b in 0..n {
            let dead = self.model.settings.ff_input && !self.ff_values[b].is_finite();
            out.push(if dead { DEAD_END } else { (self.outputs[b] as f64).max(0.0) });
        }
    }

    /// The input slot of a canonical id of the counter.
    fn slot(&mut self, id: usize) -> u32 {
        while self.slots.len() <= id {
            let form = self.counter.canonicalizer().form(self.slots.len() as u32);
            self.slots.push(self.model.vocabulary.position(form).map_or(NO_SLOT, |s| s as u32));
        }
        self.slots[id]
    }
}

impl Heuristic for LearnedHeuristic<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluate_batch(&mut self, batch: StateBatch<'_>, out: &mut Vec<f64>) {
        self.evaluate_inner(batch, out, None);
    }
}
