//! glibc's `random()` (`stdlib/random_r.c`): the additive feedback generator
//! r[i] = r[i-sep] + r[i-deg] (mod 2^32), each output r[i] >> 1. ferry.c
//! seeds it with `srandom` (the default state: degree 31, separation 3);
//! visitall's grid.c with `initstate(seed, buf, 256)` (a 256-byte state:
//! degree 63, separation 1).

#[derive(Debug, Clone)]
pub struct GlibcRandom {
    state: Vec<u32>,
    /// The "front" and "rear" indices of random_r.c (`fptr`, `rptr`).
    front: usize,
    rear: usize,
}

impl GlibcRandom {
    /// `srandom(seed)` on the default state (TYPE_3).
    pub fn srandom(seed: u32) -> GlibcRandom {
        GlibcRandom::seeded(seed, 31, 3)
    }

    /// `initstate(seed, buf, bytes)` followed by nothing else: the state's
    /// size picks the generator's degree (random_r.c's BREAK_3 and BREAK_4).
    /// Only the sizes of 128 bytes and more are supported (the smaller ones
    /// are other generators, used by no program here).
    pub fn initstate(seed: u32, bytes: usize) -> Option<GlibcRandom> {
        match bytes {
            0..=127 => None,
            128..=255 => Some(GlibcRandom::seeded(seed, 31, 3)),
            _ => Some(GlibcRandom::seeded(seed, 63, 1)),
        }
    }

    /// `srandom_r`: a seed of 0 becomes 1; r[i] = 16807·r[i-1] mod (2^31-1)
    /// computed as Schrage does on the signed 32-bit value; then 10·degree
    /// outputs are thrown away.
    fn seeded(seed: u32, degree: usize, sep: usize) -> GlibcRandom {
        let seed = if seed == 0 { 1 } else { seed };
        let mut state = vec![0u32; degree];
        state[0] = seed;
        let mut word = seed as i32 as i64;
        for slot in state.iter_mut().skip(1) {
            let (hi, lo) = (word / 127_773, word % 127_773);
            word = 16_807 * lo - 2_836 * hi;
            if word < 0 {
                word += 2_147_483_647;
            }
            *slot = word as u32;
        }
        let mut r = GlibcRandom { state, front: sep, rear: 0 };
        for _ in 0..10 * degree {
            r.random();
        }
        r
    }

    /// `random()`: in 0..2^31.
    pub fn random(&mut self) -> i64 {
        let n = self.state.len();
        let val = self.state[self.front].wrapping_add(self.state[self.rear]);
        self.state[self.front] = val;
        self.front = (self.front + 1) % n;
        self.rear = (self.rear + 1) % n;
        (val >> 1) as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by glibc 2.36.
    #[test]
    fn matches_glibc() {
        let mut r = GlibcRandom::srandom(1);
        assert_eq!([r.random(), r.random(), r.random()], [1804289383, 846930886, 1681692777]);
        // srandom(0) is srandom(1).
        assert_eq!(GlibcRandom::srandom(0).random(), 1804289383);
        let mut r = GlibcRandom::srandom(3001);
        assert_eq!([r.random(), r.random()], [2103689287, 1332526715]);
        let mut r = GlibcRandom::initstate(42, 256).unwrap();
        assert_eq!([r.random(), r.random(), r.random()], [472624893, 994493761, 100792968]);
        assert!(GlibcRandom::initstate(42, 64).is_none());
    }
}
