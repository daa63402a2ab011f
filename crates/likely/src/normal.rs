//! The inverse of the standard normal CDF, for the planning heuristic's
//! quantile y^alpha = yhat + sigma_t * Phi^-1(1 - alpha) (notes section 1.3;
//! the paper's code calls MathNet's `Normal.InvCDF`).
//!
//! Wichura's algorithm AS 241 (`PPND16`, Applied Statistics 37 (1988)
//! 477-484): rational approximations in three regions of p, relative error
//! about 1e-16, no iteration and no error function needed.

/// Phi^-1(p): the x with P(Z <= x) = p for a standard normal Z.
/// `p` outside (0, 1) gives -inf (p <= 0), +inf (p >= 1) or NaN (NaN):
/// no panic on a caller's probability.
// The coefficients as Wichura printed them (more digits than f64 holds).
#[allow(clippy::excessive_precision)]
pub fn inverse_normal_cdf(p: f64) -> f64 {
    if p.is_nan() {
        return f64::NAN;
    }
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let q = p - 0.5;
    if q.abs() <= 0.425 {
        // Central region: p in [0.075, 0.925].
        let r = 0.180625 - q * q;
        return q
            * (((((((r * 2509.0809287301226727 + 33430.575583588128105) * r + 67265.770927008700853) * r
                + 45921.953931549871457)
                * r
                + 13731.693765509461125)
                * r
                + 1971.5909503065514427)
                * r
                + 133.14166789178437745)
                * r
                + 3.387132872796366608)
            / (((((((r * 5226.495278852545925 + 28729.085735721942674) * r + 39307.89580009271061) * r
                + 21213.794301586595867)
                * r
                + 5394.1960214247511077)
                * r
                + 687.1870074920579083)
                * r
                + 42.313330701600911252)
                * r
                + 1.0);
    }
    // Tails: r = sqrt(-ln(min(p, 1 - p))).
    let tail = if q < 0.0 { p } else { 1.0 - p };
    let mut r = (-tail.ln()).sqrt();
    let x = if r <= 5.0 {
        r -= 1.6;
        (((((((r * 7.7454501427834140764e-4 + 0.0227238449892691845833) * r + 0.24178072517745061177) * r
            + 1.27045825245236838258)
            * r
            + 3.64784832476320460504)
            * r
            + 5.7694972214606914055)
            * r
            + 4.6303378461565452959)
            * r
            + 1.42343711074968357734)
            / (((((((r * 1.05075007164441684324e-9 + 5.475938084995344946e-4) * r + 0.0151986665636164571966) * r
                + 0.14810397642748007459)
                * r
                + 0.68976733498510000455)
                * r
                + 1.6763848301838038494)
                * r
                + 2.05319162663775882187)
                * r
                + 1.0)
    } else {
        r -= 5.0;
        (((((((r * 2.01033439929228813265e-7 + 2.71155556874348757815e-5) * r + 0.0012426609473880784386) * r
            + 0.026532189526576123093)
            * r
            + 0.29656057182850489123)
            * r
            + 1.7848265399172913358)
            * r
            + 5.4637849111641143699)
            * r
            + 6.6579046435011037772)
            / (((((((r * 2.04426310338993978564e-15 + 1.4215117583164458887e-7) * r + 1.8463183175100546818e-5) * r
                + 7.868691311456132591e-4)
                * r
                + 0.0148753612908506148525)
                * r
                + 0.13692988092273580531)
                * r
                + 0.59983220655588793769)
                * r
                + 1.0)
    };
    if q < 0.0 {
        -x
    } else {
        x
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Phi(x), independently of the code under test: the Maclaurin series
    /// of erf for |x| < 3 and Laplace's continued fraction of the Mills
    /// ratio beyond (both accurate to about 1e-15 there).
    fn cdf(x: f64) -> f64 {
        if x.abs() < 3.0 {
            // erf(z) = 2/sqrt(pi) * sum (-1)^n z^(2n+1) / (n! (2n+1)).
            let z = x / std::f64::consts::SQRT_2;
            let (mut term, mut sum, mut n) = (z, z, 0.0);
            while term.abs() > 1e-18 {
                n += 1.0;
                term *= -z * z / n;
                sum += term / (2.0 * n + 1.0);
            }
            0.5 + sum / std::f64::consts::PI.sqrt()
        } else {
            let t = x.abs();
            let mut frac = t;
            for k in (1..=200).rev() {
                frac = t + k as f64 / frac;
            }
            let upper = (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt() / frac;
            if x > 0.0 {
                1.0 - upper
            } else {
                upper
            }
        }
    }

    #[test]
    fn known_quantiles() {
        // Published values (R's qnorm, 17 significant digits).
        let known = [
            (0.5, 0.0),
            (0.975, 1.959963984540054),
            (0.95, 1.6448536269514722),
            (0.99, 2.3263478740408408),
            (0.01, -2.3263478740408408),
            (0.05, -1.6448536269514722),
            (0.999, 3.090232306167813),
            (0.8413447460685429, 1.0),
            (0.022750131948179195, -2.0),
            (1e-10, -6.361340902404056),
        ];
        for (p, x) in known {
            let got = inverse_normal_cdf(p);
            assert!((got - x).abs() < 1e-9 * x.abs().max(1.0), "Phi^-1({p}) = {got}, expected {x}");
        }
    }

    #[test]
    fn inverts_the_cdf_in_every_region() {
        // Central region, the r <= 5 tail and the far tail (p < e^-25).
        let mut ps: Vec<f64> = (1..1000).map(|i| i as f64 / 1000.0).collect();
        ps.extend([1e-3, 1e-5, 1e-8, 1e-11, 1e-12, 1e-15, 1e-20, 1e-30, 1e-50]);
        for p in ps {
            let x = inverse_normal_cdf(p);
            let back = cdf(x);
            assert!((back - p).abs() <= 1e-12 * p.min(1.0 - p).max(1e-300) + 1e-15, "Phi(Phi^-1({p})) = {back}");
            // Symmetry.
            assert!((inverse_normal_cdf(1.0 - p) + x).abs() < 1e-9 * x.abs().max(1.0) || p < 1e-8);
        }
    }

    #[test]
    fn edges_do_not_panic() {
        assert_eq!(inverse_normal_cdf(0.0), f64::NEG_INFINITY);
        assert_eq!(inverse_normal_cdf(1.0), f64::INFINITY);
        assert_eq!(inverse_normal_cdf(-3.0), f64::NEG_INFINITY);
        assert!(inverse_normal_cdf(f64::NAN).is_nan());
    }
}
