//! What the `graph_*` jobs (Trunda's experiment kind) store, in their
//! finishing transaction: a finished bootstrap with its problems and
//! samples (which its folds read), and A* runs. A bootstrap's state
//! between rounds is its `last` checkpoint ([`crate::training`]).

use sqlx::postgres::PgPool;
use sqlx::PgConnection;

use crate::DbError;

/// A finished bootstrap.
#[derive(Debug, Clone)]
pub struct Bootstrap {
    pub domain: String,
    pub held_out: Option<String>,
    pub rounds: u32,
    pub stopped: String,
    pub samples: u64,
    pub history: serde_json::Value,
    pub seconds: f64,
    pub resumed_from: u32,
    /// graphlearn::adjust::DeltaStats per alpha, with its `alpha` (Tables 5.1-5.3).
    pub features: serde_json::Value,
}

/// A problem of a bootstrap, with its samples.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub name: String,
    pub domain_pddl: String,
    pub pddl: String,
    pub samples: serde_json::Value,
}

pub async fn insert_bootstrap(
    tx: &mut PgConnection,
    job: &str,
    b: &Bootstrap,
    problems: &[Problem],
) -> Result<(), DbError> {
    let n = sqlx::query(
        "INSERT INTO graph_bootstraps (job, domain, held_out, rounds, stopped, samples, history, seconds, resumed_from,
             features)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&b.domain)
    .bind(&b.held_out)
    .bind(b.rounds as i32)
    .bind(&b.stopped)
    .bind(b.samples as i32)
    .bind(&b.history)
    .bind(b.seconds)
    .bind(b.resumed_from as i32)
    .bind(&b.features)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if n == 0 {
        return Ok(());
    }
    for (i, p) in problems.iter().enumerate() {
        sqlx::query(
            "INSERT INTO graph_problems (job, position, name, domain_pddl, pddl, samples) VALUES ($1, $2, $3, $4, $5, $6)",
        )
        .bind(job)
        .bind(i as i32)
        .bind(&p.name)
        .bind(&p.domain_pddl)
        .bind(&p.pddl)
        .bind(&p.samples)
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

/// A bootstrap's problems with their samples, in order.
pub async fn problems(pool: &PgPool, bootstrap: &str) -> Result<Vec<Problem>, DbError> {
    let rows: Vec<(String, String, String, serde_json::Value)> =
        sqlx::query_as("SELECT name, domain_pddl, pddl, samples FROM graph_problems WHERE job = $1 ORDER BY position")
            .bind(bootstrap)
            .fetch_all(pool)
            .await?;
    Ok(rows
        .into_iter()
        .map(|(name, domain_pddl, pddl, samples)| Problem { name, domain_pddl, pddl, samples })
        .collect())
}

/// One A* run: a fold's (learned, or adjusted: `a3-mse:min`) or a baseline's.
/// A fold job writes one per configuration it searched with.
#[derive(Debug, Clone)]
pub struct Run {
    pub domain: String,
    pub problem: String,
    pub configuration: String,
    pub learned: bool,
    pub seed: Option<u64>,
    pub solved: bool,
    pub status: String,
    pub cost: Option<u64>,
    pub expansions: u64,
    pub evaluations: u64,
    pub seconds: f64,
    pub samples: Option<u64>,
    pub run: serde_json::Value,
}

pub async fn insert_run(tx: &mut PgConnection, job: &str, r: &Run) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO graph_runs (job, domain, problem, configuration, learned, seed, solved, status, cost, expansions,
             evaluations, seconds, samples, run)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) ON CONFLICT (job, configuration) DO NOTHING",
    )
    .bind(job)
    .bind(&r.domain)
    .bind(&r.problem)
    .bind(&r.configuration)
    .bind(r.learned)
    .bind(r.seed.map(|s| s as i64))
    .bind(r.solved)
    .bind(&r.status)
    .bind(r.cost.map(|c| c as i64))
    .bind(r.expansions as i64)
    .bind(r.evaluations as i64)
    .bind(r.seconds)
    .bind(r.samples.map(|s| s as i32))
    .bind(&r.run)
    .execute(tx)
    .await?;
    Ok(())
}
