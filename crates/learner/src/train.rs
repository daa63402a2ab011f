//! Training: AdamW on the negative log-likelihood of h* (appendix C), with
//! periodic validation, best-validation-MSE / best-validation-NLL / last
//! checkpoints, and resumption from the last one.
//!
//! Determinism: the network is initialised from `tch::manual_seed(seed)` and
//! the batch of step k is drawn from a ChaCha stream keyed by (seed, k), so
//! a run and a resumed run see the same batches; on CPU the same seed gives
//! the same curve.

use std::time::Instant;

use planner::pddl::Domain;
use rand::Rng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use tch::{Device, Tensor};

use crate::config::{ModelConfig, TrainConfig};
use crate::data::Dataset;
use crate::optim::AdamW;
use crate::predictor::{load_tensors, save_tensors, Predictor};
use crate::prepare::{draw_instances, ground_all, model_config, parse_domain, Axes, Prepared};
use crate::LearnError;

/// One validation point of the training curve.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CurvePoint {
    /// Weight updates made so far.
    pub step: u64,
    /// Mean training NLL since the previous point.
    pub train_nll: f64,
    pub val_mse: f64,
    pub val_nll: f64,
    /// Seconds of training so far in this attempt.
    pub seconds: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckpointTag {
    /// Weights with the best validation MSE so far (what plan jobs use).
    BestMse,
    BestNll,
    /// Weights, optimiser state and progress: what a resumed run starts from.
    Last,
}

impl CheckpointTag {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckpointTag::BestMse => "best_mse",
            CheckpointTag::BestNll => "best_nll",
            CheckpointTag::Last => "last",
        }
    }
}

pub struct Checkpoint {
    pub tag: CheckpointTag,
    pub step: u64,
    pub bytes: Vec<u8>,
}

/// Where training reports progress (the farm writes these to PostgreSQL as
/// they come, so a dashboard sees live curves and a dead worker's successor
/// resumes). An error stops training.
pub trait Observer {
    fn on_validation(&mut self, point: &CurvePoint) -> Result<(), String>;
    fn on_checkpoint(&mut self, checkpoint: &Checkpoint) -> Result<(), String>;
}

/// An observer that keeps everything in memory.
#[derive(Default)]
pub struct Recorder {
    pub curve: Vec<CurvePoint>,
    pub checkpoints: Vec<Checkpoint>,
}

impl Observer for Recorder {
    fn on_validation(&mut self, point: &CurvePoint) -> Result<(), String> {
        self.curve.push(point.clone());
        Ok(())
    }
    fn on_checkpoint(&mut self, c: &Checkpoint) -> Result<(), String> {
        self.checkpoints.retain(|x| x.tag != c.tag);
        self.checkpoints.push(Checkpoint { tag: c.tag, step: c.step, bytes: c.bytes.clone() });
        Ok(())
    }
}

pub struct Trainer {
    pub config: TrainConfig,
    pub predictor: Predictor,
    domain: Domain,
    opt: AdamW,
    train: Prepared,
    validation: Prepared,
    pub step: u64,
    best_mse: f64,
    best_nll: f64,
    /// Training instances and samples actually used.
    pub train_instances: usize,
    pub train_samples: usize,
    pub validation_samples: usize,
}

impl Trainer {
    /// Prepares a run: draws the training instances, grounds and encodes
    /// them, initialises the network from the seed.
    pub fn new(
        axes: Axes,
        config: TrainConfig,
        train: &Dataset,
        validation: &Dataset,
        device: Device,
    ) -> Result<Trainer, LearnError> {
        let domain = parse_domain(&train.domain_pddl)?;
        let drawn = draw_instances(&train.instances, config.train_instances, config.seed);
        if drawn.is_empty() {
            return Err(LearnError::Input("no training instances".into()));
        }
        let val: Vec<_> = validation.instances.iter().collect();
        let train_g = ground_all(&domain, &drawn)?;
        let val_g = ground_all(&domain, &val)?;
        let tasks: Vec<&planner::Task> = train_g.iter().map(|(_, t)| t).collect();
        let model = model_config(axes, &domain, &tasks)?;
        let train_p = Prepared::new(&model, &domain, &drawn, train_g)?;
        let val_p = Prepared::new(&model, &domain, &val, val_g)?;
        if train_p.items.is_empty() {
            return Err(LearnError::Input("the training instances have no labelled states".into()));
        }
        tch::manual_seed(config.seed as i64);
        let predictor = Predictor::new(model, device);
        let opt = AdamW::new(predictor.named_variables(), config.learning_rate, config.weight_decay);
        Ok(Trainer {
            train_instances: drawn.len(),
            train_samples: train_p.items.len(),
            validation_samples: val_p.items.len(),
            config,
            predictor,
            domain,
            opt,
            train: train_p,
            validation: val_p,
            step: 0,
            best_mse: f64::INFINITY,
            best_nll: f64::INFINITY,
        })
    }

    pub fn model_config(&self) -> &ModelConfig {
        &self.predictor.config
    }

    /// Continues from a "last" checkpoint.
    pub fn resume(&mut self, last: &[u8]) -> Result<(), LearnError> {
        let loaded = load_tensors(last, self.predictor.device())?;
        self.predictor.copy_in(&loaded, "model.")?;
        let scalar = |name: &str| -> Result<f64, LearnError> {
            loaded
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.double_value(&[0]))
                .ok_or_else(|| LearnError::Input(format!("checkpoint lacks {name}")))
        };
        self.step = scalar("state.step")? as u64;
        self.best_mse = scalar("state.best_mse")?;
        self.best_nll = scalar("state.best_nll")?;
        self.opt.load_state(&loaded, self.step).map_err(LearnError::Input)?;
        Ok(())
    }

    fn last_checkpoint(&self) -> Result<Vec<u8>, LearnError> {
        let mut named: Vec<(String, Tensor)> =
            self.predictor.named_variables().into_iter().map(|(n, t)| (format!("model.{n}"), t)).collect();
        named.extend(self.opt.state());
        for (n, v) in
            [("state.step", self.step as f64), ("state.best_mse", self.best_mse), ("state.best_nll", self.best_nll)]
        {
            named.push((n.to_string(), Tensor::from_slice(&[v])));
        }
        save_tensors(&named)
    }

    /// Indices of step `step`'s batch: uniform over the training samples.
    fn batch_indices(&self, step: u64) -> Vec<usize> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(self.config.seed);
        rng.set_stream(step);
        let n = self.train.items.len();
        (0..self.config.batch_size).map(|_| rng.gen_range(0..n)).collect()
    }

    /// Trains up to `config.steps`, reporting to `observer`.
    pub fn run(&mut self, observer: &mut dyn Observer) -> Result<(), LearnError> {
        let start = Instant::now();
        let device = self.predictor.device();
        // Training losses accumulate on the device: reading one back each
        // step would make the host wait for the GPU every step.
        let mut loss_sum = Tensor::zeros([], (tch::Kind::Double, device));
        let mut loss_n = 0u64;
        while self.step < self.config.steps {
            let idx = self.batch_indices(self.step);
            let (batch, side, target) = self.train.batch(&self.predictor.config, &self.domain, &idx, device);
            let dist = self.predictor.distribution(&batch, &side)?;
            let loss = -dist.log_prob(&target).mean(tch::Kind::Double);
            self.opt.zero_grad();
            loss.backward();
            self.opt.step(self.config.grad_clip);
            self.step += 1;
            loss_sum += loss.detach();
            loss_n += 1;
            if self.step.is_multiple_of(self.config.validate_every) || self.step == self.config.steps {
                let train_nll = loss_sum.double_value(&[]) / loss_n as f64;
                if !train_nll.is_finite() {
                    return Err(LearnError::Diverged { step: self.step, loss: train_nll });
                }
                let (val_mse, val_nll) = self.validate()?;
                let point =
                    CurvePoint { step: self.step, train_nll, val_mse, val_nll, seconds: start.elapsed().as_secs_f64() };
                loss_sum = Tensor::zeros([], (tch::Kind::Double, device));
                loss_n = 0;
                observer.on_validation(&point).map_err(LearnError::Observer)?;
                if val_mse < self.best_mse {
                    self.best_mse = val_mse;
                    let c =
                        Checkpoint { tag: CheckpointTag::BestMse, step: self.step, bytes: self.predictor.weights()? };
                    observer.on_checkpoint(&c).map_err(LearnError::Observer)?;
                }
                if val_nll < self.best_nll {
                    self.best_nll = val_nll;
                    let c =
                        Checkpoint { tag: CheckpointTag::BestNll, step: self.step, bytes: self.predictor.weights()? };
                    observer.on_checkpoint(&c).map_err(LearnError::Observer)?;
                }
                let c = Checkpoint { tag: CheckpointTag::Last, step: self.step, bytes: self.last_checkpoint()? };
                observer.on_checkpoint(&c).map_err(LearnError::Observer)?;
            }
        }
        Ok(())
    }

    /// Validation MSE (of the point estimate) and NLL over every validation
    /// state (the training states when there is no validation split).
    pub fn validate(&self) -> Result<(f64, f64), LearnError> {
        let data = if self.validation.items.is_empty() { &self.train } else { &self.validation };
        let m = crate::evaluate::metrics_of(&self.predictor, &self.domain, data)?;
        Ok((m.mse, m.nll))
    }
}

/// Trains to the end in memory: the model's config and the recorder.
pub fn train(
    axes: Axes,
    config: TrainConfig,
    train: &Dataset,
    validation: &Dataset,
    device: Device,
) -> Result<(ModelConfig, Recorder), LearnError> {
    let mut t = Trainer::new(axes, config, train, validation, device)?;
    let mut r = Recorder::default();
    t.run(&mut r)?;
    Ok((t.predictor.config.clone(), r))
}
