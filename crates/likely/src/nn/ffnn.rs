//! The FFNN (notes section 1.2, the code's `FastNN`): [in, H, out], ReLU,
//! He-normal weights, zero biases, Adam at lr 1e-3, full-batch training.
//!
//! - [`Outputs::Mean`]: one output, yhat, loss 0.5 (yhat - y)^2 (the code's
//!   L2 gradient `pred - y`): the "plan with yhat" model.
//! - [`Outputs::MeanSigma`]: yhat and phi, sigma_a = softplus(clip(phi, -5,
//!   1)), loss the Gaussian negative log-likelihood (yhat - y)^2 / (2
//!   sigma^2) + ln sigma: the aleatoric model.
//!
//! Targets are in the caller's units (the learner passes y/10, the code's
//! response function). Rows carry weights: the code cycles the buffer to
//! exactly 25,000 rows and takes the mean gradient, which is the weighted
//! mean over the buffer with weight = copies / 25,000 (see
//! `prac::cycle_weights`), without materialising the copies.

use serde::{Deserialize, Serialize};

use super::{affine_active, affine_sparse, check_batch, sigmoid, softplus, Adam, Layout};
use crate::rng::Stream;
use crate::LikelyError;

/// What the network predicts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Outputs {
    /// yhat only.
    Mean,
    /// yhat and the aleatoric sigma_a.
    MeanSigma,
}

impl Outputs {
    pub fn count(self) -> usize {
        match self {
            Outputs::Mean => 1,
            Outputs::MeanSigma => 2,
        }
    }
}

/// The clip on phi before the softplus (the code's `PHIMIN`, `PHIMAX`).
pub const PHI_MIN: f32 = -5.0;
pub const PHI_MAX: f32 = 1.0;

/// One input's prediction, in target units.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    pub mean: f32,
    /// sigma_a; 0 for [`Outputs::Mean`].
    pub sigma: f32,
}

/// The feed-forward network with its optimiser state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ffnn {
    n_in: usize,
    n_hidden: usize,
    outputs: Outputs,
    /// Inverted-dropout probability on the hidden layer, training only.
    dropout: f32,
    params: Vec<f32>,
    adam: Adam,
}

/// Per-row activations of a batched pass.
struct Pass {
    z1: Vec<f32>,
    out: Vec<f32>,
}

impl Ffnn {
    /// A new network, He-normal weights from `rng`.
    pub fn new(
        n_in: usize,
        n_hidden: usize,
        outputs: Outputs,
        dropout: f32,
        lr: f32,
        rng: &mut Stream,
    ) -> Result<Ffnn, LikelyError> {
        if n_in == 0 || n_hidden == 0 {
            return Err(LikelyError::Shape(format!("an FFNN needs inputs and hidden units, not [{n_in}, {n_hidden}]")));
        }
        if !(0.0..1.0).contains(&dropout) {
            return Err(LikelyError::Settings(format!("dropout {dropout} is not in [0, 1)")));
        }
        let layout = Layout { n_in, n_hidden, n_out: outputs.count() };
        let mut params = vec![0.0f32; layout.len()];
        let he1 = (2.0 / n_in as f32).sqrt();
        for w in &mut params[layout.w1()] {
            *w = rng.normal() * he1;
        }
        let he2 = (2.0 / n_hidden as f32).sqrt();
        for w in &mut params[layout.w2()] {
            *w = rng.normal() * he2;
        }
        Ok(Ffnn { n_in, n_hidden, outputs, dropout, adam: Adam::new(params.len(), lr), params })
    }

    fn layout(&self) -> Layout {
        Layout { n_in: self.n_in, n_hidden: self.n_hidden, n_out: self.outputs.count() }
    }

    pub fn inputs(&self) -> usize {
        self.n_in
    }

    pub fn hidden(&self) -> usize {
        self.n_hidden
    }

    pub fn outputs(&self) -> Outputs {
        self.outputs
    }

    pub fn params(&self) -> &[f32] {
        &self.params
    }

    pub fn params_mut(&mut self) -> &mut [f32] {
        &mut self.params
    }

    /// Adam steps taken.
    pub fn steps(&self) -> u64 {
        self.adam.steps()
    }

    /// sigma_a from the raw second output.
    #[inline]
    pub fn sigma_of_phi(phi: f32) -> f32 {
        softplus(phi.clamp(PHI_MIN, PHI_MAX))
    }

    /// The prediction for one input, without dropout; `hidden` is scratch
    /// of [`Ffnn::hidden`] values. Allocates nothing: the per-node call of
    /// a search.
    #[inline]
    pub fn predict(&self, x: &[f32], hidden: &mut [f32]) -> Prediction {
        let l = self.layout();
        let h = &mut hidden[..l.n_hidden];
        affine_sparse(&self.params[l.w1()], &self.params[l.b1()], &x[..l.n_in], h);
        self.output(h)
    }

    /// [`Ffnn::predict`] for a binary input given by the positions of its
    /// ones (a one-hot encoding's `active` set; see
    /// `Features::active`): no input vector to write or scan.
    #[inline]
    pub fn predict_active(&self, active: &[u32], hidden: &mut [f32]) -> Prediction {
        let l = self.layout();
        let h = &mut hidden[..l.n_hidden];
        affine_active(&self.params[l.w1()], &self.params[l.b1()], active, h);
        self.output(h)
    }

    /// The output layer on the hidden pre-activations.
    #[inline]
    fn output(&self, h: &[f32]) -> Prediction {
        let l = self.layout();
        let w2 = &self.params[l.w2()];
        let b2 = &self.params[l.b2()];
        match self.outputs {
            Outputs::Mean => {
                let mut m = b2[0];
                for (&a, &w) in h.iter().zip(w2) {
                    m += a.max(0.0) * w;
                }
                Prediction { mean: m, sigma: 0.0 }
            }
            Outputs::MeanSigma => {
                let (mut m, mut phi) = (b2[0], b2[1]);
                for (&a, w) in h.iter().zip(w2.chunks_exact(2)) {
                    let a = a.max(0.0);
                    m += a * w[0];
                    phi += a * w[1];
                }
                Prediction { mean: m, sigma: Ffnn::sigma_of_phi(phi) }
            }
        }
    }

    /// Predictions for `x` (rows of [`Ffnn::inputs`] values), appended to
    /// `out`.
    pub fn predict_batch(&self, x: &[f32], out: &mut Vec<Prediction>) {
        let mut hidden = vec![0.0; self.n_hidden];
        out.extend(x.chunks_exact(self.n_in).map(|row| self.predict(row, &mut hidden)));
    }

    /// The forward pass of a batch under the dropout `mask` (per row and
    /// hidden unit, 0 or 1/(1-p); `None`: no dropout).
    fn forward(&self, x: &[f32], n: usize, mask: Option<&[f32]>) -> Pass {
        let l = self.layout();
        let (h, o) = (l.n_hidden, l.n_out);
        let mut z1 = vec![0.0f32; n * h];
        let mut out = vec![0.0f32; n * o];
        let (w1, b1, w2, b2) = (&self.params[l.w1()], &self.params[l.b1()], &self.params[l.w2()], &self.params[l.b2()]);
        for r in 0..n {
            let zr = &mut z1[r * h..(r + 1) * h];
            affine_sparse(w1, b1, &x[r * l.n_in..(r + 1) * l.n_in], zr);
            let or = &mut out[r * o..(r + 1) * o];
            or.copy_from_slice(b2);
            for j in 0..h {
                let mut a = zr[j].max(0.0);
                if let Some(m) = mask {
                    a *= m[r * h + j];
                }
                if a != 0.0 {
                    for k in 0..o {
                        or[k] += a * w2[j * o + k];
                    }
                }
            }
        }
        Pass { z1, out }
    }

    /// The weighted loss sum_r w_r L_r over a batch and its gradient with
    /// respect to every parameter (written to `grad`, [`Ffnn::params`]
    /// long), under a fixed dropout `mask`. Deterministic: what the
    /// finite-difference tests check.
    ///
    /// Dropout is back-propagated through the mask (a dropped unit passes
    /// no gradient to its incoming weights); the paper's code multiplies
    /// the mask into the forward activations only, so its dropped units
    /// still receive gradient. Through the clip on phi the gradient passes
    /// as if unclipped, as in the code (`SetOutputDelta` differentiates
    /// softplus at the clipped phi), so sigma_a can recover from the
    /// clip's edges.
    pub fn loss_and_grad(
        &self,
        x: &[f32],
        y: &[f32],
        weights: &[f32],
        mask: Option<&[f32]>,
        grad: &mut [f32],
    ) -> Result<f64, LikelyError> {
        let l = self.layout();
        let n = check_batch(&l, x, y)?;
        if weights.len() != n || grad.len() != l.len() || mask.is_some_and(|m| m.len() != n * l.n_hidden) {
            return Err(LikelyError::Shape("weights, mask or gradient of the wrong length".into()));
        }
        let pass = self.forward(x, n, mask);
        let (h, o) = (l.n_hidden, l.n_out);
        grad.fill(0.0);
        let mut loss = 0.0f64;
        let mut dout = [0.0f32; 2];
        let mut dz = vec![0.0f32; h];
        let w2 = &self.params[l.w2()];
        for r in 0..n {
            let wr = weights[r];
            let out = &pass.out[r * o..(r + 1) * o];
            let diff = out[0] - y[r];
            match self.outputs {
                Outputs::Mean => {
                    loss += wr as f64 * 0.5 * (diff as f64) * (diff as f64);
                    dout[0] = wr * diff;
                }
                Outputs::MeanSigma => {
                    let phi = out[1].clamp(PHI_MIN, PHI_MAX);
                    let sigma = softplus(phi);
                    let s2 = sigma * sigma;
                    loss += wr as f64 * ((diff * diff / (2.0 * s2)) as f64 + (sigma as f64).ln());
                    dout[0] = wr * diff / s2;
                    dout[1] = wr * (-(diff * diff) / (s2 * sigma) + 1.0 / sigma) * sigmoid(phi);
                }
            }
            // Output layer.
            let zr = &pass.z1[r * h..(r + 1) * h];
            for k in 0..o {
                grad[l.b2().start + k] += dout[k];
            }
            for j in 0..h {
                let m = mask.map_or(1.0, |m| m[r * h + j]);
                let a = zr[j].max(0.0) * m;
                let mut da = 0.0;
                for k in 0..o {
                    grad[l.w2().start + j * o + k] += a * dout[k];
                    da += w2[j * o + k] * dout[k];
                }
                dz[j] = if zr[j] > 0.0 { da * m } else { 0.0 };
            }
            // Hidden layer: one row of w1's gradient per set input.
            for (g, &d) in grad[l.b1()].iter_mut().zip(&dz) {
                *g += d;
            }
            let xr = &x[r * l.n_in..(r + 1) * l.n_in];
            let gw1 = &mut grad[l.w1()];
            for (i, &xi) in xr.iter().enumerate() {
                if xi != 0.0 {
                    for (g, &d) in gw1[i * h..(i + 1) * h].iter_mut().zip(&dz) {
                        *g += xi * d;
                    }
                }
            }
        }
        Ok(loss)
    }

    /// One Adam step on the weighted batch, with fresh dropout masks from
    /// `rng` when the network has dropout. Returns the loss before the
    /// step.
    pub fn train_step(&mut self, x: &[f32], y: &[f32], weights: &[f32], rng: &mut Stream) -> Result<f64, LikelyError> {
        let mask = if self.dropout > 0.0 {
            let keep = 1.0 - self.dropout;
            let scale = 1.0 / keep;
            Some(
                (0..y.len() * self.n_hidden)
                    .map(|_| if rng.uniform() < keep as f64 { scale } else { 0.0 })
                    .collect::<Vec<f32>>(),
            )
        } else {
            None
        };
        let mut grad = vec![0.0f32; self.params.len()];
        let loss = self.loss_and_grad(x, y, weights, mask.as_deref(), &mut grad)?;
        if !loss.is_finite() || grad.iter().any(|g| !g.is_finite()) {
            return Err(LikelyError::Diverged(format!("FFNN loss {loss}")));
        }
        self.adam.step(&mut self.params, &grad);
        Ok(loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn data(n: usize, n_in: usize, rng: &mut Stream) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
        // Sparse inputs (about half zero), as one-hot encodings are.
        let x: Vec<f32> = (0..n * n_in).map(|_| if rng.uniform() < 0.5 { 0.0 } else { rng.normal() }).collect();
        let y: Vec<f32> = (0..n).map(|_| rng.normal()).collect();
        let w: Vec<f32> = (0..n).map(|_| 0.5 + rng.uniform() as f32).collect();
        (x, y, w)
    }

    /// Central differences against the analytic gradient, every parameter.
    fn check_gradient(outputs: Outputs, with_mask: bool) {
        let mut rng = Stream::new(42, 0);
        let (n, n_in, h) = (7, 6, 5);
        let mut net = Ffnn::new(n_in, h, outputs, 0.2, 1e-3, &mut rng).unwrap();
        // Non-zero biases so that every parameter matters.
        let l = net.layout();
        for p in &mut net.params[l.b1().start..] {
            *p += 0.1 * rng.normal();
        }
        let (x, y, w) = data(n, n_in, &mut rng);
        let mask: Option<Vec<f32>> =
            with_mask.then(|| (0..n * h).map(|i| if i % 4 == 1 { 0.0 } else { 1.25 }).collect());
        if outputs == Outputs::MeanSigma {
            // Keep phi inside the clip, where the loss is differentiable.
            for k in (l.w2().start + 1..l.w2().end).step_by(2) {
                net.params[k] *= 0.2;
            }
            net.params[l.b2().start + 1] = -1.0;
        }
        let mut grad = vec![0.0; l.len()];
        net.loss_and_grad(&x, &y, &w, mask.as_deref(), &mut grad).unwrap();
        if outputs == Outputs::MeanSigma {
            let pass = net.forward(&x, n, mask.as_deref());
            assert!(pass.out.chunks(2).all(|o| o[1] > PHI_MIN + 0.1 && o[1] < PHI_MAX - 0.1));
        }
        assert!(grad.iter().any(|g| g.abs() > 0.1), "a gradient too small to test");
        crate::nn::check_gradient_fd(&grad, 2e-3, |i, delta| {
            let mut moved = net.clone();
            moved.params[i] += delta;
            moved.loss_and_grad(&x, &y, &w, mask.as_deref(), &mut vec![0.0; l.len()]).unwrap()
        });
        // A dropped unit gets no gradient on its incoming weights from
        // that row: with every unit dropped, w1 and b1 get none at all.
        if with_mask {
            let all_dropped = vec![0.0; n * h];
            net.loss_and_grad(&x, &y, &w, Some(&all_dropped), &mut grad).unwrap();
            assert!(grad[l.w1().start..l.b1().end].iter().all(|&g| g == 0.0));
        }
    }

    #[test]
    fn mse_gradient_matches_finite_differences() {
        check_gradient(Outputs::Mean, false);
        check_gradient(Outputs::Mean, true);
    }

    #[test]
    fn gaussian_nll_gradient_matches_finite_differences() {
        check_gradient(Outputs::MeanSigma, false);
        check_gradient(Outputs::MeanSigma, true);
    }

    #[test]
    fn single_and_batched_predictions_agree() {
        let mut rng = Stream::new(1, 0);
        let net = Ffnn::new(10, 4, Outputs::MeanSigma, 0.0, 1e-3, &mut rng).unwrap();
        let (x, _, _) = data(5, 10, &mut rng);
        let mut batch = Vec::new();
        net.predict_batch(&x, &mut batch);
        let pass = net.forward(&x, 5, None);
        for (r, p) in batch.iter().enumerate() {
            assert!((p.mean - pass.out[2 * r]).abs() < 1e-6);
            assert!((p.sigma - Ffnn::sigma_of_phi(pass.out[2 * r + 1])).abs() < 1e-6);
            assert!(p.sigma >= softplus(PHI_MIN) && p.sigma <= softplus(PHI_MAX));
        }
    }

    #[test]
    fn active_positions_predict_as_the_binary_vector() {
        let mut rng = Stream::new(8, 0);
        for h in [8, 20, 7] {
            let net = Ffnn::new(130, h, Outputs::MeanSigma, 0.0, 1e-3, &mut rng).unwrap();
            let active: Vec<u32> = vec![0, 5, 63, 64, 65, 100, 129];
            let mut x = vec![0.0; 130];
            for &i in &active {
                x[i as usize] = 1.0;
            }
            let mut hid = vec![0.0; h];
            let (a, b) = (net.predict(&x, &mut hid), net.predict_active(&active, &mut hid));
            assert!((a.mean - b.mean).abs() < 1e-5 && (a.sigma - b.sigma).abs() < 1e-5, "{a:?} {b:?}");
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        let mut rng = Stream::new(1, 0);
        assert!(Ffnn::new(0, 4, Outputs::Mean, 0.0, 1e-3, &mut rng).is_err());
        assert!(Ffnn::new(3, 4, Outputs::Mean, 1.0, 1e-3, &mut rng).is_err());
        let mut net = Ffnn::new(3, 4, Outputs::Mean, 0.0, 1e-3, &mut rng).unwrap();
        assert!(net.train_step(&[1.0, 2.0], &[1.0], &[1.0], &mut rng).is_err());
        assert!(net.train_step(&[], &[], &[], &mut rng).is_err());
    }
}
