//! Training with early stopping (thesis, section 5): a validation split is
//! held out, training runs epoch after epoch until `patience` epochs pass
//! without a better validation loss (the thesis waits 1000), and the network
//! with the best validation loss is kept.
//!
//! Not in the thesis, so chosen here: mini-batches of 64, a validation split
//! of 10% drawn at random (every sample is a state; the thesis does not say
//! how its test split was made), and a cap on epochs so that a run always
//! ends. Every random choice (split, shuffles, dropout masks) comes from the
//! caller's seeded ChaCha stream: the same seed gives the same network.

use std::time::Instant;

use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use super::adam::{Adam, AdamSettings};
use super::loss::Loss;
use super::net::{Mlp, Tape, Workspace};
use crate::Error;

/// How to train.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainSettings {
    pub batch_size: usize,
    /// Epochs without a better validation loss before stopping (thesis: 1000).
    pub patience: usize,
    /// Epochs at most, whatever the validation loss does.
    pub max_epochs: usize,
    /// Share of the samples held out for validation. With fewer than 10
    /// samples there is no split and the training loss decides.
    pub validation_fraction: f64,
    pub adam: AdamSettings,
    /// Stop after this many seconds of training (None: no limit). A time
    /// limit makes the result depend on the machine's speed.
    #[serde(default)]
    pub max_seconds: Option<f64>,
}

impl Default for TrainSettings {
    fn default() -> TrainSettings {
        TrainSettings {
            batch_size: 64,
            patience: 1000,
            max_epochs: 100_000,
            validation_fraction: 0.1,
            adam: AdamSettings::default(),
            max_seconds: None,
        }
    }
}

impl TrainSettings {
    pub fn check(&self) -> Result<(), Error> {
        let bad = |m: &str| Err(Error::Settings(m.into()));
        if self.batch_size == 0 {
            return bad("batch_size must be at least 1");
        }
        if self.max_epochs == 0 {
            return bad("max_epochs must be at least 1");
        }
        if !(0.0..1.0).contains(&self.validation_fraction) {
            return bad("validation_fraction must be in [0, 1)");
        }
        if !(self.adam.learning_rate > 0.0 && self.adam.learning_rate.is_finite()) {
            return bad("the learning rate must be positive");
        }
        Ok(())
    }
}

/// Inputs (already scaled) and targets, row after row.
#[derive(Debug, Clone, Default)]
pub struct Dataset {
    pub width: usize,
    pub x: Vec<f32>,
    pub y: Vec<f32>,
}

impl Dataset {
    pub fn len(&self) -> usize {
        self.y.len()
    }

    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    fn row(&self, i: usize) -> &[f32] {
        &self.x[i * self.width..(i + 1) * self.width]
    }
}

/// How a training run went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrainReport {
    pub train_samples: usize,
    /// 0 when there was too little data to hold any out.
    pub validation_samples: usize,
    pub epochs: usize,
    /// The epoch (1-based) whose network was kept.
    pub best_epoch: usize,
    /// Its loss on the validation split (on the training set without a
    /// split), negative predictions clipped as the thesis defines the loss.
    /// JSON has no infinity or NaN: serde_json writes them as null, read
    /// back as NaN.
    #[serde(deserialize_with = "null_as_nan")]
    pub best_loss: f64,
    /// Mean training loss of the last epoch (with dropout).
    #[serde(deserialize_with = "null_as_nan")]
    pub last_train_loss: f64,
    pub seconds: f64,
}

fn null_as_nan<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// Trains `net` on `data` under `loss`, keeping the best network by validation loss.
pub fn train(
    net: &mut Mlp,
    data: &Dataset,
    loss: Loss,
    settings: &TrainSettings,
    rng: &mut ChaCha8Rng,
) -> Result<TrainReport, Error> {
    settings.check()?;
    if data.width != net.inputs() || data.x.len() != data.len() * data.width {
        return Err(Error::Settings(format!(
            "dataset of {} inputs per row for a network of {}",
            data.width,
            net.inputs()
        )));
    }
    let start = Instant::now();
    let mut order: Vec<usize> = (0..data.len()).collect();
    order.shuffle(rng);
    let held = if data.len() >= 10 { ((data.len() as f64) * settings.validation_fraction).round() as usize } else { 0 };
    let (validation, training) = order.split_at(held);
    let validation: Vec<usize> = if held == 0 { training.to_vec() } else { validation.to_vec() };
    let mut training = training.to_vec();
    let mut report = TrainReport {
        train_samples: training.len(),
        validation_samples: held,
        epochs: 0,
        best_epoch: 0,
        best_loss: f64::INFINITY,
        last_train_loss: f64::NAN,
        seconds: 0.0,
    };
    if training.is_empty() {
        return Ok(report);
    }
    let mut adam = Adam::new(net, settings.adam);
    let mut tape = Tape::default();
    let mut grads = net.zero_grads();
    let mut ws = Workspace::default();
    let bs = settings.batch_size;
    let mut xb = vec![0f32; bs * data.width];
    let mut yb = vec![0f32; bs];
    let mut gb = vec![0f32; bs];
    let mut best = net.clone();
    report.best_loss = evaluate(net, data, &validation, loss, &mut ws);
    let mut since_best = 0;
    for epoch in 1..=settings.max_epochs {
        training.shuffle(rng);
        let mut sum = 0.0;
        for chunk in training.chunks(bs) {
            let n = chunk.len();
            for (j, &i) in chunk.iter().enumerate() {
                xb[j * data.width..(j + 1) * data.width].copy_from_slice(data.row(i));
                yb[j] = data.y[i];
            }
            let out = net.forward_train(&xb, n, &mut tape, Some(rng));
            sum += loss.eval(out, &yb[..n], &mut gb[..n]) * n as f64;
            grads.clear();
            net.backward(&mut tape, &gb[..n], &mut grads);
            adam.step(net, &grads);
        }
        report.epochs = epoch;
        report.last_train_loss = sum / training.len() as f64;
        let v = evaluate(net, data, &validation, loss, &mut ws);
        if v < report.best_loss {
            report.best_loss = v;
            report.best_epoch = epoch;
            best.clone_from(net);
            since_best = 0;
        } else {
            since_best += 1;
        }
        let out_of_time = settings.max_seconds.is_some_and(|s| start.elapsed().as_secs_f64() >= s);
        if since_best >= settings.patience || out_of_time || !report.last_train_loss.is_finite() {
            break;
        }
    }
    *net = best;
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Mean clipped loss of `net` on the rows `rows` of `data`.
pub fn evaluate(net: &Mlp, data: &Dataset, rows: &[usize], loss: Loss, ws: &mut Workspace) -> f64 {
    if rows.is_empty() {
        return f64::INFINITY;
    }
    const CHUNK: usize = 256;
    let mut x = Vec::with_capacity(CHUNK * data.width);
    let mut y = Vec::with_capacity(CHUNK);
    let mut out = vec![0f32; CHUNK];
    let mut total = 0.0;
    for chunk in rows.chunks(CHUNK) {
        x.clear();
        y.clear();
        for &i in chunk {
            x.extend_from_slice(data.row(i));
            y.push(data.y[i]);
        }
        net.infer_batch(&x, chunk.len(), ws, &mut out);
        total += loss.eval_clipped(&out[..chunk.len()], &y) * chunk.len() as f64;
    }
    total / rows.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    /// y = 3 + 2 x0 - x1 + |x2| on [-1, 1]^3 (the last term needs the ReLUs).
    fn data(n: usize, seed: u64) -> Dataset {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut d = Dataset { width: 3, ..Default::default() };
        for _ in 0..n {
            let v: [f32; 3] = [rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0), rng.gen_range(-1.0..1.0)];
            d.x.extend_from_slice(&v);
            d.y.push(3.0 + 2.0 * v[0] - v[1] + v[2].abs());
        }
        d
    }

    fn fit(seed: u64, loss: Loss) -> (Mlp, TrainReport) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut net = Mlp::new(3, &[32, 16], &[0.0, 0.0], &mut rng).unwrap();
        let settings = TrainSettings {
            patience: 30,
            max_epochs: 300,
            adam: AdamSettings { learning_rate: 3e-3, ..Default::default() },
            ..Default::default()
        };
        let report = train(&mut net, &data(600, 1), loss, &settings, &mut rng).unwrap();
        (net, report)
    }

    #[test]
    fn fits_a_simple_function_and_generalises() {
        let (net, report) = fit(5, Loss::Mse);
        assert_eq!(report.validation_samples, 60);
        assert!(report.best_loss < 0.01, "{report:?}");
        let test = data(200, 99);
        let mut ws = Workspace::default();
        let rows: Vec<usize> = (0..200).collect();
        let mse = evaluate(&net, &test, &rows, Loss::Mse, &mut ws);
        assert!(mse < 0.02, "test mse {mse}");
        // An untrained network is far off: the test can fail.
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let fresh = Mlp::new(3, &[32, 16], &[], &mut rng).unwrap();
        assert!(evaluate(&fresh, &test, &rows, Loss::Mse, &mut ws) > 1.0);
        let (_, log_report) = fit(5, Loss::LogMse);
        assert!(log_report.best_loss < 0.002, "{log_report:?}");
    }

    #[test]
    fn training_is_deterministic_per_seed() {
        let (a, ra) = fit(3, Loss::LogMse);
        let (b, rb) = fit(3, Loss::LogMse);
        assert_eq!(a, b);
        assert_eq!((ra.epochs, ra.best_loss), (rb.epochs, rb.best_loss));
        let (c, _) = fit(4, Loss::LogMse);
        assert_ne!(a, c);
    }

    #[test]
    fn patience_stops_early_and_keeps_the_best() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut net = Mlp::new(3, &[8], &[], &mut rng).unwrap();
        // A learning rate so large that training diverges after a few steps.
        let settings = TrainSettings {
            patience: 3,
            max_epochs: 1000,
            adam: AdamSettings { learning_rate: 5.0, ..Default::default() },
            ..Default::default()
        };
        let d = data(100, 3);
        let r = train(&mut net, &d, Loss::Mse, &settings, &mut rng).unwrap();
        assert!(r.epochs < 1000 && r.epochs <= r.best_epoch + 3, "{r:?}");
        let mut ws = Workspace::default();
        let rows: Vec<usize> = (0..100).collect();
        // The kept network is the best one seen (epoch 0 is the initial network).
        assert!(evaluate(&net, &d, &rows, Loss::Mse, &mut ws).is_finite());
        assert!(TrainSettings { batch_size: 0, ..Default::default() }.check().is_err());
    }
}
