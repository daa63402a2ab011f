//! Feature standardisation: each input minus its training mean, divided by
//! its training standard deviation. The thesis does not say how it scaled
//! features; counts of small subgraphs range from a handful to thousands,
//! so unscaled inputs would make the first layer's learning rate depend on
//! the problem size. A constant feature (standard deviation 0) is only
//! centred. The scaling is stored with the model, so test states are
//! scaled as training states were.

use serde::{Deserialize, Serialize};

use crate::Error;

/// Per-input mean and inverse standard deviation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "Stored", into = "Stored")]
pub struct Scaling {
    mean: Vec<f32>,
    std: Vec<f32>,
    inv_std: Vec<f32>,
}

#[derive(Serialize, Deserialize)]
struct Stored {
    mean: Vec<f32>,
    std: Vec<f32>,
}

impl TryFrom<Stored> for Scaling {
    type Error = Error;
    fn try_from(s: Stored) -> Result<Scaling, Error> {
        if s.mean.len() != s.std.len() {
            return Err(Error::Model(format!("scaling of {} means and {} deviations", s.mean.len(), s.std.len())));
        }
        if s.mean.iter().any(|m| !m.is_finite()) || s.std.iter().any(|d| !d.is_finite() || *d <= 0.0) {
            return Err(Error::Model("scaling holds a non-finite mean or a deviation that is not positive".into()));
        }
        let inv_std = s.std.iter().map(|d| 1.0 / d).collect();
        Ok(Scaling { mean: s.mean, std: s.std, inv_std })
    }
}

impl From<Scaling> for Stored {
    fn from(s: Scaling) -> Stored {
        Stored { mean: s.mean, std: s.std }
    }
}

impl Scaling {
    /// The scaling of `rows` samples of `width` inputs stored row after row.
    pub fn fit(x: &[f32], width: usize) -> Scaling {
        let rows = x.len().checked_div(width).unwrap_or(0);
        let mut mean = vec![0f64; width];
        let mut sq = vec![0f64; width];
        for r in x.chunks_exact(width.max(1)).take(rows) {
            for (i, &v) in r.iter().enumerate() {
                mean[i] += v as f64;
            }
        }
        let n = rows.max(1) as f64;
        mean.iter_mut().for_each(|m| *m /= n);
        for r in x.chunks_exact(width.max(1)).take(rows) {
            for (i, &v) in r.iter().enumerate() {
                sq[i] += (v as f64 - mean[i]).powi(2);
            }
        }
        let std: Vec<f32> = sq
            .iter()
            .map(|s| {
                let d = (s / n).sqrt() as f32;
                if d > 1e-6 && d.is_finite() {
                    d
                } else {
                    1.0
                }
            })
            .collect();
        let inv_std = std.iter().map(|d| 1.0 / d).collect();
        Scaling { mean: mean.into_iter().map(|m| m as f32).collect(), std, inv_std }
    }

    pub fn width(&self) -> usize {
        self.mean.len()
    }

    pub fn mean(&self) -> &[f32] {
        &self.mean
    }

    pub fn std(&self) -> &[f32] {
        &self.std
    }

    /// Input `i`'s raw value `v`, scaled.
    #[inline]
    pub fn scale(&self, i: usize, v: f32) -> f32 {
        (v - self.mean[i]) * self.inv_std[i]
    }

    /// Scales rows of raw inputs in place.
    pub fn apply(&self, x: &mut [f32]) {
        let w = self.width().max(1);
        for r in x.chunks_exact_mut(w) {
            for (i, v) in r.iter_mut().enumerate() {
                *v = (*v - self.mean[i]) * self.inv_std[i];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standardises_and_round_trips() {
        let x = [1.0, 5.0, 3.0, 5.0, 5.0, 5.0];
        let s = Scaling::fit(&x, 2);
        assert_eq!(s.mean(), [3.0, 5.0]);
        assert!((s.std()[0] - (8.0f32 / 3.0).sqrt()).abs() < 1e-6);
        assert_eq!(s.std()[1], 1.0, "a constant feature is only centred");
        let mut y = x;
        s.apply(&mut y);
        assert_eq!(y[1], 0.0);
        assert!((y[0] + y[2] + y[4]).abs() < 1e-6);
        assert_eq!(s.scale(0, 1.0), y[0]);
        let text = serde_json::to_string(&s).unwrap();
        assert_eq!(serde_json::from_str::<Scaling>(&text).unwrap(), s);
        assert!(serde_json::from_str::<Scaling>(r#"{"mean":[0.0],"std":[0.0]}"#).is_err());
    }
}
