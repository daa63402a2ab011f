//! Workers announce themselves while they run; the status API and
//! `/metrics` list them.

use sqlx::postgres::PgPool;

use crate::DbError;

/// Records that worker `id` is alive (called every few seconds), and what it
/// runs on (`machine`: a description the worker makes, kept as given).
pub async fn seen(
    pool: &PgPool,
    id: &str,
    class: &str,
    concurrency: i32,
    machine: &serde_json::Value,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO workers (id, class, concurrency, machine) VALUES ($1, $2, $3, $4)
         ON CONFLICT (id) DO UPDATE SET last_seen = now(), stopped_at = NULL, machine = EXCLUDED.machine",
    )
    .bind(id)
    .bind(class)
    .bind(concurrency)
    .bind(machine)
    .execute(pool)
    .await?;
    Ok(())
}

/// Records a clean stop.
pub async fn stopped(pool: &PgPool, id: &str) -> Result<(), DbError> {
    sqlx::query("UPDATE workers SET stopped_at = now(), last_seen = now() WHERE id = $1")
        .bind(id)
        .execute(pool)
        .await?;
    Ok(())
}

/// A worker as the status API lists it.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Worker {
    pub id: String,
    pub class: String,
    pub concurrency: i32,
    pub last_seen_s_ago: f64,
    /// Not stopped, and seen within `live_after_s`.
    pub alive: bool,
}

/// Every worker ever seen, most recently seen first.
pub async fn list(pool: &PgPool, live_after_s: f64) -> Result<Vec<Worker>, DbError> {
    Ok(sqlx::query_as(
        "SELECT id, class, concurrency, extract(epoch FROM now() - last_seen)::float8 AS last_seen_s_ago,
                stopped_at IS NULL AND last_seen > now() - make_interval(secs => $1) AS alive
         FROM workers ORDER BY last_seen DESC",
    )
    .bind(live_after_s)
    .fetch_all(pool)
    .await?)
}

/// (worker slot, job key) of every running job.
pub async fn running_jobs(pool: &PgPool) -> Result<Vec<(String, String)>, DbError> {
    Ok(sqlx::query_as("SELECT worker, key FROM jobs WHERE status = 'running' AND worker IS NOT NULL")
        .fetch_all(pool)
        .await?)
}

/// Live workers of one resource class, and their job slots.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct LiveClass {
    pub class: String,
    pub workers: i64,
    pub slots: i64,
}

/// Per class, the workers seen within `live_after_s` that have not stopped.
pub async fn live_by_class(pool: &PgPool, live_after_s: f64) -> Result<Vec<LiveClass>, DbError> {
    Ok(sqlx::query_as(
        "SELECT class, count(*) AS workers, coalesce(sum(concurrency), 0)::bigint AS slots FROM workers
         WHERE stopped_at IS NULL AND last_seen > now() - make_interval(secs => $1)
         GROUP BY class ORDER BY class",
    )
    .bind(live_after_s)
    .fetch_all(pool)
    .await?)
}
