//! Incremental counts without stored occurrences: when a vertex leaves, the
//! occurrences that disappear are exactly the connected sets through it, and
//! when one arrives (with its edges), the new occurrences are exactly the
//! connected sets through it. Listing those with ESU rooted at the vertex
//! ([`Enumerator::for_each_containing`]) updates F_alpha at the cost of the
//! occurrences that change, and a search node needs to keep only its count
//! vector, not a whole EOG (the EOG of [`crate::incremental`] must be
//! copied per node, which costs as much as its occurrences).
//!
//! Removing several vertices one after another removes, at each step, the
//! sets through that vertex in the graph left by the previous steps: in
//! total every set through at least one removed vertex, once. Adding is the
//! mirror image.
//!
//! A [`LocalCounter`] holds one mutable object graph, the "current state";
//! [`LocalCounter::successor`] derives a successor's counts from the current
//! state's and leaves the current state as it was.

use planner::task::{FactId, Operator};

use crate::canonical::Canonicalizer;
use crate::counts::Counts;
use crate::enumerate::Enumerator;
use crate::graph::Graph;
use crate::incremental::Change;
use crate::object_graph::TaskGraph;
use crate::Error;

/// Counts of one task's states, derived from each other through operators.
#[derive(Debug)]
pub struct LocalCounter {
    alpha: usize,
    canon: Canonicalizer,
    enumerator: Enumerator,
    graph: Graph,
}

impl LocalCounter {
    /// Starts with the current state having no fluent fact true.
    pub fn new(tg: &TaskGraph, alpha: usize) -> Result<LocalCounter, Error> {
        Ok(LocalCounter {
            alpha,
            canon: Canonicalizer::new(),
            enumerator: Enumerator::new(alpha)?,
            graph: tg.base().clone(),
        })
    }

    pub fn alpha(&self) -> usize {
        self.alpha
    }

    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }

    /// The current state's object graph.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Makes `facts` the current state (no counting).
    pub fn set_state(&mut self, tg: &TaskGraph, facts: impl IntoIterator<Item = FactId>) {
        let mut want = vec![false; tg.num_facts()];
        for f in facts {
            want[f as usize] = true;
        }
        for (f, &w) in want.iter().enumerate() {
            let v = tg.fact_vertex(f as FactId);
            if w && self.graph.insert(v) {
                for &u in tg.fact_neighbours(f as FactId) {
                    self.graph.add_edge(v, u);
                }
            } else if !w {
                self.graph.remove(v);
            }
        }
    }

    /// F_alpha of the current state from scratch, per canonical id of [`LocalCounter::canonicalizer`].
    pub fn count(&mut self) -> Vec<u32> {
        let mut counts = vec![];
        let (canon, graph) = (&mut self.canon, &self.graph);
        self.enumerator.for_each(graph, |_, key| bump(&mut counts, canon.id_of_key(key), 1));
        counts
    }

    /// Makes the facts `remove` false and `add` true, updating `counts` (the
    /// current state's) to the new current state's. Facts already so are skipped.
    pub fn change_facts(&mut self, tg: &TaskGraph, counts: &mut Vec<u32>, remove: &[FactId], add: &[FactId]) -> Change {
        let mut change = Change::default();
        for &f in remove {
            let v = tg.fact_vertex(f);
            if self.graph.is_present(v) {
                let canon = &mut self.canon;
                self.enumerator.for_each_containing(&self.graph, v, |_, key| bump(counts, canon.id_of_key(key), -1));
                self.graph.remove(v);
                change.removed.push(f);
            }
        }
        for &f in add {
            let v = tg.fact_vertex(f);
            if self.graph.insert(v) {
                for &u in tg.fact_neighbours(f) {
                    self.graph.add_edge(v, u);
                }
                let canon = &mut self.canon;
                self.enumerator.for_each_containing(&self.graph, v, |_, key| bump(counts, canon.id_of_key(key), 1));
                change.added.push(f);
            }
        }
        change
    }

    /// Applies `op` to the current state (STRIPS semantics), updating `counts`.
    pub fn apply(&mut self, tg: &TaskGraph, counts: &mut Vec<u32>, op: &Operator) -> Change {
        let remove: Vec<FactId> = op.del.iter().copied().filter(|f| !op.add.contains(f)).collect();
        self.change_facts(tg, counts, &remove, &op.add)
    }

    /// The counts of the current state's successor under `op`, given the
    /// current state's `counts`; the current state is left unchanged.
    pub fn successor(&mut self, tg: &TaskGraph, counts: &[u32], op: &Operator) -> Vec<u32> {
        let mut next = counts.to_vec();
        let change = self.apply(tg, &mut next, op);
        // Back to the current state: graph edits only, the counts are known.
        for &f in &change.added {
            self.graph.remove(tg.fact_vertex(f));
        }
        for &f in &change.removed {
            let v = tg.fact_vertex(f);
            self.graph.insert(v);
            for &u in tg.fact_neighbours(f) {
                self.graph.add_edge(v, u);
            }
        }
        next
    }

    /// Counts per feature graph.
    pub fn counts(&self, ids: &[u32]) -> Counts {
        Counts::from_ids(self.alpha, ids, &self.canon)
    }
}

#[inline]
fn bump(counts: &mut Vec<u32>, id: u32, by: i32) {
    let i = id as usize;
    if i >= counts.len() {
        counts.resize(i + 1, 0);
    }
    counts[i] = counts[i].checked_add_signed(by).expect("an occurrence removed that was never counted");
}
