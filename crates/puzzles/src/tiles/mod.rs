//! The sliding-tile family: the board ([`SlidingTile`], 8-, 15-, 24-puzzle
//! and any W x H board up to 32 cells, Korf's convention; defined in
//! `board.rs` and re-exported here), Manhattan distance, the family's
//! `FAMILY` and `Registered` impl, and its additive PDBs ([`pdb`]).

pub mod pdb;

pub use crate::board::{SlidingTile, TileMoves};
use crate::family::{
    boxed, is_pdb, pdb_heuristic, unknown_heuristic, FamilyInfo, HeuristicVisitor, PdbSource, Registered,
};
use crate::heuristic::{Heuristic, Zero};
use crate::pdb::artifact::{Abstraction, Table};
use crate::state::{State, MAX_CELLS};
use crate::PuzzleError;

/// The sliding-tile family in the registry.
pub static FAMILY: FamilyInfo = FamilyInfo {
    family: "sliding-tile",
    names: "N-puzzle (N + 1 a square: 8-puzzle, 15-puzzle, 24-puzzle) or WxH-puzzle (3x4-puzzle), at most 32 cells",
    description: "sliding tiles, Korf's convention: cells[pos] = tile, 0 the blank, goal 0 1 2 ... (blank top left)",
    examples: &["8-puzzle", "15-puzzle", "24-puzzle"],
    heuristics: &[
        ("manhattan", "Manhattan distance (admissible, consistent; updated per move)"),
        (
            "pdb",
            "additive pattern databases: the domain's default set (pdb:SET for another, pdb:1,2,3/4,5,6 for your own)",
        ),
        ("zero", "h = 0"),
    ],
    // The domain's default PDBs: 7-8 on the 15-puzzle, 6-6-6-6 on the 24-puzzle.
    optimal_heuristic: "pdb",
    open: |name| SlidingTile::from_name(name).map(boxed),
};

impl Registered for SlidingTile {
    const FAMILY: &'static FamilyInfo = &FAMILY;
    const ABSTRACTION: Abstraction = Abstraction::TilesAdditive;

    fn check_pdb_pattern(&self, pattern: &[u8]) -> Result<(), PuzzleError> {
        pdb::check_pattern(self, pattern)
    }

    fn build_pdb_table(&self, pattern: &[u8], threads: usize) -> Result<Table, PuzzleError> {
        Ok(Table::Dense(pdb::build(self, pattern, threads)?))
    }

    fn mirror_board(&self) -> Option<SlidingTile> {
        (self.width() == self.height()).then(|| self.clone())
    }

    fn visit_heuristic<V: HeuristicVisitor<Self>>(
        &self,
        name: &str,
        pdbs: PdbSource,
        v: V,
    ) -> Result<V::Out, PuzzleError> {
        Ok(match name {
            "manhattan" => v.visit(&mut Manhattan::new(self), vec![]),
            "zero" => v.visit(&mut Zero, vec![]),
            h if is_pdb(h) => {
                let (mut ph, uses) = pdb_heuristic(self, h, pdbs)?;
                v.visit(&mut ph, uses)
            }
            h => return Err(unknown_heuristic(self, h)),
        })
    }
}

/// Manhattan distance: the sum over tiles of their row and column
/// distances from their goal cells. Updated in O(1) per move along a search.
#[derive(Debug, Clone)]
pub struct Manhattan {
    md: [[u8; MAX_CELLS]; MAX_CELLS],
}

impl Manhattan {
    pub fn new(d: &SlidingTile) -> Manhattan {
        Manhattan { md: d.md }
    }

    /// h(s) from scratch.
    pub fn value(&self, s: &State) -> u32 {
        s.cells().iter().enumerate().map(|(cell, &t)| self.md[t as usize & (MAX_CELLS - 1)][cell] as u32).sum()
    }
}

impl Heuristic<SlidingTile> for Manhattan {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        self.value(s)
    }

    /// The blank moves from its cell to `to`: the tile on `to` slides onto
    /// the blank's cell, and only its distance changes.
    #[inline]
    fn h_move(&mut self, parent: &State, to: u8, parent_h: u32) -> Option<u32> {
        let from = parent.aux() as usize & (MAX_CELLS - 1);
        let to = to as usize & (MAX_CELLS - 1);
        let row = &self.md[parent.raw()[to] as usize & (MAX_CELLS - 1)];
        Some(parent_h + row[from] as u32 - row[to] as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Domain;

    fn p15() -> SlidingTile {
        SlidingTile::new(4, 4).unwrap()
    }

    #[test]
    fn names_and_sizes() {
        assert_eq!(SlidingTile::from_name("15-puzzle").unwrap().unwrap().size(), 16);
        assert_eq!(SlidingTile::from_name("8-puzzle").unwrap().unwrap().name(), "8-puzzle");
        let r = SlidingTile::from_name("3x4-puzzle").unwrap().unwrap();
        assert_eq!((r.width(), r.height(), r.name()), (3, 4, "3x4-puzzle"));
        assert!(SlidingTile::from_name("14-puzzle").unwrap().is_err());
        assert!(SlidingTile::from_name("35-puzzle").unwrap().is_err(), "36 cells is over MAX_CELLS");
        assert!(SlidingTile::from_name("24-pancake").is_none());
    }

    #[test]
    fn operator_order_is_up_left_right_down() {
        let d = p15();
        assert_eq!(d.neighbours(5), &[1, 4, 6, 9]);
        assert_eq!(d.neighbours(0), &[1, 4]);
        assert_eq!(d.neighbours(15), &[11, 14]);
    }

    #[test]
    fn apply_then_reverse_restores() {
        let d = p15();
        let mut s = *d.goal();
        let back = d.apply(&mut s, 1);
        assert_eq!(s.cells()[..2], [1, 0]);
        assert_eq!(d.blank(&s), 1);
        assert_eq!(back, 0);
        d.apply(&mut s, back);
        assert_eq!(&s, d.goal());
    }

    #[test]
    fn manhattan_on_korf_instance_one() {
        // Korf (1985) instance 1; its Manhattan distance is 41.
        let d = p15();
        let s = d.parse_state("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").unwrap();
        assert_eq!(Manhattan::new(&d).value(&s), 41);
        assert_eq!(Manhattan::new(&d).value(d.goal()), 0);
    }

    #[test]
    fn incremental_manhattan_matches_recomputation() {
        let d = p15();
        let mut m = Manhattan::new(&d);
        let mut s = d.parse_state("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").unwrap();
        let mut h = m.h(&s);
        for step in 0..200usize {
            let ops: Vec<u8> = d.ops(&s).collect();
            let op = ops[step * 7 % ops.len()];
            h = m.h_move(&s, op, h).unwrap();
            d.apply(&mut s, op);
            assert_eq!(h, m.value(&s));
        }
    }

    #[test]
    fn bad_states_are_refused_with_reasons() {
        let d = p15();
        let e = |t: &str| d.parse_state(t).unwrap_err().to_string();
        assert!(e("1 2 3").contains("expected 16 numbers, got 3"));
        assert!(e("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 14").contains("14 appears twice"));
        assert!(e("0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 16").contains("out of range"));
        // Two tiles swapped: the other parity class.
        assert!(e("0 2 1 3 4 5 6 7 8 9 10 11 12 13 14 15").contains("cannot reach the goal"));
    }

    #[test]
    fn solvability_matches_parity_on_odd_and_even_widths() {
        let d8 = SlidingTile::new(3, 3).unwrap();
        assert!(d8.parse_state("1 0 2 3 4 5 6 7 8").is_ok());
        assert!(d8.parse_state("0 2 1 3 4 5 6 7 8").is_err());
        // Blank one row down in an even-width board: reachable only with an
        // odd number of inversions.
        let d = p15();
        assert!(d.parse_state("4 1 2 3 0 5 6 7 8 9 10 11 12 13 14 15").is_ok());
    }

    #[test]
    fn reflection_keeps_the_goal_and_manhattan() {
        let d = p15();
        assert_eq!(&d.reflect(d.goal()), d.goal());
        let s = d.parse_state("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3").unwrap();
        let r = d.reflect(&s);
        assert!(d.is_solvable(&r));
        assert_eq!(Manhattan::new(&d).value(&r), Manhattan::new(&d).value(&s));
        assert_eq!(d.reflect(&r), s);
    }
}
