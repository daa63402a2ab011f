//! The pancake puzzle (the paper's 24-pancake; any size from 2 to 32):
//! `cells[loc] = pancake`, location 0 the top of the stack, goal `0 1 2
//! ...` (0 on top, the largest at the bottom), as in the paper's code.
//!
//! Operator k (1 <= k < n) reverses locations `0..=k` (k + 1 pancakes); it
//! is its own reverse, so parent pruning skips repeating the last flip.

use std::ops::Range;

pub mod pdb;

use crate::domain::Domain;
use crate::family::{
    boxed, is_pdb, pdb_heuristic, unknown_heuristic, FamilyInfo, HeuristicVisitor, PdbSource, Registered,
};
use crate::heuristic::{Heuristic, Zero};
use crate::pdb::artifact::{Abstraction, Table};
use crate::state::{check_permutation, State, MAX_CELLS};
use crate::PuzzleError;

/// The pancake family in the registry.
pub static FAMILY: FamilyInfo = FamilyInfo {
    family: "pancake",
    names: "N-pancake (2 to 32 pancakes)",
    description: "pancake stacks: cells[location] = pancake, 0 the top; goal 0 1 2 ... (0 on top)",
    examples: &["24-pancake"],
    heuristics: &[
        ("gap", "Helmert's gap heuristic (admissible, consistent; updated per flip)"),
        ("pdb", "location-based pattern databases: the domain's default set (pdb:SET, pdb:0,1,2/3,4,5)"),
        ("zero", "h = 0"),
    ],
    // 24-pancake, 1000-move walks: the gap heuristic solves them in well
    // under a millisecond; IDA* with the paper's PDBs did not within 5 minutes.
    optimal_heuristic: "gap",
    open: |name| Pancake::from_name(name).map(boxed),
};

/// An n-pancake puzzle.
#[derive(Debug, Clone)]
pub struct Pancake {
    name: String,
    goal: State,
}

impl Pancake {
    pub fn new(n: usize) -> Result<Pancake, PuzzleError> {
        if !(2..=MAX_CELLS).contains(&n) {
            return Err(PuzzleError::BadDomain(format!("a pancake stack has 2 to {MAX_CELLS} pancakes, not {n}")));
        }
        Ok(Pancake { name: format!("{n}-pancake"), goal: State::identity(n) })
    }

    /// `N-pancake`.
    pub fn from_name(name: &str) -> Option<Result<Pancake, PuzzleError>> {
        let n: usize = name.strip_suffix("-pancake")?.parse().ok()?;
        Some(Pancake::new(n))
    }
}

impl Domain for Pancake {
    type Op = u8;
    type Ops = Range<u8>;

    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> usize {
        self.goal.len()
    }

    fn operators(&self) -> String {
        format!("flip k = 1..{}: reverse the top k + 1 pancakes", self.size() - 1)
    }

    fn goal(&self) -> &State {
        &self.goal
    }

    fn state_from_cells(&self, cells: &[u8]) -> Result<State, PuzzleError> {
        if cells.len() != self.size() {
            return Err(PuzzleError::BadState(format!(
                "the {} has {} pancakes, got {}",
                self.name,
                self.size(),
                cells.len()
            )));
        }
        check_permutation(cells)?;
        Ok(State::from_cells_unchecked(cells, 0))
    }

    #[inline]
    fn ops(&self, _: &State) -> Range<u8> {
        1..self.goal.len() as u8
    }

    #[inline]
    fn apply(&self, s: &mut State, k: u8) -> u8 {
        s.cells_mut()[..=(k as usize & (MAX_CELLS - 1))].reverse();
        k
    }

    fn op_label(&self, _: &State, k: u8) -> String {
        format!("flip {k}")
    }
}

impl Registered for Pancake {
    const FAMILY: &'static FamilyInfo = &FAMILY;
    const ABSTRACTION: Abstraction = Abstraction::PancakeLocation;

    fn check_pdb_pattern(&self, pattern: &[u8]) -> Result<(), PuzzleError> {
        pdb::check_pattern(self, pattern)
    }

    fn build_pdb_table(&self, pattern: &[u8], _threads: usize) -> Result<Table, PuzzleError> {
        Ok(Table::Dense(pdb::build(self, pattern)?))
    }

    fn visit_heuristic<V: HeuristicVisitor<Self>>(
        &self,
        name: &str,
        pdbs: PdbSource,
        v: V,
    ) -> Result<V::Out, PuzzleError> {
        Ok(match name {
            "gap" => v.visit(&mut Gap, vec![]),
            "zero" => v.visit(&mut Zero, vec![]),
            h if is_pdb(h) => {
                let (mut ph, uses) = pdb_heuristic(self, h, pdbs)?;
                v.visit(&mut ph, uses)
            }
            h => return Err(unknown_heuristic(self, h)),
        })
    }
}

/// Helmert's gap heuristic: the number of neighbouring locations (the
/// bottom pancake and the plate included) whose pancakes are not
/// consecutive. A flip of `0..=k` changes one neighbourhood only (between
/// locations k and k + 1), so it is admissible and consistent, and updated
/// in O(1) along a search.
#[derive(Debug, Clone, Copy, Default)]
pub struct Gap;

impl Gap {
    #[inline]
    fn gap(a: u8, b: u8) -> u32 {
        (a.abs_diff(b) != 1) as u32
    }

    /// The pancake below location `i`, the plate (n) below the last.
    #[inline]
    fn below(s: &State, i: usize) -> u8 {
        if i + 1 < s.len() {
            s.raw()[(i + 1) & (MAX_CELLS - 1)]
        } else {
            s.len() as u8
        }
    }

    pub fn value(s: &State) -> u32 {
        (0..s.len()).map(|i| Gap::gap(s.cells()[i], Gap::below(s, i))).sum()
    }
}

impl Heuristic<Pancake> for Gap {
    fn h(&mut self, s: &State) -> u32 {
        Gap::value(s)
    }

    /// Flip k brings the top pancake down to location k: only the pair at
    /// (k, k + 1) changes.
    #[inline]
    fn h_move(&mut self, parent: &State, k: u8, parent_h: u32) -> Option<u32> {
        let k = k as usize & (MAX_CELLS - 1);
        let below = Gap::below(parent, k);
        Some(parent_h + Gap::gap(parent.raw()[0], below) - Gap::gap(parent.raw()[k], below))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flips_are_their_own_reverse() {
        let d = Pancake::new(6).unwrap();
        let mut s = *d.goal();
        assert_eq!(d.apply(&mut s, 3), 3);
        assert_eq!(s.cells(), &[3, 2, 1, 0, 4, 5]);
        d.apply(&mut s, 3);
        assert_eq!(&s, d.goal());
        assert_eq!(d.ops(&s).collect::<Vec<_>>(), vec![1, 2, 3, 4, 5]);
    }

    #[test]
    fn gap_values_and_increments() {
        let d = Pancake::new(6).unwrap();
        assert_eq!(Gap::value(d.goal()), 0);
        // 3 2 1 0 | 4 5: one gap, between 0 and 4.
        let s = d.parse_state("3 2 1 0 4 5").unwrap();
        assert_eq!(Gap::value(&s), 1);
        // The bottom pancake must be the largest: 1 0 (plate 2) has a gap at the bottom.
        assert_eq!(Gap::value(&Pancake::new(2).unwrap().parse_state("1 0").unwrap()), 1);
        let mut g = Gap;
        let mut s = d.parse_state("4 0 5 2 1 3").unwrap();
        let mut h = g.h(&s);
        for step in 0..100u8 {
            let k = 1 + (step as u32 * 3 % 5) as u8;
            h = g.h_move(&s, k, h).unwrap();
            d.apply(&mut s, k);
            assert_eq!(h, Gap::value(&s));
        }
    }

    #[test]
    fn names_and_bad_states() {
        assert_eq!(Pancake::from_name("24-pancake").unwrap().unwrap().size(), 24);
        assert!(Pancake::from_name("40-pancake").unwrap().is_err());
        let d = Pancake::new(4).unwrap();
        assert!(d.parse_state("0 1 1 3").unwrap_err().to_string().contains("1 appears twice"));
        assert!(d.parse_state("0 1 2").unwrap_err().to_string().contains("expected 4 numbers"));
    }
}
