//! A job's life as conditional updates on its row (see ARCHITECTURE.md,
//! "Dispatch design"). Every transition names the state it comes from, so a
//! duplicate delivery, a late worker or a racing scheduler changes nothing.

use sqlx::{PgConnection, PgPool};

use crate::{DbError, JobStatus, Transaction};

/// A job handed to a worker by [`claim`].
#[derive(Debug, Clone)]
pub struct Claimed {
    pub key: String,
    pub spec: serde_json::Value,
    pub attempts: i32,
    /// Input keys in order.
    pub inputs: Vec<String>,
}

/// A job to (re)announce on its Redis queue.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct Ready {
    pub key: String,
    pub resource: String,
}

/// A required input without a result: skipped, or a slot left without an
/// instance (`unfilled_slots`). SQL over `i` (job_inputs) and `d` (the input's job).
const MISSING_REQUIRED: &str =
    "i.required AND (d.status = 'skipped' OR EXISTS (SELECT 1 FROM unfilled_slots u WHERE u.job = d.key))";

/// Skips pending jobs that cannot run: one of their required inputs has no
/// result. Repeats until nothing changes (a skipped job skips its own
/// dependents); returns how many were skipped.
pub async fn skip_unrunnable(pool: &PgPool) -> Result<u64, DbError> {
    let mut total = 0;
    loop {
        let n = sqlx::query(&format!(
            "UPDATE jobs j SET status = 'skipped', finished_at = now(),
                    last_error = 'skipped: input ' || (
                        SELECT d.key || CASE WHEN d.status = 'skipped' THEN ' was skipped' ELSE ' has no instance' END
                        FROM job_inputs i JOIN jobs d ON d.key = i.input
                        WHERE i.job = j.key AND {MISSING_REQUIRED} ORDER BY i.position LIMIT 1)
             WHERE j.status = 'pending'
               AND EXISTS (SELECT 1 FROM job_inputs i JOIN jobs d ON d.key = i.input
                           WHERE i.job = j.key AND {MISSING_REQUIRED})"
        ))
        .execute(pool)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(total);
        }
        total += n;
    }
}

/// Moves up to `limit` jobs to `queued`: pending jobs whose inputs have all
/// ended (succeeded, or skipped where the job can do without them) and
/// whose required inputs have results, and failed jobs with attempts left.
/// Returns them for pushing.
pub async fn promote_ready(pool: &PgPool, limit: i64) -> Result<Vec<Ready>, DbError> {
    skip_unrunnable(pool).await?;
    Ok(sqlx::query_as(&format!(
        "UPDATE jobs SET status = 'queued', queued_at = now(), worker = NULL, lease_expires_at = NULL
         WHERE key IN (
             SELECT j.key FROM jobs j
             WHERE (j.status = 'pending'
                    AND NOT EXISTS (SELECT 1 FROM job_inputs i JOIN jobs d ON d.key = i.input
                                    WHERE i.job = j.key
                                      AND (d.status NOT IN ('succeeded', 'skipped') OR {MISSING_REQUIRED})))
                OR j.status = 'failed'
             ORDER BY j.created_at
             LIMIT $1
             FOR UPDATE SKIP LOCKED)
         RETURNING key, resource"
    ))
    .bind(limit)
    .fetch_all(pool)
    .await?)
}

/// Takes a queued job for `worker` with a lease; None if it is not queued
/// (already taken, finished, cancelled: a duplicate or stale message).
pub async fn claim(pool: &PgPool, key: &str, worker: &str, lease_s: f64) -> Result<Option<Claimed>, DbError> {
    let row: Option<(serde_json::Value, i32)> = sqlx::query_as(
        "UPDATE jobs SET status = 'running', worker = $2, attempts = attempts + 1, started_at = now(),
                lease_expires_at = now() + make_interval(secs => $3)
         WHERE key = $1 AND status = 'queued'
         RETURNING spec, attempts",
    )
    .bind(key)
    .bind(worker)
    .bind(lease_s)
    .fetch_optional(pool)
    .await?;
    let Some((spec, attempts)) = row else { return Ok(None) };
    let inputs: Vec<(String,)> = sqlx::query_as("SELECT input FROM job_inputs WHERE job = $1 ORDER BY position")
        .bind(key)
        .fetch_all(pool)
        .await?;
    Ok(Some(Claimed { key: key.to_string(), spec, attempts, inputs: inputs.into_iter().map(|(k,)| k).collect() }))
}

/// Which queued jobs may run together with one a worker has claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Together {
    /// Train jobs trained as one stacked group (`learner::train`): the same
    /// spec but for the seed, distribution, bound and residual (so the same
    /// domain, model, sigma mode, steps and training-set size), the same
    /// inputs (the same labelled data), and, like the first, no checkpoint
    /// yet: a group moves in step, so a resumed run trains alone.
    Training,
    /// Learned plan jobs searched at once with shared forward passes
    /// (`learner::many`): the same spec (domain, heuristic, limits) and the
    /// same model (first input), on other instances.
    Planning,
}

/// How [`Together`] reads in SQL: the jobs' kind, the part of the spec
/// that must be equal, what the first job must satisfy, and what a
/// companion `j` must satisfy against the first job's row `f`
/// (`f.inputs`: its inputs in order).
struct Rule {
    kind: &'static str,
    shared: &'static str,
    first: &'static str,
    companion: &'static str,
}

impl Together {
    fn rule(self) -> Rule {
        match self {
            Together::Training => Rule {
                kind: "train",
                shared: "spec - 'seed' - 'distribution' - 'bound' - 'residual'",
                first: "NOT EXISTS (SELECT 1 FROM checkpoints WHERE job = $1)",
                companion: "(SELECT array_agg(input ORDER BY position) FROM job_inputs WHERE job = j.key) = f.inputs
                            AND NOT EXISTS (SELECT 1 FROM checkpoints k WHERE k.job = j.key)",
            },
            Together::Planning => Rule {
                kind: "plan",
                shared: "spec",
                first: "TRUE",
                companion: "(SELECT input FROM job_inputs WHERE job = j.key AND position = 0) = f.inputs[1]",
            },
        }
    }
}

/// Queued jobs that can run together with `first` (which `worker` has
/// claimed), by the rule `together`, claimed for `worker` too, at most
/// `limit`. Others' keys stay in Redis as stale hints, dropped when popped.
pub async fn claim_companions(
    pool: &PgPool,
    together: Together,
    first: &str,
    worker: &str,
    lease_s: f64,
    limit: i64,
) -> Result<Vec<Claimed>, DbError> {
    let Rule { kind, shared, first: first_rule, companion } = together.rule();
    let rows: Vec<(String, serde_json::Value, i32)> = sqlx::query_as(&format!(
        "WITH f AS (
             SELECT key, {shared} AS shared,
                    (SELECT array_agg(input ORDER BY position) FROM job_inputs WHERE job = jobs.key) AS inputs
             FROM jobs WHERE key = $1 AND kind = '{kind}' AND worker = $2 AND status = 'running'
               AND {first_rule}),
         c AS (
             SELECT j.key FROM jobs j, f
             WHERE j.status = 'queued' AND j.kind = '{kind}' AND j.key <> f.key
               AND j.{shared} = f.shared
               AND {companion}
             ORDER BY j.key LIMIT $4
             FOR UPDATE OF j SKIP LOCKED)
         UPDATE jobs SET status = 'running', worker = $2, attempts = attempts + 1, started_at = now(),
                lease_expires_at = now() + make_interval(secs => $3)
         FROM c WHERE jobs.key = c.key
         RETURNING jobs.key, jobs.spec, jobs.attempts"
    ))
    .bind(first)
    .bind(worker)
    .bind(lease_s)
    .bind(limit)
    .fetch_all(pool)
    .await?;
    let mut out = vec![];
    for (key, spec, attempts) in rows {
        let inputs: Vec<(String,)> = sqlx::query_as("SELECT input FROM job_inputs WHERE job = $1 ORDER BY position")
            .bind(&key)
            .fetch_all(pool)
            .await?;
        out.push(Claimed { key, spec, attempts, inputs: inputs.into_iter().map(|(k,)| k).collect() });
    }
    Ok(out)
}

/// Extends the lease; false if the job is no longer ours (lease lost).
pub async fn heartbeat(pool: &PgPool, key: &str, worker: &str, lease_s: f64) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3)
         WHERE key = $1 AND worker = $2 AND status = 'running'",
    )
    .bind(key)
    .bind(worker)
    .bind(lease_s)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Marks the job succeeded inside the caller's transaction (which also wrote
/// its results). False if the job is no longer ours: roll the results back.
pub async fn finish(tx: &mut PgConnection, key: &str, worker: &str) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'succeeded', finished_at = now(), lease_expires_at = NULL, last_error = NULL
         WHERE key = $1 AND worker = $2 AND status = 'running'",
    )
    .bind(key)
    .bind(worker)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Starts the transaction in which a job's results are written
/// (`results::insert_*`) and then completed ([`complete`]).
pub async fn begin(pool: &PgPool) -> Result<Transaction, DbError> {
    Ok(pool.begin().await?)
}

/// Marks the job succeeded in the transaction that wrote its results and
/// commits both; if the job is no longer `worker`'s (lease lost, cancelled)
/// rolls everything back and returns false.
pub async fn complete(mut tx: Transaction, key: &str, worker: &str) -> Result<bool, DbError> {
    if finish(&mut tx, key, worker).await? {
        tx.commit().await?;
        Ok(true)
    } else {
        tx.rollback().await?;
        Ok(false)
    }
}

/// What became of a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Will be queued again.
    Retry,
    /// Out of attempts: `dead`, with its error, until someone retries it.
    Dead,
    /// The job was not ours any more; nothing changed.
    NotOurs,
}

/// Records a failed attempt with its error: `failed` (queued again by the
/// scheduler) or, out of attempts, `dead`.
pub async fn fail(pool: &PgPool, key: &str, worker: &str, error: &str) -> Result<Failure, DbError> {
    let row: Option<(JobStatus,)> = sqlx::query_as(
        "UPDATE jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead'::job_status ELSE 'failed'::job_status END,
                last_error = $3, finished_at = now(), lease_expires_at = NULL
         WHERE key = $1 AND worker = $2 AND status = 'running'
         RETURNING status",
    )
    .bind(key)
    .bind(worker)
    .bind(error)
    .fetch_optional(pool)
    .await?;
    Ok(match row.map(|(s,)| s) {
        Some(JobStatus::Dead) => Failure::Dead,
        Some(_) => Failure::Retry,
        None => Failure::NotOurs,
    })
}

/// Gives a running job back (a worker stopping with SIGTERM): queued again,
/// this attempt not counted.
pub async fn hand_back(pool: &PgPool, key: &str, worker: &str) -> Result<Option<Ready>, DbError> {
    Ok(sqlx::query_as(
        "UPDATE jobs SET status = 'queued', queued_at = now(), worker = NULL, lease_expires_at = NULL,
                attempts = greatest(attempts - 1, 0)
         WHERE key = $1 AND worker = $2 AND status = 'running'
         RETURNING key, resource",
    )
    .bind(key)
    .bind(worker)
    .fetch_optional(pool)
    .await?)
}

/// Running jobs whose lease ran out (their worker died): queued again, or
/// dead when out of attempts. Returns those to push.
pub async fn requeue_expired(pool: &PgPool) -> Result<Vec<Ready>, DbError> {
    sqlx::query(
        "UPDATE jobs SET status = 'dead', finished_at = now(), lease_expires_at = NULL,
                last_error = coalesce(last_error || '; ', '') || 'lease expired (worker ' || coalesce(worker, '?') || ' lost)'
         WHERE status = 'running' AND lease_expires_at < now() AND attempts >= max_attempts",
    )
    .execute(pool)
    .await?;
    Ok(sqlx::query_as(
        "UPDATE jobs SET status = 'queued', queued_at = now(), worker = NULL, lease_expires_at = NULL
         WHERE status = 'running' AND lease_expires_at < now()
         RETURNING key, resource",
    )
    .fetch_all(pool)
    .await?)
}

/// Queued jobs of `classes` nobody claimed for `older_than_s` (Redis lost
/// them: flushed or restarted): returned to be pushed again. Duplicates in
/// Redis are harmless to correctness; the scheduler asks only for classes
/// whose list is shorter than their queued jobs, so that a backlog waiting
/// on busy workers is not pushed again and again.
pub async fn stale_queued(pool: &PgPool, older_than_s: f64, classes: &[&str]) -> Result<Vec<Ready>, DbError> {
    Ok(sqlx::query_as(
        "UPDATE jobs SET queued_at = now()
         WHERE status = 'queued' AND queued_at < now() - make_interval(secs => $1) AND resource = ANY($2)
         RETURNING key, resource",
    )
    .bind(older_than_s)
    .bind(classes)
    .fetch_all(pool)
    .await?)
}

/// Number of queued jobs per resource class.
pub async fn queued_by_class(pool: &PgPool) -> Result<Vec<(String, i64)>, DbError> {
    Ok(sqlx::query_as("SELECT resource, count(*) FROM jobs WHERE status = 'queued' GROUP BY resource")
        .fetch_all(pool)
        .await?)
}

/// Sends a dead, failed or cancelled job back to pending with fresh attempts.
pub async fn retry(pool: &PgPool, key: &str) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'pending', attempts = 0, last_error = NULL, worker = NULL
         WHERE key = $1 AND status IN ('dead', 'failed', 'cancelled', 'skipped')",
    )
    .bind(key)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Cancels a job that has not finished.
pub async fn cancel(pool: &PgPool, key: &str) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'cancelled', finished_at = now(), lease_expires_at = NULL
         WHERE key = $1 AND status IN ('pending', 'queued', 'running', 'failed')",
    )
    .bind(key)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}
