//! Small dense networks written by hand (notes section 1.2): the FFNN that
//! predicts cost-to-go (and its aleatoric spread) and the WUNN
//! (Bayes-by-backprop) whose weight uncertainty picks training tasks.
//!
//! Both are [in, H, out] with one ReLU hidden layer, parameters in one flat
//! vector (`w1` row-major [in][H], `b1`, `w2` [H][out], `b2`) so that Adam
//! and serde see a plain `Vec<f32>`. The single-input passes allocate
//! nothing (the IDA* per-node call); the batched passes skip zero inputs,
//! which makes one-hot encodings (a quarter of the 15-puzzle's 128 inputs
//! are set) cost what their set inputs cost.

mod adam;
mod ffnn;
mod wunn;

pub use adam::Adam;
pub use ffnn::{Ffnn, Outputs, Prediction};
pub use wunn::{Epistemic, Wunn};

/// Where the parameters of an [in, H, out] layer pair lie in the flat
/// vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Layout {
    pub n_in: usize,
    pub n_hidden: usize,
    pub n_out: usize,
}

impl Layout {
    pub fn w1(&self) -> std::ops::Range<usize> {
        0..self.n_in * self.n_hidden
    }
    pub fn b1(&self) -> std::ops::Range<usize> {
        let s = self.n_in * self.n_hidden;
        s..s + self.n_hidden
    }
    pub fn w2(&self) -> std::ops::Range<usize> {
        let s = (self.n_in + 1) * self.n_hidden;
        s..s + self.n_hidden * self.n_out
    }
    pub fn b2(&self) -> std::ops::Range<usize> {
        let s = (self.n_in + 1 + self.n_out) * self.n_hidden;
        s..s + self.n_out
    }
    pub fn len(&self) -> usize {
        (self.n_in + 1 + self.n_out) * self.n_hidden + self.n_out
    }
}

/// `out = b + sum_i x[i] * w[i, ..]` over the nonzero inputs (`w`
/// row-major [in][out.len()]): one contiguous row per set input. The set
/// inputs of each block of 64 are first gathered without branches (a
/// one-hot input's zeros follow no pattern a branch predictor could learn),
/// then their rows are added; the paper's widths (8 and 20 hidden units)
/// get kernels of fixed width, which the compiler unrolls into vector
/// code.
#[inline]
pub(crate) fn affine_sparse(w: &[f32], b: &[f32], x: &[f32], out: &mut [f32]) {
    match out.len() {
        8 => affine_fixed::<8>(w, b, x, out),
        16 => affine_fixed::<16>(w, b, x, out),
        20 => affine_fixed::<20>(w, b, x, out),
        32 => affine_fixed::<32>(w, b, x, out),
        _ => affine_any(w, b, x, out),
    }
}

#[inline]
fn affine_fixed<const H: usize>(w: &[f32], b: &[f32], x: &[f32], out: &mut [f32]) {
    let mut acc = [0.0f32; H];
    acc.copy_from_slice(&b[..H]);
    let mut idx = [0u32; 64];
    for (block, xs) in x.chunks(64).enumerate() {
        let k = gather_nonzero(xs, &mut idx);
        for &i in &idx[..k] {
            let i = block * 64 + i as usize;
            let xi = x[i];
            let row: &[f32; H] = match w.get(i * H..(i + 1) * H).and_then(|r| r.try_into().ok()) {
                Some(r) => r,
                None => return,
            };
            for j in 0..H {
                acc[j] += xi * row[j];
            }
        }
    }
    out[..H].copy_from_slice(&acc);
}

fn affine_any(w: &[f32], b: &[f32], x: &[f32], out: &mut [f32]) {
    let h = out.len();
    out.copy_from_slice(b);
    let mut idx = [0u32; 64];
    for (block, xs) in x.chunks(64).enumerate() {
        let k = gather_nonzero(xs, &mut idx);
        for &i in &idx[..k] {
            let i = block * 64 + i as usize;
            let xi = x[i];
            for (o, &wij) in out.iter_mut().zip(&w[i * h..(i + 1) * h]) {
                *o += xi * wij;
            }
        }
    }
}

/// `out = b + sum over i in active of w[i, ..]`: the first layer of a
/// binary input given by the positions of its ones (one-hot encodings).
/// Positions beyond `w` are ignored.
#[inline]
pub(crate) fn affine_active(w: &[f32], b: &[f32], active: &[u32], out: &mut [f32]) {
    #[inline]
    fn fixed<const H: usize>(w: &[f32], b: &[f32], active: &[u32], out: &mut [f32]) {
        let mut acc = [0.0f32; H];
        acc.copy_from_slice(&b[..H]);
        for &i in active {
            let i = i as usize;
            if let Some(row) = w.get(i * H..(i + 1) * H).and_then(|r| <&[f32; H]>::try_from(r).ok()) {
                for j in 0..H {
                    acc[j] += row[j];
                }
            }
        }
        out[..H].copy_from_slice(&acc);
    }
    match out.len() {
        8 => fixed::<8>(w, b, active, out),
        16 => fixed::<16>(w, b, active, out),
        20 => fixed::<20>(w, b, active, out),
        32 => fixed::<32>(w, b, active, out),
        h => {
            out.copy_from_slice(b);
            for &i in active {
                let i = i as usize;
                if let Some(row) = w.get(i * h..(i + 1) * h) {
                    for (o, &wij) in out.iter_mut().zip(row) {
                        *o += wij;
                    }
                }
            }
        }
    }
}

/// The positions of the nonzero values of `xs` (at most 64) in `idx`;
/// returns their count.
#[inline]
fn gather_nonzero(xs: &[f32], idx: &mut [u32; 64]) -> usize {
    let mut k = 0;
    for (i, &xi) in xs.iter().enumerate() {
        idx[k & 63] = i as u32;
        k += (xi != 0.0) as usize;
    }
    k
}

/// log(1 + e^x) without overflow.
#[inline]
pub(crate) fn softplus(x: f32) -> f32 {
    if x > 20.0 {
        x
    } else if x < -20.0 {
        x.exp()
    } else {
        x.exp().ln_1p()
    }
}

/// The logistic function: softplus' derivative.
#[inline]
pub(crate) fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}

/// An error in the shape of a network or its data: the caller's fault,
/// answered, never panicked on.
pub(crate) fn check_batch(layout: &Layout, x: &[f32], y: &[f32]) -> Result<usize, crate::LikelyError> {
    let n = y.len();
    if x.len() != n * layout.n_in {
        return Err(crate::LikelyError::Shape(format!(
            "{} inputs for {n} targets of {} inputs each",
            x.len(),
            layout.n_in
        )));
    }
    if n == 0 {
        return Err(crate::LikelyError::Shape("an empty batch".into()));
    }
    Ok(n)
}

/// Finite differences against an analytic gradient, for the networks'
/// tests. `loss(i, delta)`: the loss with parameter `i` moved by `delta`.
/// The analytic value must match the central difference, or, where a ReLU
/// kink lies within `eps` of the point (at most a tenth of the
/// parameters), one of the one-sided differences.
#[cfg(test)]
pub(crate) fn check_gradient_fd(grad: &[f32], eps: f32, loss: impl Fn(usize, f32) -> f64) {
    let l0 = loss(0, 0.0);
    let mut one_sided = 0;
    for (i, &g) in grad.iter().enumerate() {
        let lp = loss(i, eps);
        let lm = loss(i, -eps);
        let (fwd, bwd) = ((lp - l0) / eps as f64, (l0 - lm) / eps as f64);
        let central = (lp - lm) / (2.0 * eps as f64);
        let g = g as f64;
        let close = |numeric: f64, rel: f64| (numeric - g).abs() < 2e-3 + rel * numeric.abs().max(g.abs());
        if close(central, 1e-2) {
            continue;
        }
        assert!(
            close(fwd, 3e-2) || close(bwd, 3e-2),
            "parameter {i}: analytic {g}, central {central}, forward {fwd}, backward {bwd}"
        );
        one_sided += 1;
    }
    assert!(one_sided * 10 <= grad.len(), "{one_sided} of {} parameters near a kink", grad.len());
}
