//! Jobs' own logs, one per attempt that logged something (`worker::joblog`
//! collects them; `hfarm job` and `GET /api/jobs/{key}` read them).

use sqlx::postgres::PgPool;

use crate::DbError;

/// How many of a job's latest attempts [`of_job`] returns.
pub const MAX_ATTEMPTS_SHOWN: i64 = 5;

/// Most characters one attempt's log keeps when handed-back tries append
/// to it (each try's own is bounded by the worker).
pub const MAX_CHARS: i32 = 64 * 1024;

/// The log of one attempt of a job.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct AttemptLog {
    pub attempt: i32,
    /// The worker slot that ran it.
    pub worker: String,
    /// When it was stored (the attempt's end), seconds since the epoch.
    pub at: f64,
    /// Its lines, each ending in a newline.
    pub lines: String,
}

/// Stores `lines` as the log of `key`'s current attempt; a job that no
/// longer exists stores nothing. An attempt handed back (a worker stopping)
/// is not counted, so the next one has its number: its lines are appended,
/// the whole kept to its last [`MAX_CHARS`] characters.
pub async fn keep(pool: &PgPool, key: &str, worker: &str, lines: &str) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO job_logs (job, attempt, worker, lines)
         SELECT key, attempts, $2, $3 FROM jobs WHERE key = $1
         ON CONFLICT (job, attempt) DO UPDATE
             SET worker = excluded.worker, at = now(), lines = right(job_logs.lines || excluded.lines, $4)",
    )
    .bind(key)
    .bind(worker)
    .bind(lines)
    .bind(MAX_CHARS)
    .execute(pool)
    .await?;
    Ok(())
}

/// The logs of `key`'s latest [`MAX_ATTEMPTS_SHOWN`] attempts that logged, oldest first.
pub async fn of_job(pool: &PgPool, key: &str) -> Result<Vec<AttemptLog>, DbError> {
    Ok(sqlx::query_as(
        "SELECT attempt, worker, extract(epoch FROM at)::float8 AS at, lines FROM (
             SELECT * FROM job_logs WHERE job = $1 ORDER BY attempt DESC LIMIT $2) l
         ORDER BY attempt",
    )
    .bind(key)
    .bind(MAX_ATTEMPTS_SHOWN)
    .fetch_all(pool)
    .await?)
}
