//! States as packed bitsets, and the registry that stores each distinct state once.
//!
//! A state is `words` u64s, bit `f` set when fact `f` is true. The registry
//! keeps all states in one contiguous arena (no per-state allocation) and a
//! hash table of 4-byte ids into it, so a stored state costs its packed size
//! plus about 5 bytes of table.

use std::hash::Hasher;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use crate::task::{FactId, Task};

pub type StateId = u32;

/// Number of u64 words needed for a task's states.
pub fn words_for(num_facts: usize) -> usize {
    num_facts.div_ceil(64).max(1)
}

#[inline]
pub fn has(state: &[u64], f: FactId) -> bool {
    state[(f >> 6) as usize] >> (f & 63) & 1 != 0
}

#[inline]
pub fn set(state: &mut [u64], f: FactId) {
    state[(f >> 6) as usize] |= 1 << (f & 63);
}

#[inline]
pub fn clear(state: &mut [u64], f: FactId) {
    state[(f >> 6) as usize] &= !(1 << (f & 63));
}

/// Calls `f` for every true fact of `state`, in increasing order.
#[inline]
pub fn for_each_fact(state: &[u64], mut f: impl FnMut(FactId)) {
    for (w, &word) in state.iter().enumerate() {
        let mut bits = word;
        while bits != 0 {
            let b = bits.trailing_zeros();
            f((w as u32) << 6 | b);
            bits &= bits - 1;
        }
    }
}

/// The packed initial state of a task.
pub fn initial_state(task: &Task) -> Vec<u64> {
    let mut s = vec![0; words_for(task.num_facts())];
    for &f in &task.init {
        set(&mut s, f);
    }
    s
}

/// True if `state` satisfies the task's goal.
pub fn is_goal(task: &Task, state: &[u64]) -> bool {
    task.goal.iter().all(|&f| has(state, f)) && task.goal_neg.iter().all(|&f| !has(state, f))
}

fn hash_words(words: &[u64]) -> u64 {
    let mut h = FxHasher::default();
    for &w in words {
        h.write_u64(w);
    }
    h.finish()
}

/// Every distinct state seen by a search, stored once.
pub struct StateRegistry {
    words: usize,
    arena: Vec<u64>,
    table: HashTable<StateId>,
}

impl StateRegistry {
    pub fn new(words: usize) -> Self {
        StateRegistry { words, arena: Vec::new(), table: HashTable::new() }
    }

    pub fn words(&self) -> usize {
        self.words
    }

    pub fn len(&self) -> usize {
        self.arena.len() / self.words
    }

    pub fn is_empty(&self) -> bool {
        self.arena.is_empty()
    }

    #[inline]
    pub fn get(&self, id: StateId) -> &[u64] {
        let start = id as usize * self.words;
        &self.arena[start..start + self.words]
    }

    /// Stores `state` if new. Returns its id and whether it was new.
    pub fn insert(&mut self, state: &[u64]) -> (StateId, bool) {
        debug_assert_eq!(state.len(), self.words);
        let hash = hash_words(state);
        let (arena, words) = (&self.arena, self.words);
        let get = |id: StateId| &arena[id as usize * words..(id as usize + 1) * words];
        if let Some(&id) = self.table.find(hash, |&id| get(id) == state) {
            return (id, false);
        }
        let id = self.len() as StateId;
        self.arena.extend_from_slice(state);
        let (arena, words) = (&self.arena, self.words);
        self.table.insert_unique(hash, id, |&id| hash_words(&arena[id as usize * words..(id as usize + 1) * words]));
        (id, true)
    }

    /// Bytes held by the arena and the table (capacity, not just length).
    pub fn memory_bytes(&self) -> usize {
        self.arena.capacity() * 8 + self.table.capacity() * (std::mem::size_of::<StateId>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_deduplicates() {
        let mut r = StateRegistry::new(2);
        let (a, new_a) = r.insert(&[1, 2]);
        let (b, new_b) = r.insert(&[3, 4]);
        let (c, new_c) = r.insert(&[1, 2]);
        assert!(new_a && new_b && !new_c);
        assert_eq!(a, c);
        assert_ne!(a, b);
        assert_eq!(r.get(b), &[3, 4]);
        assert_eq!(r.len(), 2);
    }

    #[test]
    fn bit_operations() {
        let mut s = vec![0u64; 2];
        set(&mut s, 3);
        set(&mut s, 70);
        assert!(has(&s, 70) && has(&s, 3) && !has(&s, 4));
        let mut seen = vec![];
        for_each_fact(&s, |f| seen.push(f));
        assert_eq!(seen, vec![3, 70]);
        clear(&mut s, 70);
        assert!(!has(&s, 70));
    }
}
