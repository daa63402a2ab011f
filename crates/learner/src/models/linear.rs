//! Linear regression on the relaxed-plan features.

use tch::{nn, Tensor};

use super::stacked::StackedLinear;

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
