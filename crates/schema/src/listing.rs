//! The status API's job listing.

use jobs::JobKind;
use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::{DbError, JobStatus};

/// Which jobs to list.
#[derive(Debug, Clone, Default)]
pub struct JobFilter {
    pub experiment: Option<Uuid>,
    pub kind: Option<JobKind>,
    pub status: Option<JobStatus>,
    /// At most this many (clamped to 1..=10,000).
    pub limit: i64,
}

/// One row of the jobs listing.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct JobRow {
    pub key: String,
    pub kind: String,
    pub status: JobStatus,
    pub attempts: i32,
    pub worker: Option<String>,
    pub last_error: Option<String>,
    pub domain: Option<String>,
    pub split: Option<String>,
    pub heuristic: Option<String>,
}

/// Jobs matching `f`, oldest first.
pub async fn jobs(pool: &PgPool, f: &JobFilter) -> Result<Vec<JobRow>, DbError> {
    Ok(sqlx::query_as(
        "SELECT j.key, j.kind, j.status, j.attempts, j.worker, j.last_error, j.domain, j.split, j.heuristic
         FROM jobs j
         WHERE ($1::uuid IS NULL OR EXISTS (SELECT 1 FROM experiment_jobs e WHERE e.job = j.key AND e.experiment = $1))
           AND ($2::text IS NULL OR j.kind = $2)
           AND ($3::job_status IS NULL OR j.status = $3)
         ORDER BY j.created_at, j.key
         LIMIT $4",
    )
    .bind(f.experiment)
    .bind(f.kind.map(JobKind::as_str))
    .bind(f.status)
    .bind(f.limit.clamp(1, 10_000))
    .fetch_all(pool)
    .await?)
}
