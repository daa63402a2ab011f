//! The Extended Object Graph (thesis, section 4.5): F_alpha kept up to date
//! while vertices and edges change, instead of recounted.
//!
//! An [`Eog`] stores the graph, the counts, every occurrence (a connected
//! vertex set of at most alpha vertices, with the id of its feature graph)
//! and, per vertex v, its contribution C(v): the occurrences containing v.
//! Each occurrence also remembers its index in each C(u), so taking it out
//! of all of them costs O(alpha). The thesis composes feature graphs with
//! precomputed join tables and stored isomorphisms; here an occurrence's
//! class is looked up from its packed key in the [`Canonicalizer`]'s cache,
//! which gives the same classes with less machinery.
//!
//! # Operations
//!
//! - `RemoveVertex(v)`: every occurrence in C(v) disappears (sets without v
//!   keep their induced subgraph); nothing else changes.
//! - `AddVertex(v)`: an isolated vertex adds the one occurrence {v}.
//! - `AddEdge(v1, v2)` (Algorithm 4): occurrences containing both ends change
//!   class; the new occurrences are unions r1 ∪ r2 with r1 ∈ C(v1) \ C(v2),
//!   r2 ∈ C(v2) \ C(v1), |r1| + |r2| <= alpha, **r1 and r2 disjoint and no
//!   edge of the old graph between them**. The thesis's pseudocode states
//!   only the size condition, which would count some sets several times and
//!   count again sets that were already occurrences.
//!
//! Why this join rule counts each new occurrence exactly once. Let G' be G
//! plus the edge e = v1v2. A vertex set S with at most alpha vertices is
//! connected in G' but was not in G only if v1, v2 ∈ S (otherwise G'[S] =
//! G[S]). Removing one edge from a connected graph leaves at most two
//! components; G[S] = G'[S] - e is disconnected, so it has exactly two, S1 ∋
//! v1 and S2 ∋ v2. Both are connected in G, smaller than alpha + 1, and
//! contain one end each: S1 ∈ C(v1) \ C(v2), S2 ∈ C(v2) \ C(v1); they are
//! disjoint and G has no edge between them. Conversely, for any such pair
//! (r1, r2) — disjoint, no G-edge between them, |r1| + |r2| <= alpha —
//! G[r1 ∪ r2] has exactly the components r1 and r2, so r1 ∪ r2 was not an
//! occurrence of G, and e connects it in G'. The pair is the pair of
//! components of its union, so distinct pairs give distinct unions: the map
//! (r1, r2) -> r1 ∪ r2 is a bijection from such pairs onto the new
//! occurrences. A pair that overlaps or is joined by an old edge has a union
//! that G already held as an occurrence (it was connected), which the first
//! step re-classes, and many pairs can give that same union (r1 = {v1, x},
//! r2 = {v2, x}; or r1 = {v1, x}, r2 = {v2} with x adjacent to v2, ...).
//!
//! # Applying operators
//!
//! Deleted atoms are removed (RemoveVertex); each added atom is inserted
//! with its edges to its predicate symbol and arguments. Two ways to insert
//! ([`AddMode`]): the thesis's AddVertex then one AddEdge per edge, symbol
//! first, or all edges at once followed by listing the connected sets that
//! contain the new vertex (ESU rooted at it), which are exactly its new
//! occurrences. The second touches only what it creates; the first examines
//! |C(v1)| x |C(v2)| pairs per edge, and a predicate symbol's contribution is
//! large. Both are tested against counts from scratch.

use planner::task::{FactId, Operator};

use crate::canonical::{push_vertex, Canonicalizer, MAX_VERTICES};
use crate::counts::Counts;
use crate::enumerate::Enumerator;
use crate::graph::Graph;
use crate::object_graph::TaskGraph;
use crate::Error;

/// How an added atom's vertex and edges enter an [`Eog`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AddMode {
    /// Insert the vertex with all its edges, then list the connected sets through it.
    Rooted,
    /// The thesis's sequence: AddVertex, then AddEdge to the symbol, then to each argument.
    EdgeByEdge,
}

/// What an [`Eog`] needs besides itself: the canonicalizer whose ids it
/// stores, and scratch space. One per search (or thread), shared by all the
/// EOGs of its nodes.
#[derive(Debug)]
pub struct Workspace {
    alpha: usize,
    canon: Canonicalizer,
    enumerator: Enumerator,
    mode: AddMode,
    pending: Vec<([u32; MAX_VERTICES], u8)>,
    ids: Vec<u32>,
}

impl Workspace {
    pub fn new(alpha: usize) -> Result<Workspace, Error> {
        Ok(Workspace {
            alpha,
            canon: Canonicalizer::new(),
            enumerator: Enumerator::new(alpha)?,
            mode: AddMode::Rooted,
            pending: vec![],
            ids: vec![],
        })
    }

    pub fn with_mode(mut self, mode: AddMode) -> Workspace {
        self.mode = mode;
        self
    }

    pub fn alpha(&self) -> usize {
        self.alpha
    }

    pub fn mode(&self) -> AddMode {
        self.mode
    }

    pub fn canonicalizer(&self) -> &Canonicalizer {
        &self.canon
    }
}

#[derive(Debug, Clone, Copy)]
struct Occ {
    verts: [u32; MAX_VERTICES],
    /// Index of this occurrence in `contrib[verts[i]]`.
    pos: [u32; MAX_VERTICES],
    class: u32,
    len: u8,
}

impl Occ {
    fn verts(&self) -> &[u32] {
        &self.verts[..self.len as usize]
    }
}

/// Facts an operator actually changed, to undo it ([`Eog::undo`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub removed: Vec<FactId>,
    pub added: Vec<FactId>,
}

/// An object graph with its feature counts, every occurrence and every
/// vertex's contribution (Definition 26).
#[derive(Debug, Clone)]
pub struct Eog {
    alpha: usize,
    token: u64,
    graph: Graph,
    occs: Vec<Occ>,
    free: Vec<u32>,
    contrib: Vec<Vec<u32>>,
    /// Occurrences per canonical id of the workspace's canonicalizer.
    counts: Vec<u32>,
}

impl Eog {
    /// Builds the EOG of a graph from scratch.
    pub fn new(graph: Graph, ws: &mut Workspace) -> Eog {
        let mut eog = Eog {
            alpha: ws.alpha,
            token: ws.canon.token(),
            contrib: vec![vec![]; graph.len()],
            graph,
            occs: vec![],
            free: vec![],
            counts: vec![],
        };
        let Workspace { enumerator, canon, pending, ids, .. } = ws;
        pending.clear();
        ids.clear();
        enumerator.for_each(&eog.graph, |vs, key| {
            let mut a = [0; MAX_VERTICES];
            a[..vs.len()].copy_from_slice(vs);
            pending.push((a, vs.len() as u8));
            ids.push(canon.id_of_key(key));
        });
        for (&(vs, n), &id) in pending.iter().zip(ids.iter()) {
            eog.store(&vs[..n as usize], id);
        }
        eog
    }

    /// The EOG of the state of `tg`'s task whose true fluent facts are `facts`.
    pub fn for_state(tg: &TaskGraph, facts: impl IntoIterator<Item = FactId>, ws: &mut Workspace) -> Eog {
        Eog::new(tg.graph(facts), ws)
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn alpha(&self) -> usize {
        self.alpha
    }

    /// Number of occurrences stored (the sum of the counts).
    pub fn num_occurrences(&self) -> usize {
        self.occs.len() - self.free.len()
    }

    /// |C(v)|.
    pub fn contribution_len(&self, v: u32) -> usize {
        self.contrib[v as usize].len()
    }

    /// The occurrences containing `v`, as vertex sets.
    pub fn contribution(&self, v: u32) -> impl Iterator<Item = &[u32]> + '_ {
        self.contrib[v as usize].iter().map(|&id| self.occs[id as usize].verts())
    }

    fn check(&self, ws: &Workspace) {
        assert_eq!(self.token, ws.canon.token(), "an EOG used with a workspace other than the one that built it");
    }

    /// F_alpha as counts per feature graph.
    pub fn counts(&self, ws: &Workspace) -> Counts {
        self.check(ws);
        Counts::from_ids(self.alpha, &self.counts, &ws.canon)
    }

    /// Occurrences per canonical id of the workspace's canonicalizer.
    pub fn count_ids(&self) -> &[u32] {
        &self.counts
    }

    fn store(&mut self, vs: &[u32], class: u32) {
        let mut occ = Occ { verts: [0; MAX_VERTICES], pos: [0; MAX_VERTICES], class, len: vs.len() as u8 };
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.occs.push(occ);
                (self.occs.len() - 1) as u32
            }
        };
        for (i, &v) in vs.iter().enumerate() {
            let c = &mut self.contrib[v as usize];
            occ.verts[i] = v;
            occ.pos[i] = c.len() as u32;
            c.push(id);
        }
        self.occs[id as usize] = occ;
        if class as usize >= self.counts.len() {
            self.counts.resize(class as usize + 1, 0);
        }
        self.counts[class as usize] += 1;
    }

    /// Takes occurrence `id` out of every contribution and the counts.
    fn drop_occ(&mut self, id: u32) {
        let occ = self.occs[id as usize];
        for i in 0..occ.len as usize {
            let u = occ.verts[i] as usize;
            let p = occ.pos[i] as usize;
            let c = &mut self.contrib[u];
            c.swap_remove(p);
            if let Some(&moved) = c.get(p) {
                let m = &mut self.occs[moved as usize];
                let j = m.verts().iter().position(|&x| x as usize == u).expect("occurrence listed in C(u) contains u");
                m.pos[j] = p as u32;
            }
        }
        self.counts[occ.class as usize] -= 1;
        self.free.push(id);
    }

    /// Adds a vertex slot (absent) with this label; returns its id.
    pub fn add_slot(&mut self, label: crate::graph::Label) -> u32 {
        self.contrib.push(vec![]);
        self.graph.add_slot(label)
    }

    /// RemoveVertex (Algorithm 2): `v` and its edges leave the graph, and
    /// every occurrence containing it leaves the counts.
    pub fn remove_vertex(&mut self, v: u32) {
        while let Some(&id) = self.contrib[v as usize].last() {
            self.drop_occ(id);
        }
        self.graph.remove(v);
    }

    /// AddVertex (Algorithm 3): the absent slot `v` becomes an isolated vertex.
    pub fn add_vertex(&mut self, v: u32, ws: &mut Workspace) {
        self.check(ws);
        assert!(self.graph.insert(v), "vertex {v} is already present");
        let id = ws.canon.id_of_key(push_vertex(0, self.graph.label(v), 0));
        self.store(&[v], id);
    }

    /// Inserts the absent slot `v` with edges to `neighbours` (present
    /// vertices), then stores every connected set through `v`: exactly the
    /// new occurrences.
    pub fn add_vertex_with_edges(&mut self, v: u32, neighbours: &[u32], ws: &mut Workspace) {
        self.check(ws);
        assert!(self.graph.insert(v), "vertex {v} is already present");
        for &u in neighbours {
            self.graph.add_edge(v, u);
        }
        let Workspace { enumerator, canon, pending, ids, .. } = ws;
        pending.clear();
        ids.clear();
        enumerator.for_each_containing(&self.graph, v, |vs, key| {
            let mut a = [0; MAX_VERTICES];
            a[..vs.len()].copy_from_slice(vs);
            pending.push((a, vs.len() as u8));
            ids.push(canon.id_of_key(key));
        });
        for (&(vs, n), &id) in pending.iter().zip(ids.iter()) {
            self.store(&vs[..n as usize], id);
        }
    }

    /// The packed key of the induced subgraph on `vs` in the current graph.
    fn key_of(&self, vs: &[u32]) -> u128 {
        let mut key = 0;
        for (j, &w) in vs.iter().enumerate() {
            let mut bits = 0u8;
            for (i, &u) in vs[..j].iter().enumerate() {
                if self.graph.adjacent(u, w) {
                    bits |= 1 << i;
                }
            }
            key = push_vertex(key, self.graph.label(w), bits);
        }
        key
    }

    /// AddEdge (Algorithm 4, with the join rule proved in the module docs).
    pub fn add_edge(&mut self, v1: u32, v2: u32, ws: &mut Workspace) {
        self.check(ws);
        if self.graph.adjacent(v1, v2) {
            return;
        }
        let alpha = self.alpha;
        // Occurrences with both ends: they change class once the edge is in.
        let (a, b) =
            if self.contrib[v1 as usize].len() <= self.contrib[v2 as usize].len() { (v1, v2) } else { (v2, v1) };
        let both: Vec<u32> = self.contrib[a as usize]
            .iter()
            .copied()
            .filter(|&id| self.occs[id as usize].verts().contains(&b))
            .collect();
        // Occurrences with one end only, by size, for the join.
        let mut right: [Vec<u32>; MAX_VERTICES + 1] = Default::default();
        for &id in &self.contrib[v2 as usize] {
            let o = &self.occs[id as usize];
            if (o.len as usize) < alpha && !o.verts().contains(&v1) {
                right[o.len as usize].push(id);
            }
        }
        let pending = &mut ws.pending;
        pending.clear();
        for &id1 in &self.contrib[v1 as usize] {
            let r1 = &self.occs[id1 as usize];
            let n1 = r1.len as usize;
            if n1 >= alpha || r1.verts().contains(&v2) {
                continue;
            }
            for ids in &right[1..=alpha - n1] {
                for &id2 in ids {
                    let r2 = &self.occs[id2 as usize];
                    // Disjoint, and no edge of the graph (without v1-v2) between them.
                    let separated =
                        r1.verts().iter().all(|&x| r2.verts().iter().all(|&y| x != y && !self.graph.adjacent(x, y)));
                    if separated {
                        let mut vs = [0; MAX_VERTICES];
                        vs[..n1].copy_from_slice(r1.verts());
                        vs[n1..n1 + r2.len as usize].copy_from_slice(r2.verts());
                        pending.push((vs, (n1 + r2.len as usize) as u8));
                    }
                }
            }
        }
        self.graph.add_edge(v1, v2);
        for id in both {
            let o = self.occs[id as usize];
            let class = ws.canon.id_of_key(self.key_of(o.verts()));
            self.counts[o.class as usize] -= 1;
            if class as usize >= self.counts.len() {
                self.counts.resize(class as usize + 1, 0);
            }
            self.counts[class as usize] += 1;
            self.occs[id as usize].class = class;
        }
        let pending = std::mem::take(&mut ws.pending);
        for &(vs, n) in &pending {
            let vs = &vs[..n as usize];
            let class = ws.canon.id_of_key(self.key_of(vs));
            self.store(vs, class);
        }
        ws.pending = pending;
    }

    /// Inserts a fluent fact's vertex with its edges, in the workspace's [`AddMode`].
    fn add_fact(&mut self, tg: &TaskGraph, f: FactId, ws: &mut Workspace) {
        let v = tg.fact_vertex(f);
        match ws.mode {
            AddMode::Rooted => self.add_vertex_with_edges(v, tg.fact_neighbours(f), ws),
            AddMode::EdgeByEdge => {
                self.add_vertex(v, ws);
                for &u in tg.fact_neighbours(f) {
                    self.add_edge(v, u, ws);
                }
            }
        }
    }

    /// Makes the fluent facts `remove` false and `add` true (in that order;
    /// facts already so are skipped). Returns what changed.
    pub fn change_facts(&mut self, tg: &TaskGraph, remove: &[FactId], add: &[FactId], ws: &mut Workspace) -> Change {
        self.check(ws);
        let mut change = Change::default();
        for &f in remove {
            let v = tg.fact_vertex(f);
            if self.graph.is_present(v) {
                self.remove_vertex(v);
                change.removed.push(f);
            }
        }
        for &f in add {
            if !self.graph.is_present(tg.fact_vertex(f)) {
                self.add_fact(tg, f, ws);
                change.added.push(f);
            }
        }
        change
    }

    /// Applies an operator: its deletes that it does not also add become
    /// false, then its adds become true (STRIPS semantics, as
    /// `planner::successors::apply`).
    pub fn apply(&mut self, tg: &TaskGraph, op: &Operator, ws: &mut Workspace) -> Change {
        let remove: Vec<FactId> = op.del.iter().copied().filter(|f| !op.add.contains(f)).collect();
        self.change_facts(tg, &remove, &op.add, ws)
    }

    /// Reverts [`Eog::apply`] (the counts come back exactly; occurrence storage may be laid out differently).
    pub fn undo(&mut self, tg: &TaskGraph, change: &Change, ws: &mut Workspace) {
        self.change_facts(tg, &change.added, &change.removed, ws);
    }

    /// The successor's EOG under `op`, for searches that keep one per node.
    pub fn successor(&self, tg: &TaskGraph, op: &Operator, ws: &mut Workspace) -> Eog {
        let mut next = self.clone();
        next.apply(tg, op, ws);
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enumerate::Counter;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random edits of a random graph through the thesis's three operations,
    /// checked against counts from scratch after every step.
    #[test]
    fn thesis_operations_match_counts_from_scratch() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for alpha in 1..=5 {
            let mut ws = Workspace::new(alpha).unwrap();
            let mut scratch = Counter::new(alpha).unwrap();
            let n = 14;
            let labels: Vec<u16> = (0..n).map(|_| rng.gen_range(0..3)).collect();
            let mut g = Graph::with_vertices(&labels);
            for a in 0..n as u32 {
                for b in a + 1..n as u32 {
                    if rng.gen_bool(0.2) {
                        g.add_edge(a, b);
                    }
                }
            }
            let mut eog = Eog::new(g, &mut ws);
            for step in 0..300 {
                let v = rng.gen_range(0..n as u32);
                let present = eog.graph().is_present(v);
                match rng.gen_range(0..4) {
                    0 if present => eog.remove_vertex(v),
                    1 if !present => eog.add_vertex(v, &mut ws),
                    2 if !present => {
                        let nb: Vec<u32> = (0..n as u32)
                            .filter(|&u| u != v && eog.graph().is_present(u) && rng.gen_bool(0.3))
                            .collect();
                        eog.add_vertex_with_edges(v, &nb, &mut ws);
                    }
                    _ => {
                        let u = rng.gen_range(0..n as u32);
                        if u != v && present && eog.graph().is_present(u) {
                            eog.add_edge(v, u, &mut ws);
                        }
                    }
                }
                assert_eq!(eog.counts(&ws), scratch.count(eog.graph()), "alpha {alpha}, step {step}");
                // Contributions hold exactly the occurrences through each vertex.
                if step % 50 == 0 {
                    let total: usize = (0..n as u32).map(|v| eog.contribution_len(v)).sum();
                    let by_size: usize = eog.occs_sizes().iter().sum();
                    assert_eq!(total, by_size);
                    for v in 0..n as u32 {
                        assert!(eog.contribution(v).all(|r| r.contains(&v)));
                    }
                }
            }
        }
    }

    impl Eog {
        /// Sum over live occurrences of their sizes, split by size (test helper).
        fn occs_sizes(&self) -> Vec<usize> {
            let free: std::collections::HashSet<u32> = self.free.iter().copied().collect();
            let mut s = vec![0; MAX_VERTICES + 1];
            for (i, o) in self.occs.iter().enumerate() {
                if !free.contains(&(i as u32)) {
                    s[o.len as usize] += o.len as usize;
                }
            }
            s
        }
    }

    #[test]
    fn the_join_needs_disjoint_separated_pairs() {
        // A path a - x - b: adding a-b closes a triangle. With the size test
        // alone, {a, x} and {b, x} (overlapping) and {a, x} and {b} (joined
        // by x-b) would add {a, x, b} again, though it is already connected.
        let mut ws = Workspace::new(3).unwrap();
        let mut g = Graph::with_vertices(&[0, 1, 0]);
        g.add_edge(0, 1);
        g.add_edge(1, 2);
        let mut eog = Eog::new(g, &mut ws);
        eog.add_edge(0, 2, &mut ws);
        let counts = eog.counts(&ws);
        assert_eq!(counts.total(), 3 + 3 + 1, "three vertices, three edges, one triangle");
        assert_eq!(counts, crate::enumerate::features_from_scratch(eog.graph(), 3).unwrap());
    }
}
