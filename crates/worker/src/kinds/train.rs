//! `train`: one model (configuration x seed), or a group of them trained as
//! one stacked network (`learner::train`, claimed together by a GPU worker:
//! `run_group`). Curves and checkpoints are written per job while it trains
//! (a new attempt resumes from its `last` checkpoint, alone); each job's
//! model row is written with its own completion.

use jobs::JobSpec;
use learner::train::{Checkpoint, CheckpointTag, CurvePoint, Observer, Trainer};
use learner::{Axes, Dataset};
use schema::lifecycle::Claimed;
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
    let member = Member { job: ctx.job.clone(), domain, axes, seed, steps, train_instances };
    let mut results = train(ctx.pool, ctx.worker, vec![member]).await?;
    results.pop().ok_or_else(|| failed("a training without its result"))?
}

/// Train jobs claimed together (`schema::lifecycle::claim_companions`),
/// trained as one stacked group; each keeps its own curves, checkpoints,
/// model row and completion. One result per job, in order.
pub async fn run_group(pool: &PgPool, worker: &str, jobs: &[Claimed]) -> Vec<Result<bool, JobError>> {
    let members: Result<Vec<Member>, JobError> = jobs.iter().map(Member::of).collect();
    let outcome = match members {
        Ok(members) => train(pool, worker, members).await,
        Err(e) => Err(e),
    };
    match outcome {
        Ok(results) => results,
        // Shared failures (loading the data) fail every member alike.
        Err(e) => jobs.iter().map(|_| Err(failed(e.to_string()))).collect(),
    }
}

/// One train job as the group sees it.
struct Member {
    job: Claimed,
    domain: String,
    axes: Axes,
    seed: u64,
    steps: u64,
    train_instances: u32,
}

impl Member {
    fn of(job: &Claimed) -> Result<Member, JobError> {
        match serde_json::from_value(job.spec.clone()).map_err(|e| failed(format!("bad job spec: {e}")))? {
            JobSpec::Train { domain, model, distribution, sigma, bound, residual, seed, steps, train_instances } => {
                let axes = learned::axes(model, distribution, sigma, bound, residual)?;
                Ok(Member { job: job.clone(), domain, axes, seed, steps, train_instances })
            }
            _ => Err(failed("not a train job")),
        }
    }

    fn config(&self) -> learner::TrainConfig {
        let mut config = learner::TrainConfig::paper(self.axes.model, self.seed, self.steps);
        config.train_instances = self.train_instances as usize;
        config
    }
}

/// Loads the members' data (shared: same inputs), trains them as one group
/// on a blocking thread, then stores each member's model and completes it.
async fn train(pool: &PgPool, worker: &str, members: Vec<Member>) -> Result<Vec<Result<bool, JobError>>, JobError> {
    let first = members.first().ok_or_else(|| failed("a group without members"))?;
    let mut splits = learned::datasets(pool, &first.job.inputs).await?;
    let train = splits.remove("train").ok_or_else(|| failed("no labelled training instances"))?;
    let validation = splits
        .remove("validation")
        .unwrap_or_else(|| Dataset { domain_pddl: train.domain_pddl.clone(), instances: vec![] });
    // Only a job alone can have a checkpoint (companions are claimed fresh).
    let last = match members.as_slice() {
        [m] => schema::training::checkpoint(pool, &m.job.key, Tag::Last).await?,
        _ => None,
    };
    let spec: Vec<(Axes, learner::TrainConfig)> = members.iter().map(|m| (m.axes, m.config())).collect();
    let observers: Vec<DbObserver> = members
        .iter()
        .map(|m| DbObserver {
            pool: pool.clone(),
            rt: tokio::runtime::Handle::current(),
            job: m.job.key.clone(),
            worker: worker.to_string(),
            config: serde_json::Value::Null,
        })
        .collect();
    let trained = tokio::task::spawn_blocking(move || train_blocking(spec, train, validation, last, observers))
        .await
        .map_err(|e| failed(format!("training panicked: {e}")))?
        .map_err(JobError::Failed)?;
    let mut results = vec![];
    for (m, t) in members.iter().zip(trained) {
        results.push(match t {
            Ok(t) => store(pool, worker, m, t).await,
            Err(e) => Err(JobError::Failed(e)),
        });
    }
    Ok(results)
}

/// Writes a trained member's model row with its completion.
async fn store(pool: &PgPool, worker: &str, m: &Member, t: Trained) -> Result<bool, JobError> {
    let (best_val_mse, best_val_nll) = training::best_losses(pool, &m.job.key).await?;
    let row = schema::results::Model {
        domain: m.domain.clone(),
        config: t.config,
        device: t.device,
        steps: m.steps,
        train_instances: t.train_instances as u32,
        train_samples: t.train_samples as u32,
        validation_samples: t.validation_samples as u32,
        best_val_mse,
        best_val_nll,
        train_seconds: t.seconds,
        resumed_from: t.resumed_from,
    };
    let mut tx = schema::lifecycle::begin(pool).await?;
    schema::results::insert_model(&mut tx, &m.job.key, &row).await?;
    Ok(schema::lifecycle::complete(tx, &m.job.key, worker).await?)
}

struct Trained {
    config: serde_json::Value,
    device: String,
    train_instances: usize,
    train_samples: usize,
    validation_samples: usize,
    seconds: f64,
    resumed_from: u64,
}

/// Trains the group; one outcome per member.
fn train_blocking(
    members: Vec<(Axes, learner::TrainConfig)>,
    train: Dataset,
    validation: Dataset,
    last: Option<training::Checkpoint>,
    mut observers: Vec<DbObserver>,
) -> Result<Vec<Result<Trained, String>>, String> {
    let start = std::time::Instant::now();
    let device = learner::device().map_err(|e| e.to_string())?;
    let who: Vec<&str> = observers.iter().map(|o| o.job.as_str()).collect();
    tracing::info!(
        "worker {}: training {} ({:?}) on {device:?}",
        observers[0].worker,
        who.join(", "),
        members[0].0.model
    );
    let mut trainer = Trainer::group(members, &train, &validation, device).map_err(|e| e.to_string())?;
    if let Some(c) = &last {
        trainer.resume(&c.weights).map_err(|e| format!("resuming from the last checkpoint: {e}"))?;
    }
    let resumed_from = trainer.step;
    for (r, o) in observers.iter_mut().enumerate() {
        o.config = serde_json::to_value(trainer.model_config_of(r)).map_err(|e| e.to_string())?;
    }
    let mut dyns: Vec<&mut dyn Observer> = observers.iter_mut().map(|o| o as &mut dyn Observer).collect();
    let outcomes = trainer.run_group(&mut dyns);
    let seconds = start.elapsed().as_secs_f64();
    Ok(outcomes
        .into_iter()
        .enumerate()
        .map(|(r, outcome)| {
            outcome.map_err(|e| e.to_string())?;
            let sizes = trainer.sizes(r);
            Ok(Trained {
                config: observers[r].config.clone(),
                device: format!("{device:?}"),
                train_instances: sizes.train_instances,
                train_samples: sizes.train_samples,
                validation_samples: sizes.validation_samples,
                seconds,
                resumed_from,
            })
        })
        .collect())
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
