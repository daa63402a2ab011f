//! Aggregates for `GET /metrics` and the queue benchmark, computed in
//! PostgreSQL so that a scrape reads a few rows, not one per job.

use std::fmt::Write as _;

use sqlx::postgres::PgPool;

use crate::{DbError, JobStatus};

/// (kind, status, count) over every job of the farm.
pub async fn job_counts(pool: &PgPool) -> Result<Vec<(String, JobStatus, i64)>, DbError> {
    Ok(sqlx::query_as("SELECT kind, status, count(*) FROM jobs GROUP BY 1, 2 ORDER BY 1, 2").fetch_all(pool).await?)
}

/// Run times of a kind's succeeded jobs (their last attempt), as a histogram.
#[derive(Debug, Clone)]
pub struct Durations {
    pub kind: String,
    pub count: i64,
    pub sum_s: f64,
    /// Jobs at or under each bucket's upper bound, in the order of the bounds.
    pub cumulative: Vec<i64>,
}

/// Per kind, the duration histogram over `buckets` (upper bounds in seconds).
pub async fn durations(pool: &PgPool, buckets: &[f64]) -> Result<Vec<Durations>, DbError> {
    let mut filters = String::new();
    for (i, le) in buckets.iter().enumerate() {
        // Bounds are numbers we format ourselves, never text from outside.
        let _ = write!(filters, "{}count(*) FILTER (WHERE d <= {le:?})", if i > 0 { ", " } else { "" });
    }
    let rows: Vec<(String, i64, f64, Vec<i64>)> = sqlx::query_as(&format!(
        "SELECT kind, count(*), coalesce(sum(d), 0), ARRAY[{filters}]::bigint[]
         FROM (SELECT kind, extract(epoch FROM finished_at - started_at)::float8 AS d FROM jobs
               WHERE status = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL) j
         GROUP BY kind ORDER BY kind"
    ))
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map(|(kind, count, sum_s, cumulative)| Durations { kind, count, sum_s, cumulative }).collect())
}

/// Median and 99th percentile, in milliseconds, of the time from a job's
/// announcement to its start, over every job of the database.
pub async fn enqueue_to_start_ms(pool: &PgPool) -> Result<(f64, f64), DbError> {
    Ok(sqlx::query_as(
        "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms), percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)
         FROM (SELECT extract(epoch FROM started_at - queued_at) * 1000 AS ms FROM jobs) t",
    )
    .fetch_one(pool)
    .await?)
}
