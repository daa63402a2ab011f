//! AdamW with gradient-norm clipping, written out so that the optimiser's
//! moments are ordinary tensors: they go into the resumable checkpoint, and a
//! resumed run continues exactly where the interrupted one stopped. Same
//! update as torch.optim.AdamW (betas 0.9/0.999, eps 1e-8, decoupled weight
//! decay) after torch.nn.utils.clip_grad_norm_.
//!
//! The moments live in one flat tensor each and the gradients are gathered
//! into one, so a step is a handful of kernels plus two per parameter, and
//! nothing waits for the device (no value is read back): on a GPU the
//! per-parameter version spent its time launching tiny kernels and syncing.

use tch::{Kind, Tensor};

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

pub struct AdamW {
    pub lr: f64,
    pub weight_decay: f64,
    /// Number of updates made so far.
    pub t: u64,
    /// Parameters, sorted by name.
    params: Vec<(String, Tensor)>,
    /// First and second moments of all parameters, flat, in `params` order.
    m: Tensor,
    v: Tensor,
}

impl AdamW {
    pub fn new(mut params: Vec<(String, Tensor)>, lr: f64, weight_decay: f64) -> AdamW {
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let n: i64 = params.iter().map(|(_, p)| p.numel() as i64).sum();
        let (kind, device) = params.first().map_or((Kind::Float, tch::Device::Cpu), |(_, p)| (p.kind(), p.device()));
        let zeros = || Tensor::zeros([n], (kind, device));
        AdamW { lr, weight_decay, t: 0, m: zeros(), v: zeros(), params }
    }

    pub fn zero_grad(&self) {
        for (_, p) in &self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    /// Clips the joint gradient norm to `max_norm` (if positive), then updates.
    pub fn step(&mut self, max_norm: f64) {
        self.t += 1;
        let bc1 = 1.0 - BETA1.powi(self.t as i32);
        let bc2 = 1.0 - BETA2.powi(self.t as i32);
        let (lr, wd) = (self.lr, self.weight_decay);
        tch::no_grad(|| {
            let grads: Vec<Tensor> = self
                .params
                .iter()
                .map(|(_, p)| {
                    let g = p.grad();
                    if g.defined() {
                        g.flatten(0, -1)
                    } else {
                        p.zeros_like().flatten(0, -1)
                    }
                })
                .collect();
            let mut g = Tensor::cat(&grads, 0);
            if max_norm > 0.0 {
                let norm = g.square().sum(Kind::Double).sqrt();
                let coef = (max_norm / (norm + 1e-6)).clamp_max(1.0).to_kind(g.kind());
                g *= coef;
            }
            let _ = self.m.g_mul_scalar_(BETA1);
            let _ = self.m.g_add_(&(&g * (1.0 - BETA1)));
            let _ = self.v.g_mul_scalar_(BETA2);
            let _ = self.v.g_add_(&(g.square() * (1.0 - BETA2)));
            let update = &self.m / ((&self.v / bc2).sqrt() + EPS) * (lr / bc1);
            let mut offset = 0;
            for (_, p) in self.params.iter_mut() {
                let n = p.numel() as i64;
                let _ = p.g_mul_scalar_(1.0 - lr * wd);
                let _ = p.g_sub_(&update.narrow(0, offset, n).view_as(p));
                offset += n;
            }
        });
    }

    /// The moments as named tensors.
    pub fn state(&self) -> Vec<(String, Tensor)> {
        vec![("adam.m".to_string(), self.m.shallow_clone()), ("adam.v".to_string(), self.v.shallow_clone())]
    }

    pub fn load_state(&mut self, loaded: &[(String, Tensor)], t: u64) -> Result<(), String> {
        for (key, slot) in [("adam.m", &mut self.m), ("adam.v", &mut self.v)] {
            let src = loaded.iter().find(|(k, _)| k == key).ok_or_else(|| format!("checkpoint lacks {key}"))?;
            if src.1.size() != slot.size() {
                return Err(format!("checkpoint's {key} has {:?} values, the model {:?}", src.1.size(), slot.size()));
            }
            tch::no_grad(|| slot.copy_(&src.1));
        }
        self.t = t;
        Ok(())
    }
}
