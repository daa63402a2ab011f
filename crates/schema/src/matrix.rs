//! The dashboard's view of an experiment: every training cell of the grid
//! with what depends on it, and the instance pipeline's counts.

use jobs::JobKind;
use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::{DbError, JobStatus};

/// A training cell (configuration x seed) with its state and the progress
/// of the jobs that read its model (evaluation, planning).
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Cell {
    pub key: String,
    pub domain: Option<String>,
    pub model: Option<String>,
    pub distribution: Option<String>,
    pub sigma: Option<String>,
    pub residual: Option<String>,
    pub bound: Option<String>,
    pub seed: Option<i64>,
    pub status: JobStatus,
    pub error: Option<String>,
    pub worker: Option<String>,
    pub dependents_done: i64,
    pub dependents_failed: i64,
    pub dependents: i64,
    /// The last step with a validation point.
    pub step: Option<i64>,
}

/// Every train job of the experiment.
pub async fn cells(pool: &PgPool, experiment: Uuid) -> Result<Vec<Cell>, DbError> {
    Ok(sqlx::query_as(
        "SELECT t.key, t.domain, t.model, t.distribution, t.sigma, t.residual, t.bound, t.seed, t.status,
                t.last_error AS error, t.worker,
                count(d.key) FILTER (WHERE d.status = 'succeeded') AS dependents_done,
                count(d.key) FILTER (WHERE d.status IN ('dead', 'failed')) AS dependents_failed,
                count(d.key) AS dependents,
                (SELECT max(step) FROM training_curves c WHERE c.job = t.key) AS step
         FROM jobs t
         JOIN experiment_jobs ej ON ej.job = t.key AND ej.experiment = $1
         LEFT JOIN job_inputs ji ON ji.input = t.key AND ji.position = 0
         LEFT JOIN jobs d ON d.key = ji.job
         WHERE t.kind = $2
         GROUP BY t.key
         ORDER BY t.domain, t.model, t.distribution, t.sigma, t.residual, t.bound NULLS FIRST, t.seed",
    )
    .bind(experiment)
    .bind(JobKind::Train.as_str())
    .fetch_all(pool)
    .await?)
}

/// Jobs of one kind, domain and split in one state.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct PipelineCount {
    pub domain: Option<String>,
    pub kind: String,
    pub split: Option<String>,
    pub status: JobStatus,
    pub count: i64,
}

/// Counts of the experiment's jobs of `kinds`, by domain, kind, split and state.
pub async fn pipeline(pool: &PgPool, experiment: Uuid, kinds: &[JobKind]) -> Result<Vec<PipelineCount>, DbError> {
    let kinds: Vec<&str> = kinds.iter().map(|k| k.as_str()).collect();
    Ok(sqlx::query_as(
        "SELECT j.domain, j.kind, j.split, j.status, count(*) AS count
         FROM jobs j JOIN experiment_jobs ej ON ej.job = j.key AND ej.experiment = $1
         WHERE j.kind = ANY($2)
         GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
    )
    .bind(experiment)
    .bind(&kinds)
    .fetch_all(pool)
    .await?)
}
