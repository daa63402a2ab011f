//! How well a network fits its labels (thesis, sections 5.4.3 and 5.5) and
//! how feature distance follows target distance (section 5.3.1).
//!
//! [`FitStats`]: over (target y, output y^) pairs, the mean absolute error,
//! its 80% quantile, the least and greatest difference y^ - y (the thesis
//! prints -21.6 for y = 141, y^ = 119.4, so the difference is output minus
//! target), the mean and greatest ratio max((y+1)/(y^+1), (y^+1)/(y+1)),
//! and per target the count, the mean, least and greatest output and the
//! mean absolute error (Figures 5.18/5.19; the MSE vs LogMSE comparison of
//! section 5.5 is this table for both losses side by side).
//!
//! [`correlation`]: Pearson's coefficient between the distance of two
//! samples' feature vectors (L1, L2 and L-infinity) and |h*(s1) - h*(s2)|,
//! over pairs drawn uniformly with a seeded stream (the thesis drew 10^7
//! pairs; the caller says how many).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// Errors of one target value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetError {
    pub target: f64,
    pub n: u64,
    pub mean_output: f64,
    pub min_output: f64,
    pub max_output: f64,
    pub mae: f64,
}

/// A network's fit to labelled samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitStats {
    pub n: u64,
    pub mae: f64,
    /// The 80% quantile of |y^ - y| (nearest rank).
    pub p80_abs: f64,
    /// The least and greatest y^ - y.
    pub min_diff: f64,
    pub max_diff: f64,
    pub ratio_mean: f64,
    pub ratio_max: f64,
    /// Per target value, ascending.
    pub by_target: Vec<TargetError>,
}

/// The ratio of section 5.4.3: at least 1, 1 for a perfect fit.
pub fn ratio(y: f64, out: f64) -> f64 {
    let (a, b) = (y + 1.0, out + 1.0);
    (a / b).max(b / a)
}

/// The statistics of (target, output) pairs; None without pairs.
pub fn fit_stats(pairs: &[(f64, f64)]) -> Option<FitStats> {
    if pairs.is_empty() {
        return None;
    }
    let n = pairs.len() as f64;
    let mut abs: Vec<f64> = pairs.iter().map(|(y, o)| (o - y).abs()).collect();
    let mae = abs.iter().sum::<f64>() / n;
    abs.sort_by(f64::total_cmp);
    // Nearest rank: the least value with at least 80% of samples at or below it.
    let rank = ((0.8 * n).ceil() as usize).clamp(1, abs.len());
    let diffs = pairs.iter().map(|(y, o)| o - y);
    let min_diff = diffs.clone().fold(f64::INFINITY, f64::min);
    let max_diff = diffs.fold(f64::NEG_INFINITY, f64::max);
    let ratios: Vec<f64> = pairs.iter().map(|&(y, o)| ratio(y, o)).collect();
    let mut sorted = pairs.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut by_target: Vec<TargetError> = vec![];
    for (y, o) in sorted {
        match by_target.last_mut() {
            Some(t) if t.target == y => {
                t.n += 1;
                t.mean_output += o;
                t.min_output = t.min_output.min(o);
                t.max_output = t.max_output.max(o);
                t.mae += (o - y).abs();
            }
            _ => by_target.push(TargetError {
                target: y,
                n: 1,
                mean_output: o,
                min_output: o,
                max_output: o,
                mae: (o - y).abs(),
            }),
        }
    }
    for t in &mut by_target {
        t.mean_output /= t.n as f64;
        t.mae /= t.n as f64;
    }
    Some(FitStats {
        n: pairs.len() as u64,
        mae,
        p80_abs: abs[rank - 1],
        min_diff,
        max_diff,
        ratio_mean: ratios.iter().sum::<f64>() / n,
        ratio_max: ratios.iter().copied().fold(1.0, f64::max),
        by_target,
    })
}

/// Correlation of feature distance with target distance (section 5.3.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Correlation {
    pub pairs: u64,
    pub l1: Option<f64>,
    pub l2: Option<f64>,
    pub linf: Option<f64>,
}

/// Pearson's r of (x, y) pairs given as running sums; None when either
/// side is constant.
#[derive(Default)]
struct Pearson {
    n: f64,
    x: f64,
    y: f64,
    xx: f64,
    yy: f64,
    xy: f64,
}

impl Pearson {
    fn add(&mut self, x: f64, y: f64) {
        self.n += 1.0;
        self.x += x;
        self.y += y;
        self.xx += x * x;
        self.yy += y * y;
        self.xy += x * y;
    }

    fn r(&self) -> Option<f64> {
        let cov = self.n * self.xy - self.x * self.y;
        let vx = self.n * self.xx - self.x * self.x;
        let vy = self.n * self.yy - self.y * self.y;
        (vx > 0.0 && vy > 0.0).then(|| cov / (vx.sqrt() * vy.sqrt()))
    }
}

/// Feature vectors (equal lengths) with their targets; `pairs` pairs of
/// distinct samples drawn uniformly from `seed`'s stream.
pub fn correlation(vectors: &[Vec<f64>], targets: &[f64], pairs: u64, seed: u64) -> Correlation {
    let n = vectors.len().min(targets.len());
    let (mut l1, mut l2, mut linf) = (Pearson::default(), Pearson::default(), Pearson::default());
    let mut drawn = 0;
    if n >= 2 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for _ in 0..pairs {
            let i = rng.gen_range(0..n);
            let mut j = rng.gen_range(0..n - 1);
            if j >= i {
                j += 1;
            }
            let (mut d1, mut d2, mut dinf) = (0.0f64, 0.0f64, 0.0f64);
            for (a, b) in vectors[i].iter().zip(&vectors[j]) {
                let d = (a - b).abs();
                d1 += d;
                d2 += d * d;
                dinf = dinf.max(d);
            }
            let t = (targets[i] - targets[j]).abs();
            l1.add(d1, t);
            l2.add(d2.sqrt(), t);
            linf.add(dinf, t);
            drawn += 1;
        }
    }
    Correlation { pairs: drawn, l1: l1.r(), l2: l2.r(), linf: linf.r() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_statistics_by_hand() {
        // Targets 0, 0, 2, 4 with outputs 1, 0, 2, 1.
        let s = fit_stats(&[(0.0, 1.0), (0.0, 0.0), (2.0, 2.0), (4.0, 1.0)]).unwrap();
        assert_eq!(s.n, 4);
        assert_eq!(s.mae, 1.0, "(1 + 0 + 0 + 3) / 4");
        assert_eq!(s.p80_abs, 3.0, "nearest rank ceil(3.2) = 4 of [0, 0, 1, 3]");
        assert_eq!((s.min_diff, s.max_diff), (-3.0, 1.0));
        assert_eq!(s.ratio_max, 2.5, "(4+1)/(1+1)");
        assert!((s.ratio_mean - (2.0 + 1.0 + 1.0 + 2.5) / 4.0).abs() < 1e-12);
        let t: Vec<(f64, u64, f64, f64)> = s.by_target.iter().map(|t| (t.target, t.n, t.mean_output, t.mae)).collect();
        assert_eq!(t, [(0.0, 2, 0.5, 0.5), (2.0, 1, 2.0, 0.0), (4.0, 1, 1.0, 3.0)]);
        assert!(fit_stats(&[]).is_none());
        // The thesis's worst blocks ratio: y = 3, y^ = 21.5 gives 5.625.
        assert_eq!(ratio(3.0, 21.5), 5.625);
    }

    #[test]
    fn correlation_follows_the_targets() {
        // Features that are the target itself: every distance equals |dt|.
        let v: Vec<Vec<f64>> = (0..20).map(|i| vec![i as f64, 0.0]).collect();
        let t: Vec<f64> = (0..20).map(|i| i as f64).collect();
        let c = correlation(&v, &t, 500, 1);
        assert_eq!(c.pairs, 500);
        for r in [c.l1, c.l2, c.linf] {
            assert!((r.unwrap() - 1.0).abs() < 1e-9, "{c:?}");
        }
        // Features unrelated to the targets (reversed halves) correlate less.
        let w: Vec<Vec<f64>> = (0..20).map(|i| vec![(i % 2) as f64]).collect();
        let c = correlation(&w, &t, 500, 1);
        assert!(c.l1.unwrap().abs() < 0.5, "{c:?}");
        assert_eq!(correlation(&v[..1], &t[..1], 10, 1).pairs, 0);
    }
}
