//! The C library's `drand48` family (POSIX; as in glibc's `drand48-iter.c`,
//! `erand48_r.c` and `srand48_r.c`), which bwstates draws its states from.

/// The 48-bit linear congruential generator x' = (a·x + c) mod 2^48.
#[derive(Debug, Clone)]
pub struct Drand48 {
    x: u64,
}

const A: u64 = 0x5_DEEC_E66D;
const C: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

impl Drand48 {
    /// `srand48(seed)`: the high 32 bits of x are the seed's low 32 bits
    /// (glibc keeps only those of a 64-bit `long`), the low 16 bits 0x330E.
    pub fn srand48(seed: i64) -> Drand48 {
        Drand48 { x: ((seed as u64 & 0xFFFF_FFFF) << 16) | 0x330E }
    }

    /// `drand48()`: the next x as a fraction of 2^48, in [0, 1). Every
    /// 48-bit value is exact in a double, as glibc builds it.
    pub fn drand48(&mut self) -> f64 {
        self.x = (A.wrapping_mul(self.x).wrapping_add(C)) & MASK;
        self.x as f64 / (1u64 << 48) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by glibc 2.36's `srand48(s); drand48()`, as shortest round-trip decimals.
    #[test]
    fn matches_glibc() {
        let mut r = Drand48::srand48(0);
        assert_eq!(r.drand48(), 0.17082803610628972);
        assert_eq!(r.drand48(), 0.7499019804849638);
        let mut r = Drand48::srand48(3001);
        assert_eq!(r.drand48(), 0.44855634153737256);
        assert_eq!(r.drand48(), 0.22588517572464184);
        assert_eq!(Drand48::srand48(2147483647).drand48(), 0.8000257274407012);
        // Only the seed's low 32 bits count.
        assert_eq!(Drand48::srand48(3001 + (1 << 32)).drand48(), 0.44855634153737256);
    }
}
