//! Blocksworld as the paper's code has it (the 15-blocksworld; any size from
//! 2 to 32): `cells[b - 1]` is the block that block b (1..=n) stands on, 0
//! the table. The goal, `0 1 2 ...`, is one tower: block 1 on the table,
//! block b on block b - 1.
//!
//! An operator moves a clear block onto another clear block, or onto the
//! table if it is not already there: [`BlockMove`] `{ block, to }`. Its
//! reverse moves the block back to where it stood.
//!
//! Parent pruning: the paper's code compares the next operator with the
//! last one *itself* (`op.Equals(pop)` with `pop = op`), which for
//! blocksworld never matches, so its searches and walks do not prune here.
//! We prune the reverse move, as in the other domains: equal plans and
//! costs, fewer generated nodes.

pub mod pdb;

use crate::domain::Domain;
use crate::family::{
    boxed, is_pdb, pdb_heuristic, unknown_heuristic, FamilyInfo, HeuristicVisitor, PdbSource, Registered,
};
use crate::heuristic::{Heuristic, Zero};
use crate::pdb::artifact::{Abstraction, Table};
use crate::state::{State, MAX_CELLS};
use crate::PuzzleError;

/// The blocksworld family in the registry.
pub static FAMILY: FamilyInfo = FamilyInfo {
    family: "blocksworld",
    names: "N-blocksworld (2 to 32 blocks; PDBs up to 15)",
    description:
        "blocks: cells[b - 1] = the block b stands on (0 the table); goal 0 1 2 ... (one tower, 1 at the bottom)",
    examples: &["15-blocksworld"],
    heuristics: &[
        ("misplaced", "blocks not on their goal support (admissible, consistent)"),
        ("pdb", "the paper's pattern databases, combined by max (pdb:SET, pdb:1,2,3,4|5,6,7,8)"),
        ("zero", "h = 0"),
    ],
    // 15-blocksworld, 1000-move walks: the paper's twelve PDBs in seconds;
    // misplaced blocks not within 4 minutes.
    optimal_heuristic: "pdb",
    open: |name| Blocksworld::from_name(name).map(boxed),
};

/// An n-block blocksworld.
#[derive(Debug, Clone)]
pub struct Blocksworld {
    name: String,
    goal: State,
}

/// Move `block` onto `to` (a block, or 0 for the table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockMove {
    pub block: u8,
    pub to: u8,
}

impl Blocksworld {
    pub fn new(n: usize) -> Result<Blocksworld, PuzzleError> {
        if !(2..=MAX_CELLS).contains(&n) {
            return Err(PuzzleError::BadDomain(format!("a blocksworld has 2 to {MAX_CELLS} blocks, not {n}")));
        }
        Ok(Blocksworld { name: format!("{n}-blocksworld"), goal: State::identity(n) })
    }

    /// `N-blocksworld`.
    pub fn from_name(name: &str) -> Option<Result<Blocksworld, PuzzleError>> {
        let n: usize = name.strip_suffix("-blocksworld")?.parse().ok()?;
        Some(Blocksworld::new(n))
    }

    /// Bit b set for each block b that has nothing on it.
    #[inline]
    fn clear_mask(&self, s: &State) -> u64 {
        let n = self.size();
        let all = ((1u64 << n) - 1) << 1;
        let mut covered = 0u64;
        for &below in s.cells() {
            covered |= 1u64 << below;
        }
        all & !covered
    }

    /// The towers, each listed from the table up, ordered by their bottom
    /// block.
    pub fn stacks(&self, s: &State) -> Vec<Vec<u8>> {
        let n = self.size();
        let mut above = [0u8; MAX_CELLS + 1];
        for b in 1..=n {
            let below = s.cells()[b - 1] as usize;
            if below != 0 {
                above[below] = b as u8;
            }
        }
        let mut out = Vec::new();
        for b in 1..=n {
            if s.cells()[b - 1] == 0 {
                let mut stack = vec![b as u8];
                let mut top = b;
                while above[top] != 0 {
                    top = above[top] as usize;
                    stack.push(top as u8);
                }
                out.push(stack);
            }
        }
        out
    }
}

impl Domain for Blocksworld {
    type Op = BlockMove;
    type Ops = BlockMoves;

    fn name(&self) -> &str {
        &self.name
    }

    fn size(&self) -> usize {
        self.goal.len()
    }

    fn operators(&self) -> String {
        "move a clear block onto another clear block, or onto the table".into()
    }

    fn goal(&self) -> &State {
        &self.goal
    }

    fn state_from_cells(&self, cells: &[u8]) -> Result<State, PuzzleError> {
        let n = self.size();
        if cells.len() != n {
            return Err(PuzzleError::BadState(format!("the {} has {n} blocks, got {}", self.name, cells.len())));
        }
        let mut carried = [0u8; MAX_CELLS + 1];
        for (i, &below) in cells.iter().enumerate() {
            let b = i + 1;
            if below as usize > n {
                return Err(PuzzleError::BadState(format!("block {b} stands on {below}: blocks go from 1 to {n}")));
            }
            if below as usize == b {
                return Err(PuzzleError::BadState(format!("block {b} stands on itself")));
            }
            if below != 0 {
                if carried[below as usize] != 0 {
                    return Err(PuzzleError::BadState(format!(
                        "blocks {} and {b} both stand on block {below}",
                        carried[below as usize]
                    )));
                }
                carried[below as usize] = b as u8;
            }
        }
        for start in 1..=n {
            let mut b = start;
            for _ in 0..=n {
                b = cells[b - 1] as usize;
                if b == 0 {
                    break;
                }
            }
            if b != 0 {
                return Err(PuzzleError::BadState(format!("block {start} is in a cycle of blocks, not on the table")));
            }
        }
        Ok(State::from_cells_unchecked(cells, 0))
    }

    fn ops(&self, s: &State) -> BlockMoves {
        let clear = self.clear_mask(s);
        let mut on_table = 0u64;
        for (i, &below) in s.cells().iter().enumerate() {
            if below == 0 {
                on_table |= 1u64 << (i + 1);
            }
        }
        BlockMoves { clear, on_table, rest_blocks: clear, block: 0, rest_to: 0, table_pending: false }
    }

    #[inline]
    fn apply(&self, s: &mut State, m: BlockMove) -> BlockMove {
        let cell = &mut s.cells_mut()[(m.block as usize).wrapping_sub(1) & (MAX_CELLS - 1)];
        let old = *cell;
        *cell = m.to;
        BlockMove { block: m.block, to: old }
    }

    fn op_label(&self, _: &State, m: BlockMove) -> String {
        if m.to == 0 {
            format!("{}->table", m.block)
        } else {
            format!("{}->{}", m.block, m.to)
        }
    }
}

impl Registered for Blocksworld {
    const FAMILY: &'static FamilyInfo = &FAMILY;
    const ABSTRACTION: Abstraction = Abstraction::BlocksShape;

    fn check_pdb_pattern(&self, pattern: &[u8]) -> Result<(), PuzzleError> {
        pdb::check_pattern(self, pattern)
    }

    fn build_pdb_table(&self, pattern: &[u8], _threads: usize) -> Result<Table, PuzzleError> {
        let (keys, values) = pdb::build(self, pattern)?;
        Ok(Table::Sparse { keys, values })
    }

    fn visit_heuristic<V: HeuristicVisitor<Self>>(
        &self,
        name: &str,
        pdbs: PdbSource,
        v: V,
    ) -> Result<V::Out, PuzzleError> {
        Ok(match name {
            "misplaced" => v.visit(&mut Misplaced, vec![]),
            "zero" => v.visit(&mut Zero, vec![]),
            h if is_pdb(h) => {
                let (mut ph, uses) = pdb_heuristic(self, h, pdbs)?;
                v.visit(&mut ph, uses)
            }
            h => return Err(unknown_heuristic(self, h)),
        })
    }
}

/// The paper's code's order: clear blocks ascending; for each, the other
/// clear blocks ascending, then the table if the block is not on it.
#[derive(Debug, Clone, Copy)]
pub struct BlockMoves {
    clear: u64,
    on_table: u64,
    rest_blocks: u64,
    block: u8,
    rest_to: u64,
    table_pending: bool,
}

impl Iterator for BlockMoves {
    type Item = BlockMove;

    #[inline]
    fn next(&mut self) -> Option<BlockMove> {
        loop {
            if self.block != 0 {
                if self.rest_to != 0 {
                    let to = self.rest_to.trailing_zeros() as u8;
                    self.rest_to &= self.rest_to - 1;
                    return Some(BlockMove { block: self.block, to });
                }
                if self.table_pending {
                    self.table_pending = false;
                    return Some(BlockMove { block: self.block, to: 0 });
                }
            }
            if self.rest_blocks == 0 {
                return None;
            }
            let b = self.rest_blocks.trailing_zeros();
            self.rest_blocks &= self.rest_blocks - 1;
            self.block = b as u8;
            self.rest_to = self.clear & !(1u64 << b);
            self.table_pending = self.on_table & (1u64 << b) == 0;
        }
    }
}

/// The number of blocks not on their goal support (block b on b - 1). Each
/// must move at least once and a move changes one block's support:
/// admissible and consistent (the paper's code's Hamming heuristic, one of
/// its PDB features).
#[derive(Debug, Clone, Copy, Default)]
pub struct Misplaced;

impl Misplaced {
    pub fn value(s: &State) -> u32 {
        s.cells().iter().enumerate().filter(|&(i, &below)| below as usize != i).count() as u32
    }
}

impl Heuristic<Blocksworld> for Misplaced {
    fn h(&mut self, s: &State) -> u32 {
        Misplaced::value(s)
    }

    #[inline]
    fn h_move(&mut self, parent: &State, m: BlockMove, parent_h: u32) -> Option<u32> {
        let goal_below = m.block.wrapping_sub(1);
        let now_below = parent.raw()[goal_below as usize & (MAX_CELLS - 1)];
        Some(parent_h + (m.to != goal_below) as u32 - (now_below != goal_below) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn goal_is_one_tower_and_moves_follow_the_papers_order() {
        let d = Blocksworld::new(3).unwrap();
        assert_eq!(d.stacks(d.goal()), vec![vec![1, 2, 3]]);
        // Only block 3 is clear: it can go to the table.
        assert_eq!(d.ops(d.goal()).collect::<Vec<_>>(), vec![BlockMove { block: 3, to: 0 }]);
        // All on the table: each onto each other, none to the table.
        let s = d.parse_state("0 0 0").unwrap();
        let ops: Vec<(u8, u8)> = d.ops(&s).map(|m| (m.block, m.to)).collect();
        assert_eq!(ops, vec![(1, 2), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2)]);
    }

    #[test]
    fn apply_returns_the_move_back() {
        let d = Blocksworld::new(4).unwrap();
        let mut s = *d.goal();
        let back = d.apply(&mut s, BlockMove { block: 4, to: 0 });
        assert_eq!(back, BlockMove { block: 4, to: 3 });
        assert_eq!(d.stacks(&s), vec![vec![1, 2, 3], vec![4]]);
        d.apply(&mut s, back);
        assert_eq!(&s, d.goal());
    }

    #[test]
    fn bad_states_are_refused() {
        let d = Blocksworld::new(3).unwrap();
        let e = |t: &str| d.parse_state(t).unwrap_err().to_string();
        assert!(e("0 1 1").contains("both stand on block 1"));
        assert!(e("0 2 2").contains("stands on itself"));
        assert!(e("2 3 1").contains("cycle"));
        assert!(e("0 1 4").contains("blocks go from 1 to 3"));
    }

    #[test]
    fn misplaced_counts_and_updates() {
        let d = Blocksworld::new(4).unwrap();
        let mut m = Misplaced;
        let mut s = d.parse_state("0 0 0 0").unwrap();
        let mut h = m.h(&s);
        assert_eq!(h, 3);
        for _ in 0..50 {
            let ops: Vec<BlockMove> = d.ops(&s).collect();
            let op = ops[(h as usize * 5 + 1) % ops.len()];
            h = m.h_move(&s, op, h).unwrap();
            d.apply(&mut s, op);
            assert_eq!(h, Misplaced::value(&s));
        }
    }
}
