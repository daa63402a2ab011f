//! The truncated Gaussian against an independent high-precision reference
//! (mpmath at 60 digits, tools/reference/tn_reference.py) and against the
//! paper's own PyPI package (stable-trunc-gaussian, float64), and its
//! gradients against the reference's derivatives and finite differences.

use learner::distribution::{truncated_log_prob, truncated_mean};
use serde::Deserialize;
use tch::{Kind, Tensor};

#[derive(Deserialize)]
struct Case {
    mu: f64,
    sigma: f64,
    l: f64,
    u: f64,
    x: f64,
    mean: f64,
    log_prob: Option<f64>,
    dmean_dmu: f64,
    dmean_dsigma: f64,
    dlogp_dmu: Option<f64>,
    dlogp_dsigma: Option<f64>,
    stg_mean: Option<f64>,
    stg_log_prob: Option<f64>,
}

#[derive(Deserialize)]
struct Fixture {
    cases: Vec<Case>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("fixtures/truncated_gaussian.json");
    serde_json::from_str::<Fixture>(text).expect("fixture").cases
}

fn scalar(v: f64, grad: bool) -> Tensor {
    Tensor::from_slice(&[v]).set_requires_grad(grad)
}

/// (mean, log p(x), d mean/d mu, d mean/d sigma, d logp/d mu, d logp/d sigma).
fn ours(c: &Case) -> [f64; 6] {
    let mu = scalar(c.mu, true);
    let sigma = scalar(c.sigma, true);
    let (l, u, x) = (scalar(c.l, false), scalar(c.u, false), scalar(c.x, false));
    let mean = truncated_mean(&mu, &sigma, &l, &u);
    let g = Tensor::run_backward(&[&mean], &[&mu, &sigma], true, false);
    let lp = truncated_log_prob(&mu, &sigma, &l, &u, &x);
    let h = Tensor::run_backward(&[&lp], &[&mu, &sigma], false, false);
    let v = |t: &Tensor| t.to_kind(Kind::Double).double_value(&[0]);
    [v(&mean), v(&lp), v(&g[0]), v(&g[1]), v(&h[0]), v(&h[1])]
}

/// Relative error against `reference`, with an absolute floor `scale`.
fn rel(got: f64, reference: f64, scale: f64) -> f64 {
    (got - reference).abs() / reference.abs().max(scale)
}

#[test]
fn mean_and_log_prob_match_the_high_precision_reference() {
    let mut worst = [0.0f64; 2];
    let mut checked = 0;
    for c in cases() {
        let wide = c.u - c.l > 1e-3;
        let o = ours(&c);
        assert!(o[0].is_finite(), "mean not finite: mu={} sigma={} l={} u={}", c.mu, c.sigma, c.l, c.u);
        assert!(o[0] >= c.l && o[0] <= c.u, "mean {} outside [{}, {}]", o[0], c.l, c.u);
        // The mean is compared on the scale of sigma (it is mu + sigma * ratio).
        let em = rel(o[0], c.mean, c.sigma);
        if let Some(lp) = c.log_prob {
            let el = rel(o[1], lp, 1.0);
            // Nearly degenerate intervals (u - l <= 1e-6) lose digits in log Z
            // by nature: a width of 1e-9 leaves ~7 significant digits in f64.
            let tol = if wide { 1e-9 } else { 1e-5 };
            assert!(
                el < tol,
                "log_prob {} vs {} (rel {el:e}) mu={} sigma={} l={} u={} x={}",
                o[1],
                lp,
                c.mu,
                c.sigma,
                c.l,
                c.u,
                c.x
            );
            if wide {
                worst[1] = worst[1].max(el);
            }
        }
        assert!(
            em < 1e-9,
            "mean {} vs {} (rel {em:e}) mu={} sigma={} l={} u={}",
            o[0],
            c.mean,
            c.mu,
            c.sigma,
            c.l,
            c.u
        );
        worst[0] = worst[0].max(em);
        checked += 1;
    }
    assert!(checked > 500);
    println!("worst relative error over {checked} cases: mean {:e}, log_prob {:e}", worst[0], worst[1]);
}

#[test]
fn gradients_match_the_reference_derivatives() {
    for c in cases() {
        if c.u - c.l <= 1e-3 {
            continue; // derivatives of a degenerate interval are dominated by rounding
        }
        let o = ours(&c);
        for (got, want, what) in [(o[2], c.dmean_dmu, "dmean/dmu"), (o[3], c.dmean_dsigma, "dmean/dsigma")] {
            // d mean / d(mu, sigma) lie in [0, 1]-ish: compare on that scale
            // (far in a tail, E[x] = mu + sigma * ratio cancels ~3 digits).
            let e = rel(got, want, 1.0);
            assert!(e < 1e-6, "{what} {got} vs {want} (rel {e:e}) mu={} sigma={} l={} u={}", c.mu, c.sigma, c.l, c.u);
        }
        for (got, want, what) in [(o[4], c.dlogp_dmu, "dlogp/dmu"), (o[5], c.dlogp_dsigma, "dlogp/dsigma")] {
            let Some(want) = want else { continue };
            let e = rel(got, want, 1e-6);
            assert!(
                e < 1e-6,
                "{what} {got} vs {want} (rel {e:e}) mu={} sigma={} l={} u={} x={}",
                c.mu,
                c.sigma,
                c.l,
                c.u,
                c.x
            );
        }
    }
}

#[test]
fn gradients_match_finite_differences() {
    // Central differences in f64 with a step relative to sigma.
    for c in cases().into_iter().filter(|c| c.u - c.l > 1.0).step_by(7) {
        let o = ours(&c);
        let f = |mu: f64, sigma: f64| {
            let (l, u, x) = (scalar(c.l, false), scalar(c.u, false), scalar(c.x, false));
            let (m, s) = (scalar(mu, false), scalar(sigma, false));
            (
                truncated_mean(&m, &s, &l, &u).double_value(&[0]),
                truncated_log_prob(&m, &s, &l, &u, &x).double_value(&[0]),
            )
        };
        let h = 1e-5 * c.sigma;
        let (mp, mm) = (f(c.mu + h, c.sigma), f(c.mu - h, c.sigma));
        let (sp, sm) = (f(c.mu, c.sigma + h), f(c.mu, c.sigma - h));
        let fd = [
            (mp.0 - mm.0) / (2.0 * h),
            (sp.0 - sm.0) / (2.0 * h),
            (mp.1 - mm.1) / (2.0 * h),
            (sp.1 - sm.1) / (2.0 * h),
        ];
        for (k, (got, want)) in o[2..].iter().zip(fd).enumerate() {
            // Finite differences carry ~1e-10/h absolute rounding noise.
            let e = (got - want).abs() / want.abs().max(1.0);
            assert!(
                e < 1e-4,
                "derivative {k}: autograd {got} vs finite difference {want} mu={} sigma={} l={} u={}",
                c.mu,
                c.sigma,
                c.l,
                c.u
            );
        }
    }
}

#[test]
fn agrees_with_the_authors_package() {
    let (mut compared, mut closer) = (0, 0);
    for c in cases() {
        let o = ours(&c);
        if let Some(m) = c.stg_mean {
            let theirs = rel(m, c.mean, c.sigma);
            let mine = rel(o[0], c.mean, c.sigma);
            closer += usize::from(mine <= theirs);
            assert!(rel(o[0], m, c.sigma) < 1e-6, "mean {} vs package {m}", o[0]);
            compared += 1;
        }
        if let (Some(lp), Some(_)) = (c.stg_log_prob, c.log_prob) {
            if c.u - c.l > 1e-3 {
                assert!(rel(o[1], lp, 1.0) < 1e-6, "log_prob {} vs package {lp}", o[1]);
            }
        }
    }
    assert!(compared > 500, "the fixture carries the package's values");
    println!("mean closer to the 60-digit reference than the package's on {closer} of {compared} cases");
}
