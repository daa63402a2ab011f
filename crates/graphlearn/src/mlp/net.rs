//! The network: dense layers with ReLU between them, dropout after chosen
//! hidden layers, one linear output (thesis, section 5: hidden 256-512-128-
//! 64-32, ReLU, Xavier initialisation).
//!
//! Weights are stored input-major (`w[i * outputs + o]`): a forward pass adds
//! each input's weight row to the outputs, skipping the zeros ReLU leaves
//! (see [`super::kernels`]). Inference ([`Mlp::infer_batch`]) runs in a
//! caller-owned [`Workspace`] and allocates nothing once the workspace has
//! seen the batch size. Training passes ([`Mlp::forward_train`],
//! [`Mlp::backward`]) keep the activations and dropout masks they need in a
//! [`Tape`].

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::kernels::{axpy, dense_forward, dot};
use crate::Error;

/// One fully connected layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dense {
    pub inputs: usize,
    pub outputs: usize,
    /// Input-major: `weights[i * outputs + o]` joins input i to output o.
    pub weights: Vec<f32>,
    pub bias: Vec<f32>,
}

impl Dense {
    /// Xavier (Glorot) uniform initialisation, as in the thesis: weights
    /// uniform in +-sqrt(6 / (inputs + outputs)), biases zero.
    fn xavier(inputs: usize, outputs: usize, rng: &mut ChaCha8Rng) -> Dense {
        let a = (6.0 / (inputs + outputs) as f64).sqrt() as f32;
        let weights = (0..inputs * outputs).map(|_| rng.gen_range(-a..a)).collect();
        Dense { inputs, outputs, weights, bias: vec![0.0; outputs] }
    }

    fn check(&self) -> Result<(), String> {
        if self.inputs == 0 || self.outputs == 0 {
            return Err("a layer has no inputs or no outputs".into());
        }
        if self.weights.len() != self.inputs * self.outputs || self.bias.len() != self.outputs {
            return Err(format!(
                "a {}x{} layer holds {} weights and {} biases",
                self.inputs,
                self.outputs,
                self.weights.len(),
                self.bias.len()
            ));
        }
        if self.weights.iter().chain(&self.bias).any(|v| !v.is_finite()) {
            return Err("a layer holds a non-finite weight".into());
        }
        Ok(())
    }
}

/// A multilayer perceptron with one output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "StoredMlp")]
pub struct Mlp {
    layers: Vec<Dense>,
    /// Dropout rate after each hidden layer (0: none); one per hidden layer.
    dropout: Vec<f32>,
}

#[derive(Deserialize)]
struct StoredMlp {
    layers: Vec<Dense>,
    dropout: Vec<f32>,
}

impl TryFrom<StoredMlp> for Mlp {
    type Error = Error;

    fn try_from(s: StoredMlp) -> Result<Mlp, Error> {
        Mlp::from_layers(s.layers, s.dropout)
    }
}

impl Mlp {
    /// A freshly initialised network: `inputs` -> `hidden`... -> 1, with
    /// `dropout[k]` the rate after hidden layer k (a shorter list means no
    /// dropout after the remaining layers).
    pub fn new(inputs: usize, hidden: &[usize], dropout: &[f32], rng: &mut ChaCha8Rng) -> Result<Mlp, Error> {
        if dropout.len() > hidden.len() {
            return Err(Error::Settings(format!("{} dropout rates for {} hidden layers", dropout.len(), hidden.len())));
        }
        let mut sizes = vec![inputs];
        sizes.extend_from_slice(hidden);
        sizes.push(1);
        if let Some(w) = sizes.iter().find(|&&w| w == 0) {
            return Err(Error::Settings(format!("layer width {w}: every layer needs at least one unit")));
        }
        let layers = sizes.windows(2).map(|p| Dense::xavier(p[0], p[1], rng)).collect();
        let mut rates = dropout.to_vec();
        rates.resize(hidden.len(), 0.0);
        Mlp::from_layers(layers, rates)
    }

    /// A network from its layers, checked: consecutive widths agree, one
    /// output, finite weights, dropout rates in [0, 1).
    pub fn from_layers(layers: Vec<Dense>, dropout: Vec<f32>) -> Result<Mlp, Error> {
        let bad = |m: String| Error::Model(m);
        let last = layers.last().ok_or_else(|| bad("a network needs at least one layer".into()))?;
        if last.outputs != 1 {
            return Err(bad(format!("the last layer has {} outputs, not 1", last.outputs)));
        }
        for (i, l) in layers.iter().enumerate() {
            l.check().map_err(|e| bad(format!("layer {i}: {e}")))?;
            if i > 0 && layers[i - 1].outputs != l.inputs {
                return Err(bad(format!(
                    "layer {i} reads {} inputs, its predecessor gives {}",
                    l.inputs,
                    layers[i - 1].outputs
                )));
            }
        }
        if dropout.len() != layers.len() - 1 {
            return Err(bad(format!("{} dropout rates for {} hidden layers", dropout.len(), layers.len() - 1)));
        }
        if let Some(r) = dropout.iter().find(|r| !(0.0..1.0).contains(*r)) {
            return Err(bad(format!("dropout rate {r} is not in [0, 1)")));
        }
        Ok(Mlp { layers, dropout })
    }

    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    pub fn layers(&self) -> &[Dense] {
        &self.layers
    }

    pub(crate) fn layers_mut(&mut self) -> &mut [Dense] {
        &mut self.layers
    }

    pub fn dropout(&self) -> &[f32] {
        &self.dropout
    }

    /// Number of trainable parameters.
    pub fn num_params(&self) -> usize {
        self.layers.iter().map(|l| l.weights.len() + l.bias.len()).sum()
    }

    /// The widest layer (scratch size per sample).
    fn max_width(&self) -> usize {
        self.layers.iter().map(|l| l.outputs.max(l.inputs)).max().unwrap_or(1)
    }

    /// Outputs for `n` samples stored row after row in `x` (no dropout: the
    /// network as used for prediction). Allocation-free once `ws` has held
    /// a batch this large.
    pub fn infer_batch(&self, x: &[f32], n: usize, ws: &mut Workspace, out: &mut [f32]) {
        assert!(x.len() >= n * self.inputs() && out.len() >= n, "batch buffers too short");
        let width = self.max_width();
        if ws.a.len() < n * width {
            ws.a.resize(n * width, 0.0);
            ws.b.resize(n * width, 0.0);
        }
        let last = self.layers.len() - 1;
        for (k, l) in self.layers.iter().enumerate() {
            let input: &[f32] = if k == 0 { x } else { &ws.a };
            dense_forward(input, l.inputs, &l.weights, &l.bias, &mut ws.b, n);
            if k < last {
                for v in &mut ws.b[..n * l.outputs] {
                    *v = v.max(0.0);
                }
            }
            std::mem::swap(&mut ws.a, &mut ws.b);
        }
        out[..n].copy_from_slice(&ws.a[..n]);
    }

    /// The output for one sample.
    pub fn infer(&self, x: &[f32], ws: &mut Workspace) -> f32 {
        let mut out = [0.0];
        self.infer_batch(x, 1, ws, &mut out);
        out[0]
    }

    /// A training forward pass over `n` samples: dropout applied when `rng`
    /// is given (inverted dropout: kept units scaled by 1/(1-p), so nothing
    /// changes at prediction time). Returns the outputs; `tape` keeps what
    /// [`Mlp::backward`] needs.
    pub fn forward_train<'t>(
        &self,
        x: &[f32],
        n: usize,
        tape: &'t mut Tape,
        mut rng: Option<&mut ChaCha8Rng>,
    ) -> &'t [f32] {
        let layers = self.layers.len();
        tape.n = n;
        tape.acts.resize_with(layers + 1, Vec::new);
        tape.masks.resize_with(layers, Vec::new);
        tape.acts[0].clear();
        tape.acts[0].extend_from_slice(&x[..n * self.inputs()]);
        for (k, l) in self.layers.iter().enumerate() {
            let (before, after) = tape.acts.split_at_mut(k + 1);
            let out = &mut after[0];
            out.resize(n * l.outputs, 0.0);
            dense_forward(&before[k], l.inputs, &l.weights, &l.bias, out, n);
            let mask = &mut tape.masks[k];
            mask.clear();
            if k + 1 < layers {
                for v in out.iter_mut() {
                    *v = v.max(0.0);
                }
                let p = self.dropout[k];
                if let (Some(r), true) = (rng.as_deref_mut(), p > 0.0) {
                    let keep = 1.0 / (1.0 - p);
                    mask.extend((0..out.len()).map(|_| if r.gen::<f32>() < p { 0.0 } else { keep }));
                    for (v, m) in out.iter_mut().zip(mask.iter()) {
                        *v *= m;
                    }
                }
            }
        }
        &tape.acts[layers]
    }

    /// Adds to `grads` the gradient of the loss whose derivative with
    /// respect to each output of the last [`Mlp::forward_train`] is `d_out`.
    pub fn backward(&self, tape: &mut Tape, d_out: &[f32], grads: &mut Grads) {
        let n = tape.n;
        let Tape { acts, masks, delta, next_delta, .. } = tape;
        delta.clear();
        delta.extend_from_slice(&d_out[..n]);
        for k in (0..self.layers.len()).rev() {
            let l = &self.layers[k];
            let x = &acts[k];
            let gl = &mut grads.layers[k];
            let (gw, gb) = (&mut gl.weights, &mut gl.bias);
            for b in 0..n {
                let d = &delta[b * l.outputs..(b + 1) * l.outputs];
                for (g, v) in gb.iter_mut().zip(d) {
                    *g += v;
                }
                for i in 0..l.inputs {
                    let a = x[b * l.inputs + i];
                    if a != 0.0 {
                        axpy(a, d, &mut gw[i * l.outputs..(i + 1) * l.outputs]);
                    }
                }
            }
            if k == 0 {
                break;
            }
            // Back through layer k's weights, then ReLU and dropout of hidden layer k-1:
            // d a / d z is the dropout scale where the unit is active, else 0.
            next_delta.clear();
            next_delta.resize(n * l.inputs, 0.0);
            let mask = &masks[k - 1];
            for b in 0..n {
                let d = &delta[b * l.outputs..(b + 1) * l.outputs];
                for i in 0..l.inputs {
                    let j = b * l.inputs + i;
                    if x[j] > 0.0 {
                        let scale = if mask.is_empty() { 1.0 } else { mask[j] };
                        next_delta[j] = scale * dot(&l.weights[i * l.outputs..(i + 1) * l.outputs], d);
                    }
                }
            }
            std::mem::swap(delta, next_delta);
        }
    }

    /// Zeroed gradients shaped like this network.
    pub fn zero_grads(&self) -> Grads {
        Grads {
            layers: self
                .layers
                .iter()
                .map(|l| Dense {
                    inputs: l.inputs,
                    outputs: l.outputs,
                    weights: vec![0.0; l.weights.len()],
                    bias: vec![0.0; l.bias.len()],
                })
                .collect(),
        }
    }
}

/// Gradients of every layer (same shapes as the network's).
#[derive(Debug, Clone)]
pub struct Grads {
    pub layers: Vec<Dense>,
}

impl Grads {
    pub fn clear(&mut self) {
        for l in &mut self.layers {
            l.weights.iter_mut().for_each(|g| *g = 0.0);
            l.bias.iter_mut().for_each(|g| *g = 0.0);
        }
    }
}

/// Scratch space for inference.
#[derive(Debug, Default, Clone)]
pub struct Workspace {
    a: Vec<f32>,
    b: Vec<f32>,
}

/// What a training pass keeps for its backward pass.
#[derive(Debug, Default)]
pub struct Tape {
    n: usize,
    /// The input, then each layer's output (after ReLU and dropout for hidden layers).
    acts: Vec<Vec<f32>>,
    /// Per hidden layer: the dropout scale of each unit (empty: no dropout this pass).
    masks: Vec<Vec<f32>>,
    delta: Vec<f32>,
    next_delta: Vec<f32>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn net(dropout: &[f32]) -> Mlp {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut m = Mlp::new(5, &[7, 6, 4], dropout, &mut rng).unwrap();
        // Non-zero biases so that the bias gradients are exercised in general position.
        for l in m.layers_mut() {
            for (i, b) in l.bias.iter_mut().enumerate() {
                *b = 0.05 * (i as f32 + 1.0);
            }
        }
        m
    }

    fn batch() -> (Vec<f32>, Vec<f32>) {
        let x: Vec<f32> = (0..4 * 5).map(|i| ((i * 7 % 11) as f32 - 5.0) / 3.0).collect();
        let y = vec![1.0, 3.0, 0.0, 7.5];
        (x, y)
    }

    /// Half the squared error summed, in f64, for the finite differences.
    fn loss(m: &Mlp, x: &[f32], y: &[f32], dropout_seed: Option<u64>) -> f64 {
        let mut tape = Tape::default();
        let mut rng = dropout_seed.map(ChaCha8Rng::seed_from_u64);
        let out = m.forward_train(x, y.len(), &mut tape, rng.as_mut());
        out.iter().zip(y).map(|(&o, &t)| 0.5 * (o as f64 - t as f64).powi(2)).sum()
    }

    fn check_gradients(dropout: &[f32], seed: Option<u64>) {
        let m = net(dropout);
        let (x, y) = batch();
        let mut tape = Tape::default();
        let mut rng = seed.map(ChaCha8Rng::seed_from_u64);
        let out = m.forward_train(&x, 4, &mut tape, rng.as_mut()).to_vec();
        let d: Vec<f32> = out.iter().zip(&y).map(|(o, t)| o - t).collect();
        let mut g = m.zero_grads();
        m.backward(&mut tape, &d, &mut g);
        // Small enough that no ReLU of this batch crosses its kink (1e-2 did).
        let eps = 1e-3f32;
        let mut checked = 0;
        for k in 0..m.layers.len() {
            for which in 0..2 {
                let count = if which == 0 { m.layers[k].weights.len() } else { m.layers[k].bias.len() };
                for j in (0..count).step_by(3) {
                    let mut p = m.clone();
                    let mut q = m.clone();
                    let (vp, vq) = if which == 0 {
                        (&mut p.layers[k].weights[j], &mut q.layers[k].weights[j])
                    } else {
                        (&mut p.layers[k].bias[j], &mut q.layers[k].bias[j])
                    };
                    *vp += eps;
                    *vq -= eps;
                    let fd = (loss(&p, &x, &y, seed) - loss(&q, &x, &y, seed)) / (2.0 * eps as f64);
                    let an = if which == 0 { g.layers[k].weights[j] } else { g.layers[k].bias[j] } as f64;
                    assert!(
                        (fd - an).abs() <= 2e-2 * (1.0 + fd.abs().max(an.abs())),
                        "layer {k} {} {j}: finite difference {fd}, backward {an}",
                        if which == 0 { "weight" } else { "bias" }
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 40);
    }

    #[test]
    fn gradients_match_finite_differences() {
        check_gradients(&[], None);
    }

    /// With dropout, the same seed draws the same masks, so the loss is a
    /// fixed function of the weights and finite differences apply.
    #[test]
    fn gradients_with_dropout_match_finite_differences() {
        check_gradients(&[0.3, 0.3, 0.3], Some(11));
    }

    #[test]
    fn inference_equals_the_training_pass_without_dropout() {
        let m = net(&[0.5, 0.5]);
        let (x, _) = batch();
        let mut tape = Tape::default();
        let train = m.forward_train(&x, 4, &mut tape, None).to_vec();
        let mut ws = Workspace::default();
        let mut out = [0.0; 4];
        m.infer_batch(&x, 4, &mut ws, &mut out);
        assert_eq!(out.to_vec(), train);
        for b in 0..4 {
            assert_eq!(m.infer(&x[b * 5..(b + 1) * 5], &mut ws), out[b]);
        }
        // Dropout changes the training pass.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_ne!(m.forward_train(&x, 4, &mut tape, Some(&mut rng)).to_vec(), train);
    }

    #[test]
    fn malformed_networks_are_refused() {
        let m = net(&[]);
        let mut layers = m.layers.clone();
        layers[1].inputs += 1;
        assert!(Mlp::from_layers(layers, m.dropout.clone()).is_err());
        assert!(Mlp::from_layers(m.layers.clone(), vec![0.0]).is_err());
        assert!(Mlp::from_layers(m.layers.clone(), vec![1.0, 0.0, 0.0]).is_err());
        let mut layers = m.layers.clone();
        layers[0].weights[0] = f32::NAN;
        assert!(Mlp::from_layers(layers, m.dropout.clone()).is_err());
        let text = serde_json::to_string(&m).unwrap();
        assert_eq!(serde_json::from_str::<Mlp>(&text).unwrap(), m);
        let broken = text.replacen("\"outputs\":1", "\"outputs\":2", 1);
        assert!(serde_json::from_str::<Mlp>(&broken).is_err());
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert!(Mlp::new(3, &[0], &[], &mut rng).is_err());
        assert!(Mlp::new(3, &[4], &[0.1, 0.1], &mut rng).is_err());
    }
}
