//! The frozen feature vocabulary of a domain: the feature graphs seen in
//! training, in a fixed order, which turn counts into a fixed-length vector.
//!
//! The thesis keeps only the graphs of B^k_alpha that occurred in the
//! training data ("features graphs"). Order: by number of vertices, then by
//! printed canonical form, so it does not depend on the order states were
//! seen in. A graph met later that training never saw has no slot; its
//! occurrences are counted and reported by [`Vocabulary::vector`] rather
//! than dropped without a word. A vocabulary is stored with the model that
//! reads its vectors (serde: domain symbols, alpha and the printed forms).

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::canonical::Form;
use crate::counts::Counts;
use crate::object_graph::DomainSymbols;
use crate::Error;

/// An ordered list of feature graphs of at most `alpha` vertices, for one domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct Vocabulary {
    symbols: DomainSymbols,
    alpha: usize,
    graphs: Vec<Form>,
    index: FxHashMap<Form, usize>,
}

/// What is written to disk: everything but the index.
#[derive(Serialize, Deserialize)]
struct Stored {
    symbols: DomainSymbols,
    alpha: usize,
    graphs: Vec<Form>,
}

impl TryFrom<Stored> for Vocabulary {
    type Error = Error;

    fn try_from(s: Stored) -> Result<Vocabulary, Error> {
        crate::enumerate::check_alpha(s.alpha)?;
        if let Some(f) = s.graphs.iter().find(|f| f.num_vertices() > s.alpha) {
            return Err(Error::Input(format!("vocabulary of alpha {} lists {f}, which has more vertices", s.alpha)));
        }
        let v = Vocabulary::from_graphs(s.symbols, s.alpha, s.graphs.clone());
        if v.graphs != s.graphs {
            return Err(Error::Input("vocabulary graphs are repeated or out of order (by size, then form)".into()));
        }
        Ok(v)
    }
}

impl From<Vocabulary> for Stored {
    fn from(v: Vocabulary) -> Stored {
        Stored { symbols: v.symbols, alpha: v.alpha, graphs: v.graphs }
    }
}

impl Vocabulary {
    /// The graphs of at most `alpha` vertices that occur in at least one of `samples`.
    /// Every sample must count graphs up to at least `alpha` vertices.
    pub fn build<'a>(
        symbols: DomainSymbols,
        alpha: usize,
        samples: impl IntoIterator<Item = &'a Counts>,
    ) -> Result<Vocabulary, Error> {
        crate::enumerate::check_alpha(alpha)?;
        let mut seen: Vec<Form> = vec![];
        let mut set = rustc_hash::FxHashSet::default();
        for c in samples {
            if c.alpha() < alpha {
                return Err(Error::Input(format!("a sample counts graphs up to {} vertices, not {alpha}", c.alpha())));
            }
            for (f, n) in c.iter() {
                if n > 0 && f.num_vertices() <= alpha && set.insert(f) {
                    seen.push(f);
                }
            }
        }
        Ok(Vocabulary::from_graphs(symbols, alpha, seen))
    }

    fn from_graphs(symbols: DomainSymbols, alpha: usize, graphs: Vec<Form>) -> Vocabulary {
        let mut keyed: Vec<(usize, String, Form)> =
            graphs.into_iter().map(|f| (f.num_vertices(), f.to_string(), f)).collect();
        keyed.sort();
        keyed.dedup_by(|a, b| a.2 == b.2);
        let graphs: Vec<Form> = keyed.into_iter().map(|(_, _, f)| f).collect();
        let index = graphs.iter().enumerate().map(|(i, &f)| (f, i)).collect();
        Vocabulary { symbols, alpha, graphs, index }
    }

    pub fn symbols(&self) -> &DomainSymbols {
        &self.symbols
    }

    pub fn alpha(&self) -> usize {
        self.alpha
    }

    /// Length of the feature vector.
    pub fn len(&self) -> usize {
        self.graphs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.graphs.is_empty()
    }

    /// The feature graphs, in vector order.
    pub fn graphs(&self) -> &[Form] {
        &self.graphs
    }

    /// The vector slot of a graph, if training saw it.
    pub fn position(&self, f: Form) -> Option<usize> {
        self.index.get(&f).copied()
    }

    /// The feature vector of `counts`, and the number of occurrences of
    /// graphs (of at most alpha vertices) that have no slot because training
    /// never saw them. Counts of larger graphs are not part of F_alpha and
    /// are left out (F_alpha is a sub-vector of F_(alpha+1)).
    pub fn vector(&self, counts: &Counts) -> Result<(Vec<f32>, usize), Error> {
        if counts.alpha() < self.alpha {
            return Err(Error::Input(format!(
                "counts of graphs up to {} vertices given to a vocabulary of alpha {}",
                counts.alpha(),
                self.alpha
            )));
        }
        let mut v = vec![0.0f32; self.graphs.len()];
        let mut unknown = 0usize;
        for (f, n) in counts.iter() {
            match self.index.get(&f) {
                Some(&i) => v[i] = n as f32,
                None if f.num_vertices() <= self.alpha => unknown += n as usize,
                None => {}
            }
        }
        Ok((v, unknown))
    }

    /// The graphs of `counts` (of at most alpha vertices) that training never saw.
    pub fn unknown_graphs(&self, counts: &Counts) -> Vec<Form> {
        counts
            .iter()
            .filter(|&(f, n)| n > 0 && f.num_vertices() <= self.alpha && !self.index.contains_key(&f))
            .map(|(f, _)| f)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enumerate::features_from_scratch;
    use crate::graph::Graph;

    fn symbols() -> DomainSymbols {
        DomainSymbols { domain: "toy".into(), predicates: vec!["p".into()], types: vec![] }
    }

    fn path(labels: &[u16]) -> Graph {
        let mut g = Graph::with_vertices(labels);
        for i in 1..labels.len() as u32 {
            g.add_edge(i - 1, i);
        }
        g
    }

    #[test]
    fn vocabulary_orders_counts_and_reports_unseen_graphs() {
        let a = features_from_scratch(&path(&[0, 1, 0]), 3).unwrap();
        let b = features_from_scratch(&path(&[1, 1]), 3).unwrap();
        let v = Vocabulary::build(symbols(), 2, [&a, &b]).unwrap();
        let names: Vec<String> = v.graphs().iter().map(|f| f.to_string()).collect();
        assert_eq!(names, ["L0|", "L1|", "L0,L1|0-1", "L1,L1|0-1"]);
        // The same vocabulary whatever the order of samples.
        assert_eq!(Vocabulary::build(symbols(), 2, [&b, &a]).unwrap(), v);
        assert_eq!(v.vector(&a).unwrap(), (vec![2.0, 1.0, 2.0, 0.0], 0));
        // A graph with a vertex of label 3 was never seen: its occurrences are reported.
        let c = features_from_scratch(&path(&[0, 1, 3]), 2).unwrap();
        let (vec, unknown) = v.vector(&c).unwrap();
        assert_eq!(vec, vec![1.0, 1.0, 1.0, 0.0]);
        assert_eq!(unknown, 2, "L3| and L1,L3|0-1");
        assert_eq!(v.unknown_graphs(&c).len(), 2);
        // Counts of too small an alpha are refused.
        let small = features_from_scratch(&path(&[0, 1]), 1).unwrap();
        assert!(v.vector(&small).is_err());
        assert!(Vocabulary::build(symbols(), 2, [&small]).is_err());
    }

    #[test]
    fn vocabulary_round_trips_through_json_and_rejects_tampering() {
        let a = features_from_scratch(&path(&[0, 1, 0, 1]), 4).unwrap();
        let v = Vocabulary::build(symbols(), 4, [&a]).unwrap();
        let text = serde_json::to_string(&v).unwrap();
        let back: Vocabulary = serde_json::from_str(&text).unwrap();
        assert_eq!(back, v);
        assert_eq!(back.position(v.graphs()[2]), Some(2));
        let swapped = text.replacen("\"L0|\",\"L1|\"", "\"L1|\",\"L0|\"", 1);
        assert_ne!(swapped, text);
        assert!(serde_json::from_str::<Vocabulary>(&swapped).is_err());
        let not_canonical = text.replacen("\"L0,L1|0-1\"", "\"L1,L0|0-1\"", 1);
        assert_ne!(not_canonical, text);
        assert!(serde_json::from_str::<Vocabulary>(&not_canonical).is_err());
    }
}
