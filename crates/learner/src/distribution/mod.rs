//! The statistical models of h*: a Gaussian N(mu, sigma) and a truncated
//! Gaussian TN(mu, sigma, l, u), on tensors, differentiable in mu and sigma.
//!
//! The truncated Gaussian follows the paper's appendix B in spirit: its
//! mean and log Z stay accurate however far mu lies outside [l, u]. A naive
//! implementation loses every digit once mu is a few sigmas outside (e.g.
//! mu = -100, l = 5, sigma = 0.5), which is exactly where a model starts
//! training. The arithmetic is in [`truncated`], element by element in f64
//! on the host, whatever the model's precision and device; this module
//! hands its derivatives to autograd.

use serde::{Deserialize, Serialize};
use tch::{Kind, Tensor};

pub mod truncated;

/// The paper's stand-in for a missing bound (appendix B.2).
pub const MISSING_BOUND: f64 = 1e5;
/// Bounds are opened by this much (appendix B.3): h* may equal an admissible
/// bound, and a closed bound rewards mu -> -infinity for such states.
pub const OPEN_BOUND_EPS: f64 = 0.1;
/// Sigma when it is not learned: the authors' code fixes it at sqrt 2
/// (`pddlsl/model_wrapper.py:19-20`, `default_sigma = 0.5**(-0.5)`), which
/// produced the published tables; the paper's text says 1/sqrt 2. A
/// Gaussian's NLL is then MSE/4 + ln(2 sqrt(pi)) on any checkpoint, and the
/// truncated Gaussian's mean depends on it.
pub const FIXED_SIGMA: f64 = std::f64::consts::SQRT_2;

/// Which distribution models h*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    Gaussian,
    Truncated,
}

/// A batch of distributions: one (mu, sigma, l, u) per element, l and u
/// already opened. For the Gaussian, l and u only serve the +clip estimate.
pub struct Dist {
    pub family: Family,
    pub mu: Tensor,
    pub sigma: Tensor,
    pub lower: Tensor,
    pub upper: Tensor,
}

impl Dist {
    /// Builds the distribution of a batch: `lower`/`upper` are the raw bounds
    /// (NaN or infinite where missing); they are opened by [`OPEN_BOUND_EPS`].
    pub fn new(family: Family, mu: &Tensor, sigma: &Tensor, lower: &Tensor, upper: &Tensor) -> Dist {
        let lower = open(lower, -1.0);
        let upper = open(upper, 1.0);
        Dist { family, mu: mu.to_kind(Kind::Double), sigma: sigma.to_kind(Kind::Double), lower, upper }
    }

    /// The same distribution with mu clipped into [l, u] (the "+clip" variant).
    pub fn clipped(&self) -> Dist {
        let mu = self.mu.maximum(&(&self.lower + OPEN_BOUND_EPS)).minimum(&(&self.upper - OPEN_BOUND_EPS));
        Dist {
            family: self.family,
            mu,
            sigma: self.sigma.shallow_clone(),
            lower: self.lower.shallow_clone(),
            upper: self.upper.shallow_clone(),
        }
    }

    /// The point estimate E[x]: mu for N, equation 10 for TN.
    pub fn mean(&self) -> Tensor {
        match self.family {
            Family::Gaussian => self.mu.shallow_clone(),
            Family::Truncated => truncated_mean(&self.mu, &self.sigma, &self.lower, &self.upper),
        }
    }

    /// log p(x) per element (f64); -inf outside the truncated support.
    pub fn log_prob(&self, x: &Tensor) -> Tensor {
        let x = x.to_kind(Kind::Double);
        match self.family {
            Family::Gaussian => gaussian_log_prob(&self.mu, &self.sigma, &x),
            Family::Truncated => truncated_log_prob(&self.mu, &self.sigma, &self.lower, &self.upper, &x),
        }
    }
}

/// Opens a raw bound by eps in `direction` and replaces missing ones by the
/// paper's +-1e5.
fn open(bound: &Tensor, direction: f64) -> Tensor {
    let b = bound.to_kind(Kind::Double);
    let missing = b.isnan().logical_or(&b.isinf());
    let b = b.where_self(&missing.logical_not(), &Tensor::from(direction * MISSING_BOUND).to_kind(Kind::Double));
    b + direction * OPEN_BOUND_EPS
}

const LOG_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

pub fn gaussian_log_prob(mu: &Tensor, sigma: &Tensor, x: &Tensor) -> Tensor {
    let xi = (x - mu) / sigma;
    -sigma.log() - LOG_SQRT_2PI - xi.square() * 0.5
}

/// E[x] of TN(mu, sigma, l, u) (equation 10), element-wise; differentiable
/// in mu and sigma.
pub fn truncated_mean(mu: &Tensor, sigma: &Tensor, lower: &Tensor, upper: &Tensor) -> Tensor {
    on_host(mu, sigma, &[lower, upper], |[m, s, l, u]| truncated::mean(m, s, l, u))
}

/// log p(x) of TN(mu, sigma, l, u), element-wise; -inf outside [l, u].
/// Differentiable in mu and sigma.
pub fn truncated_log_prob(mu: &Tensor, sigma: &Tensor, lower: &Tensor, upper: &Tensor, x: &Tensor) -> Tensor {
    on_host(mu, sigma, &[lower, upper, x], |[m, s, l, u, x]| truncated::log_prob(m, s, l, u, x))
}

/// Evaluates `f` element by element on the host (see [`truncated`] for why)
/// over (mu, sigma, rest...) broadcast together, and returns its values on
/// mu's device as a tensor whose gradient in mu and sigma is `f`'s
/// derivatives: value + d_mu (mu - mu') + d_sigma (sigma - sigma') with
/// mu', sigma' detached copies, which is the value exactly and has exactly
/// those first derivatives.
fn on_host<const N: usize>(
    mu: &Tensor,
    sigma: &Tensor,
    rest: &[&Tensor],
    f: impl Fn([f64; N]) -> truncated::WithGrad,
) -> Tensor {
    let mut all = vec![mu, sigma];
    all.extend_from_slice(rest);
    assert_eq!(all.len(), N, "on_host: {N} arguments expected");
    let broadcast = Tensor::broadcast_tensors(&all);
    let shape = broadcast[0].size();
    let host: Vec<Vec<f64>> = broadcast
        .iter()
        .map(|t| {
            let flat = t.detach().to_kind(Kind::Double).to_device(tch::Device::Cpu).reshape([-1]);
            Vec::<f64>::try_from(&flat).expect("a flat f64 tensor converts to a vector")
        })
        .collect();
    let results: Vec<truncated::WithGrad> =
        (0..host[0].len()).map(|k| f(std::array::from_fn(|j| host[j][k]))).collect();
    let column = |part: fn(&truncated::WithGrad) -> f64| {
        let v: Vec<f64> = results.iter().map(part).collect();
        Tensor::from_slice(&v).reshape(&shape).to_device(mu.device())
    };
    // A derivative goes back only where autograd asks for it (not in
    // planning's forward passes).
    let d_mu: fn(&truncated::WithGrad) -> f64 = |g| g.d_mu;
    let d_sigma: fn(&truncated::WithGrad) -> f64 = |g| g.d_sigma;
    [(&broadcast[0], d_mu), (&broadcast[1], d_sigma)]
        .into_iter()
        .filter(|(t, _)| t.requires_grad())
        .fold(column(|g| g.value), |out, (t, part)| {
            out + column(part) * (t.to_kind(Kind::Double) - t.detach().to_kind(Kind::Double))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64]) -> Tensor {
        Tensor::from_slice(v)
    }

    #[test]
    fn no_bounds_is_the_gaussian() {
        let mu = t(&[3.0, -2.0]);
        let s = t(&[1.5, 0.7]);
        let x = t(&[4.0, 0.0]);
        let d = Dist::new(Family::Truncated, &mu, &s, &t(&[f64::NAN, f64::NAN]), &t(&[f64::NAN, f64::NAN]));
        let g = gaussian_log_prob(&mu, &s, &x);
        let diff = (d.log_prob(&x) - g).abs().max().double_value(&[]);
        assert!(diff < 1e-12, "{diff}");
        let dm = (d.mean() - &mu).abs().max().double_value(&[]);
        assert!(dm < 1e-12, "{dm}");
    }
}
