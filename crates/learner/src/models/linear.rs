//! Linear regression on the relaxed-plan features.

use tch::{nn, Tensor};

use super::stacked::StackedLinear;
use super::{ModelInfo, Reads, Shape};

use crate::encode;

/// The linear model: its features are the four of `encode`; it stacks (a
/// run's rows are a block of the batch). The authors' code trained it with
/// learning rate 1e-2 (IBM/pddlsl `experiments/train_all.sh:151`) and
/// `train.py:74`'s default weight decay 0.0 (it is never given `--decay`;
/// the paper also says no decay for it, l. 331).
pub(super) static INFO: ModelInfo = ModelInfo {
    name: "linear",
    reads: Reads::Features,
    stacks: true,
    learning_rate: 1e-2,
    weight_decay: 0.0,
    shape: |_, _| Ok(Shape::Linear { features: encode::NUM_FEATURES }),
};

pub struct Linear {
    layer: StackedLinear,
}

impl Linear {
    pub fn new(path: &nn::Path, features: i64, outputs: i64, seeds: &[u64]) -> Linear {
        Linear { layer: StackedLinear::new(path, "linear", features, outputs, seeds) }
    }

    pub fn dense(&self) -> Vec<&StackedLinear> {
        vec![&self.layer]
    }

    pub fn forward(&self, x: &Tensor) -> Tensor {
        self.layer.forward(x)
    }
}
