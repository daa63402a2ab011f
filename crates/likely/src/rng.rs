//! Seeded random streams: every random draw of a run (initialisation,
//! dropout masks, weight noise, task generation, minibatches) comes from a
//! [`Stream`], ChaCha8 from (seed, stream number), never from a global RNG,
//! so a run is a function of its seed (the paper's code seeds from the
//! clock). A learner derives a fresh stream per outer iteration, so a
//! checkpoint needs no generator state to resume identically.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random stream with normal deviates.
#[derive(Debug, Clone)]
pub struct Stream {
    rng: ChaCha8Rng,
    /// The second deviate of the last polar-method pair.
    spare: Option<f32>,
}

impl Stream {
    /// Stream number `stream` of `seed`: independent streams of one seed.
    pub fn new(seed: u64, stream: u64) -> Stream {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        rng.set_stream(stream);
        Stream { rng, spare: None }
    }

    /// The generator itself, for functions that take a [`rand::Rng`] (the
    /// puzzles' random walks).
    pub fn rng(&mut self) -> &mut ChaCha8Rng {
        &mut self.rng
    }

    /// Uniform on [0, 1).
    #[inline]
    pub fn uniform(&mut self) -> f64 {
        self.rng.gen::<f64>()
    }

    /// Uniform on 0..n (n > 0).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        self.rng.gen_range(0..n)
    }

    /// A standard normal deviate (Marsaglia's polar method: one logarithm
    /// and one square root per two deviates, no trigonometry).
    #[inline]
    pub fn normal(&mut self) -> f32 {
        if let Some(z) = self.spare.take() {
            return z;
        }
        loop {
            let u = 2.0 * self.rng.gen::<f64>() - 1.0;
            let v = 2.0 * self.rng.gen::<f64>() - 1.0;
            let s = u * u + v * v;
            if s > 0.0 && s < 1.0 {
                let f = (-2.0 * s.ln() / s).sqrt();
                self.spare = Some((v * f) as f32);
                return (u * f) as f32;
            }
        }
    }

    /// Index drawn with probability `weights[i] / total` (cumulative
    /// search, as the paper's code's `Global.Sample`; the last index when
    /// rounding leaves the draw beyond the sum).
    pub fn weighted(&mut self, weights: &[f64], total: f64) -> usize {
        let u = self.uniform() * total;
        let mut acc = 0.0;
        for (i, &w) in weights.iter().enumerate() {
            acc += w;
            if u < acc {
                return i;
            }
        }
        weights.len().saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_distinct() {
        let a: Vec<f32> = (0..10)
            .map({
                let mut s = Stream::new(3, 1);
                move |_| s.normal()
            })
            .collect();
        let b: Vec<f32> = (0..10)
            .map({
                let mut s = Stream::new(3, 1);
                move |_| s.normal()
            })
            .collect();
        let c: Vec<f32> = (0..10)
            .map({
                let mut s = Stream::new(3, 2);
                move |_| s.normal()
            })
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn normal_deviates_have_unit_moments() {
        let mut s = Stream::new(11, 0);
        let n = 200_000;
        let (mut m1, mut m2) = (0.0f64, 0.0f64);
        for _ in 0..n {
            let z = s.normal() as f64;
            m1 += z;
            m2 += z * z;
        }
        let mean = m1 / n as f64;
        let var = m2 / n as f64 - mean * mean;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
    }

    #[test]
    fn weighted_draws_follow_the_weights() {
        let mut s = Stream::new(5, 0);
        let w = [1.0, 3.0, 0.0, 4.0];
        let mut counts = [0usize; 4];
        for _ in 0..80_000 {
            counts[s.weighted(&w, 8.0)] += 1;
        }
        assert_eq!(counts[2], 0);
        for (c, wi) in counts.iter().zip(w) {
            assert!((*c as f64 / 80_000.0 - wi / 8.0).abs() < 0.01, "{counts:?}");
        }
    }
}
