//! The key of the paper's blocksworld PDB abstraction (`BlocksWorld/
//! Heuristics/PDBHeuristic.cs`), which lookups and the builder
//! (`blocks::pdb`) share.
//!
//! The abstraction keeps, of a state: the multiset of stack heights; for
//! each pattern block, the height of its stack and its place in it (1 at
//! the bottom); and which pattern blocks share a stack. The paper's code
//! folds the key into an `Int64` by base-15 digits (up to 34 of them), which
//! overflows and can merge distinct abstract states. The key here is exact:
//! a `u128` with 4 bits per sorted stack height (60 bits for 15 stacks) and
//! 11 per pattern block (height, place, the first pattern block on the same
//! stack), so n <= 15 blocks and k <= 6.

use crate::state::{State, MAX_CELLS};

/// The largest blocksworld and pattern the exact key can describe.
pub const MAX_BLOCKS: usize = 15;
pub const MAX_PATTERN: usize = 6;

/// The abstract key of `s` for `pattern` (checked by `blocks::pdb::check_pattern`).
pub fn key(s: &State, pattern: &[u8]) -> u128 {
    let n = s.len();
    let cells = s.cells();
    // above[b]: the block on b (0: none); index 0 unused.
    let mut above = [0u8; MAX_CELLS + 1];
    for b in 1..=n {
        let below = cells[b - 1] as usize;
        if below != 0 {
            above[below] = b as u8;
        }
    }
    // Per block: its stack (by bottom block), its place from the bottom.
    let mut stack_of = [0u8; MAX_CELLS + 1];
    let mut place = [0u8; MAX_CELLS + 1];
    let mut height_of_stack = [0u8; MAX_CELLS + 1];
    let mut heights = [0u8; MAX_CELLS];
    let mut stacks = 0;
    for bottom in 1..=n {
        if cells[bottom - 1] != 0 {
            continue;
        }
        let (mut b, mut h) = (bottom, 0u8);
        while b != 0 {
            h += 1;
            stack_of[b] = bottom as u8;
            place[b] = h;
            b = above[b] as usize;
        }
        height_of_stack[bottom] = h;
        heights[stacks] = h;
        stacks += 1;
    }
    heights[..stacks].sort_unstable_by(|a, b| b.cmp(a));
    let mut key = 0u128;
    for &h in &heights[..stacks] {
        key = key << 4 | h as u128;
    }
    key <<= 4 * (MAX_BLOCKS - stacks);
    for (i, &b) in pattern.iter().enumerate() {
        let b = b as usize;
        let first_same = pattern[..i].iter().position(|&o| stack_of[o as usize] == stack_of[b]).unwrap_or(i);
        let h = height_of_stack[stack_of[b] as usize] as u128;
        key = key << 11 | h << 7 | (place[b] as u128) << 3 | first_same as u128;
    }
    key
}
