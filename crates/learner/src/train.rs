//! Training: AdamW on the negative log-likelihood of h* (appendix C), with
//! periodic validation, best-validation-MSE / best-validation-NLL / last
//! checkpoints, and resumption from the last one.
//!
//! A [`Trainer`] trains a group of runs as one stacked network
//! (`models::stacked`): runs that share a domain, a network shape and the
//! optimiser's settings, each with its own seed, training instances, data
//! stream, loss head (distribution, bound, residual), curve and
//! checkpoints. A run alone is a group of one, through the same code.
//!
//! Determinism: a run's network is initialised from its seed alone and the
//! batch of step k is drawn from a ChaCha stream keyed by (seed, k), so a
//! run and a resumed run see the same batches, and a run's curve does not
//! depend on which runs share its group (beyond floating-point reduction
//! order); on CPU the same seed gives the same curve.

use std::time::Instant;

use planner::pddl::Domain;
use rand::Rng;
use rand::SeedableRng;
use serde::{Deserialize, Serialize};
use tch::{Device, Tensor};

use crate::config::{ModelConfig, TrainConfig};
use crate::data::Dataset;
use crate::models::Network;
use crate::optim::AdamW;
use crate::predictor::{head, load_tensors, outputs, save_tensors, Predictor, Side};
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

/// One run of a group: its settings, data and progress.
struct Run {
    config: TrainConfig,
    model: ModelConfig,
    train: Prepared,
    validation: Prepared,
    best_mse: f64,
    best_nll: f64,
    train_instances: usize,
    /// Why this run stopped early (diverged, its observer refused).
    stopped: Option<LearnError>,
}

/// What a run trained on (for the farm's `models` row).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunSizes {
    pub train_instances: usize,
    pub train_samples: usize,
    pub validation_samples: usize,
}

pub struct Trainer {
    runs: Vec<Run>,
    vs: tch::nn::VarStore,
    net: Network,
    domain: Domain,
    opt: AdamW,
    /// Weight updates made so far, the same for every run of the group.
    pub step: u64,
}

impl Trainer {
    /// Prepares a run alone: a group of one.
    pub fn new(
        axes: Axes,
        config: TrainConfig,
        train: &Dataset,
        validation: &Dataset,
        device: Device,
    ) -> Result<Trainer, LearnError> {
        Trainer::group(vec![(axes, config)], train, validation, device)
    }

    /// Prepares a group of runs on the same data: draws each run's training
    /// instances, grounds and encodes them, initialises each run's network
    /// from its seed. The runs must share the network's shape (model and
    /// sigma mode) and the optimiser's settings; the HGN trains alone.
    pub fn group(
        members: Vec<(Axes, TrainConfig)>,
        train: &Dataset,
        validation: &Dataset,
        device: Device,
    ) -> Result<Trainer, LearnError> {
        let domain = parse_domain(&train.domain_pddl)?;
        let first = members.first().ok_or_else(|| LearnError::Input("a group without runs".into()))?.1.clone();
        let val: Vec<_> = validation.instances.iter().collect();
        let mut runs = vec![];
        for (axes, config) in members {
            let same = TrainConfig { seed: first.seed, train_instances: first.train_instances, ..config.clone() };
            if same != first {
                return Err(LearnError::Input(format!(
                    "runs of a group share steps, batch size and optimiser settings: {config:?} vs {first:?}"
                )));
            }
            let drawn = draw_instances(&train.instances, config.train_instances, config.seed);
            if drawn.is_empty() {
                return Err(LearnError::Input("no training instances".into()));
            }
            let train_g = ground_all(&domain, &drawn)?;
            let val_g = ground_all(&domain, &val)?;
            let tasks: Vec<&planner::Task> = train_g.iter().map(|(_, t)| t).collect();
            let model = model_config(axes, &domain, &tasks)?;
            if let Some(r0) = runs.first() {
                let r0: &Run = r0;
                if model.shape != r0.model.shape || outputs(&model) != outputs(&r0.model) {
                    return Err(LearnError::Input("runs of a group share the network's shape and outputs".into()));
                }
            }
            let train_p = Prepared::new(&model, &domain, &drawn, train_g)?;
            let val_p = Prepared::new(&model, &domain, &val, val_g)?;
            if train_p.items.is_empty() {
                return Err(LearnError::Input("the training instances have no labelled states".into()));
            }
            runs.push(Run {
                train_instances: drawn.len(),
                config,
                model,
                train: train_p,
                validation: val_p,
                best_mse: f64::INFINITY,
                best_nll: f64::INFINITY,
                stopped: None,
            });
        }
        let vs = tch::nn::VarStore::new(device);
        let seeds: Vec<u64> = runs.iter().map(|r| r.config.seed).collect();
        let net = Network::new(&vs.root(), &runs[0].model.shape, outputs(&runs[0].model), &seeds)?;
        let opt = AdamW::new(
            vs.variables().into_iter().collect(),
            runs.len() as i64,
            first.learning_rate,
            first.weight_decay,
        );
        Ok(Trainer { runs, vs, net, domain, opt, step: 0 })
    }

    pub fn runs(&self) -> usize {
        self.runs.len()
    }

    /// Run `r`'s model configuration (stored with its checkpoints).
    pub fn model_config_of(&self, r: usize) -> &ModelConfig {
        &self.runs[r].model
    }

    /// The first run's model configuration (a run alone).
    pub fn model_config(&self) -> &ModelConfig {
        self.model_config_of(0)
    }

    pub fn sizes(&self, r: usize) -> RunSizes {
        let run = &self.runs[r];
        RunSizes {
            train_instances: run.train_instances,
            train_samples: run.train.items.len(),
            validation_samples: run.validation.items.len(),
        }
    }

    /// Run `r`'s current weights as a stand-alone predictor.
    pub fn predictor(&self, r: usize) -> Result<Predictor, LearnError> {
        Predictor::from_tensors(self.runs[r].model.clone(), &self.net.export(r as i64), self.vs.device())
    }

    /// Continues a run alone from its "last" checkpoint.
    pub fn resume(&mut self, last: &[u8]) -> Result<(), LearnError> {
        self.resume_run(0, last)
    }

    /// Continues run `r` from its "last" checkpoint. Every run of a group
    /// must stand at the same step (the worker groups them so).
    pub fn resume_run(&mut self, r: usize, last: &[u8]) -> Result<(), LearnError> {
        let loaded = load_tensors(last, self.vs.device())?;
        self.net.import(r as i64, &loaded, "model.")?;
        let scalar = |name: &str| -> Result<f64, LearnError> {
            loaded
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.double_value(&[0]))
                .ok_or_else(|| LearnError::Input(format!("checkpoint lacks {name}")))
        };
        let step = scalar("state.step")? as u64;
        if r > 0 && step != self.step {
            return Err(LearnError::Input(format!(
                "run {r} resumes at step {step}, its group at {}: runs of a group move in step",
                self.step
            )));
        }
        self.step = step;
        self.runs[r].best_mse = scalar("state.best_mse")?;
        self.runs[r].best_nll = scalar("state.best_nll")?;
        // Moments in the stacked layout (row-major [in, out] per layer);
        // a checkpoint from before stacking keeps its weights and restarts
        // its moments, which only the first updates after resuming notice.
        if loaded.iter().any(|(n, _)| n == "state.stacked") {
            self.opt.load_state(r as i64, &loaded, step).map_err(LearnError::Input)?;
        } else {
            self.opt.t = step;
        }
        Ok(())
    }

    fn last_checkpoint(&self, r: usize) -> Result<Vec<u8>, LearnError> {
        let run = &self.runs[r];
        let mut named: Vec<(String, Tensor)> =
            self.net.export(r as i64).into_iter().map(|(n, t)| (format!("model.{n}"), t)).collect();
        named.extend(self.opt.state(r as i64));
        for (n, v) in [
            ("state.step", self.step as f64),
            ("state.best_mse", run.best_mse),
            ("state.best_nll", run.best_nll),
            ("state.stacked", 1.0),
        ] {
            named.push((n.to_string(), Tensor::from_slice(&[v])));
        }
        save_tensors(&named)
    }

    /// Indices of run `r`'s batch at `step`: uniform over its training samples.
    fn batch_indices(&self, r: usize, step: u64) -> Vec<usize> {
        let run = &self.runs[r];
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(run.config.seed);
        rng.set_stream(step);
        let n = run.train.items.len();
        (0..run.config.batch_size).map(|_| rng.gen_range(0..n)).collect()
    }

    /// Trains a run alone up to `config.steps`, reporting to `observer`.
    pub fn run(&mut self, observer: &mut dyn Observer) -> Result<(), LearnError> {
        self.run_group(&mut [observer]).swap_remove(0)
    }

    /// Trains every run up to the group's `steps`, reporting run r's curve
    /// and checkpoints to `observers[r]`. A run that diverges or whose
    /// observer refuses a report stops (its result says why); the others go on.
    pub fn run_group(&mut self, observers: &mut [&mut dyn Observer]) -> Vec<Result<(), LearnError>> {
        assert_eq!(observers.len(), self.runs.len(), "one observer per run");
        if let Err(e) = self.train_steps(observers) {
            return self.runs.iter().map(|_| Err(LearnError::Internal(e.to_string()))).collect();
        }
        self.runs.iter_mut().map(|r| r.stopped.take().map_or(Ok(()), Err)).collect()
    }

    fn train_steps(&mut self, observers: &mut [&mut dyn Observer]) -> Result<(), LearnError> {
        let start = Instant::now();
        let device = self.vs.device();
        let (steps, every, clip) =
            (self.runs[0].config.steps, self.runs[0].config.validate_every, self.runs[0].config.grad_clip);
        let n = self.runs.len();
        // Training losses accumulate on the device: reading one back each
        // step would make the host wait for the GPU every step.
        let mut loss_sums: Vec<Tensor> = (0..n).map(|_| Tensor::zeros([], (tch::Kind::Double, device))).collect();
        let mut loss_n = 0u64;
        while self.step < steps && self.runs.iter().any(|r| r.stopped.is_none()) {
            let losses = self.losses(self.step, device)?;
            let total = losses.iter().fold(Tensor::zeros([], (tch::Kind::Double, device)), |a, l| a + l);
            self.opt.zero_grad();
            total.backward();
            self.opt.step(clip);
            self.step += 1;
            for (sum, l) in loss_sums.iter_mut().zip(&losses) {
                *sum += l.detach();
            }
            loss_n += 1;
            if self.step.is_multiple_of(every) || self.step == steps {
                for r in 0..n {
                    if self.runs[r].stopped.is_some() {
                        continue;
                    }
                    let train_nll = loss_sums[r].double_value(&[]) / loss_n as f64;
                    let seconds = start.elapsed().as_secs_f64();
                    if let Err(e) = self.report(r, train_nll, seconds, &mut *observers[r]) {
                        self.runs[r].stopped = Some(e);
                    }
                }
                loss_sums = (0..n).map(|_| Tensor::zeros([], (tch::Kind::Double, device))).collect();
                loss_n = 0;
            }
        }
        Ok(())
    }

    /// Each run's mean NLL on its own batch of `step`, from one forward
    /// pass of the stacked network over all the runs' batches.
    fn losses(&self, step: u64, device: Device) -> Result<Vec<Tensor>, LearnError> {
        let b = self.runs[0].config.batch_size as i64;
        let idx: Vec<Vec<usize>> = (0..self.runs.len()).map(|r| self.batch_indices(r, step)).collect();
        let encoder = crate::encode::Encoder { shape: &self.runs[0].model.shape, domain: &self.domain };
        let pairs: Vec<_> = self
            .runs
            .iter()
            .zip(&idx)
            .flat_map(|(run, idx)| {
                idx.iter().map(|&i| (&run.train.instances[run.train.items[i].instance], &run.train.items[i].state))
            })
            .collect();
        let batch = encoder.batch(&pairs, device);
        let out = self.net.forward(&batch)?;
        let mut losses = vec![];
        for (r, run) in self.runs.iter().enumerate() {
            let items = idx[r].iter().map(|&i| &run.train.items[i]);
            let lower: Vec<f64> = items.clone().map(|x| x.lower).collect();
            let residual: Vec<f64> = items.clone().map(|x| x.residual).collect();
            let target: Vec<f64> = items.map(|x| x.target).collect();
            let side = Side::new(&lower, &residual, device);
            let dist = head(&run.model, &out.narrow(0, r as i64 * b, b), &side);
            let target = Tensor::from_slice(&target).to(device);
            losses.push(-dist.log_prob(&target).mean(tch::Kind::Double));
        }
        Ok(losses)
    }

    /// Run `r`'s validation point and checkpoints at the current step.
    fn report(
        &mut self,
        r: usize,
        train_nll: f64,
        seconds: f64,
        observer: &mut dyn Observer,
    ) -> Result<(), LearnError> {
        if !train_nll.is_finite() {
            return Err(LearnError::Diverged { step: self.step, loss: train_nll });
        }
        let predictor = self.predictor(r)?;
        let (val_mse, val_nll) = self.validate_with(r, &predictor)?;
        let point = CurvePoint { step: self.step, train_nll, val_mse, val_nll, seconds };
        observer.on_validation(&point).map_err(LearnError::Observer)?;
        if val_mse < self.runs[r].best_mse {
            self.runs[r].best_mse = val_mse;
            let c = Checkpoint { tag: CheckpointTag::BestMse, step: self.step, bytes: predictor.weights()? };
            observer.on_checkpoint(&c).map_err(LearnError::Observer)?;
        }
        if val_nll < self.runs[r].best_nll {
            self.runs[r].best_nll = val_nll;
            let c = Checkpoint { tag: CheckpointTag::BestNll, step: self.step, bytes: predictor.weights()? };
            observer.on_checkpoint(&c).map_err(LearnError::Observer)?;
        }
        let c = Checkpoint { tag: CheckpointTag::Last, step: self.step, bytes: self.last_checkpoint(r)? };
        observer.on_checkpoint(&c).map_err(LearnError::Observer)
    }

    /// A run alone's validation MSE (of the point estimate) and NLL over
    /// every validation state (the training states when there is no
    /// validation split).
    pub fn validate(&self) -> Result<(f64, f64), LearnError> {
        self.validate_with(0, &self.predictor(0)?)
    }

    fn validate_with(&self, r: usize, predictor: &Predictor) -> Result<(f64, f64), LearnError> {
        let run = &self.runs[r];
        let data = if run.validation.items.is_empty() { &run.train } else { &run.validation };
        let m = crate::evaluate::metrics_of(predictor, &self.domain, data)?;
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
    Ok((t.model_config().clone(), r))
}
