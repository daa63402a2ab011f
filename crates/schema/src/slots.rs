//! Slots of a grid that could not be filled: a generate job whose every try
//! was trivial or unsolved within its limits ends with "no instance" (not a
//! failure), recorded here with what each try found and the CPU it spent.
//! The jobs that need that instance are then skipped.

use sqlx::postgres::PgPool;
use sqlx::PgConnection;
use uuid::Uuid;

use crate::DbError;

/// One try of a generate job.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Try {
    pub generator_seed: u64,
    /// `trivial` (goal true at the start) or the search's status (`time_limit`, `memory_limit`, `unsolvable`).
    pub outcome: String,
    /// CPU seconds of generating, grounding and searching.
    pub cpu_s: f64,
}

/// A slot without an instance.
#[derive(Debug, Clone)]
pub struct UnfilledSlot {
    pub domain: String,
    pub split: String,
    /// The generator parameters (`planner::generate::Params` as JSON).
    pub generator: serde_json::Value,
    pub seed: u64,
    pub tries: Vec<Try>,
}

pub async fn record_unfilled(tx: &mut PgConnection, job: &str, s: &UnfilledSlot) -> Result<(), DbError> {
    let tries = serde_json::to_value(&s.tries).map_err(|e| DbError::Decode(e.to_string()))?;
    let cpu_s: f64 = s.tries.iter().map(|t| t.cpu_s).sum();
    sqlx::query(
        "INSERT INTO unfilled_slots (job, domain, split, generator, seed, tries, cpu_s)
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&s.domain)
    .bind(&s.split)
    .bind(&s.generator)
    .bind(s.seed as i64)
    .bind(tries)
    .bind(cpu_s)
    .execute(tx)
    .await?;
    Ok(())
}

/// The experiment's unfilled slots: (generate job, domain, split, generator, CPU seconds).
pub async fn unfilled(
    pool: &PgPool,
    experiment: Uuid,
) -> Result<Vec<(String, String, String, serde_json::Value, f64)>, DbError> {
    Ok(sqlx::query_as(
        "SELECT u.job, u.domain, u.split, u.generator, u.cpu_s FROM unfilled_slots u
         JOIN experiment_jobs e ON e.job = u.job WHERE e.experiment = $1 ORDER BY u.domain, u.split, u.job",
    )
    .bind(experiment)
    .fetch_all(pool)
    .await?)
}
