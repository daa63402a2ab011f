//! A mutable vertex-labelled undirected graph with stable vertex ids.
//!
//! Object graphs of one task share their vertex numbering across states: a
//! fluent atom keeps its vertex id whether or not it is true, and is simply
//! absent from the graph while it is false. So the graph has a fixed number of
//! vertex slots, each present or absent; absent slots have no edges and take
//! part in no subgraph.

/// Vertex label: 0 constants, 1 state atoms, 2 goal atoms, 3.. predicate symbols.
pub type Label = u16;

/// A vertex-labelled simple undirected graph over vertex slots `0..len()`.
/// Equality compares labels, presence and edges (not the order of neighbour lists).
#[derive(Debug, Clone)]
pub struct Graph {
    labels: Vec<Label>,
    present: Vec<bool>,
    /// Unordered neighbour lists; only present vertices have neighbours.
    adj: Vec<Vec<u32>>,
}

impl Graph {
    /// A graph with no vertex slots.
    pub fn new() -> Graph {
        Graph { labels: vec![], present: vec![], adj: vec![] }
    }

    /// A graph whose vertices `0..labels.len()` are all present, without edges.
    pub fn with_vertices(labels: &[Label]) -> Graph {
        Graph { labels: labels.to_vec(), present: vec![true; labels.len()], adj: vec![vec![]; labels.len()] }
    }

    /// Adds an absent slot with this label (the vertex appears with [`Graph::insert`]); returns its id.
    pub fn add_slot(&mut self, label: Label) -> u32 {
        self.labels.push(label);
        self.present.push(false);
        self.adj.push(vec![]);
        (self.labels.len() - 1) as u32
    }

    /// Adds a present vertex; returns its id.
    pub fn add_vertex(&mut self, label: Label) -> u32 {
        let v = self.add_slot(label);
        self.present[v as usize] = true;
        v
    }

    /// Number of vertex slots (present or not).
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Number of present vertices.
    pub fn num_present(&self) -> usize {
        self.present.iter().filter(|&&p| p).count()
    }

    /// Number of edges.
    pub fn num_edges(&self) -> usize {
        self.adj.iter().map(Vec::len).sum::<usize>() / 2
    }

    pub fn label(&self, v: u32) -> Label {
        self.labels[v as usize]
    }

    pub fn is_present(&self, v: u32) -> bool {
        self.present[v as usize]
    }

    pub fn neighbours(&self, v: u32) -> &[u32] {
        &self.adj[v as usize]
    }

    /// True if `a` and `b` are adjacent. Scans the shorter neighbour list: in
    /// object graphs one end of every edge is an atom, whose degree is its
    /// arity + 1, so this is a handful of comparisons even next to a hub.
    #[inline]
    pub fn adjacent(&self, a: u32, b: u32) -> bool {
        let (na, nb) = (&self.adj[a as usize], &self.adj[b as usize]);
        if na.len() <= nb.len() {
            na.contains(&b)
        } else {
            nb.contains(&a)
        }
    }

    /// Makes an absent slot present (without edges). Returns false if it already was.
    pub fn insert(&mut self, v: u32) -> bool {
        !std::mem::replace(&mut self.present[v as usize], true)
    }

    /// Adds the edge a-b between two present, distinct vertices. Returns false
    /// (and changes nothing) if it was already there.
    pub fn add_edge(&mut self, a: u32, b: u32) -> bool {
        assert!(a != b, "object graphs have no loops (vertex {a})");
        assert!(self.present[a as usize] && self.present[b as usize], "edge {a}-{b} between absent vertices");
        if self.adjacent(a, b) {
            return false;
        }
        self.adj[a as usize].push(b);
        self.adj[b as usize].push(a);
        true
    }

    /// Removes a vertex and its edges (the slot stays, absent). Returns false if it was absent.
    pub fn remove(&mut self, v: u32) -> bool {
        if !std::mem::replace(&mut self.present[v as usize], false) {
            return false;
        }
        for u in std::mem::take(&mut self.adj[v as usize]) {
            let list = &mut self.adj[u as usize];
            if let Some(i) = list.iter().position(|&x| x == v) {
                list.swap_remove(i);
            }
        }
        true
    }
}

impl PartialEq for Graph {
    fn eq(&self, other: &Graph) -> bool {
        let sorted = |l: &[u32]| {
            let mut l = l.to_vec();
            l.sort_unstable();
            l
        };
        self.labels == other.labels
            && self.present == other.present
            && self.adj.iter().zip(&other.adj).all(|(a, b)| a.len() == b.len() && sorted(a) == sorted(b))
    }
}

impl Eq for Graph {}

impl Default for Graph {
    fn default() -> Self {
        Graph::new()
    }
}
