//! Ridge regression on sparse rows: minimise |Xw + b - y|^2 + lambda |w|^2
//! (the bias unpenalised), by conjugate gradients on the normal equations
//! with a Jacobi preconditioner. Why not a closed form: the dictionary has
//! thousands of colours and a dense Cholesky factorisation is cubic in
//! them; CG needs only products with the sparse X.

/// A sparse row: (feature, value), features distinct.
pub type Row = Vec<(u32, f64)>;

/// The fit: weights per feature and the bias; `iterations` of CG run, and
/// the relative residual reached.
#[derive(Debug, Clone)]
pub struct Fit {
    pub weights: Vec<f64>,
    pub bias: f64,
    pub iterations: usize,
    pub residual: f64,
}

/// y = A v with A = [X 1]^T [X 1] + lambda diag(1..1, 0); v and y have dim + 1 entries (bias last).
fn normal_product(rows: &[Row], dim: usize, lambda: f64, v: &[f64], y: &mut [f64]) {
    y.iter_mut().for_each(|x| *x = 0.0);
    for row in rows {
        let xv: f64 = row.iter().map(|&(j, x)| x * v[j as usize]).sum::<f64>() + v[dim];
        for &(j, x) in row {
            y[j as usize] += x * xv;
        }
        y[dim] += xv;
    }
    for j in 0..dim {
        y[j] += lambda * v[j];
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Solves A x = b from x = 0 by conjugate gradients with a Jacobi
/// preconditioner (`diag`: A's diagonal, positive), A given by `product`
/// (y = A v). Stops when the residual falls to `tol` times |b|, after
/// `max_iterations`, or at a direction without positive curvature (a
/// truncated solve is still a descent direction). Returns x, the
/// iterations run and the relative residual reached. Ridge regression and
/// the ranker's Newton steps (`crate::rank`) both solve with it.
pub(crate) fn conjugate_gradients(
    mut product: impl FnMut(&[f64], &mut [f64]),
    diag: &[f64],
    b: Vec<f64>,
    tol: f64,
    max_iterations: usize,
) -> (Vec<f64>, usize, f64) {
    let n = b.len();
    let b_norm = dot(&b, &b).sqrt().max(f64::MIN_POSITIVE);
    let mut x = vec![0.0; n];
    let mut r = b;
    let mut z: Vec<f64> = r.iter().zip(diag).map(|(r, d)| r / d).collect();
    let mut p = z.clone();
    let mut ap = vec![0.0; n];
    let mut rz = dot(&r, &z);
    let mut it = 0;
    let mut residual = dot(&r, &r).sqrt() / b_norm;
    while residual > tol && it < max_iterations {
        product(&p, &mut ap);
        let pap = dot(&p, &ap);
        if pap <= 0.0 {
            break;
        }
        let alpha = rz / pap;
        for i in 0..n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        for i in 0..n {
            z[i] = r[i] / diag[i];
        }
        let rz_next = dot(&r, &z);
        let beta = rz_next / rz;
        rz = rz_next;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
        it += 1;
        residual = dot(&r, &r).sqrt() / b_norm;
    }
    (x, it, residual)
}

/// Fits `rows` (features below `dim`) to `targets`. An error for no rows,
/// mismatched lengths, a feature out of range or a non-positive lambda.
pub fn fit(rows: &[Row], targets: &[f64], dim: usize, lambda: f64) -> Result<Fit, String> {
    if rows.is_empty() {
        return Err("no training rows".into());
    }
    if rows.len() != targets.len() {
        return Err(format!("{} rows but {} targets", rows.len(), targets.len()));
    }
    if !(lambda > 0.0 && lambda.is_finite()) {
        return Err(format!("lambda must be positive and finite, not {lambda}"));
    }
    if let Some(&(j, _)) = rows.iter().flatten().find(|&&(j, _)| j as usize >= dim) {
        return Err(format!("feature {j} is out of range (dimension {dim})"));
    }
    let n = dim + 1;
    // b = [X 1]^T y; the preconditioner is A's diagonal.
    let mut b = vec![0.0; n];
    let mut diag = vec![lambda; n];
    diag[dim] = 0.0;
    for (row, &y) in rows.iter().zip(targets) {
        for &(j, x) in row {
            b[j as usize] += x * y;
            diag[j as usize] += x * x;
        }
        b[dim] += y;
        diag[dim] += 1.0;
    }
    let (mut w, iterations, residual) =
        conjugate_gradients(|v, y| normal_product(rows, dim, lambda, v, y), &diag, b, 1e-10, 10 * n + 100);
    let bias = w.pop().unwrap_or(0.0);
    Ok(Fit { weights: w, bias, iterations, residual })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recovers_an_exact_linear_function() {
        // y = 2 x0 - x1 + 0.5 x2 + 3 on rows with overlapping sparse support.
        let mut rows = vec![];
        let mut ys = vec![];
        for i in 0..40u32 {
            let row: Row = vec![(0, (i % 5) as f64), (1, (i % 3) as f64), (2, (i / 7) as f64)];
            ys.push(2.0 * row[0].1 - row[1].1 + 0.5 * row[2].1 + 3.0);
            rows.push(row.into_iter().filter(|&(_, x)| x != 0.0).collect());
        }
        let f = fit(&rows, &ys, 3, 1e-9).unwrap();
        assert!(f.residual < 1e-8, "{f:?}");
        for (w, want) in f.weights.iter().zip([2.0, -1.0, 0.5]) {
            assert!((w - want).abs() < 1e-5, "{f:?}");
        }
        assert!((f.bias - 3.0).abs() < 1e-5, "{f:?}");
    }

    #[test]
    fn lambda_shrinks_and_bad_input_is_refused() {
        let rows: Vec<Row> = vec![vec![(0, 1.0)], vec![(0, 2.0)], vec![]];
        let ys = [1.0, 2.0, 0.0];
        let small = fit(&rows, &ys, 1, 1e-9).unwrap();
        let big = fit(&rows, &ys, 1, 100.0).unwrap();
        assert!((small.weights[0] - 1.0).abs() < 1e-6);
        assert!(big.weights[0].abs() < small.weights[0].abs());
        assert!(fit(&rows, &ys[..2], 1, 1.0).unwrap_err().contains("targets"));
        assert!(fit(&rows, &ys, 0, 1.0).unwrap_err().contains("out of range"));
        assert!(fit(&rows, &ys, 1, 0.0).unwrap_err().contains("lambda"));
        assert!(fit(&[], &[], 1, 1.0).is_err());
    }
}
