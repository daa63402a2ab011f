//! Adam (Kingma & Ba), the thesis's optimiser, with the usual defaults
//! (learning rate 1e-3, betas 0.9 and 0.999, epsilon 1e-8; the thesis does
//! not give its settings). Moments are kept per parameter, layer by layer.

use serde::{Deserialize, Serialize};

use super::net::{Grads, Mlp};

/// Adam's settings.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct AdamSettings {
    pub learning_rate: f32,
    pub beta1: f32,
    pub beta2: f32,
    pub epsilon: f32,
}

impl Default for AdamSettings {
    fn default() -> AdamSettings {
        AdamSettings { learning_rate: 1e-3, beta1: 0.9, beta2: 0.999, epsilon: 1e-8 }
    }
}

/// Adam's state for one network.
#[derive(Debug, Clone)]
pub struct Adam {
    settings: AdamSettings,
    step: i32,
    /// First and second moments, per layer: weights then biases.
    m: Vec<(Vec<f32>, Vec<f32>)>,
    v: Vec<(Vec<f32>, Vec<f32>)>,
}

impl Adam {
    pub fn new(net: &Mlp, settings: AdamSettings) -> Adam {
        let zeros = || net.layers().iter().map(|l| (vec![0.0; l.weights.len()], vec![0.0; l.bias.len()])).collect();
        Adam { settings, step: 0, m: zeros(), v: zeros() }
    }

    /// One update of `net` along `grads`.
    pub fn step(&mut self, net: &mut Mlp, grads: &Grads) {
        self.step += 1;
        let s = self.settings;
        let c1 = 1.0 - s.beta1.powi(self.step);
        let c2 = 1.0 - s.beta2.powi(self.step);
        let rate = s.learning_rate * c2.sqrt() / c1;
        for (k, layer) in net.layers_mut().iter_mut().enumerate() {
            let g = &grads.layers[k];
            let params = [(&mut layer.weights, &g.weights, 0), (&mut layer.bias, &g.bias, 1)];
            for (p, g, which) in params {
                let (m, v) = if which == 0 {
                    (&mut self.m[k].0, &mut self.v[k].0)
                } else {
                    (&mut self.m[k].1, &mut self.v[k].1)
                };
                for i in 0..p.len() {
                    m[i] = s.beta1 * m[i] + (1.0 - s.beta1) * g[i];
                    v[i] = s.beta2 * v[i] + (1.0 - s.beta2) * g[i] * g[i];
                    p[i] -= rate * m[i] / (v[i].sqrt() + s.epsilon * c2.sqrt());
                }
            }
        }
    }
}
