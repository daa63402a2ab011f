//! Aggregates for `GET /metrics` and the queue benchmark, computed in
//! PostgreSQL so that a scrape reads a few rows, not one per job.

use std::fmt::Write as _;

use jobs::JobKind;
use sqlx::postgres::PgPool;

use crate::{DbError, JobStatus};

/// Which database `pool` reads (server and name), as a number: the key of
/// answers cached per farm (one process may serve several, as tests do).
pub fn database_key(pool: &PgPool) -> u64 {
    use std::hash::{Hash, Hasher};
    let o = pool.connect_options();
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (o.get_host(), o.get_port(), o.get_database()).hash(&mut h);
    h.finish()
}

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

/// The longest stretch with no job starting, in seconds, and how many jobs
/// had started before it (a queue benchmark's stall detector; the whole
/// database is the benchmark's own). None with fewer than two started jobs.
pub async fn longest_start_gap(pool: &PgPool) -> Result<(Option<f64>, Option<i64>), DbError> {
    let row: Option<(f64, i64)> = sqlx::query_as(
        "SELECT extract(epoch FROM gap)::float8, before FROM (
             SELECT started_at - lag(started_at) OVER (ORDER BY started_at) AS gap,
                    row_number() OVER (ORDER BY started_at) - 1 AS before
             FROM jobs WHERE started_at IS NOT NULL) g
         WHERE gap IS NOT NULL ORDER BY gap DESC LIMIT 1",
    )
    .fetch_optional(pool)
    .await?;
    Ok(row.map_or((None, None), |(g, b)| (Some(g), Some(b))))
}

/// What this farm's finished jobs measured, for the cost model
/// (`coordinator::cost`): one row per cost class of like jobs.
#[derive(Debug, Clone, PartialEq)]
pub struct Measured {
    /// Its unit as `rate_query` measures it.
    pub kind: JobKind,
    pub domain: Option<String>,
    /// The class's group as its jobs were stored at submission
    /// (`jobs.cost_group`: generate, label: the split; train, evaluate,
    /// learned plan: the model; plan: the heuristic; empty where a kind has
    /// none), so that the figure applies to the class it was measured on.
    pub group: Option<String>,
    /// How many jobs the figure stands on.
    pub jobs: i64,
    /// Seconds per unit (job, step or evaluation).
    pub seconds: f64,
    /// plan: mean evaluations per run (unsolved runs count their budget).
    pub units_per_job: Option<f64>,
}

/// How the farm measures a kind's seconds per unit: a query over its
/// finished jobs with `$1` the kind's name, giving (domain, group, jobs,
/// seconds, units per job) grouped by the class each job was given at
/// submission (`jobs.cost_group`, from `jobs::class::JobClass`, the one
/// definition of a class). None: never measured (the defaults price it).
/// The match has no catch-all so that a new kind is asked how it is measured.
fn rate_query(kind: JobKind) -> Option<&'static str> {
    match kind {
        // A generate job's tries measured their own CPU (migration 0015):
        // that, not its wall time, which a busy machine inflates.
        JobKind::Generate => Some(
            "SELECT e.domain, e.cost_group, count(*), avg(coalesce(
                    (SELECT i.cpu_s FROM instances i WHERE i.job = e.key),
                    (SELECT u.cpu_s FROM unfilled_slots u WHERE u.job = e.key),
                    extract(epoch FROM e.finished_at - e.started_at)::float8))::float8, NULL::float8
             FROM jobs e WHERE e.kind = $1 AND e.status = 'succeeded'
               AND e.started_at IS NOT NULL AND e.finished_at IS NOT NULL
             GROUP BY 1, 2",
        ),
        JobKind::Label
        | JobKind::Evaluate
        | JobKind::Draw
        | JobKind::PuzzleSolve
        | JobKind::PuzzleTest
        | JobKind::GraphFold
        | JobKind::GraphBaseline => Some(
            // A class that takes no units (a published optimum taken as it
            // is) ran no search: its time says nothing of a search's cost.
            "SELECT e.domain, e.cost_group, count(*), avg(extract(epoch FROM e.finished_at - e.started_at))::float8,
                    NULL::float8
             FROM jobs e WHERE e.kind = $1 AND e.status = 'succeeded'
               AND e.started_at IS NOT NULL AND e.finished_at IS NOT NULL AND coalesce(e.cost_units, 1) <> 0
             GROUP BY 1, 2",
        ),
        // Per step of the attempt that finished (resumed steps excluded).
        JobKind::Train => Some(
            "SELECT m.domain, j.cost_group, count(*),
                    (sum(m.train_seconds) / greatest(sum(m.steps - m.resumed_from), 1))::float8, NULL::float8
             FROM models m JOIN jobs j ON j.key = m.job WHERE j.kind = $1 GROUP BY 1, 2",
        ),
        // Per evaluation, and how many a run takes (unsolved runs count their budget).
        JobKind::Plan => Some(
            "SELECT p.domain, j.cost_group, count(*),
                    (sum(p.search_time_s) / greatest(sum(p.evaluations), 1))::float8, avg(p.evaluations)::float8
             FROM plan_runs p JOIN jobs j ON j.key = p.job WHERE j.kind = $1 GROUP BY 1, 2",
        ),
        // Per iteration of the attempt that finished.
        JobKind::PuzzleLearn => Some(
            "SELECT l.domain, j.cost_group, count(*),
                    (sum(l.seconds) / greatest(sum(l.iterations - l.resumed_from), 1))::float8, NULL::float8
             FROM puzzle_learners l JOIN jobs j ON j.key = l.job WHERE j.kind = $1 GROUP BY 1, 2",
        ),
        // Per round of the attempt that finished.
        JobKind::GraphBootstrap => Some(
            "SELECT b.domain, j.cost_group, count(*),
                    (sum(b.seconds) / greatest(sum(b.rounds - b.resumed_from), 1))::float8, NULL::float8
             FROM graph_bootstraps b JOIN jobs j ON j.key = b.job WHERE j.kind = $1 GROUP BY 1, 2",
        ),
        // A noop measures the queue, not work; a growing-walks set runs
        // until its budget is spent, which is what its class says.
        JobKind::Noop | JobKind::PuzzleEfficiency => None,
    }
}

/// A row of a `rate_query`: domain, group, jobs, seconds per unit, units per job.
type RateRow = (Option<String>, Option<String>, i64, f64, Option<f64>);

/// Per-class rates measured on this farm's finished jobs, every kind
/// measured as `rate_query` says.
pub async fn measured_rates(pool: &PgPool) -> Result<Vec<Measured>, DbError> {
    let mut out = vec![];
    for kind in JobKind::ALL {
        let Some(query) = rate_query(kind) else { continue };
        let rows: Vec<RateRow> = sqlx::query_as(query).bind(kind.as_str()).fetch_all(pool).await?;
        out.extend(rows.into_iter().map(|(domain, group, jobs, seconds, units_per_job)| Measured {
            kind,
            domain,
            group,
            jobs,
            seconds,
            units_per_job,
        }));
    }
    Ok(out)
}

/// Unfinished jobs of an experiment, grouped as the cost model groups them.
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
pub struct Remaining {
    pub kind: String,
    pub domain: String,
    /// generate, label: the split; train, evaluate, learned plans: the model; plans: the heuristic.
    pub group: String,
    pub resource: String,
    pub jobs: i64,
    /// Mean steps (train), evaluation budget (plan), 1 otherwise.
    pub units: f64,
    /// Mean upper bound on a job's seconds (generate: tries x time limit; plan: time limit).
    pub cap_s: Option<f64>,
}

/// The experiment's jobs that have not ended, by cost class: the class
/// each was given when it was submitted (`jobs::class::JobClass`).
pub async fn remaining(pool: &PgPool, experiment: uuid::Uuid) -> Result<Vec<Remaining>, DbError> {
    Ok(sqlx::query_as(
        "SELECT j.kind, coalesce(j.domain, '') AS domain, coalesce(j.cost_group, '') AS \"group\",
                j.resource, count(*) AS jobs, coalesce(avg(j.cost_units), 1)::float8 AS units,
                avg(j.cost_cap_s)::float8 AS cap_s
         FROM jobs j
         JOIN experiment_jobs e ON e.job = j.key AND e.experiment = $1
         WHERE j.status IN ('pending', 'queued', 'running', 'failed')
         GROUP BY 1, 2, 3, 4",
    )
    .bind(experiment)
    .fetch_all(pool)
    .await?)
}
