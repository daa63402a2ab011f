//! CPython's `random` module (`Modules/_randommodule.c`, `Lib/random.py`),
//! as far as gripper.py uses it: `random.seed(int)` and `random.choice`.
//! The generator is MT19937; an integer seed is fed to `init_by_array` as
//! the 32-bit words of its absolute value, least significant first.

const N: usize = 624;
const M: usize = 397;

#[derive(Debug, Clone)]
pub struct PythonRandom {
    mt: Box<[u32; N]>,
    index: usize,
}

impl PythonRandom {
    /// `random.seed(seed)` for an integer seed (`random_seed` in
    /// _randommodule.c: the key is [0] for 0).
    pub fn seed(seed: u64) -> PythonRandom {
        let mut key = vec![seed as u32];
        if seed >> 32 != 0 {
            key.push((seed >> 32) as u32);
        }
        let mut r = PythonRandom { mt: Box::new([0; N]), index: N };
        r.init_by_array(&key);
        r
    }

    fn init_genrand(&mut self, s: u32) {
        self.mt[0] = s;
        for i in 1..N {
            let prev = self.mt[i - 1];
            self.mt[i] = 1_812_433_253u32.wrapping_mul(prev ^ (prev >> 30)).wrapping_add(i as u32);
        }
        self.index = N;
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = self.mt[i - 1];
            self.mt[i] = (self.mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                self.mt[0] = self.mt[N - 1];
                i = 1;
            }
        }
        // The most significant bit is 1: a non-zero initial array.
        self.mt[0] = 0x8000_0000;
    }

    fn genrand_uint32(&mut self) -> u32 {
        if self.index >= N {
            for k in 0..N {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % N] & 0x7FFF_FFFF);
                let mag = if y & 1 == 1 { 0x9908_B0DF } else { 0 };
                self.mt[k] = self.mt[(k + M) % N] ^ (y >> 1) ^ mag;
            }
            self.index = 0;
        }
        let mut y = self.mt[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9D2C_5680;
        y ^= (y << 15) & 0xEFC6_0000;
        y ^ (y >> 18)
    }

    /// `getrandbits(k)` for 1 <= k <= 32: the top k bits of one output.
    pub fn getrandbits(&mut self, k: u32) -> u32 {
        debug_assert!((1..=32).contains(&k));
        self.genrand_uint32() >> (32 - k)
    }

    /// `_randbelow(n)` for 0 < n < 2^32: getrandbits(n.bit_length()) until
    /// the value is below n.
    pub fn randbelow(&mut self, n: u32) -> u32 {
        debug_assert!(n > 0);
        let k = 32 - n.leading_zeros();
        loop {
            let r = self.getrandbits(k);
            if r < n {
                return r;
            }
        }
    }

    /// `choice(seq)` on a non-empty slice.
    pub fn choice<'a, T>(&mut self, seq: &'a [T]) -> &'a T {
        &seq[self.randbelow(seq.len() as u32) as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values printed by CPython 3.11.
    #[test]
    fn matches_cpython() {
        let mut r = PythonRandom::seed(42);
        assert_eq!([r.getrandbits(32), r.getrandbits(32), r.getrandbits(32)], [2746317213, 478163327, 107420369]);
        let mut r = PythonRandom::seed(0);
        assert_eq!([r.getrandbits(32), r.getrandbits(32)], [3626764237, 1654615998]);
        let mut r = PythonRandom::seed((1 << 40) + 5);
        assert_eq!([r.getrandbits(32), r.getrandbits(32)], [2166296868, 2220160828]);
        let mut r = PythonRandom::seed(7000);
        let picks: Vec<u8> = (0..12).map(|_| *r.choice(&[0, 1])).collect();
        assert_eq!(picks, [1, 0, 1, 0, 1, 0, 0, 1, 1, 0, 0, 0]);
        // randrange(10) is _randbelow(10): rejection of 10..15 included.
        let mut r = PythonRandom::seed(5);
        let draws: Vec<u32> = (0..8).map(|_| r.randbelow(10)).collect();
        assert_eq!(draws, [9, 4, 5, 8, 0, 7, 3, 0]);
    }
}
