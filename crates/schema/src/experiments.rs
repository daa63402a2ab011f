//! Experiments: a grid's jobs recorded in one transaction, and progress.

use std::collections::BTreeMap;

use jobs::class::JobClass;
use jobs::spec::PlanHeuristic;
use jobs::{Job, JobKind, JobSpec};
use sqlx::postgres::PgPool;
use uuid::Uuid;

use crate::{DbError, JobStatus, StatusCounts};

/// What submitting jobs did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// Jobs that did not exist before.
    pub new: usize,
    /// Jobs already known (from this or another experiment): reused.
    pub existing: usize,
}

/// Records an experiment.
pub async fn create_experiment(pool: &PgPool, name: &str, description: &str, grid_toml: &str) -> Result<Uuid, DbError> {
    let id = Uuid::new_v4();
    sqlx::query("INSERT INTO experiments (id, name, description, grid_toml) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(name)
        .bind(description)
        .bind(grid_toml)
        .execute(pool)
        .await?;
    Ok(id)
}

/// A job's experimental axes, copied out of its spec into typed columns so
/// that analysts can GROUP BY them (None where an axis does not apply).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JobAxes {
    pub domain: Option<String>,
    pub split: Option<String>,
    pub seed: Option<i64>,
    pub heuristic: Option<String>,
    pub model: Option<String>,
    pub distribution: Option<String>,
    pub sigma: Option<String>,
    pub bound: Option<String>,
    pub residual: Option<String>,
}

/// A serde-named enum value as text, as the axis columns hold it.
fn text<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    }
}

impl JobAxes {
    pub fn of(spec: &JobSpec) -> JobAxes {
        let test = || Some("test".to_string());
        match spec {
            JobSpec::Generate { domain, split, seed, .. } => JobAxes {
                domain: Some(domain.clone()),
                split: Some(text(split)),
                seed: i64::try_from(*seed).ok(),
                ..JobAxes::default()
            },
            JobSpec::Label { domain, split, .. } => {
                JobAxes { domain: Some(domain.clone()), split: Some(text(split)), ..JobAxes::default() }
            }
            JobSpec::Plan { domain, heuristic, .. } => {
                let (heuristic, bound, model) = match heuristic {
                    PlanHeuristic::Classical { name } => (name.clone(), None, None),
                    PlanHeuristic::Learned { clip: None, model } => ("learned".to_string(), None, *model),
                    PlanHeuristic::Learned { clip: Some(b), model } => {
                        ("learned+clip".to_string(), Some(text(b)), *model)
                    }
                };
                JobAxes {
                    domain: Some(domain.clone()),
                    split: test(),
                    heuristic: Some(heuristic),
                    model: model.map(|m| m.as_str().to_string()),
                    bound,
                    ..JobAxes::default()
                }
            }
            JobSpec::Train { domain, model, distribution, sigma, bound, residual, seed, .. } => JobAxes {
                domain: Some(domain.clone()),
                seed: i64::try_from(*seed).ok(),
                model: Some(text(model)),
                distribution: Some(text(distribution)),
                sigma: Some(text(sigma)),
                bound: bound.as_ref().map(text),
                residual: Some(text(residual)),
                ..JobAxes::default()
            },
            JobSpec::Evaluate { domain, bound } => {
                JobAxes { domain: Some(domain.clone()), split: test(), bound: Some(text(bound)), ..JobAxes::default() }
            }
            JobSpec::Draw { domain, .. } => {
                JobAxes { domain: Some(domain.clone()), split: test(), ..JobAxes::default() }
            }
            JobSpec::Noop { .. } => JobAxes::default(),
            // The learner's inputs go in the heuristic column: what the network reads.
            JobSpec::PuzzleLearn { domain, pdb_inputs, model, seed, .. } => JobAxes {
                domain: Some(domain.clone()),
                seed: i64::try_from(*seed).ok(),
                model: Some(text(model)),
                heuristic: Some(pdb_inputs.as_ref().map_or("one_hot".into(), |set| format!("pdb:{set}"))),
                ..JobAxes::default()
            },
            JobSpec::PuzzleSolve { domain, .. } => {
                JobAxes { domain: Some(domain.clone()), split: test(), ..JobAxes::default() }
            }
            JobSpec::PuzzleTest { domain, alpha, .. } | JobSpec::PuzzleEfficiency { domain, alpha, .. } => JobAxes {
                domain: Some(domain.clone()),
                split: test(),
                heuristic: Some(alpha.map_or("learned".into(), |a| format!("learned@{a}"))),
                ..JobAxes::default()
            },
            JobSpec::GraphBootstrap { domain, configuration, seed, .. } => JobAxes {
                domain: Some(domain.clone()),
                seed: i64::try_from(*seed).ok(),
                model: Some(configuration.name()),
                ..JobAxes::default()
            },
            JobSpec::GraphFold { domain, configuration, seed, .. } => JobAxes {
                domain: Some(domain.clone()),
                seed: i64::try_from(*seed).ok(),
                model: Some(configuration.name()),
                heuristic: Some("learned".into()),
                ..JobAxes::default()
            },
            JobSpec::GraphBaseline { domain, heuristic, .. } => {
                JobAxes { domain: Some(domain.clone()), heuristic: Some(heuristic.clone()), ..JobAxes::default() }
            }
        }
    }
}

/// Adds jobs (in dependency order) to an experiment. Known keys are reused,
/// not duplicated; `force` sends known jobs back to `pending` to run again.
/// One transaction; statements of [`SUBMIT_BATCH`] jobs each (arrays
/// unnested), so the paper's ~96,000 jobs take some fifty round trips
/// instead of a few hundred thousand.
pub async fn submit_jobs(pool: &PgPool, experiment: Uuid, jobs: &[Job], force: bool) -> Result<Submitted, DbError> {
    let mut tx = pool.begin().await?;
    let mut out = Submitted::default();
    let classes = JobClass::of_all(jobs);
    // Dependency order across batches: a job's inputs are in its batch or an earlier one.
    for (batch, classes) in jobs.chunks(SUBMIT_BATCH).zip(classes.chunks(SUBMIT_BATCH)) {
        let mut rows = JobRows::default();
        for (job, class) in batch.iter().zip(classes) {
            rows.push(job, class)?;
        }
        // A key listed twice is one job: its first listing creates it.
        let mut first = std::collections::HashSet::new();
        let inserted: Vec<(String,)> = sqlx::query_as(
            "INSERT INTO jobs (key, kind, resource, spec, domain, split, seed, heuristic, model, distribution, sigma, bound,
                               residual, cost_group, cost_units, cost_cap_s)
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::text[], $6::text[], $7::int8[],
                                  $8::text[], $9::text[], $10::text[], $11::text[], $12::text[], $13::text[], $14::text[],
                                  $15::float8[], $16::float8[])
             ON CONFLICT (key) DO NOTHING
             RETURNING key",
        )
        .bind(&rows.key)
        .bind(&rows.kind)
        .bind(&rows.resource)
        .bind(&rows.spec)
        .bind(&rows.domain)
        .bind(&rows.split)
        .bind(&rows.seed)
        .bind(&rows.heuristic)
        .bind(&rows.model)
        .bind(&rows.distribution)
        .bind(&rows.sigma)
        .bind(&rows.bound)
        .bind(&rows.residual)
        .bind(&rows.cost_group)
        .bind(&rows.cost_units)
        .bind(&rows.cost_cap_s)
        .fetch_all(&mut *tx)
        .await?;
        let new: std::collections::HashSet<&str> = inserted.iter().map(|(k,)| k.as_str()).collect();
        out.new += new.len();
        out.existing += batch.len() - new.len();
        // The DAG of the jobs created here; known jobs keep theirs.
        let (mut job, mut position, mut input, mut required) = (vec![], vec![], vec![], vec![]);
        for j in batch.iter().filter(|j| new.contains(j.key.as_str()) && first.insert(j.key.as_str())) {
            let needs = j.spec.kind().describe().needs;
            for (i, k) in j.inputs.iter().enumerate() {
                job.push(j.key.as_str());
                position.push(i as i32);
                input.push(k.as_str());
                required.push(needs.requires(i));
            }
        }
        sqlx::query(
            "INSERT INTO job_inputs (job, position, input, required)
             SELECT * FROM unnest($1::text[], $2::int[], $3::text[], $4::bool[])",
        )
        .bind(&job)
        .bind(&position)
        .bind(&input)
        .bind(&required)
        .execute(&mut *tx)
        .await?;
        if force {
            let known: Vec<&str> = rows.key.iter().map(String::as_str).filter(|k| !new.contains(k)).collect();
            sqlx::query(
                "UPDATE jobs SET status = 'pending', attempts = 0, worker = NULL, lease_expires_at = NULL,
                 last_error = NULL, queued_at = NULL, started_at = NULL, finished_at = NULL WHERE key = ANY($1)",
            )
            .bind(&known)
            .execute(&mut *tx)
            .await?;
        }
        sqlx::query(
            "INSERT INTO experiment_jobs (experiment, job) SELECT $1, * FROM unnest($2::text[]) ON CONFLICT DO NOTHING",
        )
        .bind(experiment)
        .bind(&rows.key)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(out)
}

/// Jobs per statement of [`submit_jobs`]: their specs (a few kB at most
/// each) make a statement of a few MB.
pub const SUBMIT_BATCH: usize = 2000;

/// A batch of jobs as the columns of `jobs`, one array each.
#[derive(Default)]
struct JobRows {
    key: Vec<String>,
    kind: Vec<&'static str>,
    resource: Vec<&'static str>,
    spec: Vec<serde_json::Value>,
    domain: Vec<Option<String>>,
    split: Vec<Option<String>>,
    seed: Vec<Option<i64>>,
    heuristic: Vec<Option<String>>,
    model: Vec<Option<String>>,
    distribution: Vec<Option<String>>,
    sigma: Vec<Option<String>>,
    bound: Vec<Option<String>>,
    residual: Vec<Option<String>>,
    cost_group: Vec<String>,
    cost_units: Vec<f64>,
    cost_cap_s: Vec<Option<f64>>,
}

impl JobRows {
    fn push(&mut self, job: &Job, class: &JobClass) -> Result<(), DbError> {
        let a = JobAxes::of(&job.spec);
        self.key.push(job.key.as_str().to_string());
        self.kind.push(job.spec.kind().as_str());
        self.resource.push(job.spec.resource().as_str());
        self.spec.push(serde_json::to_value(&job.spec).map_err(|e| DbError::Decode(e.to_string()))?);
        self.domain.push(a.domain);
        self.split.push(a.split);
        self.seed.push(a.seed);
        self.heuristic.push(a.heuristic);
        self.model.push(a.model);
        self.distribution.push(a.distribution);
        self.sigma.push(a.sigma);
        self.bound.push(a.bound);
        self.residual.push(a.residual);
        self.cost_group.push(class.group.clone());
        self.cost_units.push(class.units);
        self.cost_cap_s.push(class.cap_s);
        Ok(())
    }
}

/// An experiment as listed.
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct Experiment {
    pub id: Uuid,
    pub name: String,
    /// Seconds since the epoch.
    pub created_at: f64,
}

/// Every experiment, newest first.
pub async fn list_experiments(pool: &PgPool) -> Result<Vec<Experiment>, DbError> {
    Ok(sqlx::query_as(
        "SELECT id, name, extract(epoch FROM created_at)::float8 AS created_at FROM experiments ORDER BY created_at DESC",
    )
    .fetch_all(pool)
    .await?)
}

/// The experiment's name; None if there is no such experiment.
pub async fn experiment_name(pool: &PgPool, experiment: Uuid) -> Result<Option<String>, DbError> {
    let row: Option<(String,)> =
        sqlx::query_as("SELECT name FROM experiments WHERE id = $1").bind(experiment).fetch_optional(pool).await?;
    Ok(row.map(|r| r.0))
}

/// An experiment by id, or the latest one with that name.
pub async fn resolve_experiment(pool: &PgPool, id_or_name: &str) -> Result<Option<Uuid>, DbError> {
    if let Ok(id) = Uuid::parse_str(id_or_name) {
        return Ok(Some(id));
    }
    let row: Option<(Uuid,)> =
        sqlx::query_as("SELECT id FROM experiments WHERE name = $1 ORDER BY created_at DESC LIMIT 1")
            .bind(id_or_name)
            .fetch_optional(pool)
            .await?;
    Ok(row.map(|r| r.0))
}

/// Number of an experiment's jobs in each status (every status present, 0 if none).
pub async fn status_counts(pool: &PgPool, experiment: Uuid) -> Result<StatusCounts, DbError> {
    let mut counts = StatusCounts::default();
    for (_, status, n) in kind_status_rows(pool, experiment).await? {
        counts.add(status, n);
    }
    Ok(counts)
}

/// Per job kind, the number of its jobs in each status.
pub async fn kind_status_counts(pool: &PgPool, experiment: Uuid) -> Result<BTreeMap<JobKind, StatusCounts>, DbError> {
    let mut out: BTreeMap<JobKind, StatusCounts> = BTreeMap::new();
    for (kind, status, n) in kind_status_rows(pool, experiment).await? {
        out.entry(kind).or_default().add(status, n);
    }
    Ok(out)
}

/// Per job kind and status, the number of the experiment's jobs: the counts
/// kept by migration 0019's triggers (`experiment_counts` plus the deltas
/// not folded in yet), read in one statement, so they are as of one moment.
async fn kind_status_rows(pool: &PgPool, experiment: Uuid) -> Result<Vec<(JobKind, JobStatus, i64)>, DbError> {
    fold_counts(pool).await?;
    let rows: Vec<(String, JobStatus, i64)> = sqlx::query_as(
        "SELECT kind, status, sum(n)::int8 FROM (
             SELECT kind, status, n FROM experiment_counts WHERE experiment = $1
             UNION ALL
             SELECT kind, status, n FROM experiment_count_deltas WHERE experiment = $1) c
         GROUP BY 1, 2 HAVING sum(n) <> 0",
    )
    .bind(experiment)
    .fetch_all(pool)
    .await?;
    rows.into_iter().map(|(k, s, n)| Ok((k.parse().map_err(DbError::Decode)?, s, n))).collect()
}

/// Moves the count deltas that job changes wrote into `experiment_counts`
/// (a no-op while another session does it). Readers call it so that the
/// deltas they add up stay few.
pub async fn fold_counts(pool: &PgPool) -> Result<(), DbError> {
    sqlx::query("SELECT fold_experiment_counts()").execute(pool).await?;
    Ok(())
}

/// Counts the experiment's jobs from the jobs themselves (a join over all of
/// them): what the kept counts must equal. For checks and repairs.
pub async fn exact_kind_status_counts(
    pool: &PgPool,
    experiment: Uuid,
) -> Result<BTreeMap<JobKind, StatusCounts>, DbError> {
    let rows: Vec<(String, JobStatus, i64)> = sqlx::query_as(
        "SELECT j.kind, j.status, count(*) FROM jobs j JOIN experiment_jobs e ON e.job = j.key
         WHERE e.experiment = $1 GROUP BY 1, 2",
    )
    .bind(experiment)
    .fetch_all(pool)
    .await?;
    let mut out: BTreeMap<JobKind, StatusCounts> = BTreeMap::new();
    for (kind, status, n) in rows {
        out.entry(kind.parse().map_err(DbError::Decode)?).or_default().add(status, n);
    }
    Ok(out)
}

/// Counts every experiment's jobs again from the jobs (migration 0019's
/// `rebuild_experiment_counts`; job changes wait while it runs).
pub async fn rebuild_counts(pool: &PgPool) -> Result<(), DbError> {
    sqlx::query("SELECT rebuild_experiment_counts()").execute(pool).await?;
    Ok(())
}

/// An experiment as listed, with its jobs counted by state.
#[derive(Debug, Clone)]
pub struct ExperimentSummary {
    pub id: Uuid,
    pub name: String,
    /// Seconds since the epoch.
    pub created_at: f64,
    /// Higher runs first (`set_priority`).
    pub priority: i32,
    pub jobs: StatusCounts,
}

/// An experiment with one of its states and the number of its jobs in it.
type SummaryRow = (Uuid, String, f64, i32, Option<JobStatus>, Option<i64>);

/// Every experiment, newest first, with its jobs counted by state (the kept
/// counts: a few rows per experiment, whatever its size). `name` keeps only
/// experiments of that name.
pub async fn list_with_counts(pool: &PgPool, name: Option<&str>) -> Result<Vec<ExperimentSummary>, DbError> {
    fold_counts(pool).await?;
    let rows: Vec<SummaryRow> = sqlx::query_as(
        "SELECT x.id, x.name, extract(epoch FROM x.created_at)::float8, x.priority, c.status, c.n
         FROM experiments x
         LEFT JOIN (SELECT experiment, status, sum(n)::int8 AS n FROM (
                        SELECT experiment, status, n FROM experiment_counts
                        UNION ALL
                        SELECT experiment, status, n FROM experiment_count_deltas) u
                    GROUP BY 1, 2) c ON c.experiment = x.id
         WHERE $1::text IS NULL OR x.name = $1
         ORDER BY x.created_at DESC, x.id",
    )
    .bind(name)
    .fetch_all(pool)
    .await?;
    let mut out: Vec<ExperimentSummary> = vec![];
    for (id, name, created_at, priority, status, n) in rows {
        if out.last().is_none_or(|e| e.id != id) {
            out.push(ExperimentSummary { id, name, created_at, priority, jobs: StatusCounts::default() });
        }
        if let (Some(s), Some(n), Some(e)) = (status, n, out.last_mut()) {
            e.jobs.add(s, n);
        }
    }
    Ok(out)
}
