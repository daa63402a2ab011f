//! The WUNN (notes sections 1.2-1.3; the code's `NNBayes` and
//! `BayesLayer`): Bayes-by-backprop with a factorised Gaussian posterior
//! N(mu, sigma^2), sigma = softplus(rho), on every weight and bias of an
//! [in, H, 1] ReLU network.
//!
//! - Initialisation as the code's: mu_W ~ N(0, 1) sqrt(2/in), rho_W ~
//!   N(-5, 1) sqrt(2/in) (the He factor scales the -5 mean too, so at in =
//!   128 rho starts near -0.63 and sigma near 0.43: a quirk kept), mu_b = 0,
//!   rho_b = -5.
//! - Forward by the local reparameterisation trick: a layer's
//!   pre-activation is drawn as z = a mu_W + mu_b + e sqrt(a^2 sigma_W^2 +
//!   sigma_b^2), e ~ N(0, 1) per row and unit.
//! - Loss (`NNBayes`): mean over the batch of [beta KL(q || p) - (1/S)
//!   sum_s log N(y | yhat_s, 1)] with S = 5 samples, i.e. beta KL + (1 /
//!   (N S)) sum_r sum_s (yhat_rs - y_r)^2 / 2: the KL of the whole network
//!   is weighted by beta once, not divided by the data size (pitfall 9),
//!   and the likelihood's noise is fixed at 1 (the code's `LogOfNormal`
//!   with sigma 1 has no other term). KL is the closed form between
//!   univariate normals, summed over all parameters, against the prior
//!   N(0, sigma_0^2 = 10), with the code's 1e-8 in log(sigma_0 / (sigma +
//!   1e-8)).
//! - Adam at lr 0.01 in the code's TensorFlow form
//!   ([`Adam::frozen_bias_correction`]).
//! - Epistemic uncertainty: the spread of K = 100 sampled predictions,
//!   sigma_e = sqrt(max(0, mean(p^2) - mean(p)^2)) (`GetSummaryStatistics`).
//!   The first layer's mean and variance do not depend on the noise, so
//!   they are computed once per input and only the noise is drawn K times.

use serde::{Deserialize, Serialize};

use super::{affine_sparse, check_batch, sigmoid, softplus, Adam, Layout};
use crate::rng::Stream;
use crate::LikelyError;

/// The code's constant in the KL's log(sigma_0 / (sigma + 1e-8)).
const KL_EPS: f32 = 1e-8;

/// The spread of a WUNN's sampled predictions for one input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Epistemic {
    pub mean: f32,
    /// sigma_e (a standard deviation: the code thresholds it, not the
    /// variance).
    pub sigma: f32,
}

/// The weight-uncertainty network with its optimiser state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Wunn {
    n_in: usize,
    n_hidden: usize,
    prior_sigma: f32,
    /// Weight samples per training forward pass (5).
    samples: usize,
    /// mu of every parameter (the [`Layout`] of [in, H, 1]), then rho.
    params: Vec<f32>,
    adam: Adam,
}

impl Wunn {
    /// A new network, initialised from `rng` as the code does.
    pub fn new(
        n_in: usize,
        n_hidden: usize,
        prior_variance: f32,
        samples: usize,
        lr: f32,
        rng: &mut Stream,
    ) -> Result<Wunn, LikelyError> {
        if n_in == 0 || n_hidden == 0 || samples == 0 {
            return Err(LikelyError::Shape(format!(
                "a WUNN needs inputs, hidden units and samples, not [{n_in}, {n_hidden}] x {samples}"
            )));
        }
        if prior_variance.is_nan() || prior_variance <= 0.0 {
            return Err(LikelyError::Settings(format!("prior variance {prior_variance} is not positive")));
        }
        let l = Layout { n_in, n_hidden, n_out: 1 };
        let p = l.len();
        let mut params = vec![0.0f32; 2 * p];
        let he1 = (2.0 / n_in as f32).sqrt();
        let he2 = (2.0 / n_hidden as f32).sqrt();
        for (range, he) in [(l.w1(), he1), (l.w2(), he2)] {
            for i in range {
                params[i] = rng.normal() * he;
                params[p + i] = (rng.normal() - 5.0) * he;
            }
        }
        for range in [l.b1(), l.b2()] {
            for i in range {
                params[p + i] = -5.0;
            }
        }
        Ok(Wunn {
            n_in,
            n_hidden,
            prior_sigma: prior_variance.sqrt(),
            samples,
            adam: Adam::frozen_bias_correction(2 * p, lr),
            params,
        })
    }

    fn layout(&self) -> Layout {
        Layout { n_in: self.n_in, n_hidden: self.n_hidden, n_out: 1 }
    }

    pub fn inputs(&self) -> usize {
        self.n_in
    }

    pub fn hidden(&self) -> usize {
        self.n_hidden
    }

    /// mu then rho of every parameter.
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

    fn mu(&self) -> &[f32] {
        &self.params[..self.layout().len()]
    }

    /// sigma = softplus(rho) of every parameter.
    fn sigmas(&self) -> Vec<f32> {
        self.params[self.layout().len()..].iter().map(|&r| softplus(r)).collect()
    }

    /// The prediction of the posterior's mean weights for one input;
    /// `hidden` is scratch of [`Wunn::hidden`] values. Allocates nothing.
    #[inline]
    pub fn mean_prediction(&self, x: &[f32], hidden: &mut [f32]) -> f32 {
        let l = self.layout();
        let mu = self.mu();
        let h = &mut hidden[..l.n_hidden];
        affine_sparse(&mu[l.w1()], &mu[l.b1()], &x[..l.n_in], h);
        let mut out = mu[l.b2().start];
        for (&a, &w) in h.iter().zip(&mu[l.w2()]) {
            out += a.max(0.0) * w;
        }
        out
    }

    /// The first layer's mean and variance for one input (`m`, `v`: H
    /// values each), given the sigmas.
    fn first_layer(&self, sig: &[f32], x: &[f32], m: &mut [f32], v: &mut [f32]) {
        let l = self.layout();
        let mu = self.mu();
        affine_sparse(&mu[l.w1()], &mu[l.b1()], x, m);
        let h = l.n_hidden;
        for (vj, &s) in v.iter_mut().zip(&sig[l.b1()]) {
            *vj = s * s;
        }
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                let x2 = xi * xi;
                for (vj, &s) in v.iter_mut().zip(&sig[i * h..(i + 1) * h]) {
                    *vj += x2 * s * s;
                }
            }
        }
    }

    /// sigma_e and the mean of `k` sampled predictions for each row of `x`
    /// (rows of [`Wunn::inputs`] values), appended to `out`.
    pub fn epistemic(&self, x: &[f32], k: usize, rng: &mut Stream, out: &mut Vec<Epistemic>) {
        let l = self.layout();
        let h = l.n_hidden;
        let sig = self.sigmas();
        let mu = self.mu();
        let (w2, b2) = (&mu[l.w2()], mu[l.b2().start]);
        let (s2w, s2b) = (&sig[l.w2()], sig[l.b2().start] * sig[l.b2().start]);
        let mut m = vec![0.0f32; h];
        let mut v = vec![0.0f32; h];
        for row in x.chunks_exact(l.n_in) {
            self.first_layer(&sig, row, &mut m, &mut v);
            for vj in &mut v {
                *vj = vj.sqrt();
            }
            let (mut sum, mut sum2) = (0.0f64, 0.0f64);
            for _ in 0..k {
                let (mut m2, mut v2) = (b2, s2b);
                for j in 0..h {
                    let a = (m[j] + rng.normal() * v[j]).max(0.0);
                    if a != 0.0 {
                        m2 += a * w2[j];
                        v2 += a * a * s2w[j] * s2w[j];
                    }
                }
                let p = (m2 + rng.normal() * v2.sqrt()) as f64;
                sum += p;
                sum2 += p * p;
            }
            let kf = k.max(1) as f64;
            let mean = sum / kf;
            let var = (sum2 / kf - mean * mean).max(0.0);
            out.push(Epistemic { mean: mean as f32, sigma: var.sqrt() as f32 });
        }
    }

    /// KL(q || p) of the whole network.
    pub fn kl(&self) -> f64 {
        let s0 = self.prior_sigma as f64;
        self.mu()
            .iter()
            .zip(self.sigmas())
            .map(|(&m, s)| {
                let (m, s) = (m as f64, s as f64);
                (s * s + m * m) / (2.0 * s0 * s0) + (s0 / (s + KL_EPS as f64)).ln() - 0.5
            })
            .sum()
    }

    /// Noise values one training pass draws for `rows` rows.
    pub fn noise_len(&self, rows: usize) -> usize {
        rows * self.samples * (self.n_hidden + 1)
    }

    /// The loss beta KL + (1/(N S)) sum (yhat - y)^2 / 2 and its gradient
    /// with respect to every mu and rho (`grad`, [`Wunn::params`] long),
    /// under fixed standard-normal `noise` ([`Wunn::noise_len`] values: per
    /// row and sample, H for the hidden layer then 1 for the output).
    /// Deterministic: what the finite-difference tests check.
    pub fn loss_and_grad(
        &self,
        x: &[f32],
        y: &[f32],
        noise: &[f32],
        beta: f32,
        grad: &mut [f32],
    ) -> Result<f64, LikelyError> {
        let l = self.layout();
        let n = check_batch(&l, x, y)?;
        if noise.len() != self.noise_len(n) || grad.len() != self.params.len() {
            return Err(LikelyError::Shape("noise or gradient of the wrong length".into()));
        }
        let (h, s_count, p) = (l.n_hidden, self.samples, l.len());
        let sig = self.sigmas();
        let mu = self.mu();
        grad.fill(0.0);
        // Gradients with respect to mu and to sigma (chained to rho last).
        let (gmu, gsig) = grad.split_at_mut(p);
        let scale = 1.0 / (n * s_count) as f32;
        let (w2, b2) = (&mu[l.w2()], mu[l.b2().start]);
        let (sw2, sb2) = (&sig[l.w2()], sig[l.b2().start]);
        let mut m1 = vec![0.0f32; h];
        let mut sd1 = vec![0.0f32; h];
        let mut gm1 = vec![0.0f32; h];
        let mut gsd1 = vec![0.0f32; h];
        let mut a = vec![0.0f32; h];
        let mut data = 0.0f64;
        for r in 0..n {
            let xr = &x[r * l.n_in..(r + 1) * l.n_in];
            self.first_layer(&sig, xr, &mut m1, &mut sd1);
            for v in &mut sd1 {
                *v = v.sqrt();
            }
            gm1.fill(0.0);
            gsd1.fill(0.0);
            for s in 0..s_count {
                let e = &noise[(r * s_count + s) * (h + 1)..(r * s_count + s + 1) * (h + 1)];
                let (mut m2, mut v2) = (b2, sb2 * sb2);
                for j in 0..h {
                    a[j] = (m1[j] + e[j] * sd1[j]).max(0.0);
                    m2 += a[j] * w2[j];
                    v2 += a[j] * a[j] * sw2[j] * sw2[j];
                }
                let sd2 = v2.sqrt();
                let pred = m2 + e[h] * sd2;
                let diff = pred - y[r];
                data += 0.5 * (diff as f64) * (diff as f64);
                // d loss / d pred, then through pred = m2 + e sd2.
                let g = diff * scale;
                let gv2 = g * e[h] / (2.0 * sd2);
                gmu[l.b2().start] += g;
                gsig[l.b2().start] += gv2 * 2.0 * sb2;
                for j in 0..h {
                    if a[j] == 0.0 {
                        continue;
                    }
                    gmu[l.w2().start + j] += g * a[j];
                    gsig[l.w2().start + j] += gv2 * a[j] * a[j] * 2.0 * sw2[j];
                    let da = g * w2[j] + gv2 * 2.0 * a[j] * sw2[j] * sw2[j];
                    // a > 0: through the ReLU and z = m1 + e sd1.
                    gm1[j] += da;
                    gsd1[j] += da * e[j];
                }
            }
            // Through sd1 = sqrt(v1), v1 = sigma_b^2 + sum x^2 sigma_W^2.
            for j in 0..h {
                let gv1 = gsd1[j] / (2.0 * sd1[j]);
                gsd1[j] = gv1;
                gmu[l.b1().start + j] += gm1[j];
                gsig[l.b1().start + j] += gv1 * 2.0 * sig[l.b1().start + j];
            }
            for (i, &xi) in xr.iter().enumerate() {
                if xi != 0.0 {
                    let x2 = xi * xi;
                    let row = i * h..(i + 1) * h;
                    for (gm, &dm) in gmu[row.clone()].iter_mut().zip(&gm1) {
                        *gm += xi * dm;
                    }
                    for ((gs, &gv1), &sw) in gsig[row.clone()].iter_mut().zip(&gsd1).zip(&sig[row]) {
                        *gs += x2 * gv1 * 2.0 * sw;
                    }
                }
            }
        }
        // The KL term and the chain to rho.
        let s0 = self.prior_sigma;
        let inv_var0 = 1.0 / (s0 * s0);
        for i in 0..p {
            gmu[i] += beta * mu[i] * inv_var0;
            gsig[i] += beta * (sig[i] * inv_var0 - 1.0 / (sig[i] + KL_EPS));
            gsig[i] *= sigmoid(self.params[p + i]);
        }
        Ok(beta as f64 * self.kl() + data * scale as f64)
    }

    /// One Adam step on a minibatch, with fresh noise from `rng`. Returns
    /// the loss before the step.
    pub fn train_step(&mut self, x: &[f32], y: &[f32], beta: f32, rng: &mut Stream) -> Result<f64, LikelyError> {
        let noise: Vec<f32> = (0..self.noise_len(y.len())).map(|_| rng.normal()).collect();
        let mut grad = vec![0.0f32; self.params.len()];
        let loss = self.loss_and_grad(x, y, &noise, beta, &mut grad)?;
        if !loss.is_finite() || grad.iter().any(|g| !g.is_finite()) {
            return Err(LikelyError::Diverged(format!("WUNN loss {loss}")));
        }
        self.adam.step(&mut self.params, &grad);
        Ok(loss)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradient_matches_finite_differences() {
        let mut rng = Stream::new(9, 0);
        let (n, n_in, h) = (6, 5, 4);
        let mut net = Wunn::new(n_in, h, 10.0, 3, 0.01, &mut rng).unwrap();
        // Larger sigmas than the initial ones, so that the variance paths
        // carry gradient worth checking; non-zero biases.
        let p = net.layout().len();
        for i in 0..p {
            net.params[p + i] = -1.0 + 0.3 * rng.normal();
            net.params[i] += 0.2 * rng.normal();
        }
        let x: Vec<f32> = (0..n * n_in).map(|_| if rng.uniform() < 0.4 { 0.0 } else { rng.normal() }).collect();
        let y: Vec<f32> = (0..n).map(|_| 3.0 * rng.normal()).collect();
        let noise: Vec<f32> = (0..net.noise_len(n)).map(|_| rng.normal()).collect();
        for beta in [0.0, 0.05, 1.0] {
            let mut grad = vec![0.0; 2 * p];
            net.loss_and_grad(&x, &y, &noise, beta, &mut grad).unwrap();
            assert!(grad[p..].iter().any(|g| g.abs() > 0.05), "rho gradients too small to test");
            crate::nn::check_gradient_fd(&grad, 2e-3, |i, delta| {
                let mut moved = net.clone();
                moved.params[i] += delta;
                moved.loss_and_grad(&x, &y, &noise, beta, &mut vec![0.0; 2 * p]).unwrap()
            });
        }
    }

    #[test]
    fn initialisation_follows_the_code() {
        let mut rng = Stream::new(2, 0);
        let net = Wunn::new(128, 20, 10.0, 5, 0.01, &mut rng).unwrap();
        let l = net.layout();
        let p = l.len();
        let rho_w1: Vec<f32> = net.params[p..p + l.w1().end].to_vec();
        let mean = rho_w1.iter().sum::<f32>() / rho_w1.len() as f32;
        // N(-5, 1) * sqrt(2 / 128) = N(-0.625, 0.125^2).
        assert!((mean + 0.625).abs() < 0.02, "{mean}");
        assert!(net.params[p + l.b1().start..p + l.b1().end].iter().all(|&r| r == -5.0));
        assert!(net.params[l.b1()].iter().all(|&m| m == 0.0));
        assert!(net.kl() > 0.0);
    }

    #[test]
    fn uncertainty_is_higher_far_from_the_data() {
        // Learn y = 3 x0 + 2 on inputs in a small region; inputs far
        // outside it must be more uncertain than the training inputs.
        let mut rng = Stream::new(17, 0);
        let n_in = 4;
        let mut net = Wunn::new(n_in, 16, 10.0, 5, 0.01, &mut rng).unwrap();
        let n = 40;
        let x: Vec<f32> = (0..n * n_in).map(|i| if i % n_in == 0 { rng.uniform() as f32 } else { 0.0 }).collect();
        let y: Vec<f32> = (0..n).map(|r| 3.0 * x[r * n_in] + 2.0).collect();
        for _ in 0..1500 {
            net.train_step(&x, &y, 1e-3, &mut rng).unwrap();
        }
        let mut near = Vec::new();
        net.epistemic(&x, 100, &mut rng, &mut near);
        let far_x: Vec<f32> = (0..20 * n_in).map(|i| if i % n_in == 0 { 0.0 } else { 4.0 + (i % 3) as f32 }).collect();
        let mut far = Vec::new();
        net.epistemic(&far_x, 100, &mut rng, &mut far);
        let near_sigma = near.iter().map(|e| e.sigma).sum::<f32>() / near.len() as f32;
        let far_sigma = far.iter().map(|e| e.sigma).sum::<f32>() / far.len() as f32;
        let fit = near.iter().zip(&y).map(|(e, y)| (e.mean - y).abs()).sum::<f32>() / n as f32;
        assert!(fit < 0.5, "mean absolute error {fit} on the training inputs");
        assert!(far_sigma > 2.0 * near_sigma, "sigma_e far {far_sigma}, near {near_sigma}");
    }

    #[test]
    fn mean_prediction_is_the_noise_free_pass() {
        let mut rng = Stream::new(4, 0);
        let mut net = Wunn::new(6, 5, 10.0, 5, 0.01, &mut rng).unwrap();
        let p = net.layout().len();
        for r in &mut net.params[p..] {
            *r = -30.0; // sigma ~ 1e-13: the samples collapse onto the mean.
        }
        let x: Vec<f32> = (0..6).map(|_| rng.normal()).collect();
        let mut out = Vec::new();
        net.epistemic(&x, 10, &mut rng, &mut out);
        let m = net.mean_prediction(&x, &mut [0.0; 5]);
        assert!((out[0].mean - m).abs() < 1e-5 && out[0].sigma < 1e-4, "{out:?} vs {m}");
    }
}
