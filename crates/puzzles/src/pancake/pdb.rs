//! Location-based pancake PDBs as the paper's code defines them
//! (`PDBLocHeuristic`): the abstract state is where the k pattern pancakes
//! are; a flip costs 1 when it brings a pattern pancake to the top, seen
//! from the goal.
//!
//! The paper's code searches from the goal, flips an abstract state t with
//! flip k and charges 1 when the new top (what was at location k of t) is a
//! pattern pancake. Read forwards, from a state s to the goal, a flip of s
//! is charged to the pattern owning the pancake on top of s (the one the
//! flip sends down to location k). Every flip moves exactly one pancake off
//! the top, so across a partition of the pancakes each flip is charged
//! once: the entries add up to an admissible, consistent heuristic.
//!
//! Costs are 0 or 1, so this is a 0-1 breadth-first search: a deque, 0-cost
//! successors to the front, a state's cost lowered whenever a cheaper path
//! appears, expanded once (when first popped at its final cost). The
//! paper's code instead marks states visited when it queues them, which can
//! keep a cost-1 first arrival over a later cost-0 one.

use std::collections::VecDeque;

use super::Pancake;
use crate::domain::Domain;
use crate::pdb::rank::PartialPerm;
use crate::pdb::UNREACHED;
use crate::PuzzleError;

/// Checks a pattern: pancakes 0..n, distinct, at least one.
pub fn check_pattern(d: &Pancake, pattern: &[u8]) -> Result<(), PuzzleError> {
    let n = d.size();
    if pattern.is_empty() {
        return Err(PuzzleError::BadPattern("a pattern needs at least one pancake".into()));
    }
    let mut seen = 0u64;
    for &p in pattern {
        if p as usize >= n {
            return Err(PuzzleError::BadPattern(format!("pancake {p} is not in the {} (0 to {})", d.name(), n - 1)));
        }
        if seen & (1 << p) != 0 {
            return Err(PuzzleError::BadPattern(format!("pancake {p} appears twice in the pattern")));
        }
        seen |= 1 << p;
    }
    Ok(())
}

/// The table of `pattern`, ranked by the pattern pancakes' locations in the
/// pattern's order.
pub fn build(d: &Pancake, pattern: &[u8]) -> Result<Vec<u8>, PuzzleError> {
    check_pattern(d, pattern)?;
    let (n, k) = (d.size(), pattern.len());
    let pp = PartialPerm::new(n, k);
    let mut dist = vec![UNREACHED; pp.size() as usize];
    let mut done = vec![false; dist.len()];
    // The goal: pancake p at location p.
    let goal = pp.rank(pattern) as usize;
    dist[goal] = 0;
    let mut queue = VecDeque::from([goal as u32]);
    let mut locs = [0u8; 32];
    let mut flipped = [0u8; 32];
    while let Some(r) = queue.pop_front() {
        let r = r as usize;
        if done[r] {
            continue;
        }
        done[r] = true;
        let g = dist[r];
        pp.unrank(r as u64, &mut locs[..k]);
        for flip in 1..n as u8 {
            let mut cost = 0;
            for i in 0..k {
                let l = locs[i];
                cost |= (l == flip) as u8;
                flipped[i] = if l <= flip { flip - l } else { l };
            }
            let s = pp.rank(&flipped[..k]) as usize;
            if g + cost < dist[s] {
                dist[s] = g + cost;
                if cost == 0 {
                    queue.push_front(s as u32);
                } else {
                    queue.push_back(s as u32);
                }
            }
        }
    }
    Ok(dist)
}
