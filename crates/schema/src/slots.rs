//! Slots of a grid that could not be filled: a generate job whose every try
//! was trivial or unsolved within its limits ends with "no instance" (not a
//! failure), recorded here with what each try found and the CPU it spent.
//! The jobs that need that instance are then skipped.
//!
//! Test slots drawn into a planning sample ([`draw`]) live here too: a slot
//! not drawn is, for the plan jobs behind it, a slot without an instance.

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
    pub reason: SlotEnd,
    /// What the extrapolation rule predicted for the slot (CPU seconds),
    /// where the same seed's easier slots gave it something to go on.
    pub predicted_cpu_s: Option<f64>,
}

/// Why a slot has no instance (`unfilled_slots.reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotEnd {
    /// Every try was trivial or unsolved.
    Tries,
    /// `give_up_after` tries in a row ran out of time or memory.
    GaveUp,
    /// The extrapolated CPU exceeded the rule's bound: nothing was tried.
    Predicted,
    /// The same size's previous seeds all ended without an instance
    /// (`skip_after_failed_seeds`): nothing was tried.
    Seeds,
}

impl SlotEnd {
    pub fn as_str(self) -> &'static str {
        match self {
            SlotEnd::Tries => "tries",
            SlotEnd::GaveUp => "gave_up",
            SlotEnd::Predicted => "predicted",
            SlotEnd::Seeds => "seeds",
        }
    }
}

pub async fn record_unfilled(tx: &mut PgConnection, job: &str, s: &UnfilledSlot) -> Result<(), DbError> {
    let tries = serde_json::to_value(&s.tries).map_err(|e| DbError::Decode(e.to_string()))?;
    let cpu_s: f64 = s.tries.iter().map(|t| t.cpu_s).sum();
    sqlx::query(
        "INSERT INTO unfilled_slots (job, domain, split, generator, seed, tries, cpu_s, reason, predicted_cpu_s)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&s.domain)
    .bind(&s.split)
    .bind(&s.generator)
    .bind(s.seed as i64)
    .bind(tries)
    .bind(cpu_s)
    .bind(s.reason.as_str())
    .bind(s.predicted_cpu_s)
    .execute(tx)
    .await?;
    Ok(())
}

/// The CPU seconds of the accepted try of each slot a generate job waits
/// for, nearest first: its gate (its first input, the same seed's next
/// easier slot, `jobs::expand`), that slot's gate, and so on, up to `links`
/// of them. The chain stops at the first slot without an instance or
/// without a recorded CPU time.
pub async fn gate_chain_solve_cpu(pool: &PgPool, job: &str, links: i32) -> Result<Vec<f64>, DbError> {
    let rows: Vec<(Option<f64>,)> = sqlx::query_as(
        "WITH RECURSIVE chain (job, depth) AS (
             SELECT x.input, 1 FROM job_inputs x WHERE x.job = $1 AND x.position = 0
             UNION ALL
             SELECT x.input, c.depth + 1 FROM chain c JOIN job_inputs x ON x.job = c.job AND x.position = 0
             WHERE c.depth < $2
         )
         SELECT i.solve_cpu_s FROM chain c LEFT JOIN instances i ON i.job = c.job ORDER BY c.depth",
    )
    .bind(job)
    .bind(links)
    .fetch_all(pool)
    .await?;
    Ok(rows.into_iter().map_while(|(t,)| t).collect())
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

/// How many of the experiment's slots no try could fill (what
/// [`unfilled`] lists, counted).
pub async fn unfilled_count(pool: &PgPool, experiment: Uuid) -> Result<i64, DbError> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM unfilled_slots u JOIN experiment_jobs e ON e.job = u.job WHERE e.experiment = $1",
    )
    .bind(experiment)
    .fetch_one(pool)
    .await?;
    Ok(n)
}

/// How many of `jobs` (generate jobs) have no instance: ended without one,
/// or skipped.
pub async fn without_instance(pool: &PgPool, jobs: &[String]) -> Result<usize, DbError> {
    let (n,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM unnest($1::text[]) j (key) WHERE NOT EXISTS (SELECT 1 FROM instances i WHERE i.job = j.key)",
    )
    .bind(jobs)
    .fetch_one(pool)
    .await?;
    Ok(n as usize)
}

/// A draw's decision ([`draw`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Draw {
    /// Slots drawn before this one in the sample's order.
    pub drawn_before: u32,
    pub drawn: bool,
}

/// Decides and records draw job `job` (rank `rank`) in `tx`: its slot
/// (generate job `slot`) is drawn when it has an instance and fewer than
/// `n` slots were drawn before it, a count read from the previous draw in
/// the order (`previous`; none for the first). Deciding again returns the
/// decision stored the first time.
pub async fn draw(
    tx: &mut PgConnection,
    job: &str,
    slot: &str,
    previous: Option<&str>,
    rank: u32,
    n: u32,
) -> Result<Draw, DbError> {
    let (drawn_before, drawn): (i32, bool) = sqlx::query_as(
        "WITH before AS (
             SELECT coalesce((SELECT drawn_before + drawn::int FROM planning_draws WHERE job = $3), 0) AS n
         ), decided AS (
             INSERT INTO planning_draws (job, slot, rank, drawn_before, drawn)
             SELECT $1, $2, $4, before.n, before.n < $5 AND EXISTS (SELECT 1 FROM instances i WHERE i.job = $2)
             FROM before
             ON CONFLICT (job) DO NOTHING
             RETURNING drawn_before, drawn
         )
         SELECT drawn_before, drawn FROM decided
         UNION ALL
         SELECT drawn_before, drawn FROM planning_draws WHERE job = $1 AND NOT EXISTS (SELECT 1 FROM decided)",
    )
    .bind(job)
    .bind(slot)
    .bind(previous)
    .bind(rank as i32)
    .bind(n as i32)
    .fetch_one(tx)
    .await?;
    Ok(Draw { drawn_before: drawn_before as u32, drawn })
}
