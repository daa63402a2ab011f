//! A monotone priority queue for Dijkstra-style relaxed explorations.
//!
//! Keys are small integers almost always (unit costs), so a bucket array is
//! the fast path; keys beyond `MAX_BUCKETS` (large additive costs) overflow
//! into a binary heap, and `pop` takes the smaller of the two.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

const MAX_BUCKETS: u64 = 1 << 16;

#[derive(Default)]
pub struct MonotoneQueue {
    buckets: Vec<Vec<u32>>,
    current: usize,
    in_buckets: usize,
    overflow: BinaryHeap<Reverse<(u64, u32)>>,
}

impl MonotoneQueue {
    #[inline]
    pub fn push(&mut self, key: u64, item: u32) {
        if key < MAX_BUCKETS {
            let k = key as usize;
            if k >= self.buckets.len() {
                self.buckets.resize_with(k + 1, Vec::new);
            }
            self.buckets[k].push(item);
            if k < self.current {
                self.current = k;
            }
            self.in_buckets += 1;
        } else {
            self.overflow.push(Reverse((key, item)));
        }
    }

    #[inline]
    pub fn pop(&mut self) -> Option<(u64, u32)> {
        if self.in_buckets > 0 {
            while self.buckets[self.current].is_empty() {
                self.current += 1;
            }
            self.in_buckets -= 1;
            let item = self.buckets[self.current].pop().expect("non-empty bucket");
            return Some((self.current as u64, item));
        }
        self.overflow.pop().map(|Reverse(x)| x)
    }

    pub fn clear(&mut self) {
        if self.in_buckets > 0 {
            for b in &mut self.buckets[self.current..] {
                b.clear();
            }
        }
        self.in_buckets = 0;
        self.current = 0;
        self.overflow.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_key_order_across_buckets_and_overflow() {
        let mut q = MonotoneQueue::default();
        q.push(5, 1);
        q.push(MAX_BUCKETS + 3, 2);
        q.push(0, 3);
        q.push(5, 4);
        let mut keys = vec![];
        while let Some((k, _)) = q.pop() {
            keys.push(k);
        }
        assert_eq!(keys, vec![0, 5, 5, MAX_BUCKETS + 3]);
        q.push(2, 9);
        assert_eq!(q.pop(), Some((2, 9)));
    }
}
