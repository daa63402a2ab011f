//! AdamW and gradient clipping, written out so that the optimiser's moments
//! are ordinary tensors: they go into the resumable checkpoint, and a resumed
//! run continues exactly where the interrupted one stopped. Same update as
//! torch.optim.AdamW (betas 0.9/0.999, eps 1e-8, decoupled weight decay).

use tch::Tensor;

const BETA1: f64 = 0.9;
const BETA2: f64 = 0.999;
const EPS: f64 = 1e-8;

pub struct AdamW {
    pub lr: f64,
    pub weight_decay: f64,
    /// Number of updates made so far.
    pub t: u64,
    /// (name, parameter, first moment, second moment), sorted by name.
    pub slots: Vec<(String, Tensor, Tensor, Tensor)>,
}

impl AdamW {
    pub fn new(params: Vec<(String, Tensor)>, lr: f64, weight_decay: f64) -> AdamW {
        let slots = params
            .into_iter()
            .map(|(n, p)| {
                let (m, v) = (p.zeros_like(), p.zeros_like());
                (n, p, m, v)
            })
            .collect();
        AdamW { lr, weight_decay, t: 0, slots }
    }

    /// Scales all gradients so that their joint L2 norm is at most `max_norm`;
    /// returns the norm before clipping.
    pub fn clip_grad_norm(&self, max_norm: f64) -> f64 {
        let norms: Vec<Tensor> =
            self.slots.iter().filter(|s| s.1.grad().defined()).map(|s| s.1.grad().square().sum(s.1.kind())).collect();
        if norms.is_empty() {
            return 0.0;
        }
        let total = Tensor::stack(&norms, 0).sum(tch::Kind::Double).sqrt().double_value(&[]);
        let coef = max_norm / (total + 1e-6);
        if coef < 1.0 {
            tch::no_grad(|| {
                for s in &self.slots {
                    let mut g = s.1.grad();
                    if g.defined() {
                        let _ = g.g_mul_scalar_(coef);
                    }
                }
            });
        }
        total
    }

    pub fn zero_grad(&self) {
        for s in &self.slots {
            let mut g = s.1.grad();
            if g.defined() {
                let _ = g.zero_();
            }
        }
    }

    pub fn step(&mut self) {
        self.t += 1;
        let bc1 = 1.0 - BETA1.powi(self.t as i32);
        let bc2 = 1.0 - BETA2.powi(self.t as i32);
        let (lr, wd) = (self.lr, self.weight_decay);
        tch::no_grad(|| {
            for (_, p, m, v) in self.slots.iter_mut() {
                let g = p.grad();
                if !g.defined() {
                    continue;
                }
                let _ = p.g_mul_scalar_(1.0 - lr * wd);
                let _ = m.g_mul_scalar_(BETA1);
                let _ = m.g_add_(&(&g * (1.0 - BETA1)));
                let _ = v.g_mul_scalar_(BETA2);
                let _ = v.g_add_(&(g.square() * (1.0 - BETA2)));
                let denom = (&*v / bc2).sqrt() + EPS;
                let _ = p.g_sub_(&(&*m / &denom * (lr / bc1)));
            }
        });
    }

    /// The moments as named tensors ("adam.m.NAME", "adam.v.NAME").
    pub fn state(&self) -> Vec<(String, Tensor)> {
        let mut out = vec![];
        for (n, _, m, v) in &self.slots {
            out.push((format!("adam.m.{n}"), m.shallow_clone()));
            out.push((format!("adam.v.{n}"), v.shallow_clone()));
        }
        out
    }

    pub fn load_state(&mut self, loaded: &[(String, Tensor)], t: u64) -> Result<(), String> {
        for (n, _, m, v) in self.slots.iter_mut() {
            for (prefix, slot) in [("adam.m.", m), ("adam.v.", v)] {
                let key = format!("{prefix}{n}");
                let src = loaded.iter().find(|(k, _)| *k == key).ok_or_else(|| format!("checkpoint lacks {key}"))?;
                tch::no_grad(|| slot.copy_(&src.1));
            }
        }
        self.t = t;
        Ok(())
    }
}
