//! AdamW with gradient-norm clipping, written out so that the optimiser's
//! moments are ordinary tensors: they go into the resumable checkpoint, and a
//! resumed run continues exactly where the interrupted one stopped. Same
//! update as torch.optim.AdamW (betas 0.9/0.999, eps 1e-8, decoupled weight
//! decay) after torch.nn.utils.clip_grad_norm_.
//!
//! It updates a stack of R independent runs at once (`models::stacked`:
//! every parameter's leading dimension is the run): the moments are [R, n],
//! row r holding run r's parameters flattened in name order, and the
//! gradient norm is clipped per run, so a run's update never depends on its
//! neighbours. Row r is exactly what a run alone would hold.
//!
//! The moments live in one tensor each and the gradients are gathered into
//! one, so a step is a handful of kernels plus two per parameter, and
//! nothing waits for the device (no value is read back).

use tch::{Kind, Tensor};

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

pub struct AdamW {
    pub lr: f64,
    pub weight_decay: f64,
    /// Number of updates made so far.
    pub t: u64,
    runs: i64,
    /// Parameters, sorted by name, each with the runs as leading dimension.
    params: Vec<(String, Tensor)>,
    /// First and second moments, [runs, parameters per run].
    m: Tensor,
    v: Tensor,
}

impl AdamW {
    pub fn new(mut params: Vec<(String, Tensor)>, runs: i64, lr: f64, weight_decay: f64) -> AdamW {
        params.sort_by(|a, b| a.0.cmp(&b.0));
        let n: i64 = params.iter().map(|(_, p)| p.numel() as i64).sum::<i64>() / runs.max(1);
        let (kind, device) = params.first().map_or((Kind::Float, tch::Device::Cpu), |(_, p)| (p.kind(), p.device()));
        let zeros = || Tensor::zeros([runs, n], (kind, device));
        AdamW { lr, weight_decay, t: 0, runs, m: zeros(), v: zeros(), params }
    }

    pub fn zero_grad(&self) {
        for (_, p) in &self.params {
            let mut g = p.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    /// Clips each run's joint gradient norm to `max_norm` (if positive), then updates.
    pub fn step(&mut self, max_norm: f64) {
        self.t += 1;
        let bc1 = 1.0 - BETA1.powi(self.t as i32);
        let bc2 = 1.0 - BETA2.powi(self.t as i32);
        let (lr, wd, runs) = (self.lr, self.weight_decay, self.runs);
        tch::no_grad(|| {
            let grads: Vec<Tensor> = self
                .params
                .iter()
                .map(|(_, p)| {
                    let g = p.grad();
                    if g.defined() {
                        g.reshape([runs, -1])
                    } else {
                        p.zeros_like().reshape([runs, -1])
                    }
                })
                .collect();
            let mut g = Tensor::cat(&grads, 1);
            if max_norm > 0.0 {
                let norm = g.square().sum_dim_intlist([1i64].as_slice(), true, Kind::Double).sqrt();
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
                let n = p.numel() as i64 / runs;
                let _ = p.g_mul_scalar_(1.0 - lr * wd);
                let _ = p.g_sub_(&update.narrow(1, offset, n).reshape(p.size()));
                offset += n;
            }
        });
    }

    /// Run `r`'s moments as named tensors (what a run alone would store).
    pub fn state(&self, r: i64) -> Vec<(String, Tensor)> {
        vec![("adam.m".to_string(), self.m.get(r).copy()), ("adam.v".to_string(), self.v.get(r).copy())]
    }

    /// Sets run `r`'s moments from a checkpoint taken after `t` updates.
    pub fn load_state(&mut self, r: i64, loaded: &[(String, Tensor)], t: u64) -> Result<(), String> {
        for key in ["adam.m", "adam.v"] {
            let src = loaded.iter().find(|(k, _)| k == key).ok_or_else(|| format!("checkpoint lacks {key}"))?;
            let mut slot = if key == "adam.m" { self.m.get(r) } else { self.v.get(r) };
            if src.1.size() != slot.size() {
                return Err(format!("checkpoint's {key} has {:?} values, the model {:?}", src.1.size(), slot.size()));
            }
            tch::no_grad(|| slot.copy_(&src.1));
        }
        self.t = t;
        Ok(())
    }
}
