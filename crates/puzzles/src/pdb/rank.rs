//! Perfect hashing of partial permutations: the cells (or locations) of k
//! distinct pattern items among n, ranked densely into `0 .. n!/(n-k)!`.
//!
//! Item i's digit is its cell minus the number of earlier items in lower
//! cells, in radix n - i; the rank reads the digits most significant first
//! (lexicographic order of the cell tuples). A pattern database is then a
//! plain array indexed by rank.

/// Ranking of k-item placements among n cells (n <= 64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PartialPerm {
    n: u8,
    k: u8,
}

impl PartialPerm {
    pub fn new(n: usize, k: usize) -> PartialPerm {
        assert!(k <= n && n <= 64, "placements of {k} items among {n} cells");
        PartialPerm { n: n as u8, k: k as u8 }
    }

    pub fn n(&self) -> usize {
        self.n as usize
    }

    pub fn k(&self) -> usize {
        self.k as usize
    }

    /// n!/(n-k)!: the number of placements.
    pub fn size(&self) -> u64 {
        (0..self.k as u64).map(|i| self.n as u64 - i).product()
    }

    /// The rank of `cells[..k]` (distinct, each below n).
    #[inline(always)]
    pub fn rank(&self, cells: &[u8]) -> u64 {
        let mut used = 0u64;
        let mut r = 0u64;
        for (i, &c) in cells[..self.k as usize].iter().enumerate() {
            let below = (used & ((1u64 << c) - 1)).count_ones() as u64;
            r = r * (self.n as u64 - i as u64) + (c as u64 - below);
            used |= 1u64 << c;
        }
        r
    }

    /// The placement of rank `r` into `cells[..k]`.
    pub fn unrank(&self, mut r: u64, cells: &mut [u8]) {
        let k = self.k as usize;
        let mut digits = [0u8; 64];
        for i in (0..k).rev() {
            let radix = self.n as u64 - i as u64;
            digits[i] = (r % radix) as u8;
            r /= radix;
        }
        let mut free = if self.n == 64 { u64::MAX } else { (1u64 << self.n) - 1 };
        for i in 0..k {
            let c = select(free, digits[i] as u32);
            cells[i] = c as u8;
            free &= !(1u64 << c);
        }
    }
}

/// The position of the `j`-th set bit of `m` (from 0).
#[inline]
pub fn select(mut m: u64, j: u32) -> u32 {
    for _ in 0..j {
        m &= m - 1;
    }
    m.trailing_zeros()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_are_dense_lexicographic_and_invertible() {
        let pp = PartialPerm::new(6, 3);
        assert_eq!(pp.size(), 120);
        let mut expected = 0;
        let mut back = [0u8; 3];
        for a in 0..6u8 {
            for b in (0..6u8).filter(|&b| b != a) {
                for c in (0..6u8).filter(|&c| c != a && c != b) {
                    let r = pp.rank(&[a, b, c]);
                    assert_eq!(r, expected, "lexicographic order of {a} {b} {c}");
                    pp.unrank(r, &mut back);
                    assert_eq!(back, [a, b, c]);
                    expected += 1;
                }
            }
        }
    }

    #[test]
    fn sizes_of_the_pdbs_in_use() {
        assert_eq!(PartialPerm::new(16, 8).size(), 518_918_400);
        assert_eq!(PartialPerm::new(16, 7).size(), 57_657_600);
        assert_eq!(PartialPerm::new(25, 6).size(), 127_512_000);
        assert_eq!(PartialPerm::new(25, 5).size(), 6_375_600);
        assert_eq!(PartialPerm::new(24, 5).size(), 5_100_480);
        assert_eq!(PartialPerm::new(9, 8).size(), 362_880);
        let pp = PartialPerm::new(25, 6);
        let mut c = [0u8; 6];
        pp.unrank(pp.size() - 1, &mut c);
        assert_eq!(c, [24, 23, 22, 21, 20, 19]);
        assert_eq!(pp.rank(&c), pp.size() - 1);
    }
}
