//! Building blocksworld PDBs as the paper's code defines them (`BlocksWorld/
//! Heuristics/PDBHeuristic.cs`).
//!
//! The abstraction keeps, of a state: the multiset of stack heights; for
//! each pattern block, the height of its stack and its place in it (1 at
//! the bottom); and which pattern blocks share a stack. Non-pattern blocks
//! are interchangeable and stacks are unnamed. Two states with equal keys
//! differ only by renaming non-pattern blocks and reordering stacks, which
//! maps moves to moves: the key is a congruence, so a search over concrete
//! representatives, one per key, visits the abstract space exactly. Every
//! move costs 1 (the paper's code has the "only pattern blocks cost" line
//! commented out), so these PDBs are not additive: combine them by max.
//! Unit costs make it a plain breadth-first search.
//!
//! The key (`pdb::shape::key`, exact where the paper's code's `Int64`
//! overflows) is shared with lookups; n <= 15 blocks and k <= 6.
//! Entries are stored sparse: keys sorted, values beside them.

use std::collections::VecDeque;

use super::Blocksworld;
use crate::domain::Domain;
use crate::fxhash::FxHashMap;
use crate::pdb::shape::{key, MAX_BLOCKS, MAX_PATTERN};
use crate::PuzzleError;

/// Checks a pattern: blocks 1..=n, distinct, 1 to 6 of them, n <= 15.
pub fn check_pattern(d: &Blocksworld, pattern: &[u8]) -> Result<(), PuzzleError> {
    let n = d.size();
    if n > MAX_BLOCKS {
        return Err(PuzzleError::BadPattern(format!("blocksworld PDBs take at most {MAX_BLOCKS} blocks, not {n}")));
    }
    if pattern.is_empty() || pattern.len() > MAX_PATTERN {
        return Err(PuzzleError::BadPattern(format!("a blocksworld pattern has 1 to {MAX_PATTERN} blocks")));
    }
    let mut seen = 0u64;
    for &b in pattern {
        if b == 0 || b as usize > n {
            return Err(PuzzleError::BadPattern(format!("block {b} is not in the {} (1 to {n})", d.name())));
        }
        if seen & (1 << b) != 0 {
            return Err(PuzzleError::BadPattern(format!("block {b} appears twice in the pattern")));
        }
        seen |= 1 << b;
    }
    Ok(())
}

/// The sorted keys and their distances.
pub fn build(d: &Blocksworld, pattern: &[u8]) -> Result<(Vec<u128>, Vec<u8>), PuzzleError> {
    check_pattern(d, pattern)?;
    let mut dist: FxHashMap<u128, u8> = FxHashMap::default();
    let mut queue = VecDeque::new();
    dist.insert(key(d.goal(), pattern), 0);
    queue.push_back((*d.goal(), 0u8));
    while let Some((s, g)) = queue.pop_front() {
        for op in d.ops(&s) {
            let mut c = s;
            d.apply(&mut c, op);
            if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(key(&c, pattern)) {
                e.insert(g + 1);
                queue.push_back((c, g + 1));
            }
        }
    }
    let mut pairs: Vec<(u128, u8)> = dist.into_iter().collect();
    pairs.sort_unstable_by_key(|&(k, _)| k);
    Ok(pairs.into_iter().unzip())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_ignore_non_pattern_names_and_stack_order() {
        let d = Blocksworld::new(5).unwrap();
        // Stacks [1 2] [3 4 5] and [3 2] [1 4 5]: pattern {4, 5} sits the same way.
        let a = d.parse_state("0 1 0 3 4").unwrap();
        let b = d.parse_state("0 3 0 1 4").unwrap();
        assert_eq!(key(&a, &[4, 5]), key(&b, &[4, 5]));
        assert_ne!(key(&a, &[1, 4]), key(&b, &[1, 4]), "block 1 moved from a 2-stack to a 3-stack");
        // Same heights and places, but 3 and 4 on one stack or on two.
        let d = Blocksworld::new(4).unwrap();
        let one = d.parse_state("0 1 0 3").unwrap(); // [3 4] [1 2]
        let two = d.parse_state("3 0 0 2").unwrap(); // [3 1] [2 4]
        assert_eq!(key(&one, &[3, 4]) ^ key(&two, &[3, 4]), 1, "only block 4's first-same-stack field differs");
    }
}
