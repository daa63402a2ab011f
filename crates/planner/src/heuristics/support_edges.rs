//! Which operators each proposition is the hmax supporter of, as one bit per
//! precondition edge.
//!
//! LM-cut's cut search walks, from each reached proposition, the operators it
//! supports. Scanning the proposition's whole "precondition of" list and
//! comparing each operator's supporter touches every edge and mispredicts a
//! branch on most of them; with a bit per edge, set while the supporter is
//! the edge's proposition, the walk visits only supported operators, still in
//! list order (Fast Downward's order, which the cut's order and hence LM-cut's
//! tie-breaking depend on).
//!
//! Each proposition's edges occupy their own run of whole words, so its
//! supported operators are its run's set bits; a slot is a global bit index.

use super::unchecked::{at, at_mut};

pub(crate) struct SupportEdges {
    /// First word of each proposition's run (one more entry at the end).
    run_start: Vec<u32>,
    bits: Vec<u64>,
}

impl SupportEdges {
    /// `edges[p]` is the length of proposition `p`'s "precondition of" list.
    pub fn new(edges: impl Iterator<Item = usize>) -> Self {
        let mut run_start = vec![0u32];
        let mut words = 0u32;
        for n in edges {
            words += n.div_ceil(64) as u32;
            run_start.push(words);
        }
        SupportEdges { run_start, bits: vec![0; words as usize] }
    }

    /// The slot of the `i`-th edge of proposition `p`.
    #[inline]
    pub fn slot(&self, p: u32, i: u32) -> u32 {
        *at(&self.run_start, p as usize) * 64 + i
    }

    #[inline]
    pub fn set(&mut self, slot: u32) {
        *at_mut(&mut self.bits, (slot >> 6) as usize) |= 1 << (slot & 63);
    }

    #[inline]
    pub fn unset(&mut self, slot: u32) {
        *at_mut(&mut self.bits, (slot >> 6) as usize) &= !(1 << (slot & 63));
    }

    pub fn clear(&mut self) {
        self.bits.fill(0);
    }

    /// Calls `f(i)` for each set edge `i` of proposition `p`, in increasing order.
    #[cfg(test)]
    pub fn for_each(&self, p: u32, mut f: impl FnMut(u32)) {
        self.for_each_while(p, |i| {
            f(i);
            true
        });
    }

    /// As `for_each` while `f` returns true; false if it stopped early.
    #[inline]
    pub fn for_each_while(&self, p: u32, mut f: impl FnMut(u32) -> bool) -> bool {
        let (a, b) = (*at(&self.run_start, p as usize), *at(&self.run_start, p as usize + 1));
        for w in a..b {
            let mut word = *at(&self.bits, w as usize);
            while word != 0 {
                if !f((w - a) * 64 + word.trailing_zeros()) {
                    return false;
                }
                word &= word - 1;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visits_set_edges_in_order_per_proposition() {
        let mut s = SupportEdges::new([3, 70, 0, 1].into_iter());
        for (p, i) in [(1, 69), (1, 2), (0, 2), (3, 0), (1, 64)] {
            let slot = s.slot(p, i);
            s.set(slot);
        }
        let slot = s.slot(1, 64);
        s.unset(slot);
        let seen = |s: &SupportEdges, p| {
            let mut v = vec![];
            s.for_each(p, |i| v.push(i));
            v
        };
        assert_eq!(seen(&s, 0), vec![2]);
        assert_eq!(seen(&s, 1), vec![2, 69]);
        assert_eq!(seen(&s, 2), Vec::<u32>::new());
        assert_eq!(seen(&s, 3), vec![0]);
        s.clear();
        assert_eq!(seen(&s, 1), Vec::<u32>::new());
    }
}
