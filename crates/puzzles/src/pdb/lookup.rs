//! PDBs as a heuristic: the largest, over groups, of the sum of a group's
//! PDB values (disjoint patterns add up); optionally also on the state's
//! mirror image. Per-PDB values are there for learners (the paper's PDB
//! features).

use std::sync::Arc;

use super::artifact::{Abstraction, Pdb};
use super::rank::PartialPerm;
use super::shape;
use super::UNREACHED;
use crate::board::SlidingTile;
use crate::domain::Domain;
use crate::heuristic::Heuristic;
use crate::state::{State, MAX_CELLS};

/// One PDB, ready to look up.
#[derive(Debug, Clone)]
struct Lookup {
    pattern: Vec<u8>,
    pp: PartialPerm,
    abstraction: Abstraction,
    pdb: Arc<Pdb>,
}

impl Lookup {
    /// `inv`: where each tile or pancake is (unused by blocksworld).
    #[inline]
    fn value(&self, s: &State, inv: &[u8; MAX_CELLS]) -> u32 {
        let v = match self.abstraction {
            Abstraction::TilesAdditive | Abstraction::PancakeLocation => {
                let mut cells = [0u8; MAX_CELLS];
                for (c, &t) in cells.iter_mut().zip(&self.pattern) {
                    *c = inv[t as usize & (MAX_CELLS - 1)];
                }
                self.pdb.dense()[self.pp.rank(&cells[..self.pattern.len()]) as usize]
            }
            // Every abstract state is reachable from the goal; a missing key
            // could only come from a foreign table: 0 keeps h admissible.
            Abstraction::BlocksShape => self.pdb.sparse_get(shape::key(s, &self.pattern)).unwrap_or(0),
        };
        // Unreached entries belong to states that cannot reach the goal.
        if v == UNREACHED {
            0
        } else {
            v as u32
        }
    }
}

/// The number of cells of a dense PDB's domain, read off its table: one
/// entry per placement of the `k` pattern tiles or pancakes on n cells,
/// n!/(n-k)! of them, which grows with n, so one n fits. (The domain's name
/// would say it too, but opening it by name is the registry's, which knows
/// the families, which build PDBs.) 0 where none fits, as for a name no
/// family knows.
fn cells_of_dense(pdb: &Pdb, k: usize) -> usize {
    let entries = pdb.dense().len() as u64;
    for n in k..=MAX_CELLS {
        match (0..k as u64).try_fold(1u64, |p, i| p.checked_mul(n as u64 - i)) {
            Some(size) if size == entries => return n,
            Some(size) if size < entries => {}
            _ => break,
        }
    }
    0
}

/// How [`PdbHeuristic`] combines values: see the module docs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Combine {
    /// The largest group sum.
    MaxOfSums,
    /// The largest group sum, on the state and on its mirror image.
    MaxOfSumsReflected,
}

/// A heuristic from groups of PDBs.
#[derive(Debug, Clone)]
pub struct PdbHeuristic {
    groups: Vec<Vec<Lookup>>,
    /// Set for reflected lookups (square sliding-tile boards).
    mirror: Option<SlidingTile>,
}

impl PdbHeuristic {
    /// `groups[g]`: PDBs whose values add up. `mirror`: a square board, to
    /// also look up the reflected state.
    pub fn new(groups: Vec<Vec<Arc<Pdb>>>, mirror: Option<SlidingTile>) -> PdbHeuristic {
        let groups = groups
            .into_iter()
            .map(|g| {
                g.into_iter()
                    .map(|pdb| {
                        let k = pdb.spec.pattern.len();
                        let n = match pdb.spec.abstraction {
                            Abstraction::BlocksShape => 0,
                            _ => cells_of_dense(&pdb, k),
                        };
                        Lookup {
                            pattern: pdb.spec.pattern.clone(),
                            pp: PartialPerm::new(n.max(k), k),
                            abstraction: pdb.spec.abstraction,
                            pdb,
                        }
                    })
                    .collect()
            })
            .collect();
        PdbHeuristic { groups, mirror }
    }

    pub fn combine(&self) -> Combine {
        if self.mirror.is_some() {
            Combine::MaxOfSumsReflected
        } else {
            Combine::MaxOfSums
        }
    }

    fn max_of_sums(&self, s: &State) -> u32 {
        let inv = s.inverse();
        self.groups.iter().map(|g| g.iter().map(|l| l.value(s, &inv)).sum()).max().unwrap_or(0)
    }

    /// h(s).
    pub fn value(&self, s: &State) -> u32 {
        let h = self.max_of_sums(s);
        match &self.mirror {
            Some(m) => h.max(self.max_of_sums(&m.reflect(s))),
            None => h,
        }
    }

    /// Each PDB's value on `s` (not reflected), groups in order, appended
    /// to `out`: the paper's PDB features before scaling.
    pub fn values(&self, s: &State, out: &mut Vec<u32>) {
        let inv = s.inverse();
        out.extend(self.groups.iter().flat_map(|g| g.iter()).map(|l| l.value(s, &inv)));
    }

    /// Each PDB's largest entry, in the order of [`PdbHeuristic::values`]
    /// (the paper's code divides each feature by it).
    pub fn maxima(&self) -> Vec<u32> {
        self.groups.iter().flat_map(|g| g.iter()).map(|l| l.pdb.max_value() as u32).collect()
    }

    /// The group sums on `s`, in order.
    pub fn group_sums(&self, s: &State) -> Vec<u32> {
        let inv = s.inverse();
        self.groups.iter().map(|g| g.iter().map(|l| l.value(s, &inv)).sum()).collect()
    }
}

impl<D: Domain + ?Sized> Heuristic<D> for PdbHeuristic {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        self.value(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::registry::Registered;
    use crate::walk::random_walk;

    #[test]
    fn features_agree_with_the_heuristic() {
        let d = SlidingTile::new(3, 3).unwrap();
        let pdb = |p: &[u8]| Arc::new(d.build_pdb(p, 1).unwrap());
        let groups = vec![vec![pdb(&[1, 2, 3, 4]), pdb(&[5, 6, 7, 8])], vec![pdb(&[1, 3, 5, 7]), pdb(&[2, 4, 6, 8])]];
        let h = PdbHeuristic::new(groups, None);
        assert_eq!(h.combine(), Combine::MaxOfSums);
        assert_eq!(h.maxima().len(), 4);
        for seed in 0..20 {
            let s = random_walk(&d, 40, seed);
            let mut v = Vec::new();
            h.values(&s, &mut v);
            let sums = h.group_sums(&s);
            assert_eq!(sums, vec![v[0] + v[1], v[2] + v[3]]);
            assert_eq!(h.value(&s), sums[0].max(sums[1]));
            assert!(v.iter().zip(h.maxima()).all(|(x, m)| *x <= m));
        }
    }
}
