//! Acting on an experiment's jobs at once: retry those that ended badly,
//! cancel what has not ended, and the experiment's priority. Each is one
//! conditional statement over the experiment's jobs, with the same source
//! states as the one-job transitions of `lifecycle` (`retry`, `cancel`), so
//! a job that moved on meanwhile is left alone.

use jobs::JobKind;
use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::{DbError, JobStatus};

/// Why a bulk action did nothing.
#[derive(Debug, thiserror::Error)]
pub enum BulkError {
    /// The selection asks for something the action cannot do (a state it
    /// does not take jobs from).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<sqlx::Error> for BulkError {
    fn from(e: sqlx::Error) -> Self {
        BulkError::Db(e.into())
    }
}

/// The states a retry takes jobs from (`lifecycle::retry`'s).
pub const RETRIABLE: [JobStatus; 4] = [JobStatus::Dead, JobStatus::Failed, JobStatus::Cancelled, JobStatus::Skipped];

/// The states a cancel takes jobs from (`lifecycle::cancel`'s): those that
/// have not ended.
pub const CANCELLABLE: [JobStatus; 4] = [JobStatus::Pending, JobStatus::Queued, JobStatus::Running, JobStatus::Failed];

/// Which of an experiment's jobs to act on.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// Only jobs in these states (each must be one the action takes jobs
    /// from; empty: the action's default).
    pub statuses: Vec<JobStatus>,
    /// Only jobs of this kind.
    pub kind: Option<JobKind>,
}

/// What a bulk action did.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Acted {
    /// Jobs whose state changed.
    pub changed: u64,
    /// Jobs selected but left as they were because another experiment
    /// holds them too (cancel only; see [`cancel_experiment`]).
    pub kept_shared: u64,
}

/// `statuses` checked against those the action takes jobs from; empty
/// means `default`.
fn states(
    statuses: &[JobStatus],
    allowed: &[JobStatus],
    default: &[JobStatus],
    what: &str,
) -> Result<Vec<JobStatus>, String> {
    if statuses.is_empty() {
        return Ok(default.to_vec());
    }
    match statuses.iter().find(|s| !allowed.contains(s)) {
        Some(s) => {
            let names: Vec<&str> = allowed.iter().map(|s| s.as_str()).collect();
            Err(format!("cannot {what} {s} jobs; {what} takes jobs that are {}", names.join(", ")))
        }
        None => Ok(statuses.to_vec()),
    }
}

/// The states a retry of `statuses` acts on (default: dead and failed), or
/// why it cannot.
pub fn retry_states(statuses: &[JobStatus]) -> Result<Vec<JobStatus>, String> {
    states(statuses, &RETRIABLE, &[JobStatus::Dead, JobStatus::Failed], "retry")
}

/// The states a cancel of `statuses` acts on (default: all that have not
/// ended), or why it cannot.
pub fn cancel_states(statuses: &[JobStatus]) -> Result<Vec<JobStatus>, String> {
    states(statuses, &CANCELLABLE, &CANCELLABLE, "cancel")
}

/// Sends the experiment's selected jobs (default: dead and failed) back to
/// `pending` with fresh attempts, as `lifecycle::retry` does one job. A job
/// shared with other experiments runs again for all of them.
pub async fn retry_experiment(pool: &PgPool, experiment: Uuid, sel: &Selection) -> Result<Acted, BulkError> {
    let statuses = retry_states(&sel.statuses).map_err(BulkError::Refused)?;
    let n = sqlx::query(
        "UPDATE jobs j SET status = 'pending', attempts = 0, last_error = NULL, worker = NULL
         FROM experiment_jobs e
         WHERE e.experiment = $1 AND e.job = j.key
           AND j.status = ANY($2) AND ($3::text IS NULL OR j.kind = $3)",
    )
    .bind(experiment)
    .bind(&statuses)
    .bind(sel.kind.map(JobKind::as_str))
    .execute(pool)
    .await?
    .rows_affected();
    Ok(Acted { changed: n, kept_shared: 0 })
}

/// Cancels the experiment's selected jobs (default: every one that has not
/// ended), as `lifecycle::cancel` does one job: queued ones are dropped
/// when a worker pops them, and a running one's worker finds at its next
/// heartbeat that the job is no longer its own and stops it. Jobs that
/// another experiment holds too are kept (and counted) unless
/// `include_shared`: cancelling one experiment must not stop another's work.
pub async fn cancel_experiment(
    pool: &PgPool,
    experiment: Uuid,
    sel: &Selection,
    include_shared: bool,
) -> Result<Acted, BulkError> {
    let statuses = cancel_states(&sel.statuses).map_err(BulkError::Refused)?;
    let row: (i64, i64) = sqlx::query_as(
        "WITH chosen AS (
             SELECT j.key,
                    EXISTS (SELECT 1 FROM experiment_jobs o WHERE o.job = j.key AND o.experiment <> $1) AS shared
             FROM jobs j JOIN experiment_jobs e ON e.job = j.key AND e.experiment = $1
             WHERE j.status = ANY($2) AND ($3::text IS NULL OR j.kind = $3)),
         done AS (
             UPDATE jobs j SET status = 'cancelled', finished_at = now(), lease_expires_at = NULL
             FROM chosen c
             WHERE j.key = c.key AND ($4 OR NOT c.shared) AND j.status = ANY($2)
             RETURNING 1)
         SELECT (SELECT count(*) FROM done),
                (SELECT count(*) FROM chosen WHERE shared AND NOT $4)",
    )
    .bind(experiment)
    .bind(&statuses)
    .bind(sel.kind.map(JobKind::as_str))
    .bind(include_shared)
    .fetch_one(pool)
    .await?;
    Ok(Acted { changed: row.0 as u64, kept_shared: row.1 as u64 })
}

/// Sets the experiment's priority (higher runs first; default 0) and gives
/// each of its jobs the highest priority among the experiments that hold
/// it. Returns the number of jobs whose priority changed; None if there is
/// no such experiment.
pub async fn set_priority(pool: &PgPool, experiment: Uuid, priority: i32) -> Result<Option<u64>, DbError> {
    let mut tx = pool.begin().await?;
    let found = sqlx::query("UPDATE experiments SET priority = $2 WHERE id = $1")
        .bind(experiment)
        .bind(priority)
        .execute(&mut *tx)
        .await?
        .rows_affected();
    if found == 0 {
        return Ok(None);
    }
    let n = sqlx::query(
        "UPDATE jobs j SET priority = p.priority
         FROM (SELECT e.job, max(x.priority) AS priority
               FROM experiment_jobs e
               JOIN experiment_jobs a ON a.job = e.job
               JOIN experiments x ON x.id = a.experiment
               WHERE e.experiment = $1
               GROUP BY e.job) p
         WHERE j.key = p.job AND j.priority <> p.priority",
    )
    .bind(experiment)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    tx.commit().await?;
    Ok(Some(n))
}

/// The experiment's priority; None if there is no such experiment.
pub async fn priority(pool: &PgPool, experiment: Uuid) -> Result<Option<i32>, DbError> {
    let row: Option<(i32,)> =
        sqlx::query_as("SELECT priority FROM experiments WHERE id = $1").bind(experiment).fetch_optional(pool).await?;
    Ok(row.map(|r| r.0))
}
