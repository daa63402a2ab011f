//! One job, fully: its row, its inputs and dependents, the experiments that
//! hold it, what it stored and its attempts' logs (`GET /api/jobs/{key}`, `hfarm job`).

use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::{DbError, JobStatus};

/// Most dependents listed by [`job`] (their number is always given).
pub const MAX_DEPENDENTS: i64 = 100;

/// A job's row.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct JobDetail {
    pub key: String,
    pub kind: String,
    pub resource: String,
    pub status: JobStatus,
    pub spec: serde_json::Value,
    /// Attempts started so far, and how many it may have.
    pub attempts: i32,
    pub max_attempts: i32,
    /// The worker slot holding it (running) or that last held it.
    pub worker: Option<String>,
    pub last_error: Option<String>,
    /// Higher is announced first (its experiments' highest).
    pub priority: i32,
    /// Seconds since the epoch.
    pub created_at: f64,
    pub queued_at: Option<f64>,
    pub started_at: Option<f64>,
    pub finished_at: Option<f64>,
    pub lease_expires_at: Option<f64>,
    /// Seconds of its last attempt: from start to finish, or so far while it runs.
    pub run_s: Option<f64>,
    pub domain: Option<String>,
    pub split: Option<String>,
    pub seed: Option<i64>,
    pub heuristic: Option<String>,
    pub model: Option<String>,
    /// What the worker that holds or last held it runs on
    /// (`worker::machine::describe`), as that worker last said.
    pub machine: Option<serde_json::Value>,
}

/// A job that another depends on or that depends on it.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Linked {
    pub key: String,
    pub kind: String,
    pub status: JobStatus,
    /// For an input: its place among the job's inputs.
    pub position: Option<i32>,
    /// For an input: whether the job cannot run without its result.
    pub required: Option<bool>,
}

/// An experiment that holds the job.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Holder {
    pub id: Uuid,
    pub name: String,
}

/// A result table with rows of the job's.
#[derive(Debug, Clone, sqlx::FromRow, serde::Serialize)]
pub struct Output {
    pub table: String,
    pub rows: i64,
}

/// Everything about one job.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Job {
    pub job: JobDetail,
    /// Its inputs, in order.
    pub inputs: Vec<Linked>,
    /// Jobs that read it: the first [`MAX_DEPENDENTS`], by key.
    pub dependents: Vec<Linked>,
    pub dependents_total: i64,
    pub experiments: Vec<Holder>,
    /// Result tables holding rows of the job (none: it stored nothing yet).
    pub outputs: Vec<Output>,
    /// The logs of its latest attempts that logged something, oldest first.
    pub logs: Vec<crate::joblogs::AttemptLog>,
}

/// What a key (or the start of one) names.
#[derive(Debug)]
pub enum Found {
    Job(Box<Job>),
    None,
    /// The prefix starts several keys (the first few).
    Ambiguous(Vec<String>),
}

/// The tables that store results by job key (`job` is their key's first column).
const RESULT_TABLES: [&str; 16] = [
    "instances",
    "unfilled_slots",
    "planning_draws",
    "labelled_states",
    "training_curves",
    "checkpoints",
    "models",
    "evaluations",
    "plan_runs",
    "puzzle_learners",
    "puzzle_iterations",
    "puzzle_optimal",
    "puzzle_test_runs",
    "graph_bootstraps",
    "graph_problems",
    "graph_runs",
];

/// The job with this key, or the only one whose key starts with it (keys
/// are lower-case hex; the dashboard and the CLI show the first 12 digits).
pub async fn job(pool: &PgPool, key_or_prefix: &str) -> Result<Found, DbError> {
    let given = key_or_prefix.to_ascii_lowercase();
    let keys: Vec<(String,)> = sqlx::query_as(
        "(SELECT key FROM jobs WHERE key = $1)
         UNION ALL
         (SELECT key FROM jobs WHERE key LIKE $1 || '%' AND NOT EXISTS (SELECT 1 FROM jobs WHERE key = $1)
          ORDER BY key LIMIT 5)",
    )
    .bind(&given)
    .fetch_all(pool)
    .await?;
    let key = match keys.as_slice() {
        [] => return Ok(Found::None),
        [(k,)] => k.clone(),
        more => return Ok(Found::Ambiguous(more.iter().map(|(k,)| k.clone()).collect())),
    };
    let Some(row) = sqlx::query_as::<_, JobDetail>(
        "SELECT key, kind, resource, status, spec, attempts, max_attempts, worker, last_error, priority,
                extract(epoch FROM created_at)::float8 AS created_at,
                extract(epoch FROM queued_at)::float8 AS queued_at,
                extract(epoch FROM started_at)::float8 AS started_at,
                extract(epoch FROM finished_at)::float8 AS finished_at,
                extract(epoch FROM lease_expires_at)::float8 AS lease_expires_at,
                extract(epoch FROM CASE WHEN status = 'running' THEN now() - started_at
                                        WHEN finished_at >= started_at THEN finished_at - started_at END)::float8
                    AS run_s,
                domain, split, seed, heuristic, model,
                (SELECT w.machine FROM workers w WHERE w.id = j.worker OR j.worker LIKE w.id || '/%'
                 ORDER BY length(w.id) DESC LIMIT 1) AS machine
         FROM jobs j WHERE key = $1",
    )
    .bind(&key)
    .fetch_optional(pool)
    .await?
    else {
        return Ok(Found::None);
    };
    let inputs = sqlx::query_as(
        "SELECT d.key, d.kind, d.status, i.position, i.required
         FROM job_inputs i JOIN jobs d ON d.key = i.input WHERE i.job = $1 ORDER BY i.position",
    )
    .bind(&key)
    .fetch_all(pool)
    .await?;
    // The first dependents by key, chosen in `job_inputs` before the join:
    // joined first, the planner (estimating thousands of dependents, the
    // average of inputs such as a training's) merged the whole `jobs` table
    // with the index of `job_inputs` (255 ms at 96k jobs; 2 ms this way).
    let dependents = sqlx::query_as(
        "SELECT d.key, d.kind, d.status, NULL::int4 AS position, NULL::bool AS required
         FROM (SELECT DISTINCT job FROM job_inputs WHERE input = $1 ORDER BY job LIMIT $2) i
         JOIN jobs d ON d.key = i.job ORDER BY d.key",
    )
    .bind(&key)
    .bind(MAX_DEPENDENTS)
    .fetch_all(pool)
    .await?;
    let (dependents_total,): (i64,) = sqlx::query_as("SELECT count(DISTINCT job) FROM job_inputs WHERE input = $1")
        .bind(&key)
        .fetch_one(pool)
        .await?;
    let experiments = sqlx::query_as(
        "SELECT x.id, x.name FROM experiment_jobs e JOIN experiments x ON x.id = e.experiment
         WHERE e.job = $1 ORDER BY x.created_at, x.id",
    )
    .bind(&key)
    .fetch_all(pool)
    .await?;
    // Fixed table names, no request text: the key is a bound parameter.
    let counts: Vec<String> = RESULT_TABLES
        .iter()
        .map(|t| format!("SELECT '{t}' AS \"table\", count(*) AS rows FROM {t} WHERE job = $1"))
        .collect();
    let outputs: Vec<Output> =
        sqlx::query_as(&format!("SELECT \"table\", rows FROM ({}) c WHERE rows > 0", counts.join(" UNION ALL ")))
            .bind(&key)
            .fetch_all(pool)
            .await?;
    let logs = crate::joblogs::of_job(pool, &key).await?;
    Ok(Found::Job(Box::new(Job { job: row, inputs, dependents, dependents_total, experiments, outputs, logs })))
}
