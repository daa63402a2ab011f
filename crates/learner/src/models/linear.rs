//! Linear regression on the relaxed-plan features.

use tch::{nn, nn::Module, Tensor};

pub struct Linear {
    layer: nn::Linear,
}

impl Linear {
    pub fn new(path: &nn::Path, features: i64, outputs: i64) -> Linear {
        Linear { layer: nn::linear(path / "linear", features, outputs, Default::default()) }
    }

    pub fn forward(&self, x: &Tensor) -> Tensor {
        self.layer.forward(x)
    }
}
