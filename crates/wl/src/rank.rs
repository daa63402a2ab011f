//! The ranking variant of the linear WL model, as GOOSE trains its IPC 2023
//! models (`optimisation = "rank-svm"`; Hao, Trevizan, Thiébaux et al.,
//! IJCAI 2024; Chen, Trevizan & Thiébaux): GBFS only needs the order of
//! states, so instead of regressing h* the weights are fitted so that along
//! each optimal plan step s -> s' the successor s' scores below its parent s
//! and below its siblings (the other successors of s).
//!
//! Each such requirement is a pair (good, bad) of feature rows asking
//! w.(x_bad - x_good) >= 1. GOOSE solves the plain-hinge RankSVM with
//! liblinear (`LinearSVC(loss="hinge", C=1, fit_intercept=False)` on the
//! difference vectors). We minimise the squared-hinge version
//!
//!   f(w) = lambda/2 |w|^2 + sum_p max(0, 1 - w.d_p)^2,   d_p = x_bad - x_good
//!
//! (lambda = 1 is their C = 1). Why squared: it is convex with a Lipschitz
//! gradient and piecewise quadratic, so a Newton method converges in a few
//! steps (Chapelle & Keerthi's primal RankSVM), each step a conjugate-gradient
//! solve that needs only products with the sparse difference rows; the plain
//! hinge is not differentiable and would need a dual coordinate solver we
//! would have to write and tune. Margins mean the same in both: a pair is
//! ordered correctly with slack when w.d >= 1. No bias: it cancels in every
//! pair, and GBFS does not care about an offset.

use rustc_hash::FxHashMap;

use crate::ridge::{conjugate_gradients, Row};

/// A ranking requirement: the row `good` should score below the row `bad`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Pair {
    pub good: u32,
    pub bad: u32,
}

/// The fit and how it went.
#[derive(Debug, Clone)]
pub struct Fit {
    pub weights: Vec<f64>,
    /// Newton steps taken.
    pub iterations: usize,
    /// The objective at the start (w = 0) and at the end.
    pub initial_loss: f64,
    pub loss: f64,
    /// Pairs with w.d <= 0 (ordered wrongly or tied) at the end.
    pub violated: usize,
    /// Pairs with d = 0 (the two states have the same features: no weights
    /// can order them), left out of the fit.
    pub tied: usize,
}

/// d = x_bad - x_good as a sparse row (zero entries dropped).
fn difference(good: &Row, bad: &Row) -> Row {
    let mut acc: FxHashMap<u32, f64> = FxHashMap::default();
    for &(j, x) in bad {
        *acc.entry(j).or_default() += x;
    }
    for &(j, x) in good {
        *acc.entry(j).or_default() -= x;
    }
    let mut d: Row = acc.into_iter().filter(|&(_, x)| x != 0.0).collect();
    d.sort_unstable_by_key(|&(j, _)| j);
    d
}

fn dot_row(d: &Row, w: &[f64]) -> f64 {
    d.iter().map(|&(j, x)| x * w[j as usize]).sum()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The objective at w.
pub fn objective(diffs: &[Row], w: &[f64], lambda: f64) -> f64 {
    let reg = 0.5 * lambda * dot(w, w);
    reg + diffs.iter().map(|d| (1.0 - dot_row(d, w)).max(0.0).powi(2)).sum::<f64>()
}

/// Fits weights over `dim` features so that each pair's good row scores
/// below its bad row. Pairs are deduplicated (the same two feature rows
/// asked twice count once, as GOOSE's `handle_redundant_pairs` leaves them
/// for liblinear); pairs of equal rows are counted in `tied` and dropped.
/// Errors for no pairs, a row index or feature out of range, or a
/// non-positive lambda.
pub fn fit(rows: &[Row], pairs: &[Pair], dim: usize, lambda: f64) -> Result<Fit, String> {
    if !(lambda > 0.0 && lambda.is_finite()) {
        return Err(format!("lambda must be positive and finite, not {lambda}"));
    }
    if pairs.is_empty() {
        return Err("no ranking pairs: no plan had a step to rank".into());
    }
    if let Some(p) = pairs.iter().find(|p| p.good as usize >= rows.len() || p.bad as usize >= rows.len()) {
        return Err(format!("pair {p:?} names a row out of range ({} rows)", rows.len()));
    }
    if let Some(&(j, _)) = rows.iter().flatten().find(|&&(j, _)| j as usize >= dim) {
        return Err(format!("feature {j} is out of range (dimension {dim})"));
    }
    // Deduplicate by the rows' contents: many plan states share features
    // (e.g. the same sibling seen from several problems).
    // Rows are named by their first occurrence (features compared bit for
    // bit; counts are small integers), pairs by the two names.
    let mut first: FxHashMap<Vec<(u32, u64)>, u32> = FxHashMap::default();
    let canonical: Vec<u32> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut key: Vec<(u32, u64)> = r.iter().map(|&(j, x)| (j, x.to_bits())).collect();
            key.sort_unstable();
            *first.entry(key).or_insert(i as u32)
        })
        .collect();
    let mut seen: FxHashMap<(u32, u32), ()> = FxHashMap::default();
    let mut diffs: Vec<Row> = vec![];
    let mut tied = 0;
    for p in pairs {
        let (cg, cb) = (canonical[p.good as usize], canonical[p.bad as usize]);
        if seen.insert((cg, cb), ()).is_some() {
            continue;
        }
        let d = difference(&rows[cg as usize], &rows[cb as usize]);
        if d.is_empty() {
            tied += 1;
        } else {
            diffs.push(d);
        }
    }
    let mut w = vec![0.0; dim];
    let initial_loss = objective(&diffs, &w, lambda);
    let mut loss = initial_loss;
    let mut iterations = 0;
    let mut grad = vec![0.0; dim];
    let mut margins: Vec<f64> = vec![0.0; diffs.len()];
    // Newton's method on a piecewise quadratic: at most a few dozen steps in
    // practice; the cap only guards against a pathological stall.
    for _ in 0..100 {
        for (m, d) in margins.iter_mut().zip(&diffs) {
            *m = dot_row(d, &w);
        }
        let active: Vec<usize> = (0..diffs.len()).filter(|&i| margins[i] < 1.0).collect();
        // grad = lambda w - 2 sum_A (1 - m) d; Hessian = lambda I + 2 sum_A d d^T.
        for (g, &x) in grad.iter_mut().zip(&w) {
            *g = lambda * x;
        }
        for &i in &active {
            let r = 1.0 - margins[i];
            for &(j, x) in &diffs[i] {
                grad[j as usize] -= 2.0 * r * x;
            }
        }
        let gnorm = dot(&grad, &grad).sqrt();
        if gnorm <= 1e-8 * (1.0 + loss) {
            break;
        }
        let step = newton_direction(&diffs, &active, lambda, &grad);
        // Backtracking (Armijo) along the Newton direction: the full step is
        // exact on the current active set and usually accepted.
        let slope = dot(&grad, &step);
        if slope >= 0.0 {
            break;
        }
        let mut t = 1.0;
        let mut trial = vec![0.0; dim];
        let mut gain = None;
        for _ in 0..40 {
            for ((x, &w0), &s) in trial.iter_mut().zip(&w).zip(&step) {
                *x = w0 + t * s;
            }
            let f = objective(&diffs, &trial, lambda);
            if f <= loss + 1e-4 * t * slope {
                w.clone_from(&trial);
                gain = Some(loss - f);
                loss = f;
                iterations += 1;
                break;
            }
            t *= 0.5;
        }
        // No acceptable step, or one that no longer changes the loss: converged
        // as far as floating point allows.
        match gain {
            Some(g) if g > 1e-12 * (1.0 + loss) => {}
            _ => break,
        }
    }
    let violated = diffs.iter().filter(|d| dot_row(d, &w) <= 0.0).count();
    Ok(Fit { weights: w, iterations, initial_loss, loss, violated, tied })
}

/// Solves (lambda I + 2 sum_A d d^T) s = -grad by conjugate gradients with
/// a Jacobi preconditioner (`ridge::conjugate_gradients`, as the ridge fit).
fn newton_direction(diffs: &[Row], active: &[usize], lambda: f64, grad: &[f64]) -> Vec<f64> {
    let n = grad.len();
    let mut diag = vec![lambda; n];
    for &i in active {
        for &(j, x) in &diffs[i] {
            diag[j as usize] += 2.0 * x * x;
        }
    }
    let product = |v: &[f64], out: &mut [f64]| {
        for (o, &x) in out.iter_mut().zip(v) {
            *o = lambda * x;
        }
        for &i in active {
            let dv = dot_row(&diffs[i], v);
            for &(j, x) in &diffs[i] {
                out[j as usize] += 2.0 * x * dv;
            }
        }
    };
    let b: Vec<f64> = grad.iter().map(|g| -g).collect();
    // The cap bounds a Newton step's cost; a truncated solve still descends.
    conjugate_gradients(product, &diag, b, 1e-6, (n + 50).min(500)).0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(w: &[f64], row: &Row) -> f64 {
        dot_row(row, w)
    }

    /// A toy "plan": rows are one-hot-ish feature counts where feature 0
    /// counts goals left to achieve and feature 1 is a distractor that the
    /// siblings have more of; the ranking must learn both.
    fn toy() -> (Vec<Row>, Vec<Pair>) {
        let mut rows: Vec<Row> = vec![];
        let mut pairs = vec![];
        for goals_left in 1..6u32 {
            let parent = rows.len() as u32;
            rows.push(vec![(0, goals_left as f64), (2, 1.0)]);
            let good = rows.len() as u32;
            rows.push(vec![(0, goals_left as f64 - 1.0), (2, 1.0)]);
            pairs.push(Pair { good, bad: parent });
            for k in 1..3 {
                let sib = rows.len() as u32;
                rows.push(vec![(0, goals_left as f64), (1, k as f64), (2, 1.0)]);
                pairs.push(Pair { good, bad: sib });
            }
        }
        (rows, pairs)
    }

    #[test]
    fn the_learned_order_respects_every_constraint_and_the_loss_decreases() {
        let (rows, pairs) = toy();
        let f = fit(&rows, &pairs, 3, 1e-3).unwrap();
        assert!(f.loss < f.initial_loss * 1e-2, "{f:?}");
        assert_eq!(f.violated, 0, "{f:?}");
        for p in &pairs {
            let (g, b) = (score(&f.weights, &rows[p.good as usize]), score(&f.weights, &rows[p.bad as usize]));
            assert!(g < b, "{p:?}: {g} vs {b}");
        }
        // Feature 2 is in every row: no pair says anything about it, and the
        // regulariser keeps it at 0.
        assert!(f.weights[2].abs() < 1e-9, "{f:?}");
        assert!(f.weights[0] > 0.0 && f.weights[1] > 0.0, "{f:?}");
    }

    #[test]
    fn the_fit_is_a_minimum_of_the_objective() {
        let (rows, pairs) = toy();
        let lambda = 0.5;
        let f = fit(&rows, &pairs, 3, lambda).unwrap();
        let diffs: Vec<Row> = pairs.iter().map(|p| difference(&rows[p.good as usize], &rows[p.bad as usize])).collect();
        let at = objective(&diffs, &f.weights, lambda);
        assert!((at - f.loss).abs() < 1e-9);
        for j in 0..3 {
            for eps in [1e-3, -1e-3] {
                let mut w = f.weights.clone();
                w[j] += eps;
                assert!(objective(&diffs, &w, lambda) >= at - 1e-12, "moving w[{j}] by {eps} lowers the loss");
            }
        }
        // A large lambda leaves the pairs unsatisfied rather than growing w.
        let tight = fit(&rows, &pairs, 3, 1e4).unwrap();
        let norm = |w: &[f64]| dot(w, w).sqrt();
        assert!(norm(&tight.weights) < norm(&f.weights));
    }

    #[test]
    fn conflicting_and_tied_pairs_are_counted_and_bad_input_refused() {
        let rows: Vec<Row> = vec![vec![(0, 1.0)], vec![(0, 2.0)], vec![(0, 1.0)]];
        // 0 < 1 and 1 < 0 conflict; 0 vs 2 are the same features (tied); the
        // repeated pair counts once.
        let pairs =
            [Pair { good: 0, bad: 1 }, Pair { good: 0, bad: 1 }, Pair { good: 1, bad: 0 }, Pair { good: 0, bad: 2 }];
        let f = fit(&rows, &pairs, 1, 1.0).unwrap();
        assert_eq!(f.tied, 1);
        // Symmetric conflict: the minimum is w = 0, where both are violated (tied at 0).
        assert!(f.weights[0].abs() < 1e-9, "{f:?}");
        assert_eq!(f.violated, 2);
        assert!(fit(&rows, &[], 1, 1.0).unwrap_err().contains("no ranking pairs"));
        assert!(fit(&rows, &[Pair { good: 0, bad: 9 }], 1, 1.0).unwrap_err().contains("out of range"));
        assert!(fit(&rows, &pairs, 0, 1.0).unwrap_err().contains("feature 0"));
        assert!(fit(&rows, &pairs, 1, -1.0).unwrap_err().contains("lambda"));
    }
}
