//! The hyper-parameters of LearnHeuristicPrac (notes section 1.1; values
//! from the paper's code, `Global.cs`, `Program.cs`, `NNBayesHeuristic`),
//! with tiny values for tests.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::LikelyError;

/// Which FFNN the learner trains and plans with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Model {
    /// 1 output, plan with yhat (run type "1", the tables' N/A rows); alpha
    /// is never adapted.
    Mean,
    /// 2 outputs, plan with y^alpha (run type "2").
    Quantile,
}

/// Where training tasks come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskSource {
    /// GenerateTaskPrac (Algorithm 3), guided by the WUNN.
    Uncertainty,
    /// The efficiency baselines ("k1" ... "k10"): uniform random walks of
    /// `length_inc` x (iteration + 1) moves; no WUNN.
    RandomWalk { length_inc: u32 },
}

/// Every setting of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    pub model: Model,
    pub tasks: TaskSource,
    /// NumIter: only sets gamma, the beta decay (the caller runs the
    /// iterations).
    pub num_iter: u32,
    pub num_tasks_per_iter: usize,
    /// Fewer tasks solved than this lowers alpha and freezes beta.
    pub num_tasks_per_iter_thresh: usize,
    pub alpha0: f64,
    /// Delta, alpha's decrement.
    pub alpha_delta: f64,
    pub alpha_min: f64,
    /// epsilon: sigma_e^2 >= epsilon ends a task walk; sigma_t^2 of large
    /// predictions.
    pub epsilon: f64,
    pub beta0: f64,
    /// gamma = (beta_min / beta0)^(1 / num_iter).
    pub beta_min: f64,
    /// WUNN training stops when sigma_e^2 < kappa epsilon on every record.
    pub kappa: f64,
    /// Longest task walk (MaxSteps).
    pub max_steps: u32,
    /// MemoryBufferMaxRecords.
    pub buffer_max: usize,
    /// FFNN full-batch steps at most (TrainIter).
    pub train_iter: u32,
    /// FFNN early stop: max |10 yhat - y| over the buffer below this.
    pub train_stop_error: f32,
    /// WUNN rounds at most; each computes sigma_e on the buffer, then takes
    /// `wunn_steps_per_round` minibatch steps (MaxTrainIter = 100 x 50).
    pub wunn_rounds: u32,
    pub wunn_steps_per_round: u32,
    pub minibatch: usize,
    /// q of y^q.
    pub q: f64,
    /// K: samples per sigma_e.
    pub k_samples: usize,
    /// Weight samples per WUNN training pass.
    pub wunn_samples: usize,
    pub hidden: usize,
    /// FFNN hidden-layer dropout (training only).
    pub dropout: f32,
    pub ffnn_lr: f32,
    pub wunn_lr: f32,
    /// sigma_0^2 of the WUNN prior N(0, sigma_0^2).
    pub prior_variance: f32,
    /// Put the goal (y = 0) in the buffer with each plan, as the code does
    /// (the paper's Algorithm 4 leaves it out; pitfall 6).
    pub include_goal: bool,
}

impl Settings {
    /// The paper's values. `pdb_features`: 8 hidden units and no dropout
    /// (the code's `multHeuristic != null`); otherwise 20 hidden units and
    /// dropout 0.025 for the 2-output model.
    pub fn paper(model: Model, pdb_features: bool) -> Settings {
        Settings {
            model,
            tasks: TaskSource::Uncertainty,
            num_iter: 50,
            num_tasks_per_iter: 10,
            num_tasks_per_iter_thresh: 6,
            alpha0: 0.99,
            alpha_delta: 0.05,
            alpha_min: 0.5,
            epsilon: 1.0,
            beta0: 0.05,
            beta_min: 1e-5,
            kappa: 0.64,
            max_steps: 1000,
            buffer_max: 25_000,
            train_iter: 1000,
            train_stop_error: 0.5,
            wunn_rounds: 100,
            wunn_steps_per_round: 50,
            minibatch: 100,
            q: 0.95,
            k_samples: 100,
            wunn_samples: 5,
            hidden: if pdb_features { 8 } else { 20 },
            dropout: if !pdb_features && model == Model::Quantile { 0.025 } else { 0.0 },
            ffnn_lr: 1e-3,
            wunn_lr: 0.01,
            prior_variance: 10.0,
            include_goal: true,
        }
    }

    /// Small values for tests: a few tasks, short walks, few training
    /// steps; the paper's rules otherwise.
    pub fn tiny(model: Model) -> Settings {
        Settings {
            num_iter: 5,
            num_tasks_per_iter: 4,
            num_tasks_per_iter_thresh: 2,
            max_steps: 40,
            buffer_max: 500,
            train_iter: 100,
            wunn_rounds: 3,
            wunn_steps_per_round: 10,
            minibatch: 20,
            k_samples: 20,
            hidden: 8,
            ..Settings::paper(model, false)
        }
    }

    /// The paper's IDA* time limit per training task: 60 s with one-hot
    /// inputs, 5 minutes with PDB features (1 s in the efficiency runs).
    pub fn paper_time_limit(pdb_features: bool) -> Duration {
        Duration::from_secs(if pdb_features { 300 } else { 60 })
    }

    /// gamma, beta's decay factor per iteration.
    pub fn gamma(&self) -> f64 {
        (self.beta_min / self.beta0).powf(1.0 / self.num_iter.max(1) as f64)
    }

    /// Whether the run trains a WUNN (GenerateTaskPrac needs one).
    pub fn uses_wunn(&self) -> bool {
        self.tasks == TaskSource::Uncertainty
    }

    /// Checks every range, naming the first setting out of it.
    pub fn validate(&self) -> Result<(), LikelyError> {
        let bad = |what: &str| Err(LikelyError::Settings(what.to_string()));
        let prob = |p: f64| p > 0.0 && p < 1.0;
        if !(prob(self.alpha0) && prob(self.alpha_min) && self.alpha_min <= self.alpha0) {
            return bad("alpha0 and alpha_min must be in (0, 1), alpha_min <= alpha0");
        }
        if self.alpha_delta.is_nan() || self.alpha_delta < 0.0 {
            return bad("alpha_delta must be >= 0");
        }
        if !(self.epsilon > 0.0 && self.kappa > 0.0 && self.beta0 > 0.0 && self.beta_min > 0.0) {
            return bad("epsilon, kappa, beta0 and beta_min must be > 0");
        }
        if !(self.q >= 0.0 && self.q <= 1.0) {
            return bad("q must be in [0, 1]");
        }
        if self.num_tasks_per_iter == 0 || self.buffer_max == 0 || self.minibatch == 0 {
            return bad("num_tasks_per_iter, buffer_max and minibatch must be > 0");
        }
        if self.k_samples < 2 || self.wunn_samples == 0 || self.hidden == 0 {
            return bad("k_samples must be >= 2, wunn_samples and hidden > 0");
        }
        if !(0.0..1.0).contains(&self.dropout) {
            return bad("dropout must be in [0, 1)");
        }
        if !(self.ffnn_lr > 0.0 && self.wunn_lr > 0.0 && self.prior_variance > 0.0) {
            return bad("learning rates and the prior variance must be > 0");
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paper_values() {
        let s = Settings::paper(Model::Quantile, false);
        s.validate().unwrap();
        assert!((s.gamma() - 0.84337).abs() < 1e-4, "{}", s.gamma());
        assert_eq!((s.hidden, s.dropout), (20, 0.025));
        let p = Settings::paper(Model::Quantile, true);
        assert_eq!((p.hidden, p.dropout), (8, 0.0));
        assert_eq!(Settings::paper(Model::Mean, false).dropout, 0.0);
        Settings::tiny(Model::Mean).validate().unwrap();
        let bad = Settings { alpha_min: 1.0, ..s.clone() };
        assert!(bad.validate().is_err());
        let bad = Settings { k_samples: 1, ..s };
        assert!(bad.validate().unwrap_err().to_string().contains("k_samples"));
    }
}
