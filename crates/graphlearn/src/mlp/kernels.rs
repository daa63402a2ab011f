//! The two inner loops of dense layers: `y += a * x` (axpy) and dot
//! products, with an AVX2+FMA path chosen at run time on x86-64.
//!
//! The workspace builds for the baseline x86-64 target (SSE2), where the
//! compiler can only use 4-wide vectors without fused multiply-add. These
//! loops are where nearly all of a forward or backward pass is spent, so they
//! are compiled twice: once plainly and once with AVX2 and FMA enabled, and
//! the second is called when the CPU has them. Results differ in the last
//! bits between the two paths (FMA rounds once): runs are reproducible on one
//! machine, not bit-identical across CPUs with and without FMA.

/// Whether the AVX2+FMA path is used (detected once; std caches the answer).
#[inline]
pub fn fast_path() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[inline(always)]
fn axpy_generic<const FMA: bool>(a: f32, x: &[f32], y: &mut [f32]) {
    for (yo, &xo) in y.iter_mut().zip(x) {
        *yo = if FMA { xo.mul_add(a, *yo) } else { *yo + a * xo };
    }
}

#[inline(always)]
fn dot_generic<const FMA: bool>(x: &[f32], y: &[f32]) -> f32 {
    // Eight independent accumulators: the compiler may not reassociate a
    // float sum, so one accumulator would serialise the loop.
    let mut acc = [0f32; 8];
    let n = x.len().min(y.len());
    let (xc, xr) = x[..n].split_at(n - n % 8);
    let (yc, yr) = y[..n].split_at(n - n % 8);
    for (a, b) in xc.chunks_exact(8).zip(yc.chunks_exact(8)) {
        for k in 0..8 {
            acc[k] = if FMA { a[k].mul_add(b[k], acc[k]) } else { acc[k] + a[k] * b[k] };
        }
    }
    let mut s = ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
    for (a, b) in xr.iter().zip(yr) {
        s += a * b;
    }
    s
}

/// Dense layer forward for a batch, sample-major: `y[b] = bias + sum_i
/// x[b][i] * w[i]` with `w` stored input-major (`w[i]` is the row of input
/// i's weights to every output). Zero inputs (ReLU's) are skipped.
#[inline(always)]
fn forward_generic<const FMA: bool>(x: &[f32], inputs: usize, w: &[f32], bias: &[f32], y: &mut [f32], n: usize) {
    let outputs = bias.len();
    for b in 0..n {
        y[b * outputs..(b + 1) * outputs].copy_from_slice(bias);
    }
    // Input-major: each weight row is read once per batch and stays in L1
    // while it is added to every sample's outputs.
    for i in 0..inputs {
        let row = &w[i * outputs..(i + 1) * outputs];
        for b in 0..n {
            let a = x[b * inputs + i];
            if a != 0.0 {
                axpy_generic::<FMA>(a, row, &mut y[b * outputs..(b + 1) * outputs]);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn forward_fma(x: &[f32], inputs: usize, w: &[f32], bias: &[f32], y: &mut [f32], n: usize) {
    forward_generic::<true>(x, inputs, w, bias, y, n)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn axpy_fma(a: f32, x: &[f32], y: &mut [f32]) {
    axpy_generic::<true>(a, x, y)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_fma(x: &[f32], y: &[f32]) -> f32 {
    dot_generic::<true>(x, y)
}

/// `y[b] = bias + W^T x[b]` for `n` samples (see [`forward_generic`]).
pub fn dense_forward(x: &[f32], inputs: usize, w: &[f32], bias: &[f32], y: &mut [f32], n: usize) {
    assert!(x.len() >= n * inputs && y.len() >= n * bias.len() && w.len() == inputs * bias.len());
    #[cfg(target_arch = "x86_64")]
    if fast_path() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        return unsafe { forward_fma(x, inputs, w, bias, y, n) };
    }
    forward_generic::<false>(x, inputs, w, bias, y, n)
}

/// `y += a * x`.
pub fn axpy(a: f32, x: &[f32], y: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if fast_path() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        return unsafe { axpy_fma(a, x, y) };
    }
    axpy_generic::<false>(a, x, y)
}

/// The dot product of the common prefix of `x` and `y`.
pub fn dot(x: &[f32], y: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if fast_path() {
        // SAFETY: the CPU supports AVX2 and FMA (checked just above).
        return unsafe { dot_fma(x, y) };
    }
    dot_generic::<false>(x, y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernels_agree_with_naive_loops() {
        let x: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin()).collect();
        let y: Vec<f32> = (0..37).map(|i| (i as f32 * 0.11).cos()).collect();
        let naive: f32 = x.iter().zip(&y).map(|(a, b)| a * b).sum();
        assert!((dot(&x, &y) - naive).abs() < 1e-4);
        let mut z = y.clone();
        axpy(0.5, &x, &mut z);
        for i in 0..37 {
            assert!((z[i] - (y[i] + 0.5 * x[i])).abs() < 1e-6);
        }
        // 2 samples, 3 inputs, 2 outputs.
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
        let xs = [1.0, 0.0, 2.0, -1.0, 1.0, 0.5];
        let mut out = [0.0; 4];
        dense_forward(&xs, 3, &w, &[0.5, -0.5], &mut out, 2);
        assert_eq!(out, [0.5 + 1.0 + 10.0, -0.5 + 2.0 + 12.0, 0.5 - 1.0 + 3.0 + 2.5, -0.5 - 2.0 + 4.0 + 3.0]);
    }

    /// The forward pass gives what a naive loop gives, and a sample's
    /// outputs do not depend on the batch it is in.
    #[test]
    fn forward_agrees_with_naive_and_ignores_the_batch() {
        for outputs in [1, 5, 16, 32, 48, 64] {
            for n in 1..10 {
                let inputs = 13;
                let x: Vec<f32> = (0..n * inputs)
                    .map(|i| if i % 3 == 0 { 0.0 } else { ((i * 37 % 19) as f32 - 9.0) / 7.0 })
                    .collect();
                let w: Vec<f32> = (0..inputs * outputs).map(|i| ((i * 11 % 23) as f32 - 11.0) / 13.0).collect();
                let bias: Vec<f32> = (0..outputs).map(|o| o as f32 / 10.0).collect();
                let mut y = vec![0.0; n * outputs];
                dense_forward(&x, inputs, &w, &bias, &mut y, n);
                for b in 0..n {
                    let mut single = vec![0.0; outputs];
                    dense_forward(&x[b * inputs..(b + 1) * inputs], inputs, &w, &bias, &mut single, 1);
                    assert_eq!(single, y[b * outputs..(b + 1) * outputs], "outputs {outputs}, batch {n}, sample {b}");
                    for o in 0..outputs {
                        let naive: f32 =
                            bias[o] + (0..inputs).map(|i| x[b * inputs + i] * w[i * outputs + o]).sum::<f32>();
                        assert!((naive - y[b * outputs + o]).abs() < 1e-4, "outputs {outputs}, batch {n}");
                    }
                }
            }
        }
    }
}
