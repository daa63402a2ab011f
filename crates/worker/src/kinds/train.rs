//! `train`: one model (configuration x seed). Curves and checkpoints are
//! written while it trains (a new attempt resumes from the `last`
//! checkpoint); the model row is written with the job's completion.

use learner::train::{Checkpoint, CheckpointTag, CurvePoint, Observer, Trainer};
use learner::{Axes, Dataset};
use schema::training::{self, Tag};
use schema::PgPool;

use crate::job::{failed, Ctx, JobError};
use crate::learned;

pub async fn run(
    ctx: &Ctx<'_>,
    domain: String,
    axes: Axes,
    seed: u64,
    steps: u64,
    train_instances: u32,
) -> Result<bool, JobError> {
    let mut config = learner::TrainConfig::paper(axes.model, seed, steps);
    config.train_instances = train_instances as usize;
    let mut splits = learned::datasets(ctx.pool, &ctx.job.inputs).await?;
    let train = splits.remove("train").ok_or_else(|| failed("no labelled training instances"))?;
    let validation = splits
        .remove("validation")
        .unwrap_or_else(|| Dataset { domain_pddl: train.domain_pddl.clone(), instances: vec![] });
    let last = schema::training::checkpoint(ctx.pool, ctx.key(), Tag::Last).await?;
    let observer = DbObserver {
        pool: ctx.pool.clone(),
        rt: tokio::runtime::Handle::current(),
        job: ctx.key().to_string(),
        worker: ctx.worker.to_string(),
        config: serde_json::Value::Null,
    };
    let t = tokio::task::spawn_blocking(move || train_blocking(axes, config, train, validation, last, observer))
        .await
        .map_err(|e| failed(format!("training panicked: {e}")))?
        .map_err(JobError::Failed)?;
    let (best_val_mse, best_val_nll) = training::best_losses(ctx.pool, ctx.key()).await?;
    let row = schema::results::Model {
        domain,
        config: t.config,
        device: t.device,
        steps,
        train_instances: t.train_instances as u32,
        train_samples: t.train_samples as u32,
        validation_samples: t.validation_samples as u32,
        best_val_mse,
        best_val_nll,
        train_seconds: t.seconds,
        resumed_from: t.resumed_from,
    };
    let mut tx = ctx.begin().await?;
    schema::results::insert_model(&mut tx, ctx.key(), &row).await?;
    ctx.complete(tx).await
}

/// What a finished training run reports.
struct Trained {
    config: serde_json::Value,
    device: String,
    train_instances: usize,
    train_samples: usize,
    validation_samples: usize,
    seconds: f64,
    resumed_from: u64,
}

fn train_blocking(
    axes: Axes,
    config: learner::TrainConfig,
    train: Dataset,
    validation: Dataset,
    last: Option<training::Checkpoint>,
    mut observer: DbObserver,
) -> Result<Trained, String> {
    let start = std::time::Instant::now();
    let device = learner::device().map_err(|e| e.to_string())?;
    eprintln!("worker {}: training {} ({:?}) on {device:?}", observer.worker, observer.job, axes.model);
    let mut trainer = Trainer::new(axes, config, &train, &validation, device).map_err(|e| e.to_string())?;
    if let Some(c) = &last {
        trainer.resume(&c.weights).map_err(|e| format!("resuming from the last checkpoint: {e}"))?;
    }
    let resumed_from = trainer.step;
    observer.config = serde_json::to_value(trainer.model_config()).map_err(|e| e.to_string())?;
    trainer.run(&mut observer).map_err(|e| e.to_string())?;
    Ok(Trained {
        config: observer.config.clone(),
        device: format!("{device:?}"),
        train_instances: trainer.train_instances,
        train_samples: trainer.train_samples,
        validation_samples: trainer.validation_samples,
        seconds: start.elapsed().as_secs_f64(),
        resumed_from,
    })
}

/// Writes curves and checkpoints as they come, while the job is still ours.
struct DbObserver {
    pool: PgPool,
    rt: tokio::runtime::Handle,
    job: String,
    worker: String,
    /// The model's configuration, stored with every checkpoint.
    config: serde_json::Value,
}

impl Observer for DbObserver {
    fn on_validation(&mut self, p: &CurvePoint) -> Result<(), String> {
        let point = training::CurvePoint {
            step: p.step,
            train_nll: p.train_nll,
            val_mse: p.val_mse,
            val_nll: p.val_nll,
            seconds: p.seconds,
        };
        self.rt.block_on(training::record_curve_point(&self.pool, &self.job, &point)).map_err(|e| e.to_string())
    }

    fn on_checkpoint(&mut self, c: &Checkpoint) -> Result<(), String> {
        let tag = match c.tag {
            CheckpointTag::BestMse => Tag::BestMse,
            CheckpointTag::BestNll => Tag::BestNll,
            CheckpointTag::Last => Tag::Last,
        };
        let stored = training::Checkpoint { step: c.step, config: self.config.clone(), weights: c.bytes.clone() };
        let held = self
            .rt
            .block_on(training::write_checkpoint_if_held(&self.pool, &self.job, &self.worker, tag, &stored))
            .map_err(|e| e.to_string())?;
        if !held {
            // A worker that lost its lease stops here instead of racing the new attempt.
            return Err("the job is no longer ours (lease lost or cancelled)".into());
        }
        Ok(())
    }
}
