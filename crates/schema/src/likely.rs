//! What the `puzzle_*` jobs (Marom & Rosman's experiment kind) store:
//! iterations as a learner runs (like a train job's curve), and in the
//! finishing transaction the finished learner, a task's optimal cost, a
//! test run. A learner's state between iterations is its `last`
//! checkpoint ([`crate::training`]).

use sqlx::postgres::PgPool;
use sqlx::PgConnection;

use crate::DbError;

/// One outer iteration of a learner.
#[derive(Debug, Clone)]
pub struct Iteration {
    pub iteration: u32,
    pub tasks: u32,
    pub solved: u32,
    pub alpha: f64,
    pub beta: f64,
    pub buffer: u32,
    pub seconds: f64,
    pub report: serde_json::Value,
}

/// Records an iteration (a resumed attempt overwrites the ones it repeats),
/// in the transaction that writes the learner's checkpoint after it.
pub async fn record_iteration(tx: &mut PgConnection, job: &str, i: &Iteration) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO puzzle_iterations (job, iteration, tasks, solved, alpha, beta, buffer, seconds, report)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (job, iteration) DO UPDATE SET tasks = $3, solved = $4, alpha = $5, beta = $6, buffer = $7,
             seconds = $8, report = $9",
    )
    .bind(job)
    .bind(i.iteration as i32)
    .bind(i.tasks as i32)
    .bind(i.solved as i32)
    .bind(i.alpha)
    .bind(i.beta)
    .bind(i.buffer as i32)
    .bind(i.seconds)
    .bind(&i.report)
    .execute(tx)
    .await?;
    Ok(())
}

pub async fn insert_learner(
    tx: &mut PgConnection,
    job: &str,
    domain: &str,
    iterations: u32,
    seconds: f64,
    resumed_from: u32,
) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO puzzle_learners (job, domain, iterations, seconds, resumed_from) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(domain)
    .bind(iterations as i32)
    .bind(seconds)
    .bind(resumed_from as i32)
    .execute(tx)
    .await?;
    Ok(())
}

/// A test task's optimal cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Optimal {
    pub domain: String,
    pub state: String,
    pub cost: u32,
    pub generated: u64,
    pub seconds: f64,
    pub source: Source,
}

/// Where an optimal cost came from (`puzzle_optimal.source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The farm's IDA* with the family's optimal heuristic (checked against the published
    /// optimum where the task has one).
    Search,
    /// A benchmark set's published optimum, taken without a search.
    Published,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Search => "search",
            Source::Published => "published",
        }
    }
}

pub async fn insert_optimal(tx: &mut PgConnection, job: &str, o: &Optimal) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO puzzle_optimal (job, domain, state, cost, generated, seconds, source)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&o.domain)
    .bind(&o.state)
    .bind(o.cost as i32)
    .bind(o.generated as i64)
    .bind(o.seconds)
    .bind(o.source.as_str())
    .execute(tx)
    .await?;
    Ok(())
}

/// The optimal cost a solve job found.
pub async fn optimal_cost(pool: &PgPool, job: &str) -> Result<Option<u32>, DbError> {
    let row: Option<(i32,)> =
        sqlx::query_as("SELECT cost FROM puzzle_optimal WHERE job = $1").bind(job).fetch_optional(pool).await?;
    Ok(row.map(|(c,)| c as u32))
}

/// One test run.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRun {
    pub learner: String,
    pub domain: String,
    pub state: String,
    pub alpha: Option<f64>,
    pub status: String,
    pub cost: Option<u32>,
    pub optimal: u32,
    pub generated: u64,
    pub expanded: u64,
    pub seconds: f64,
}

pub async fn insert_test_run(tx: &mut PgConnection, job: &str, r: &TestRun) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO puzzle_test_runs (job, learner, domain, state, alpha, status, cost, optimal, generated,
             expanded, seconds)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&r.learner)
    .bind(&r.domain)
    .bind(&r.state)
    .bind(r.alpha)
    .bind(&r.status)
    .bind(r.cost.map(|c| c as i32))
    .bind(r.optimal as i32)
    .bind(r.generated as i64)
    .bind(r.expanded as i64)
    .bind(r.seconds)
    .execute(tx)
    .await?;
    Ok(())
}

/// One set of growing walks run by a `puzzle_efficiency` job.
#[derive(Debug, Clone, PartialEq)]
pub struct EfficiencyRun {
    pub learner: String,
    pub domain: String,
    pub alpha: Option<f64>,
    /// The walks' seed and set number (`likely::efficiency::growing_walks`).
    pub seed: u64,
    pub set: u32,
    pub budget_s: f64,
    pub tasks: u32,
    pub attempted: u32,
    pub solved: u32,
    pub seconds: f64,
    /// `likely::efficiency::TaskRun` per task attempted.
    pub runs: serde_json::Value,
}

pub async fn insert_efficiency_run(tx: &mut PgConnection, job: &str, r: &EfficiencyRun) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO puzzle_efficiency_runs (job, learner, domain, alpha, seed, set, budget_s, tasks, attempted,
             solved, seconds, runs)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&r.learner)
    .bind(&r.domain)
    .bind(r.alpha)
    .bind(r.seed as i64)
    .bind(r.set as i32)
    .bind(r.budget_s)
    .bind(r.tasks as i32)
    .bind(r.attempted as i32)
    .bind(r.solved as i32)
    .bind(r.seconds)
    .bind(&r.runs)
    .execute(tx)
    .await?;
    Ok(())
}
