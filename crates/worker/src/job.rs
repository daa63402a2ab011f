//! What every job kind shares: the claimed job's context, its error type,
//! and running CPU work off the async threads.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use schema::lifecycle::Claimed;
use schema::{DbError, PgPool};

/// Why a job attempt failed (recorded as the job's `last_error`).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{0}")]
    Failed(String),
    #[error("database: {0}")]
    Db(#[from] DbError),
}

pub fn failed(e: impl std::fmt::Display) -> JobError {
    JobError::Failed(e.to_string())
}

/// A claimed job as its kind's module sees it.
pub struct Ctx<'a> {
    pub pool: &'a PgPool,
    pub job: &'a Claimed,
    /// The worker slot that holds the job's lease.
    pub worker: &'a str,
    /// Where the job's heavy computation runs.
    pub isolation: &'a crate::isolate::Isolation,
    /// Threads for building a pattern database the farm lacks.
    pub pdb_threads: usize,
    /// Set when the job stops being this slot's (its lease lost: cancelled
    /// or reassigned) or the worker gives it back on stopping: a search on
    /// a blocking thread, which no abort reaches, looks at it and ends.
    pub cancel: Arc<AtomicBool>,
}

impl Ctx<'_> {
    pub fn key(&self) -> &str {
        &self.job.key
    }

    /// The job's `i`-th input key (the order is the job kind's contract).
    pub fn input(&self, i: usize, what: &str) -> Result<&str, JobError> {
        self.job.inputs.get(i).map(String::as_str).ok_or_else(|| failed(format!("job without its {what}")))
    }

    /// Starts the transaction that will hold the job's results and its completion.
    pub async fn begin(&self) -> Result<schema::Transaction, JobError> {
        Ok(schema::lifecycle::begin(self.pool).await?)
    }

    /// Marks the job succeeded in `tx` (which holds its results) and commits;
    /// Ok(false) if the job stopped being ours (lease lost, cancelled) and
    /// everything was rolled back.
    pub async fn complete(&self, tx: schema::Transaction) -> Result<bool, JobError> {
        Ok(schema::lifecycle::complete(tx, self.key(), self.worker).await?)
    }
}

/// Runs CPU-bound work on a blocking thread; a panic there fails the job,
/// not the worker.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, JobError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| failed(format!("job panicked: {e}")))?.map_err(JobError::Failed)
}

/// The instance a generate job produced.
pub async fn instance(pool: &PgPool, generate_job: &str) -> Result<schema::results::Instance, JobError> {
    schema::results::instance(pool, generate_job)
        .await?
        .ok_or_else(|| failed(format!("input {generate_job} has no instance")))
}
