//! The two losses of the thesis (section 5): MSE and LogMSE.
//!
//! LogMSE = (1/n) sum (log(y+1) - log(yhat+1))^2 is a relative error: it
//! weighs a miss of 1 at h* = 2 far more than at h* = 40, which the thesis
//! found decisive for search (near-goal states must not be overestimated).
//!
//! The thesis clips negative outputs to 0 before the log. Clipping has zero
//! gradient below 0, so an output pushed negative early in training would
//! never come back. Here the log is continued below 0 by its tangent at 0,
//! `L(x) = ln(1+x)` for x >= 0 and `L(x) = x` for x < 0: equal to the
//! clipped loss wherever yhat >= 0, continuous with a continuous derivative,
//! and never flat. (Our choice; the thesis does not say how it trained
//! through the clip.) [`Loss::eval_clipped`] gives the thesis's clipped value
//! for reports.

use serde::{Deserialize, Serialize};

/// A regression loss over the network's output and the label h*.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Loss {
    Mse,
    LogMse,
}

impl Loss {
    pub fn name(self) -> &'static str {
        match self {
            Loss::Mse => "mse",
            Loss::LogMse => "logmse",
        }
    }

    /// The mean loss over `pred` and `target`, and its derivative with
    /// respect to each prediction written into `grad`.
    pub fn eval(self, pred: &[f32], target: &[f32], grad: &mut [f32]) -> f64 {
        let n = pred.len().max(1) as f64;
        let mut total = 0.0f64;
        for ((&p, &t), g) in pred.iter().zip(target).zip(grad.iter_mut()) {
            let (p, t) = (p as f64, t as f64);
            let (l, d) = match self {
                Loss::Mse => ((p - t).powi(2), 2.0 * (p - t)),
                Loss::LogMse => {
                    let (lp, dlp) = if p >= 0.0 { ((1.0 + p).ln(), 1.0 / (1.0 + p)) } else { (p, 1.0) };
                    let r = lp - (1.0 + t.max(0.0)).ln();
                    (r * r, 2.0 * r * dlp)
                }
            };
            total += l;
            *g = (d / n) as f32;
        }
        total / n
    }

    /// The mean loss without a gradient, negative predictions clipped to 0
    /// as the thesis defines it (equal to [`Loss::eval`] for MSE).
    pub fn eval_clipped(self, pred: &[f32], target: &[f32]) -> f64 {
        let n = pred.len().max(1) as f64;
        let sum: f64 = pred
            .iter()
            .zip(target)
            .map(|(&p, &t)| match self {
                Loss::Mse => (p as f64 - t as f64).powi(2),
                Loss::LogMse => ((1.0 + (p as f64).max(0.0)).ln() - (1.0 + (t as f64).max(0.0)).ln()).powi(2),
            })
            .sum();
        sum / n
    }
}

impl std::fmt::Display for Loss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Loss {
    type Err = String;
    fn from_str(s: &str) -> Result<Loss, String> {
        match s {
            "mse" => Ok(Loss::Mse),
            "logmse" => Ok(Loss::LogMse),
            _ => Err(format!("unknown loss `{s}`; expected mse or logmse")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradients_match_finite_differences() {
        let target = [0.0f32, 2.0, 10.0, 40.0, 5.0];
        let pred = [0.5f32, 1.0, 13.0, 35.0, -0.7];
        for loss in [Loss::Mse, Loss::LogMse] {
            let mut g = [0.0; 5];
            loss.eval(&pred, &target, &mut g);
            for i in 0..5 {
                let eps = 1e-3f32;
                let (mut p, mut q) = (pred, pred);
                p[i] += eps;
                q[i] -= eps;
                let mut scratch = [0.0; 5];
                let fd =
                    (loss.eval(&p, &target, &mut scratch) - loss.eval(&q, &target, &mut scratch)) / (2.0 * eps as f64);
                assert!((fd - g[i] as f64).abs() < 1e-3 * (1.0 + fd.abs()), "{loss} {i}: {fd} vs {}", g[i]);
            }
        }
    }

    /// The same error of +1 costs MSE the same everywhere, LogMSE far more
    /// near the goal: its gradient at h* = 1 is ~360 times that at h* = 50.
    #[test]
    fn logmse_weighs_errors_relative_to_the_target() {
        let mut g = [0.0; 2];
        Loss::Mse.eval(&[2.0, 51.0], &[1.0, 50.0], &mut g);
        assert_eq!(g[0], g[1]);
        Loss::LogMse.eval(&[2.0, 51.0], &[1.0, 50.0], &mut g);
        assert!(g[0] > 0.0 && g[1] > 0.0);
        let ratio = g[0] / g[1];
        assert!((350.0..375.0).contains(&ratio), "ratio {ratio}");
        // LogMSE is a relative error: doubling both gives the same loss.
        let mut s = [0.0; 1];
        let a = Loss::LogMse.eval(&[3.0], &[1.0], &mut s);
        let b = Loss::LogMse.eval(&[7.0], &[3.0], &mut s);
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
        // Negative outputs: the clipped value is the loss at 0, and the
        // training loss keeps a gradient pushing the output up.
        let mut g = [0.0; 1];
        Loss::LogMse.eval(&[-2.0], &[3.0], &mut g);
        assert!(g[0] < 0.0);
        assert_eq!(Loss::LogMse.eval_clipped(&[-2.0], &[3.0]), Loss::LogMse.eval_clipped(&[0.0], &[3.0]));
        assert_eq!("logmse".parse::<Loss>().unwrap(), Loss::LogMse);
        assert!("mae".parse::<Loss>().is_err());
    }
}
