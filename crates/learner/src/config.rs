//! What defines a model: the paper's axes (section 4) and the training
//! hyperparameters (appendix C). The farm's job vocabulary maps onto these;
//! the learner itself knows nothing of jobs.

use serde::{Deserialize, Serialize};

pub use crate::distribution::Family;
pub use planner::heuristics::{LowerBound, ResidualBase};

/// The function approximator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// Linear regression on Gomoluch et al.'s relaxed-plan features.
    Linear,
    /// Neural Logic Machine over the relational state and goal.
    Nlm,
    /// STRIPS-HGN over the grounded task's hypergraph.
    Hgn,
}

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
    pub shape: crate::models::Shape,
}

/// Training hyperparameters; defaults are the paper's (appendix C).
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
    /// The paper's settings for `model`: lr 1e-2 (linear, NLM) or 1e-3 (HGN).
    pub fn paper(model: ModelKind, seed: u64, steps: u64) -> TrainConfig {
        TrainConfig {
            seed,
            steps,
            batch_size: 256,
            learning_rate: if model == ModelKind::Hgn { 1e-3 } else { 1e-2 },
            weight_decay: 1e-2,
            grad_clip: 0.1,
            validate_every: (steps / 40).clamp(1, 1000),
            train_instances: 400,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
