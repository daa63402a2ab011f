//! Connected induced subgraphs of at most alpha vertices, each exactly once.
//!
//! Wernicke's ESU ("enumerate subgraphs", 2006): a subgraph grows from its
//! smallest vertex v; the extension set holds vertices that may still join,
//! and when w joins, only w's *exclusive* neighbours (not in the subgraph
//! and not adjacent to it) greater than v are added to the extension. Each
//! connected vertex set appears at exactly one node of this tree, so no
//! deduplication is needed. Rooted at a given vertex without the "greater
//! than v" condition, the same tree lists every connected set that contains
//! that vertex, once each ([`Enumerator::for_each_containing`]); incremental
//! counting uses that.
//!
//! Bookkeeping per vertex: a bit mask of the subgraph positions it is
//! adjacent to. It answers both "is u an exclusive neighbour" (mask zero, u
//! not in the subgraph) and "which earlier vertices is w adjacent to" (its
//! mask), which is exactly what a packed key needs ([`crate::canonical`]),
//! so the induced subgraph's key costs nothing extra. A vertex's neighbours
//! are marked only when it joins a subgraph that can still grow, so a hub
//! (a predicate symbol on every atom of its predicate) is scanned only where
//! its neighbours are needed as extensions anyway.

use crate::canonical::{push_vertex, Canonicalizer, MAX_VERTICES};
use crate::counts::Counts;
use crate::graph::Graph;
use crate::Error;

/// Reusable scratch space for enumerating subgraphs of at most `alpha` vertices.
#[derive(Debug, Clone)]
pub struct Enumerator {
    alpha: usize,
    /// Per vertex: bit p set if adjacent to the subgraph's vertex at position p.
    nb: Vec<u8>,
    insub: Vec<bool>,
    sub: [u32; MAX_VERTICES],
    /// Extension set of each depth.
    ext: Vec<Vec<u32>>,
}

/// Checks that alpha is a supported subgraph size.
pub fn check_alpha(alpha: usize) -> Result<(), Error> {
    if (1..=MAX_VERTICES).contains(&alpha) {
        Ok(())
    } else {
        Err(Error::Alpha(alpha))
    }
}

impl Enumerator {
    pub fn new(alpha: usize) -> Result<Enumerator, Error> {
        check_alpha(alpha)?;
        Ok(Enumerator { alpha, nb: vec![], insub: vec![], sub: [0; MAX_VERTICES], ext: vec![vec![]; MAX_VERTICES + 1] })
    }

    pub fn alpha(&self) -> usize {
        self.alpha
    }

    fn fit(&mut self, g: &Graph) {
        if self.nb.len() < g.len() {
            self.nb.resize(g.len(), 0);
            self.insub.resize(g.len(), false);
        }
    }

    /// Calls `f(vertices, key)` once for every connected induced subgraph of
    /// at most alpha present vertices; `key` packs it in the order of `vertices`.
    pub fn for_each(&mut self, g: &Graph, mut f: impl FnMut(&[u32], u128)) {
        self.fit(g);
        for v in 0..g.len() as u32 {
            if g.is_present(v) {
                self.root(g, v, true, &mut f);
            }
        }
    }

    /// Calls `f(vertices, key)` once for every connected induced subgraph of
    /// at most alpha vertices that contains `root` (which comes first in `vertices`).
    pub fn for_each_containing(&mut self, g: &Graph, root: u32, mut f: impl FnMut(&[u32], u128)) {
        self.fit(g);
        if g.is_present(root) {
            self.root(g, root, false, &mut f);
        }
    }

    fn root(&mut self, g: &Graph, v: u32, only_greater: bool, f: &mut impl FnMut(&[u32], u128)) {
        let key = push_vertex(0, g.label(v), 0);
        self.sub[0] = v;
        f(&self.sub[..1], key);
        if self.alpha == 1 {
            return;
        }
        let mut ext = std::mem::take(&mut self.ext[1]);
        ext.clear();
        for &u in g.neighbours(v) {
            if !only_greater || u > v {
                ext.push(u);
            }
            self.nb[u as usize] |= 1;
        }
        self.insub[v as usize] = true;
        self.ext[1] = ext;
        self.grow(g, 1, key, if only_greater { v } else { u32::MAX }, f);
        self.insub[v as usize] = false;
        for &u in g.neighbours(v) {
            self.nb[u as usize] &= !1;
        }
    }

    /// Extends the subgraph `sub[..p]` (packed in `key`) by each vertex of `ext[p]` in turn.
    /// `min` is the root when only greater vertices may join, else `u32::MAX`.
    fn grow(&mut self, g: &Graph, p: usize, key: u128, min: u32, f: &mut impl FnMut(&[u32], u128)) {
        while let Some(w) = self.ext[p].pop() {
            let k = push_vertex(key, g.label(w), self.nb[w as usize]);
            self.sub[p] = w;
            f(&self.sub[..=p], k);
            if p + 1 == self.alpha {
                continue;
            }
            let mut next = std::mem::take(&mut self.ext[p + 1]);
            next.clear();
            next.extend_from_slice(&self.ext[p]);
            for &u in g.neighbours(w) {
                let ui = u as usize;
                if self.nb[ui] == 0 && !self.insub[ui] && (min == u32::MAX || u > min) {
                    next.push(u);
                }
            }
            self.ext[p + 1] = next;
            let bit = 1u8 << p;
            for &u in g.neighbours(w) {
                self.nb[u as usize] |= bit;
            }
            self.insub[w as usize] = true;
            self.grow(g, p + 1, k, min, f);
            self.insub[w as usize] = false;
            for &u in g.neighbours(w) {
                self.nb[u as usize] &= !bit;
            }
        }
    }
}

/// Counts feature graphs from scratch, reusing its scratch space and its
/// canonicalizer's cache between graphs (build one and keep it).
#[derive(Debug)]
pub struct Counter {
    enumerator: Enumerator,
    canon: Canonicalizer,
    counts: Vec<u64>,
}

impl Counter {
    pub fn new(alpha: usize) -> Result<Counter, Error> {
        Ok(Counter { enumerator: Enumerator::new(alpha)?, canon: Canonicalizer::new(), counts: vec![] })
    }

    pub fn alpha(&self) -> usize {
        self.enumerator.alpha
    }

    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }

    /// Occurrences per canonical id of [`Counter::canonicalizer`] (index = id).
    pub fn count_ids(&mut self, g: &Graph) -> &[u64] {
        self.counts.iter_mut().for_each(|c| *c = 0);
        let (canon, counts) = (&mut self.canon, &mut self.counts);
        self.enumerator.for_each(g, |_, key| {
            let id = canon.id_of_key(key) as usize;
            if id >= counts.len() {
                counts.resize(id + 1, 0);
            }
            counts[id] += 1;
        });
        &self.counts
    }

    /// Occurrences per feature graph (only graphs that occur).
    pub fn count(&mut self, g: &Graph) -> Counts {
        self.count_ids(g);
        Counts::from_ids(self.alpha(), &self.counts, &self.canon)
    }
}

/// F_alpha of a graph: the number of occurrences of each connected feature
/// graph with at most alpha vertices (only graphs that occur are listed).
pub fn features_from_scratch(g: &Graph, alpha: usize) -> Result<Counts, Error> {
    Ok(Counter::new(alpha)?.count(g))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::canonical::{pack, pair_bit, Form};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::BTreeMap;

    fn random_graph(rng: &mut ChaCha8Rng, n: usize, p: f64, labels: u16) -> Graph {
        let l: Vec<u16> = (0..n).map(|_| rng.gen_range(0..labels)).collect();
        let mut g = Graph::with_vertices(&l);
        for a in 0..n as u32 {
            for b in a + 1..n as u32 {
                if rng.gen_bool(p) {
                    g.add_edge(a, b);
                }
            }
        }
        g
    }

    /// Brute force: every vertex subset of size <= alpha, kept if its induced subgraph is connected.
    fn brute_force(g: &Graph, alpha: usize) -> BTreeMap<Form, u64> {
        let n = g.len();
        let mut out = BTreeMap::new();
        for mask in 1u32..1 << n {
            let vs: Vec<u32> = (0..n as u32).filter(|v| mask >> v & 1 == 1).collect();
            if vs.len() > alpha || vs.iter().any(|&v| !g.is_present(v)) {
                continue;
            }
            // Connected? Flood fill inside the subset.
            let mut seen = vec![vs[0]];
            let mut i = 0;
            while i < seen.len() {
                for &u in &vs {
                    if !seen.contains(&u) && g.adjacent(seen[i], u) {
                        seen.push(u);
                    }
                }
                i += 1;
            }
            if seen.len() != vs.len() {
                continue;
            }
            let labels: Vec<u16> = vs.iter().map(|&v| g.label(v)).collect();
            let mut adj = 0u16;
            for j in 0..vs.len() {
                for i in 0..j {
                    if g.adjacent(vs[i], vs[j]) {
                        adj |= 1 << pair_bit(i, j);
                    }
                }
            }
            *out.entry(Form::of_key(pack(vs.len(), &labels, adj))).or_insert(0) += 1;
        }
        out
    }

    #[test]
    fn counts_match_brute_force_on_random_graphs() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for trial in 0..60 {
            let n = rng.gen_range(1..=12);
            let p = [0.15, 0.3, 0.6][trial % 3];
            let g = random_graph(&mut rng, n, p, 1 + (trial % 3) as u16);
            for alpha in 1..=MAX_VERTICES {
                let got = features_from_scratch(&g, alpha).unwrap();
                let want = brute_force(&g, alpha);
                assert_eq!(got.as_map(), &want, "trial {trial}, n {n}, alpha {alpha}");
            }
        }
    }

    #[test]
    fn every_set_once_and_rooted_lists_the_sets_through_a_vertex() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut g = random_graph(&mut rng, 11, 0.35, 2);
        g.remove(4); // absent vertices take part in nothing
        let mut e = Enumerator::new(4).unwrap();
        let mut sets = vec![];
        e.for_each(&g, |vs, _| {
            let mut s = vs.to_vec();
            s.sort_unstable();
            sets.push(s);
        });
        let total = sets.len();
        sets.sort();
        sets.dedup();
        assert_eq!(sets.len(), total, "a set was listed twice");
        assert!(sets.iter().all(|s| !s.contains(&4)));
        for root in 0..11u32 {
            let mut through = vec![];
            e.for_each_containing(&g, root, |vs, _| {
                assert_eq!(vs[0], root);
                let mut s = vs.to_vec();
                s.sort_unstable();
                through.push(s);
            });
            through.sort();
            let want: Vec<Vec<u32>> = sets.iter().filter(|s| s.contains(&root)).cloned().collect();
            assert_eq!(through, want, "root {root}");
        }
    }

    #[test]
    fn bad_alpha_is_refused() {
        assert!(Enumerator::new(0).is_err());
        assert!(Enumerator::new(7).is_err());
    }

    /// Thesis, Example 4.3: two labels (a = 0, b = 1), alpha = 2, a graph with
    /// 5 a-vertices, 3 b-vertices, 5 a-a, 2 a-b and 1 b-b edges gives
    /// F = (5, 3, 5, 2, 1) over B^2_2 = (a, b, a-a, a-b, b-b).
    #[test]
    fn thesis_example_4_3() {
        let mut g = Graph::with_vertices(&[0, 0, 0, 0, 0, 1, 1, 1]);
        for (x, y) in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 0), (0, 5), (2, 6), (6, 7)] {
            g.add_edge(x, y);
        }
        let counts = features_from_scratch(&g, 2).unwrap();
        let b22 = [
            Form::of_graph(&[0], &[]),
            Form::of_graph(&[1], &[]),
            Form::of_graph(&[0, 0], &[(0, 1)]),
            Form::of_graph(&[0, 1], &[(0, 1)]),
            Form::of_graph(&[1, 1], &[(0, 1)]),
        ];
        let f: Vec<u64> = b22.iter().map(|&b| counts.get(b)).collect();
        assert_eq!(f, vec![5, 3, 5, 2, 1]);
        assert_eq!(counts.len(), 5, "no other graph of B^2_2 occurs");
    }
}
