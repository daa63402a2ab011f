//! What defines a model: the paper's axes (section 4) and the training
//! hyperparameters (appendix C). The farm's job vocabulary maps onto these;
//! the learner itself knows nothing of jobs.

use serde::{Deserialize, Serialize};

pub use crate::distribution::Family;

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

/// Whether sigma is predicted or fixed to 1/sqrt(2) (then NLL = MSE + const).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SigmaMode {
    Learn,
    Fixed,
}

/// A classical heuristic whose per-state value the learner reads: lower
/// bounds (admissible) and residual bases.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Classical {
    Lmcut,
    Hmax,
    Blind,
    Ff,
}

impl Classical {
    /// The planner's name for it.
    pub fn planner_name(self) -> &'static str {
        match self {
            Classical::Lmcut => "lmcut",
            Classical::Hmax => "hmax",
            Classical::Blind => "blind",
            Classical::Ff => "ff",
        }
    }
}

/// Everything needed to rebuild a trained network and use it: stored with
/// its weights.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    pub model: ModelKind,
    pub family: Family,
    pub sigma: SigmaMode,
    /// The lower bound l of the truncated Gaussian, and the bound a Gaussian's
    /// +clip estimate uses. None: no lower bound (-1e5).
    pub lower: Option<Classical>,
    /// mu = delta_mu + h for this h (residual learning), or mu = delta_mu.
    pub residual: Option<Classical>,
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
