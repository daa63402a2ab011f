//! The planning heuristic (notes section 1.3, the code's
//! `NNBayesHeuristic.H` in training and `NNPreTrainedHeuristic.H` in
//! tests) as a [`puzzles::Heuristic`] for IDA*.
//!
//! The FFNN predicts in target units y/10 ([`TARGET_SCALE`]). With the
//! 2-output model, h(alpha) = y^alpha, the (1 - alpha) quantile of N(yhat,
//! sigma_t^2): yhat + sigma_t Phi^-1(1 - alpha), where sigma_t = sigma_a
//! if yhat < y^q and sqrt(epsilon) (in moves) otherwise. It is rounded
//! half to even (C#'s `Math.Round`), then floored: max(h, 0) with one-hot
//! inputs, max(h, largest PDB feature value) with PDB features (the code
//! takes `HArr.Max()`, which includes the group sums, Manhattan distance
//! and misplaced tiles where they are features; pitfall 5). The 1-output
//! model plans with round(10 yhat) under the same floor.

use puzzles::{Domain, Heuristic, State};

use crate::features::Features;
use crate::nn::{Ffnn, Prediction};
use crate::normal::inverse_normal_cdf;

/// Targets are y / 10 (the code's response function `x => x/10`).
pub const TARGET_SCALE: f32 = 10.0;

/// How a prediction becomes h.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// h = 10 yhat ("plan with yhat", the tables' N/A rows).
    Mean,
    /// h = y^alpha.
    Quantile {
        alpha: f64,
        /// Phi^-1(1 - alpha).
        z: f64,
        /// y^q in moves: predictions at or above it use `sigma_large`.
        /// -inf before the first training (every prediction is "large"),
        /// +inf at test time (always sigma_a, as `NNPreTrainedHeuristic`).
        y_q: f64,
        /// sqrt(epsilon), in moves.
        sigma_large: f64,
    },
}

impl Rule {
    /// The training rule of Algorithm 4, line 14: y^q known (`Some`, in
    /// moves) or not yet (`None`: -inf).
    pub fn training(alpha: f64, y_q: Option<f64>, epsilon: f64) -> Rule {
        Rule::Quantile {
            alpha,
            z: inverse_normal_cdf(1.0 - alpha),
            y_q: y_q.unwrap_or(f64::NEG_INFINITY),
            sigma_large: epsilon.max(0.0).sqrt(),
        }
    }

    /// The test rule: the quantile under sigma_a, no y^q switch.
    pub fn test(alpha: f64) -> Rule {
        Rule::Quantile { alpha, z: inverse_normal_cdf(1.0 - alpha), y_q: f64::INFINITY, sigma_large: 1.0 }
    }

    /// h for a prediction (in target units) and the floor.
    #[inline]
    pub fn value(&self, p: Prediction, floor: u32) -> u32 {
        let scale = TARGET_SCALE as f64;
        let mean = p.mean as f64 * scale;
        let h = match *self {
            Rule::Mean => mean,
            Rule::Quantile { z, y_q, sigma_large, .. } => {
                if mean < y_q {
                    mean + p.sigma as f64 * scale * z
                } else {
                    mean + sigma_large * z
                }
            }
        };
        let h = h.round_ties_even();
        if h.is_nan() || h <= floor as f64 {
            floor
        } else if h >= u32::MAX as f64 {
            u32::MAX
        } else {
            h as u32
        }
    }
}

/// A trained FFNN with its features and rule, for a search. Owns its
/// scratch buffers: evaluations allocate nothing.
pub struct LearnedHeuristic<'a, F> {
    ffnn: &'a Ffnn,
    features: F,
    rule: Rule,
    x: Vec<f32>,
    active: Vec<u32>,
    hidden: Vec<f32>,
    /// States evaluated.
    pub evaluations: u64,
}

impl<'a, F: Features> LearnedHeuristic<'a, F> {
    /// Fails when the features do not fit the network's inputs.
    pub fn new(ffnn: &'a Ffnn, features: F, rule: Rule) -> Result<LearnedHeuristic<'a, F>, crate::LikelyError> {
        if features.inputs() != ffnn.inputs() {
            return Err(crate::LikelyError::Shape(format!(
                "{} features for a network of {} inputs",
                features.inputs(),
                ffnn.inputs()
            )));
        }
        Ok(LearnedHeuristic {
            x: vec![0.0; ffnn.inputs()],
            active: Vec::with_capacity(64),
            hidden: vec![0.0; ffnn.hidden()],
            ffnn,
            features,
            rule,
            evaluations: 0,
        })
    }

    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// h(s).
    #[inline]
    pub fn value(&mut self, s: &State) -> u32 {
        self.evaluations += 1;
        if let Some(floor) = self.features.active(s, &mut self.active) {
            let p = self.ffnn.predict_active(&self.active, &mut self.hidden);
            return self.rule.value(p, floor);
        }
        let floor = self.features.encode(s, &mut self.x);
        let p = self.ffnn.predict(&self.x, &mut self.hidden);
        self.rule.value(p, floor)
    }

    /// The features back (they may own PDBs).
    pub fn into_features(self) -> F {
        self.features
    }
}

impl<D: Domain + ?Sized, F: Features> Heuristic<D> for LearnedHeuristic<'_, F> {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        self.value(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(mean: f32, sigma: f32) -> Prediction {
        Prediction { mean, sigma }
    }

    #[test]
    fn quantile_rule_follows_the_code() {
        // alpha = 0.99: Phi^-1(0.01) = -2.326.
        let r = Rule::training(0.99, Some(30.0), 1.0);
        // yhat = 20 moves < y^q: 10 * (2.0 + 0.5 * -2.326) = 8.37 -> 8.
        assert_eq!(r.value(p(2.0, 0.5), 0), 8);
        // yhat = 40 >= y^q: 40 - 2.326 = 37.67 -> 38.
        assert_eq!(r.value(p(4.0, 0.5), 0), 38);
        // Before y^q is known every prediction uses sqrt(epsilon).
        let r = Rule::training(0.99, None, 4.0);
        assert_eq!(r.value(p(2.0, 0.5), 0), 15); // 20 - 2 * 2.326 = 15.3
                                                 // At test time always sigma_a; alpha = 0.5 is the mean.
        assert_eq!(Rule::test(0.99).value(p(4.0, 0.1), 0), 38); // 40 - 2.33
        assert_eq!(Rule::test(0.5).value(p(4.04, 0.3), 0), 40);
        // Smaller alpha, larger h.
        assert_eq!(Rule::test(0.05).value(p(4.0, 0.1), 0), 42); // 40 + 1.64
    }

    #[test]
    fn rounding_and_floors() {
        // Half to even, as C#'s Math.Round.
        assert_eq!(Rule::Mean.value(p(0.25, 0.0), 0), 2);
        assert_eq!(Rule::Mean.value(p(0.75, 0.0), 0), 8);
        // max(h, 0).
        assert_eq!(Rule::Mean.value(p(-1.0, 0.0), 0), 0);
        assert_eq!(Rule::test(0.99).value(p(0.1, 1.0), 0), 0);
        // max(h, PDB floor).
        assert_eq!(Rule::Mean.value(p(2.0, 0.0), 25), 25);
        assert_eq!(Rule::Mean.value(p(3.0, 0.0), 25), 30);
        assert_eq!(Rule::Mean.value(p(f32::NAN, 0.0), 7), 7);
        assert_eq!(Rule::Mean.value(p(f32::INFINITY, 0.0), 7), u32::MAX);
    }
}
