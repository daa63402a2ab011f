//! What a train job writes while it runs, not in its finishing transaction:
//! validation points (live curves) and checkpoints (`last` is what a new
//! attempt resumes from after its worker died; `best_mse` is what
//! evaluation and plan jobs load).

use sqlx::postgres::PgPool;

use crate::DbError;

/// One validation point of a training curve.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CurvePoint {
    pub step: u64,
    pub train_nll: f64,
    pub val_mse: f64,
    pub val_nll: f64,
    pub seconds: f64,
}

/// Records a point (a resumed attempt overwrites the steps it repeats).
pub async fn record_curve_point(pool: &PgPool, job: &str, p: &CurvePoint) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO training_curves (job, step, train_nll, val_mse, val_nll, seconds)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (job, step) DO UPDATE SET train_nll = $3, val_mse = $4, val_nll = $5, seconds = $6",
    )
    .bind(job)
    .bind(p.step as i64)
    .bind(p.train_nll)
    .bind(p.val_mse)
    .bind(p.val_nll)
    .bind(p.seconds)
    .execute(pool)
    .await?;
    Ok(())
}

/// The lowest validation MSE and NLL of a job's curve.
pub async fn best_losses(pool: &PgPool, job: &str) -> Result<(Option<f64>, Option<f64>), DbError> {
    let row: Option<(Option<f64>, Option<f64>)> =
        sqlx::query_as("SELECT min(val_mse), min(val_nll) FROM training_curves WHERE job = $1")
            .bind(job)
            .fetch_optional(pool)
            .await?;
    Ok(row.unwrap_or((None, None)))
}

/// Which of a train job's checkpoints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    BestMse,
    BestNll,
    Last,
}

impl Tag {
    pub fn as_str(self) -> &'static str {
        match self {
            Tag::BestMse => "best_mse",
            Tag::BestNll => "best_nll",
            Tag::Last => "last",
        }
    }
}

/// A stored model: its configuration (`learner::ModelConfig` as JSON) and weights.
#[derive(Debug, Clone)]
pub struct Checkpoint {
    pub step: u64,
    pub config: serde_json::Value,
    pub weights: Vec<u8>,
}

/// Writes a checkpoint only while `worker` still holds the job: a worker
/// that lost its lease gets false and stops, instead of racing the new
/// attempt. Takes a pool or a transaction: a job that records progress
/// beside its checkpoint (a learner's iteration row) writes both in one
/// transaction, so a kill between them cannot leave one without the other.
pub async fn write_checkpoint_if_held<'e>(
    db: impl sqlx::PgExecutor<'e>,
    job: &str,
    worker: &str,
    tag: Tag,
    c: &Checkpoint,
) -> Result<bool, DbError> {
    let n = sqlx::query(
        "INSERT INTO checkpoints (job, tag, step, config, weights)
         SELECT $1, $2, $3, $4, $5 FROM jobs WHERE key = $1 AND worker = $6 AND status = 'running'
         ON CONFLICT (job, tag) DO UPDATE
           SET step = EXCLUDED.step, config = EXCLUDED.config, weights = EXCLUDED.weights, written_at = now()",
    )
    .bind(job)
    .bind(tag.as_str())
    .bind(c.step as i64)
    .bind(&c.config)
    .bind(&c.weights)
    .bind(worker)
    .execute(db)
    .await?
    .rows_affected();
    Ok(n == 1)
}

pub async fn checkpoint(pool: &PgPool, job: &str, tag: Tag) -> Result<Option<Checkpoint>, DbError> {
    let row: Option<(i64, serde_json::Value, Vec<u8>)> =
        sqlx::query_as("SELECT step, config, weights FROM checkpoints WHERE job = $1 AND tag = $2")
            .bind(job)
            .bind(tag.as_str())
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|(step, config, weights)| Checkpoint { step: step as u64, config, weights }))
}
