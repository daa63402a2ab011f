//! F_alpha(s) as a sparse map: occurrences per feature graph, in canonical-form order.

use std::collections::BTreeMap;

use crate::canonical::{Canonicalizer, Form};

/// The number of occurrences of each connected feature graph of at most
/// `alpha` vertices; graphs that do not occur are absent (count 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Counts {
    alpha: usize,
    map: BTreeMap<Form, u64>,
}

impl Counts {
    pub fn new(alpha: usize) -> Counts {
        Counts { alpha, map: BTreeMap::new() }
    }

    /// From dense counts indexed by canonical id of `canon`.
    pub fn from_ids<C: Copy + Into<u64>>(alpha: usize, counts: &[C], canon: &Canonicalizer) -> Counts {
        let map = counts
            .iter()
            .enumerate()
            .filter(|(_, &c)| c.into() > 0)
            .map(|(id, &c)| (canon.form(id as u32), c.into()))
            .collect();
        Counts { alpha, map }
    }

    pub fn alpha(&self) -> usize {
        self.alpha
    }

    /// Occurrences of `form` (0 if none).
    pub fn get(&self, form: Form) -> u64 {
        self.map.get(&form).copied().unwrap_or(0)
    }

    pub fn add(&mut self, form: Form, n: u64) {
        *self.map.entry(form).or_insert(0) += n;
    }

    /// Number of distinct feature graphs that occur.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Total number of occurrences.
    pub fn total(&self) -> u64 {
        self.map.values().sum()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Form, u64)> + '_ {
        self.map.iter().map(|(&f, &c)| (f, c))
    }

    pub fn as_map(&self) -> &BTreeMap<Form, u64> {
        &self.map
    }

    /// The counts of graphs of at most `alpha` vertices: F_alpha is a sub-vector of F_(alpha+1).
    pub fn restrict(&self, alpha: usize) -> Counts {
        let map = self.map.iter().filter(|(f, _)| f.num_vertices() <= alpha).map(|(&f, &c)| (f, c)).collect();
        Counts { alpha: alpha.min(self.alpha), map }
    }
}
