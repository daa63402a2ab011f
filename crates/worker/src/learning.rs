//! Train, evaluate and learned-heuristic plan jobs: read labelled states and
//! checkpoints from PostgreSQL, run the learner on a blocking thread, write
//! curves and checkpoints as training goes and the results at the end.

use jobs::grid::{Bound, Distribution, Model, Residual, Sigma};
use learner::train::{Checkpoint, CurvePoint, Observer, Trainer};
use learner::{Axes, Classical, Dataset, Family, LabelledInstance, ModelConfig, ModelKind, Sample, SigmaMode};
use sqlx::PgPool;

use crate::execute::{failed, JobError};

pub fn classical(b: Bound) -> Classical {
    match b {
        Bound::Lmcut => Classical::Lmcut,
        Bound::Hmax => Classical::Hmax,
        Bound::Blind => Classical::Blind,
    }
}

/// The learner's axes for a train job's parameters.
pub fn axes(model: Model, distribution: Distribution, sigma: Sigma, bound: Option<Bound>, residual: Residual) -> Axes {
    Axes {
        model: match model {
            Model::Linear => ModelKind::Linear,
            Model::Nlm => ModelKind::Nlm,
            Model::Hgn => ModelKind::Hgn,
        },
        family: match distribution {
            Distribution::Gaussian => Family::Gaussian,
            Distribution::Truncated => Family::Truncated,
        },
        sigma: match sigma {
            Sigma::Learn => SigmaMode::Learn,
            Sigma::Fixed => SigmaMode::Fixed,
        },
        lower: bound.map(classical),
        residual: match residual {
            Residual::None => None,
            Residual::Ff => Some(Classical::Ff),
            Residual::Lmcut => Some(Classical::Lmcut),
        },
    }
}

type LabelRow = (
    String,
    serde_json::Value,
    i32,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
    Option<f64>,
);

/// The labelled instances of `label_jobs`, by split: (domain PDDL, split -> instances).
/// Two queries whatever the number of jobs: the instances, then every state.
pub async fn load_labels(
    pool: &PgPool,
    label_jobs: &[String],
) -> Result<(String, std::collections::BTreeMap<String, Vec<LabelledInstance>>), JobError> {
    let instances: Vec<(String, String, String, String, String)> = sqlx::query_as(
        "SELECT l.job, i.job, i.split, i.domain_pddl, i.problem_pddl
         FROM (SELECT DISTINCT job, instance FROM labelled_states WHERE job = ANY($1)) l
         JOIN instances i ON i.job = l.instance ORDER BY l.job",
    )
    .bind(label_jobs)
    .fetch_all(pool)
    .await?;
    let rows: Vec<LabelRow> = sqlx::query_as(
        "SELECT job, atoms, h_star, lmcut, hmax, blind, ff, goalcount, deletes_ignored, mean_deletes_ignored
         FROM labelled_states WHERE job = ANY($1) ORDER BY job, step",
    )
    .bind(label_jobs)
    .fetch_all(pool)
    .await?;
    let mut samples: std::collections::HashMap<String, Vec<Sample>> = Default::default();
    for (job, atoms, h_star, lmcut, hmax, blind, ff, goalcount, di, mdi) in rows {
        let atoms: Vec<String> =
            serde_json::from_value(atoms).map_err(|e| failed(format!("labels of {job}: atoms: {e}")))?;
        samples.entry(job).or_default().push(Sample {
            atoms,
            h_star: h_star as f64,
            lmcut,
            hmax,
            blind,
            ff,
            goalcount,
            deletes_ignored: di,
            mean_deletes_ignored: mdi,
        });
    }
    let mut domain_pddl = String::new();
    let mut by_split: std::collections::BTreeMap<String, Vec<LabelledInstance>> = Default::default();
    for (label_job, instance, split, d, p) in instances {
        let samples = samples.remove(&label_job).unwrap_or_default();
        domain_pddl = d;
        by_split.entry(split).or_default().push(LabelledInstance { name: instance, problem_pddl: p, samples });
    }
    Ok((domain_pddl, by_split))
}

/// A train job's stored model: its config and `tag` weights.
pub async fn checkpoint(pool: &PgPool, job: &str, tag: &str) -> Result<Option<(ModelConfig, Vec<u8>)>, JobError> {
    let row: Option<(serde_json::Value, Vec<u8>)> =
        sqlx::query_as("SELECT config, weights FROM checkpoints WHERE job = $1 AND tag = $2")
            .bind(job)
            .bind(tag)
            .fetch_optional(pool)
            .await?;
    match row {
        None => Ok(None),
        Some((c, w)) => {
            let config = serde_json::from_value(c).map_err(|e| failed(format!("model config of {job}: {e}")))?;
            Ok(Some((config, w)))
        }
    }
}

/// Writes curves and checkpoints as they come, while the job is still ours.
struct DbObserver {
    pool: PgPool,
    rt: tokio::runtime::Handle,
    job: String,
    worker: String,
    config: serde_json::Value,
}

impl DbObserver {
    fn run<T>(&self, f: impl std::future::Future<Output = Result<T, sqlx::Error>>) -> Result<T, String> {
        self.rt.block_on(f).map_err(|e| format!("database: {e}"))
    }
}

impl Observer for DbObserver {
    fn on_validation(&mut self, p: &CurvePoint) -> Result<(), String> {
        self.run(
            sqlx::query(
                "INSERT INTO training_curves (job, step, train_nll, val_mse, val_nll, seconds)
                 VALUES ($1, $2, $3, $4, $5, $6)
                 ON CONFLICT (job, step) DO UPDATE SET train_nll = $3, val_mse = $4, val_nll = $5, seconds = $6",
            )
            .bind(&self.job)
            .bind(p.step as i64)
            .bind(p.train_nll)
            .bind(p.val_mse)
            .bind(p.val_nll)
            .bind(p.seconds)
            .execute(&self.pool),
        )?;
        Ok(())
    }

    fn on_checkpoint(&mut self, c: &Checkpoint) -> Result<(), String> {
        // Only the job's current holder writes: a worker that lost its lease
        // stops here instead of racing the new attempt.
        let n = self.run(
            sqlx::query(
                "INSERT INTO checkpoints (job, tag, step, config, weights)
                 SELECT $1, $2, $3, $4, $5 FROM jobs WHERE key = $1 AND worker = $6 AND status = 'running'
                 ON CONFLICT (job, tag) DO UPDATE
                   SET step = EXCLUDED.step, config = EXCLUDED.config, weights = EXCLUDED.weights, written_at = now()",
            )
            .bind(&self.job)
            .bind(c.tag.as_str())
            .bind(c.step as i64)
            .bind(&self.config)
            .bind(&c.bytes)
            .bind(&self.worker)
            .execute(&self.pool),
        )?;
        if n.rows_affected() == 0 {
            return Err("the job is no longer ours (lease lost or cancelled)".into());
        }
        Ok(())
    }
}

/// What a finished training run reports.
pub struct Trained {
    pub config: ModelConfig,
    pub device: String,
    pub train_instances: usize,
    pub train_samples: usize,
    pub validation_samples: usize,
    pub seconds: f64,
    pub resumed_from: u64,
}

/// Runs a train job to its end, resuming from its `last` checkpoint if an
/// earlier attempt left one.
pub async fn train(
    pool: &PgPool,
    job: &str,
    worker: &str,
    axes: Axes,
    config: learner::TrainConfig,
    inputs: &[String],
) -> Result<Trained, JobError> {
    let (domain_pddl, mut splits) = load_labels(pool, inputs).await?;
    let train = Dataset { domain_pddl: domain_pddl.clone(), instances: splits.remove("train").unwrap_or_default() };
    let validation = Dataset { domain_pddl, instances: splits.remove("validation").unwrap_or_default() };
    let last = checkpoint(pool, job, "last").await?;
    let (pool, job, worker) = (pool.clone(), job.to_string(), worker.to_string());
    let rt = tokio::runtime::Handle::current();
    tokio::task::spawn_blocking(move || -> Result<Trained, String> {
        let start = std::time::Instant::now();
        let device = learner::device().map_err(|e| e.to_string())?;
        eprintln!("worker {worker}: training {job} ({:?}) on {device:?}", axes.model);
        let mut trainer = Trainer::new(axes, config, &train, &validation, device).map_err(|e| e.to_string())?;
        if let Some((_, bytes)) = &last {
            trainer.resume(bytes).map_err(|e| format!("resuming from the last checkpoint: {e}"))?;
        }
        let resumed_from = trainer.step;
        let config_json = serde_json::to_value(trainer.model_config()).map_err(|e| e.to_string())?;
        let mut observer = DbObserver { pool, rt, job, worker, config: config_json };
        trainer.run(&mut observer).map_err(|e| e.to_string())?;
        Ok(Trained {
            config: trainer.model_config().clone(),
            device: format!("{device:?}"),
            train_instances: trainer.train_instances,
            train_samples: trainer.train_samples,
            validation_samples: trainer.validation_samples,
            seconds: start.elapsed().as_secs_f64(),
            resumed_from,
        })
    })
    .await
    .map_err(|e| failed(format!("training panicked: {e}")))?
    .map_err(JobError::Failed)
}

/// Test metrics of a train job's best-validation-MSE model.
pub async fn evaluate(
    pool: &PgPool,
    model_job: &str,
    bound: Bound,
    test_labels: &[String],
) -> Result<learner::evaluate::Metrics, JobError> {
    let (config, weights) =
        checkpoint(pool, model_job, "best_mse").await?.ok_or_else(|| failed(format!("{model_job} has no model")))?;
    let (domain_pddl, mut splits) = load_labels(pool, test_labels).await?;
    let test = splits.remove("test").unwrap_or_default();
    tokio::task::spawn_blocking(move || -> Result<_, String> {
        let device = learner::device().map_err(|e| e.to_string())?;
        let mut p = learner::Predictor::load(config, &weights, device).map_err(|e| e.to_string())?;
        learner::evaluate::evaluate(&mut p, &domain_pddl, &test, Some(classical(bound))).map_err(|e| e.to_string())
    })
    .await
    .map_err(|e| failed(format!("evaluation panicked: {e}")))?
    .map_err(JobError::Failed)
}
