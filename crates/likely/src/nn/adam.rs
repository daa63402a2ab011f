//! Adam (Kingma & Ba), in the two forms the paper's code runs.

use serde::{Deserialize, Serialize};

/// Adam's state for one flat parameter vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Adam {
    lr: f32,
    beta1: f32,
    beta2: f32,
    eps: f32,
    /// Steps taken.
    t: u64,
    m: Vec<f32>,
    v: Vec<f32>,
    /// TensorFlowSharp's form (the WUNN, see [`Adam::frozen_bias_correction`]).
    frozen: bool,
}

impl Adam {
    /// Textbook Adam with bias correction, beta = (0.9, 0.999), eps = 1e-8:
    /// the FFNN's (`FastNN/Optimizers/Adam.cs`).
    pub fn new(n: usize, lr: f32) -> Adam {
        Adam { lr, beta1: 0.9, beta2: 0.999, eps: 1e-8, t: 0, m: vec![0.0; n], v: vec![0.0; n], frozen: false }
    }

    /// The WUNN's Adam as the paper's code builds it
    /// (`TFComponents/AdamOptimizer.Apply`): TensorFlow's `ApplyAdam` fed
    /// the *constants* beta1 and beta2 as "beta powers", so the bias
    /// correction stays at its first-step value and every step is
    /// lr * sqrt(1 - beta2) / (1 - beta1) * m / (sqrt(v) + eps), about
    /// 0.316 lr at lr = 0.01, where textbook Adam tends to lr.
    pub fn frozen_bias_correction(n: usize, lr: f32) -> Adam {
        Adam { frozen: true, ..Adam::new(n, lr) }
    }

    pub fn steps(&self) -> u64 {
        self.t
    }

    pub fn len(&self) -> usize {
        self.m.len()
    }

    pub fn is_empty(&self) -> bool {
        self.m.is_empty()
    }

    /// One step: `params -= step(grad)`. `grad` and `params` have
    /// [`Adam::len`] entries.
    pub fn step(&mut self, params: &mut [f32], grad: &[f32]) {
        debug_assert_eq!(params.len(), self.m.len());
        debug_assert_eq!(grad.len(), self.m.len());
        self.t += 1;
        let (b1, b2) = (self.beta1, self.beta2);
        let (scale_m, scale_v) = if self.frozen {
            (self.lr * (1.0 - b2).sqrt() / (1.0 - b1), 1.0)
        } else {
            let t = self.t.min(i32::MAX as u64) as i32;
            (self.lr / (1.0 - b1.powi(t)), 1.0 / (1.0 - b2.powi(t)))
        };
        for (((p, &g), m), v) in params.iter_mut().zip(grad).zip(&mut self.m).zip(&mut self.v) {
            *m = b1 * *m + (1.0 - b1) * g;
            *v = b2 * *v + (1.0 - b2) * g * g;
            *p -= scale_m * *m / ((*v * scale_v).sqrt() + self.eps);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_steps_move_by_the_learning_rate() {
        // Textbook Adam's first step is lr * sign(g); the frozen form's is
        // that too (its correction is the first step's), its later steps
        // are sqrt(1 - beta2) / (1 - beta1) = 0.316 times textbook Adam's.
        let mut a = Adam::new(2, 0.01);
        let mut p = [1.0f32, -1.0];
        a.step(&mut p, &[3.0, -0.5]);
        assert!((p[0] - 0.99).abs() < 1e-6 && (p[1] + 0.99).abs() < 1e-6, "{p:?}");
        let mut f = Adam::frozen_bias_correction(1, 0.01);
        let mut q = [0.0f32];
        f.step(&mut q, &[2.0]);
        assert!((q[0] + 0.01).abs() < 1e-6, "{q:?}");
        let (mut a, mut f) = (Adam::new(1, 0.01), Adam::frozen_bias_correction(1, 0.01));
        let (mut p, mut q) = ([0.0f32], [0.0f32]);
        for _ in 0..20_000 {
            a.step(&mut p, &[1.0]);
            f.step(&mut q, &[1.0]);
        }
        // Once the moments have settled, one more step of each.
        let (p0, q0) = (p[0], q[0]);
        a.step(&mut p, &[1.0]);
        f.step(&mut q, &[1.0]);
        let ratio = (q[0] - q0) / (p[0] - p0);
        assert!((ratio - 0.1f32.sqrt()).abs() < 0.01, "ratio {ratio}");
        assert_eq!(a.steps(), 20_001);
    }

    #[test]
    fn minimises_a_quadratic() {
        let mut a = Adam::new(1, 0.05);
        let mut p = [5.0f32];
        for _ in 0..2000 {
            let g = [2.0 * (p[0] - 2.0)];
            a.step(&mut p, &g);
        }
        assert!((p[0] - 2.0).abs() < 1e-2, "{p:?}");
    }
}
