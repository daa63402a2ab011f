//! What defines a model: the paper's axes (section 4) and the training
//! hyperparameters (appendix C). The farm's job vocabulary maps onto these;
//! the learner itself knows nothing of jobs.

use serde::{Deserialize, Serialize};

pub use crate::distribution::Family;
pub use planner::heuristics::{LowerBound, ResidualBase};

pub use crate::models::ModelKind;

/// Whether sigma is predicted or fixed ([`crate::distribution::FIXED_SIGMA`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SigmaMode {
    Learn,
    Fixed,
}

/// Everything needed to rebuild a trained network and use it: stored with
/// its weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    pub model: ModelKind,
    pub family: Family,
    pub sigma: SigmaMode,
    /// The lower bound l of the truncated Gaussian, and the bound a Gaussian's
    /// +clip estimate uses: a registered admissible heuristic, stored by name
    /// (`"lmcut"`). None: no lower bound (-1e5).
    pub lower: Option<LowerBound>,
    /// mu = delta_mu + h for this registered heuristic h (residual
    /// learning; stored by name, `"ff"`), or mu = delta_mu (null).
    pub residual: Option<ResidualBase>,
    /// The network's shape for this domain (input vocabulary and sizes).
    pub shape: crate::shape::Shape,
}

/// Training hyperparameters; defaults are the authors' code's (appendix C,
/// where the code and the text differ, the code).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainConfig {
    pub seed: u64,
    pub steps: u64,
    pub batch_size: usize,
    pub learning_rate: f64,
    pub weight_decay: f64,
    pub grad_clip: f64,
    /// Validation (and the resumable "last" checkpoint) every this many steps.
    pub validate_every: u64,
    /// Training instances drawn (by `seed`) from the train split.
    pub train_instances: usize,
}

impl TrainConfig {
    /// The settings the authors' code trained `model` with: learning rate
    /// and weight decay per model ([`ModelKind::paper_learning_rate`],
    /// [`ModelKind::paper_weight_decay`]), batch 256 and gradient-norm clip
    /// 0.1 (`train.py:75, 77`).
    pub fn paper(model: ModelKind, seed: u64, steps: u64) -> TrainConfig {
        TrainConfig {
            seed,
            steps,
            batch_size: 256,
            learning_rate: model.paper_learning_rate(),
            weight_decay: model.paper_weight_decay(),
            grad_clip: 0.1,
            validate_every: (steps / 40).clamp(1, 1000),
            train_instances: 400,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Per model, as train_all.sh ran them: weight decay only for the NLM.
    #[test]
    fn paper_settings_follow_the_authors_code() {
        let c = |m| TrainConfig::paper(m, 1, 1000);
        assert_eq!((c(ModelKind::Nlm).learning_rate, c(ModelKind::Nlm).weight_decay), (1e-2, 1e-2));
        assert_eq!((c(ModelKind::Hgn).learning_rate, c(ModelKind::Hgn).weight_decay), (1e-3, 0.0));
        assert_eq!((c(ModelKind::Linear).learning_rate, c(ModelKind::Linear).weight_decay), (1e-2, 0.0));
    }

    /// Every checkpoint stores its configuration as JSON: the bound and the
    /// residual stay heuristic names, as they were when they were an enum.
    #[test]
    fn stored_model_configs_read_back() {
        let stored = r#"{"model":"linear","family":"truncated","sigma":"learn","lower":"lmcut","residual":"ff","shape":{"model":"linear","features":4}}"#;
        let c: ModelConfig = serde_json::from_str(stored).unwrap();
        assert_eq!(c.lower.map(LowerBound::name), Some("lmcut"));
        assert_eq!(c.residual.map(ResidualBase::name), Some("ff"));
        assert_eq!(serde_json::to_string(&c).unwrap(), stored);
        let none = stored.replace(r#""lower":"lmcut","residual":"ff""#, r#""lower":null,"residual":null"#);
        let c: ModelConfig = serde_json::from_str(&none).unwrap();
        assert_eq!((c.lower, c.residual), (None, None));
        assert_eq!(serde_json::to_string(&c).unwrap(), none);
        let bad = stored.replace(r#""lower":"lmcut""#, r#""lower":"hadd""#);
        let e = serde_json::from_str::<ModelConfig>(&bad).unwrap_err().to_string();
        assert!(e.contains("`hadd` is not admissible"), "{e}");
    }
}
