//! A dense layer for a stack of independent runs: weights [R, in, out] and
//! biases [R, 1, out], applied with one batched matrix product to inputs
//! whose leading dimension holds the runs' samples one run after another.
//! With R = 1 it is an ordinary linear layer; every network is built from
//! these, so one run alone and the same run in a group of R compute the same
//! thing (up to floating-point reduction order).
//!
//! Initialisation is per run, from a ChaCha stream keyed by the run's seed
//! and the variable's name: a run's initial weights never depend on which
//! runs share its group, in what order layers are created, or on libtorch's
//! process-global generator (two trainings in one process would perturb
//! each other through it). The distribution is torch.nn.Linear's default:
//! weights and biases uniform in +-1/sqrt(in).
//!
//! Stored weights keep nn::Linear's layout per run (`weight` [out, in],
//! `bias` [out]): [`StackedLinear::export`] and [`StackedLinear::import`]
//! convert, so checkpoints written before stacking still load.

use rand::{Rng, SeedableRng};
use tch::{nn, Kind, Tensor};

pub struct StackedLinear {
    /// [R, in, out]
    pub weight: Tensor,
    /// [R, 1, out]
    pub bias: Tensor,
    name: String,
}

/// A seed for (run seed, variable name): FNV-1a of the name mixed with the seed.
fn stream_seed(seed: u64, name: &str) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl StackedLinear {
    /// `seeds[r]` initialises run r.
    pub fn new(path: &nn::Path, name: &str, input: i64, output: i64, seeds: &[u64]) -> StackedLinear {
        // The variables' names in the VarStore (tch joins components with '.').
        let full = path.components().chain(std::iter::once(name)).collect::<Vec<_>>().join(".");
        let bound = 1.0 / (input.max(1) as f64).sqrt();
        let runs = seeds.len() as i64;
        let mut w = Vec::with_capacity((runs * input * output) as usize);
        let mut b = Vec::with_capacity((runs * output) as usize);
        for &seed in seeds {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(stream_seed(seed, &full));
            // Drawn in nn::Linear's [out, in] order, stored transposed.
            let ws: Vec<f32> = (0..input * output).map(|_| rng.gen_range(-bound..bound) as f32).collect();
            for i in 0..input {
                for o in 0..output {
                    w.push(ws[(o * input + i) as usize]);
                }
            }
            b.extend((0..output).map(|_| rng.gen_range(-bound..bound) as f32));
        }
        let sub = path / name;
        let weight = sub.var_copy("weight", &Tensor::from_slice(&w).reshape([runs, input, output]));
        let bias = sub.var_copy("bias", &Tensor::from_slice(&b).reshape([runs, 1, output]));
        StackedLinear { weight, bias, name: full }
    }

    pub fn runs(&self) -> i64 {
        self.weight.size()[0]
    }

    /// `x` [R * n, ..., in] (run r's samples in rows r*n..(r+1)*n) to
    /// [R * n, ..., out].
    pub fn forward(&self, x: &Tensor) -> Tensor {
        let mut shape = x.size();
        let input = *shape.last().expect("an input with features");
        let r = self.runs();
        let y = self.bias.baddbmm(&x.reshape([r, -1, input]), &self.weight, 1.0, 1.0);
        *shape.last_mut().expect("same rank") = self.weight.size()[2];
        y.reshape(shape.as_slice())
    }

    /// Run `r`'s weights in nn::Linear's layout, named as stored.
    pub fn export(&self, r: i64) -> Vec<(String, Tensor)> {
        vec![
            (format!("{}.weight", self.name), self.weight.get(r).transpose(0, 1).contiguous().detach()),
            (format!("{}.bias", self.name), self.bias.get(r).reshape([-1]).detach()),
        ]
    }

    /// Sets run `r`'s weights from tensors in nn::Linear's layout.
    pub fn import(&self, r: i64, loaded: &[(String, Tensor)], prefix: &str) -> Result<(), String> {
        for (suffix, var) in [("weight", &self.weight), ("bias", &self.bias)] {
            let key = format!("{prefix}{}.{suffix}", self.name);
            let t = loaded.iter().find(|(n, _)| *n == key).ok_or_else(|| format!("stored weights lack {key}"))?;
            let mut slot = var.get(r);
            let value = if suffix == "weight" { t.1.transpose(0, 1) } else { t.1.reshape([1, -1]) };
            if value.size() != slot.size() {
                return Err(format!("stored {key} has shape {:?}, the model {:?}", t.1.size(), slot.size()));
            }
            tch::no_grad(|| slot.copy_(&value.to_kind(Kind::Float).to_device(slot.device())));
        }
        Ok(())
    }
}
