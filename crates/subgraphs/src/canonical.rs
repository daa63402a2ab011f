//! Canonical forms of small vertex-labelled graphs (at most [`MAX_VERTICES`]).
//!
//! A graph on n <= 6 vertices listed in some order packs into one `u128`
//! ("key"): the adjacency bits of the 15 possible pairs, n, and six 16-bit
//! labels. The pair (i, j), i < j, is bit `j(j-1)/2 + i`, so appending
//! vertex p adds the bits `p(p-1)/2 .. p(p-1)/2 + p` and a key can be built
//! while a subgraph grows.
//!
//! The canonical form of a graph is the key of one particular vertex order:
//! vertices sorted by label (non-decreasing), and among the orders that keep
//! the labels sorted (permutations inside each label class) the one with the
//! smallest adjacency bits. Two graphs get the same form iff some
//! label-preserving bijection maps edges onto edges, i.e. iff they are
//! isomorphic as labelled graphs: an isomorphism turns any sorted order of
//! one into a sorted order of the other with the same adjacency bits, so the
//! two sets of candidate keys are equal and so are their minima.
//!
//! Brute force over those permutations costs at most 6! = 720 orders, so a
//! [`Canonicalizer`] caches the answer per key; every subgraph enumeration
//! asks it once per occurrence and almost always hits the cache.
//!
//! # Printed form
//!
//! A [`Form`] prints as `L<label>,L<label>,...|<i>-<j>,<i>-<j>,...`: the
//! labels of the vertices in canonical order (so non-decreasing), a bar, then
//! the edges as pairs of canonical positions with i < j, sorted. A single
//! vertex of label 3 is `L3|`; an edge between a constant and a state atom is
//! `L0,L1|0-1`; a constant on two atoms is `L0,L1,L1|0-1,0-2`. This string is
//! the feature's name in JSON output and in stored vocabularies, and it
//! parses back ([`Form::from_str`]) only if it is canonical.

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use crate::graph::Label;

/// The largest subgraph size (alpha) supported.
pub const MAX_VERTICES: usize = 6;

const N_SHIFT: u32 = 15;
const LABEL_SHIFT: u32 = 18;

/// Bit of the pair (i, j), i < j, in a key's adjacency bits.
#[inline]
pub const fn pair_bit(i: usize, j: usize) -> u32 {
    (j * (j - 1) / 2 + i) as u32
}

/// Packs an ordered labelled graph: `n` vertices with `labels[..n]`, adjacency bits `adj`.
#[inline]
pub fn pack(n: usize, labels: &[Label], adj: u16) -> u128 {
    let mut k = adj as u128 | (n as u128) << N_SHIFT;
    for (i, &l) in labels[..n].iter().enumerate() {
        k |= (l as u128) << (LABEL_SHIFT + 16 * i as u32);
    }
    k
}

/// Appends one vertex to a key: its label and its adjacency bits to the
/// vertices before it (bit i set if adjacent to position i).
#[inline]
pub fn push_vertex(key: u128, label: Label, adj_to_earlier: u8) -> u128 {
    let p = ((key >> N_SHIFT) & 7) as usize;
    debug_assert!(p < MAX_VERTICES);
    let shift = if p == 0 { 0 } else { pair_bit(0, p) };
    (key & !(7u128 << N_SHIFT))
        | ((p as u128 + 1) << N_SHIFT)
        | ((adj_to_earlier as u128) << shift)
        | ((label as u128) << (LABEL_SHIFT + 16 * p as u32))
}

fn unpack(key: u128) -> (usize, [Label; MAX_VERTICES], u16) {
    let n = ((key >> N_SHIFT) & 7) as usize;
    let mut labels = [0; MAX_VERTICES];
    for (i, l) in labels.iter_mut().enumerate().take(n) {
        *l = (key >> (LABEL_SHIFT + 16 * i as u32)) as u16;
    }
    (n, labels, (key & 0x7fff) as u16)
}

/// The canonical form of a connected or disconnected labelled graph on at
/// most six vertices: see the module docs. Compare with `==`; print with `{}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Form(u128);

impl Form {
    /// The canonical form of the graph packed in `key` (see [`pack`]).
    pub fn of_key(key: u128) -> Form {
        let (n, labels, adj) = unpack(key);
        let mut rows = [0u8; MAX_VERTICES];
        for j in 1..n {
            for i in 0..j {
                if adj >> pair_bit(i, j) & 1 == 1 {
                    rows[i] |= 1 << j;
                    rows[j] |= 1 << i;
                }
            }
        }
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&v| labels[v]);
        let sorted: Vec<Label> = order.iter().map(|&v| labels[v]).collect();
        let mut best = u16::MAX;
        let mut perm = [0usize; MAX_VERTICES];
        search(0, n, &sorted, &labels, &rows, 0, &mut perm, 0, &mut best);
        Form(pack(n, &sorted, if n == 0 { 0 } else { best }))
    }

    /// The canonical form of a graph given by labels and edges (pairs of indices into `labels`).
    pub fn of_graph(labels: &[Label], edges: &[(usize, usize)]) -> Form {
        assert!(labels.len() <= MAX_VERTICES, "at most {MAX_VERTICES} vertices");
        let mut adj = 0u16;
        for &(a, b) in edges {
            assert!(a != b && a < labels.len() && b < labels.len(), "bad edge {a}-{b}");
            adj |= 1 << pair_bit(a.min(b), a.max(b));
        }
        Form::of_key(pack(labels.len(), labels, adj))
    }

    /// The packed key (a canonical vertex order).
    pub fn key(self) -> u128 {
        self.0
    }

    pub fn num_vertices(self) -> usize {
        unpack(self.0).0
    }

    /// Labels in canonical order.
    pub fn labels(self) -> Vec<Label> {
        let (n, l, _) = unpack(self.0);
        l[..n].to_vec()
    }

    /// Edges as pairs of canonical positions (i < j), sorted.
    pub fn edges(self) -> Vec<(usize, usize)> {
        let (n, _, adj) = unpack(self.0);
        let mut e = vec![];
        for i in 0..n {
            for j in i + 1..n {
                if adj >> pair_bit(i, j) & 1 == 1 {
                    e.push((i, j));
                }
            }
        }
        e
    }
}

/// Places a vertex of label `sorted[pos]` at `pos`, for every choice, keeping the smallest adjacency bits.
#[allow(clippy::too_many_arguments)]
fn search(
    pos: usize,
    n: usize,
    sorted: &[Label],
    labels: &[Label; MAX_VERTICES],
    rows: &[u8; MAX_VERTICES],
    used: u8,
    perm: &mut [usize; MAX_VERTICES],
    bits: u16,
    best: &mut u16,
) {
    if pos == n {
        *best = (*best).min(bits);
        return;
    }
    for v in 0..n {
        if used >> v & 1 == 1 || labels[v] != sorted[pos] {
            continue;
        }
        let mut b = bits;
        for (i, &u) in perm[..pos].iter().enumerate() {
            if rows[v] >> u & 1 == 1 {
                b |= 1 << pair_bit(i, pos);
            }
        }
        perm[pos] = v;
        search(pos + 1, n, sorted, labels, rows, used | 1 << v, perm, b, best);
    }
}

impl fmt::Display for Form {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let labels = self.labels();
        for (i, l) in labels.iter().enumerate() {
            write!(f, "{}L{l}", if i > 0 { "," } else { "" })?;
        }
        f.write_str("|")?;
        for (k, (i, j)) in self.edges().into_iter().enumerate() {
            write!(f, "{}{i}-{j}", if k > 0 { "," } else { "" })?;
        }
        Ok(())
    }
}

/// Why a string is not a printed [`Form`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("feature graph {text:?}: {reason} (expected a canonical form such as \"L0,L1,L3|0-1,1-2\")")]
pub struct FormParseError {
    pub text: String,
    pub reason: String,
}

impl FromStr for Form {
    type Err = FormParseError;

    fn from_str(s: &str) -> Result<Form, FormParseError> {
        let err = |reason: String| FormParseError { text: s.to_string(), reason };
        let (ls, es) = s.split_once('|').ok_or_else(|| err("no '|' between labels and edges".into()))?;
        let mut labels = vec![];
        for part in ls.split(',') {
            let l = part
                .strip_prefix('L')
                .and_then(|x| x.parse::<Label>().ok())
                .ok_or_else(|| err(format!("{part:?} is not a label such as L3")))?;
            labels.push(l);
        }
        if labels.len() > MAX_VERTICES {
            return Err(err(format!("{} vertices, at most {MAX_VERTICES} are supported", labels.len())));
        }
        let mut adj = 0u16;
        if !es.is_empty() {
            for part in es.split(',') {
                let pair =
                    part.split_once('-').and_then(|(a, b)| Some((a.parse::<usize>().ok()?, b.parse::<usize>().ok()?)));
                let Some((i, j)) = pair.filter(|&(i, j)| i < j && j < labels.len()) else {
                    return Err(err(format!("{part:?} is not an edge i-j with i < j < {}", labels.len())));
                };
                adj |= 1 << pair_bit(i, j);
            }
        }
        let key = pack(labels.len(), &labels, adj);
        let form = Form::of_key(key);
        if form.0 != key {
            return Err(err(format!("not in canonical order (the canonical form is {form})")));
        }
        Ok(form)
    }
}

impl serde::Serialize for Form {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Form {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Form, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

static NEXT_TOKEN: AtomicU64 = AtomicU64::new(1);

/// Numbers canonical forms densely (0, 1, ... in order of first sight) and
/// caches key -> id, so counting can index plain vectors. Ids belong to one
/// canonicalizer: structures that keep ids ([`crate::incremental::Eog`])
/// remember which canonicalizer made them and refuse another.
#[derive(Debug)]
pub struct Canonicalizer {
    token: u64,
    cache: FxHashMap<u128, u32>,
    ids: FxHashMap<Form, u32>,
    forms: Vec<Form>,
}

impl Canonicalizer {
    pub fn new() -> Canonicalizer {
        Canonicalizer {
            token: NEXT_TOKEN.fetch_add(1, Ordering::Relaxed),
            cache: FxHashMap::default(),
            ids: FxHashMap::default(),
            forms: vec![],
        }
    }

    /// Identifies this canonicalizer (ids from another one mean something else).
    pub fn token(&self) -> u64 {
        self.token
    }

    /// The id of the canonical form of the graph packed in `key`.
    #[inline]
    pub fn id_of_key(&mut self, key: u128) -> u32 {
        if let Some(&id) = self.cache.get(&key) {
            return id;
        }
        let id = self.id_of_form(Form::of_key(key));
        self.cache.insert(key, id);
        id
    }

    /// The id of a canonical form.
    pub fn id_of_form(&mut self, form: Form) -> u32 {
        let next = self.forms.len() as u32;
        let id = *self.ids.entry(form).or_insert(next);
        if id == next {
            self.forms.push(form);
        }
        id
    }

    /// The form with this id.
    pub fn form(&self, id: u32) -> Form {
        self.forms[id as usize]
    }

    /// Number of distinct forms seen.
    pub fn len(&self) -> usize {
        self.forms.len()
    }

    pub fn is_empty(&self) -> bool {
        self.forms.is_empty()
    }
}

impl Default for Canonicalizer {
    fn default() -> Self {
        Canonicalizer::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Independent isomorphism test: try every bijection (labels and edges preserved).
    fn isomorphic(la: &[Label], ea: &[(usize, usize)], lb: &[Label], eb: &[(usize, usize)]) -> bool {
        if la.len() != lb.len() || ea.len() != eb.len() {
            return false;
        }
        let (mut sa, mut sb) = (la.to_vec(), lb.to_vec());
        sa.sort_unstable();
        sb.sort_unstable();
        if sa != sb {
            return false;
        }
        let n = la.len();
        let adj =
            |e: &[(usize, usize)], a: usize, b: usize| e.iter().any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b));
        let mut perm: Vec<usize> = (0..n).collect();
        // Heap's algorithm over all n! bijections.
        let check = |p: &[usize]| {
            (0..n).all(|v| la[v] == lb[p[v]])
                && (0..n).all(|a| (a + 1..n).all(|b| adj(ea, a, b) == adj(eb, p[a], p[b])))
        };
        if check(&perm) {
            return true;
        }
        let mut c = vec![0; n];
        let mut i = 0;
        while i < n {
            if c[i] < i {
                if i % 2 == 0 {
                    perm.swap(0, i);
                } else {
                    perm.swap(c[i], i);
                }
                if check(&perm) {
                    return true;
                }
                c[i] += 1;
                i = 0;
            } else {
                c[i] = 0;
                i += 1;
            }
        }
        false
    }

    /// A small graph as its labels and its edges.
    type Small = (Vec<Label>, Vec<(usize, usize)>);

    /// Every labelled graph on n vertices with labels from 0..k.
    fn all_graphs(n: usize, k: Label) -> Vec<Small> {
        let pairs: Vec<(usize, usize)> = (0..n).flat_map(|j| (0..j).map(move |i| (i, j))).collect();
        let mut out = vec![];
        for lab in 0..(k as usize).pow(n as u32) {
            let labels: Vec<Label> =
                (0..n).map(|i| ((lab / (k as usize).pow(i as u32)) % k as usize) as Label).collect();
            for mask in 0..1u32 << pairs.len() {
                let edges = pairs.iter().enumerate().filter(|(b, _)| mask >> b & 1 == 1).map(|(_, &p)| p).collect();
                out.push((labels.clone(), edges));
            }
        }
        out
    }

    #[test]
    fn same_form_iff_isomorphic_on_all_small_graphs() {
        for (n, k) in [(1, 3), (2, 3), (3, 3), (4, 2), (4, 3)] {
            let graphs = all_graphs(n, k);
            let forms: Vec<Form> = graphs.iter().map(|(l, e)| Form::of_graph(l, e)).collect();
            // Pairwise on a stride (all pairs for n <= 3; for n = 4 every graph against a sample).
            let step = if graphs.len() > 2000 { 7 } else { 1 };
            for a in 0..graphs.len() {
                for b in (0..graphs.len()).step_by(step) {
                    let iso = isomorphic(&graphs[a].0, &graphs[a].1, &graphs[b].0, &graphs[b].1);
                    assert_eq!(
                        forms[a] == forms[b],
                        iso,
                        "{:?} vs {:?}: forms {} and {}",
                        graphs[a],
                        graphs[b],
                        forms[a],
                        forms[b]
                    );
                }
            }
        }
    }

    #[test]
    fn number_of_classes_matches_known_counts() {
        // Unlabelled graphs on 4 vertices: 11; on 5: 34; on 6: 156 (OEIS A000088).
        for (n, expected) in [(1, 1), (2, 2), (3, 4), (4, 11), (5, 34), (6, 156)] {
            let forms: std::collections::HashSet<Form> =
                all_graphs(n, 1).iter().map(|(l, e)| Form::of_graph(l, e)).collect();
            assert_eq!(forms.len(), expected, "graphs on {n} vertices");
        }
    }

    #[test]
    fn forms_print_and_parse_back() {
        for (l, e) in all_graphs(3, 3).into_iter().chain(all_graphs(4, 2)) {
            let f = Form::of_graph(&l, &e);
            let s = f.to_string();
            assert_eq!(s.parse::<Form>(), Ok(f), "{s}");
            assert_eq!(f.labels().len(), l.len());
            assert_eq!(f.edges().len(), e.len());
        }
        assert_eq!(Form::of_graph(&[1, 0, 1], &[(0, 1), (1, 2)]).to_string(), "L0,L1,L1|0-1,0-2");
        assert_eq!(Form::of_graph(&[3], &[]).to_string(), "L3|");
        // Not canonical, malformed, too big.
        assert!("L1,L0|0-1".parse::<Form>().is_err());
        assert!("L0,L0,L1|1-2".parse::<Form>().is_err(), "the canonical order puts the edge at 0-2");
        assert!("L0,L1,L1|1-2".parse::<Form>().is_ok());
        assert!("L0,L1".parse::<Form>().is_err());
        assert!("L0,L1|1-0".parse::<Form>().is_err());
        assert!("L0,L1|0-2".parse::<Form>().is_err());
        assert!("X0|".parse::<Form>().is_err());
        assert!("L0,L0,L0,L0,L0,L0,L0|".parse::<Form>().is_err());
    }

    #[test]
    fn push_vertex_builds_the_packed_key() {
        let k = push_vertex(push_vertex(push_vertex(0, 5, 0), 7, 0b1), 9, 0b10);
        assert_eq!(k, pack(3, &[5, 7, 9], 1 << pair_bit(0, 1) | 1 << pair_bit(1, 2)));
        let mut c = Canonicalizer::new();
        let a = c.id_of_key(k);
        let b = c.id_of_key(pack(3, &[9, 7, 5], 1 << pair_bit(0, 1) | 1 << pair_bit(1, 2)));
        assert_eq!(a, b, "the same path read from the other end");
        assert_eq!(c.len(), 1);
        assert_eq!(c.form(a).to_string(), "L5,L7,L9|0-1,1-2");
    }
}
