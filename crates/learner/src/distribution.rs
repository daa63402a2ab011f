//! The statistical models of h*: a Gaussian N(mu, sigma) and a truncated
//! Gaussian TN(mu, sigma, l, u), on tensors, differentiable in mu and sigma.
//!
//! The truncated Gaussian follows the paper's appendix B: its mean goes
//! through F1(x, y) = (e^-x^2 - e^-y^2) / (erf(y) - erf(x)), evaluated with
//! erfcx on the tails and a Taylor expansion for nearly equal arguments, and
//! log Z = log(Phi(beta) - Phi(alpha)) is recovered from that stable mean on
//! the tails. A naive implementation loses every digit once mu is a few
//! sigmas outside [l, u] (e.g. mu = -100, l = 5, sigma = 0.5), which is
//! exactly where a model starts training.
//!
//! All arithmetic runs in f64 whatever the model's precision: the branches
//! below are computed for every element and selected with `where`, so each
//! branch sees inputs replaced by harmless values where it is not selected;
//! otherwise an unselected infinity would leak NaN into the gradients.

use std::f64::consts::{PI, SQRT_2};

use serde::{Deserialize, Serialize};
use tch::{Kind, Tensor};

/// The paper's stand-in for a missing bound (appendix B.2).
pub const MISSING_BOUND: f64 = 1e5;
/// Bounds are opened by this much (appendix B.3): h* may equal an admissible
/// bound, and a closed bound rewards mu -> -infinity for such states.
pub const OPEN_BOUND_EPS: f64 = 0.1;
/// The sigma that makes the Gaussian NLL the MSE up to a constant.
pub const FIXED_SIGMA: f64 = std::f64::consts::FRAC_1_SQRT_2;

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

fn scalar_like(t: &Tensor, v: f64) -> Tensor {
    Tensor::full([1], v, (Kind::Double, t.device()))
}

const LOG_SQRT_2PI: f64 = 0.918_938_533_204_672_8;

pub fn gaussian_log_prob(mu: &Tensor, sigma: &Tensor, x: &Tensor) -> Tensor {
    let xi = (x - mu) / sigma;
    -sigma.log() - LOG_SQRT_2PI - xi.square() * 0.5
}

/// F1(x, y) = (e^-x^2 - e^-y^2) / (erf(y) - erf(x)), stably (appendix B.1).
pub fn f1(x: &Tensor, y: &Tensor) -> Tensor {
    // F1 is symmetric: order the arguments so that |x| <= |y|.
    let swap = x.abs().gt_tensor(&y.abs());
    let (x, y) = (y.where_self(&swap, x), x.where_self(&swap, y));
    let eps = &y - &x;
    let near = eps.abs().lt(1e-7);
    let both_neg = x.le(0.0).logical_and(&y.le(0.0));
    let both_pos = x.ge(0.0).logical_and(&y.ge(0.0));
    let one = scalar_like(&x, 1.0);
    let minus_one = scalar_like(&x, -1.0);

    // Taylor branch: F1(x, x + eps) ~ P1(x, eps).
    let sp = PI.sqrt();
    let taylor = &x * sp + &eps * (0.5 * sp) - &x * eps.square() * (sp / 6.0) - eps.pow_tensor_scalar(3) * (sp / 12.0)
        + &x * (x.square() + 1.0) * eps.pow_tensor_scalar(4) * (sp / 90.0);

    // Tail branches, each fed a harmless (x, y) = (-1, -2) / (1, 2) / (-1, 1)
    // where it is not selected, and never the nearly-equal pairs.
    let sel_neg = both_neg.logical_and(&near.logical_not());
    let xn = x.where_self(&sel_neg, &minus_one);
    let yn = y.where_self(&sel_neg, &(&minus_one * 2.0));
    let dn = (xn.square() - yn.square()).exp();
    let neg: Tensor = (1.0 - &dn) / (&dn * (-&yn).special_erfcx() - (-&xn).special_erfcx());

    let sel_pos = both_pos.logical_and(&near.logical_not());
    let xp = x.where_self(&sel_pos, &one);
    let yp = y.where_self(&sel_pos, &(&one * 2.0));
    let dp = (xp.square() - yp.square()).exp();
    let pos: Tensor = (1.0 - &dp) / (xp.special_erfcx() - &dp * yp.special_erfcx());

    let sel_mid = both_neg.logical_or(&both_pos).logical_or(&near).logical_not();
    let xm = x.where_self(&sel_mid, &minus_one);
    let ym = y.where_self(&sel_mid, &one);
    let dm = (xm.square() - ym.square()).exp();
    let mid: Tensor = (1.0 - &dm) * (-xm.square()).exp() / (ym.erf() - xm.erf());

    let tails = neg.where_self(&both_neg, &pos.where_self(&both_pos, &mid));
    taylor.where_self(&near, &tails)
}

/// E[x] of TN(mu, sigma, l, u) (equation 10), through F1.
pub fn truncated_mean(mu: &Tensor, sigma: &Tensor, lower: &Tensor, upper: &Tensor) -> Tensor {
    let alpha = (lower - mu) / sigma;
    let beta = (upper - mu) / sigma;
    mu + f1(&(alpha / SQRT_2), &(beta / SQRT_2)) * sigma * (2.0 / PI).sqrt()
}

/// log Z = log(Phi(beta) - Phi(alpha)), by branch (appendix B.1).
pub fn truncated_log_z(mu: &Tensor, sigma: &Tensor, lower: &Tensor, upper: &Tensor) -> Tensor {
    let alpha = (lower - mu) / sigma;
    let beta = (upper - mu) / sigma;
    let both_pos = alpha.ge(0.0).logical_and(&beta.ge(0.0));
    let both_neg = alpha.le(0.0).logical_and(&beta.le(0.0));
    let one = scalar_like(&alpha, 1.0);
    // (E[x] - mu) / sigma = sqrt(2/pi) F1(alpha/sqrt2, beta/sqrt2), positive
    // when the interval lies above mu, negative when below.
    let a_pos = alpha.where_self(&both_pos, &one);
    let b_pos = beta.where_self(&both_pos, &(&one * 2.0));
    let m_pos = f1(&(&a_pos / SQRT_2), &(&b_pos / SQRT_2)) * (2.0 / PI).sqrt();
    let pos = -m_pos.log() - LOG_SQRT_2PI - a_pos.square() * 0.5 + log1mexp(&((a_pos.square() - b_pos.square()) * 0.5));

    let a_neg = alpha.where_self(&both_neg, &(&one * -2.0));
    let b_neg = beta.where_self(&both_neg, &(-&one));
    let m_neg = -f1(&(&a_neg / SQRT_2), &(&b_neg / SQRT_2)) * (2.0 / PI).sqrt();
    let neg = -m_neg.log() - LOG_SQRT_2PI - b_neg.square() * 0.5 + log1mexp(&((b_neg.square() - a_neg.square()) * 0.5));

    let mid_sel = both_pos.logical_or(&both_neg).logical_not();
    let a_mid = alpha.where_self(&mid_sel, &(-&one));
    let b_mid = beta.where_self(&mid_sel, &one);
    let mid = ((b_mid / SQRT_2).erf() - (a_mid / SQRT_2).erf()).log() - std::f64::consts::LN_2;

    pos.where_self(&both_pos, &neg.where_self(&both_neg, &mid))
}

/// log(1 - e^x) for x <= 0, accurate near 0 (expm1) and far below (log1p).
fn log1mexp(x: &Tensor) -> Tensor {
    let near = x.gt(-std::f64::consts::LN_2);
    let xa = x.where_self(&near, &scalar_like(x, -1.0));
    let xb = x.where_self(&near.logical_not(), &scalar_like(x, -1.0));
    (-xa.expm1()).log().where_self(&near, &(-xb.exp()).log1p())
}

pub fn truncated_log_prob(mu: &Tensor, sigma: &Tensor, lower: &Tensor, upper: &Tensor, x: &Tensor) -> Tensor {
    let inside = x.ge_tensor(lower).logical_and(&x.le_tensor(upper));
    let lp = gaussian_log_prob(mu, sigma, x) - truncated_log_z(mu, sigma, lower, upper);
    lp.where_self(&inside, &scalar_like(x, f64::NEG_INFINITY))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(v: &[f64]) -> Tensor {
        Tensor::from_slice(v)
    }

    #[test]
    fn far_outside_the_bounds_is_finite_and_right() {
        // mu = -100, l = 5, sigma = 0.5: the mean sits just above l
        // (E - l ~ sigma^2 / (l - mu) for a far tail).
        let (mu, s, l, u) = (t(&[-100.0]), t(&[0.5]), t(&[5.0]), t(&[1e5]));
        let m = truncated_mean(&mu, &s, &l, &u).double_value(&[0]);
        assert!(m > 5.0 && m < 5.0 + 0.25 / 105.0 * 1.01, "{m}");
        let lp = truncated_log_prob(&mu, &s, &l, &u, &t(&[5.1])).double_value(&[0]);
        assert!(lp.is_finite(), "{lp}");
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
