//! What each job kind stores. Writes take the caller's transaction, the one
//! that also marks the job succeeded (`lifecycle::finish`), so results and
//! completion land together or not at all. Result tables are keyed by the
//! job key: one result per job, whatever its attempts (`ON CONFLICT DO
//! NOTHING`).

use std::collections::{BTreeMap, HashMap};

use sqlx::postgres::PgPool;
use sqlx::{PgConnection, QueryBuilder};

use crate::training::Tag;
use crate::DbError;

fn json<T: serde::Serialize>(v: &T) -> Result<serde_json::Value, DbError> {
    serde_json::to_value(v).map_err(|e| DbError::Decode(e.to_string()))
}

/// A generated instance with its optimal plan (a generate job's result).
#[derive(Debug, Clone)]
pub struct NewInstance {
    pub domain: String,
    pub split: String,
    /// The generator parameters (`planner::generate::Params` as JSON).
    pub generator: serde_json::Value,
    pub seed: u64,
    /// The generator seed of the accepted try.
    pub generator_seed: u64,
    pub tries: u32,
    pub domain_pddl: String,
    pub problem_pddl: String,
    pub optimal_cost: u64,
    pub plan: Vec<String>,
    pub expansions: u64,
    pub search_time_s: f64,
    /// The slot's cost in CPU seconds: every try (`cpu_s`), the accepted
    /// one alone (`solve_cpu_s`), and what the extrapolation rule predicted
    /// before trying (`jobs::split::SolveLimits::skip_predicted_over`).
    pub effort: Effort,
}

/// What a generate slot cost, in CPU seconds (NULL in rows written before
/// migration 0015).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Effort {
    pub cpu_s: f64,
    pub solve_cpu_s: f64,
    pub predicted_cpu_s: Option<f64>,
}

pub async fn insert_instance(tx: &mut PgConnection, job: &str, i: &NewInstance) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO instances (job, domain, split, generator, seed, generator_seed, tries, domain_pddl,
             problem_pddl, optimal_cost, plan, expansions, search_time_s, cpu_s, solve_cpu_s, predicted_cpu_s)
         VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&i.domain)
    .bind(&i.split)
    .bind(&i.generator)
    .bind(i.seed as i64)
    .bind(i.generator_seed.to_string())
    .bind(i.tries as i32)
    .bind(&i.domain_pddl)
    .bind(&i.problem_pddl)
    .bind(i.optimal_cost as i32)
    .bind(json(&i.plan)?)
    .bind(i.expansions as i64)
    .bind(i.search_time_s)
    .bind(i.effort.cpu_s)
    .bind(i.effort.solve_cpu_s)
    .bind(i.effort.predicted_cpu_s)
    .execute(tx)
    .await?;
    Ok(())
}

/// A stored instance, as the jobs that read it need it.
#[derive(Debug, Clone)]
pub struct Instance {
    pub domain: String,
    pub split: String,
    pub domain_pddl: String,
    pub problem_pddl: String,
    pub plan: Vec<String>,
}

/// The instance a generate job produced; None if it has none.
pub async fn instance(pool: &PgPool, generate_job: &str) -> Result<Option<Instance>, DbError> {
    let row: Option<(String, String, String, String, serde_json::Value)> =
        sqlx::query_as("SELECT domain, split, domain_pddl, problem_pddl, plan FROM instances WHERE job = $1")
            .bind(generate_job)
            .fetch_optional(pool)
            .await?;
    let Some((domain, split, domain_pddl, problem_pddl, plan)) = row else { return Ok(None) };
    let plan = serde_json::from_value(plan).map_err(|e| DbError::Decode(format!("plan of {generate_job}: {e}")))?;
    Ok(Some(Instance { domain, split, domain_pddl, problem_pddl, plan }))
}

/// One labelled state of an optimal plan: h* and the classical values.
#[derive(Debug, Clone, PartialEq)]
pub struct Label {
    pub step: u32,
    /// Every atom true in the state, static ones included.
    pub atoms: Vec<String>,
    pub h_star: u64,
    /// Every registered classical heuristic's value by name, None at a dead
    /// end: the `heuristics` jsonb column (null for a dead end), so that a
    /// new heuristic needs no column.
    pub heuristics: BTreeMap<String, Option<f64>>,
    pub deletes_ignored: Option<f64>,
    pub mean_deletes_ignored: Option<f64>,
    /// The linear model's hFF feature where it is not the `ff` value
    /// (`planner::label::LabelledState::feature_ff`).
    pub feature_ff: Option<f64>,
}

/// Rows per INSERT: 11 parameters each, under PostgreSQL's 65,535.
const LABELS_PER_INSERT: usize = 2_000;

/// A label job's states, written in multi-row INSERTs.
pub async fn insert_labels(
    tx: &mut PgConnection,
    job: &str,
    instance: &str,
    domain: &str,
    split: &str,
    labels: &[Label],
) -> Result<(), DbError> {
    for chunk in labels.chunks(LABELS_PER_INSERT) {
        let atoms: Vec<serde_json::Value> = chunk.iter().map(|l| json(&l.atoms)).collect::<Result<_, _>>()?;
        let mut q = QueryBuilder::new(
            "INSERT INTO labelled_states (job, step, instance, domain, split, atoms, h_star, heuristics,
                 deletes_ignored, mean_deletes_ignored, feature_ff) ",
        );
        let values: Vec<serde_json::Value> = chunk.iter().map(|l| json(&l.heuristics)).collect::<Result<_, _>>()?;
        q.push_values(chunk.iter().zip(atoms).zip(values), |mut b, ((l, atoms), values)| {
            b.push_bind(job)
                .push_bind(l.step as i32)
                .push_bind(instance)
                .push_bind(domain)
                .push_bind(split)
                .push_bind(atoms)
                .push_bind(l.h_star as i32)
                .push_bind(values)
                .push_bind(l.deletes_ignored)
                .push_bind(l.mean_deletes_ignored)
                .push_bind(l.feature_ff);
        });
        q.push(" ON CONFLICT DO NOTHING");
        q.build().execute(&mut *tx).await?;
    }
    Ok(())
}

/// The labelled states of one instance, in plan order.
#[derive(Debug, Clone)]
pub struct LabelledInstance {
    /// The generate job of the instance.
    pub instance: String,
    pub split: String,
    pub domain_pddl: String,
    pub problem_pddl: String,
    pub labels: Vec<Label>,
}

#[derive(sqlx::FromRow)]
struct LabelRow {
    job: String,
    step: i32,
    atoms: serde_json::Value,
    h_star: i32,
    heuristics: serde_json::Value,
    deletes_ignored: Option<f64>,
    mean_deletes_ignored: Option<f64>,
    feature_ff: Option<f64>,
}

/// The labelled instances of `label_jobs` (in job order). Two queries
/// whatever the number of jobs: the instances, then every state.
pub async fn labelled_instances(pool: &PgPool, label_jobs: &[String]) -> Result<Vec<LabelledInstance>, DbError> {
    let instances: Vec<(String, String, String, String, String)> = sqlx::query_as(
        "SELECT l.job, i.job, i.split, i.domain_pddl, i.problem_pddl
         FROM (SELECT DISTINCT job, instance FROM labelled_states WHERE job = ANY($1)) l
         JOIN instances i ON i.job = l.instance ORDER BY l.job",
    )
    .bind(label_jobs)
    .fetch_all(pool)
    .await?;
    let rows: Vec<LabelRow> = sqlx::query_as(
        "SELECT job, step, atoms, h_star, heuristics, deletes_ignored, mean_deletes_ignored, feature_ff
         FROM labelled_states WHERE job = ANY($1) ORDER BY job, step",
    )
    .bind(label_jobs)
    .fetch_all(pool)
    .await?;
    let mut by_job: HashMap<String, Vec<Label>> = HashMap::new();
    for r in rows {
        let decode = |what: &str, e: serde_json::Error| DbError::Decode(format!("labels of {}: {what}: {e}", r.job));
        let atoms: Vec<String> = serde_json::from_value(r.atoms).map_err(|e| decode("atoms", e))?;
        let heuristics = serde_json::from_value(r.heuristics).map_err(|e| decode("heuristics", e))?;
        by_job.entry(r.job).or_default().push(Label {
            step: r.step as u32,
            atoms,
            h_star: r.h_star as u64,
            heuristics,
            deletes_ignored: r.deletes_ignored,
            mean_deletes_ignored: r.mean_deletes_ignored,
            feature_ff: r.feature_ff,
        });
    }
    Ok(instances
        .into_iter()
        .map(|(label_job, instance, split, domain_pddl, problem_pddl)| LabelledInstance {
            labels: by_job.remove(&label_job).unwrap_or_default(),
            instance,
            split,
            domain_pddl,
            problem_pddl,
        })
        .collect())
}

/// One greedy planning run (a plan job's result).
#[derive(Debug, Clone)]
pub struct PlanRun {
    /// The generate job of the instance planned on.
    pub instance: String,
    pub domain: String,
    /// A classical heuristic's name, `learned` or `learned+clip`.
    pub heuristic: String,
    pub search: String,
    pub status: String,
    pub solved: bool,
    pub cost: Option<u64>,
    pub plan_length: Option<u64>,
    /// The paper counts the whole budget for an unsolved instance.
    pub evaluations: u64,
    pub expansions: u64,
    pub generated: u64,
    pub search_time_s: f64,
    pub max_evaluations: u64,
    /// The train job of a learned heuristic.
    pub model: Option<String>,
    pub forward_passes: Option<u64>,
}

pub async fn insert_plan_run(tx: &mut PgConnection, job: &str, r: &PlanRun) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO plan_runs (job, instance, domain, heuristic, search, status, solved, cost, plan_length,
             evaluations, expansions, generated, search_time_s, max_evaluations, model, forward_passes)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
         ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&r.instance)
    .bind(&r.domain)
    .bind(&r.heuristic)
    .bind(&r.search)
    .bind(&r.status)
    .bind(r.solved)
    .bind(r.cost.map(|c| c as i32))
    .bind(r.plan_length.map(|c| c as i32))
    .bind(r.evaluations as i64)
    .bind(r.expansions as i64)
    .bind(r.generated as i64)
    .bind(r.search_time_s)
    .bind(r.max_evaluations as i64)
    .bind(&r.model)
    .bind(r.forward_passes.map(|p| p as i64))
    .execute(tx)
    .await?;
    Ok(())
}

/// A trained model (a train job's result; its weights are in `checkpoints`).
#[derive(Debug, Clone)]
pub struct Model {
    pub domain: String,
    /// `learner::ModelConfig` as JSON.
    pub config: serde_json::Value,
    pub device: String,
    pub steps: u64,
    pub train_instances: u32,
    pub train_samples: u32,
    pub validation_samples: u32,
    pub best_val_mse: Option<f64>,
    pub best_val_nll: Option<f64>,
    /// Seconds of the attempt that finished.
    pub train_seconds: f64,
    /// The step that attempt resumed from (0: from scratch).
    pub resumed_from: u64,
}

pub async fn insert_model(tx: &mut PgConnection, job: &str, m: &Model) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO models (job, domain, config, device, steps, train_instances, train_samples,
             validation_samples, best_val_mse, best_val_nll, train_seconds, resumed_from)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (job) DO NOTHING",
    )
    .bind(job)
    .bind(&m.domain)
    .bind(&m.config)
    .bind(&m.device)
    .bind(m.steps as i64)
    .bind(m.train_instances as i32)
    .bind(m.train_samples as i32)
    .bind(m.validation_samples as i32)
    .bind(m.best_val_mse)
    .bind(m.best_val_nll)
    .bind(m.train_seconds)
    .bind(m.resumed_from as i64)
    .execute(tx)
    .await?;
    Ok(())
}

/// Test metrics of one checkpoint of a model (an evaluate job's result: one
/// per checkpoint it evaluated).
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// The train job evaluated.
    pub model: String,
    /// Its checkpoint: [`Tag::BestMse`] or [`Tag::BestNll`] (the table
    /// refuses [`Tag::Last`]).
    pub checkpoint: Tag,
    pub domain: String,
    pub bound: String,
    pub samples: u32,
    pub mse: f64,
    pub mse_clip: f64,
    pub nll: f64,
    pub nll_clip: f64,
    pub ff_mse: f64,
    pub lmcut_mse: f64,
    pub sigma: f64,
}

pub async fn insert_evaluation(tx: &mut PgConnection, job: &str, e: &Evaluation) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO evaluations (job, model, checkpoint, domain, bound, samples, mse, mse_clip, nll, nll_clip,
             ff_mse, lmcut_mse, sigma)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (job, checkpoint) DO NOTHING",
    )
    .bind(job)
    .bind(&e.model)
    .bind(e.checkpoint.as_str())
    .bind(&e.domain)
    .bind(&e.bound)
    .bind(e.samples as i32)
    .bind(e.mse)
    .bind(e.mse_clip)
    .bind(e.nll)
    .bind(e.nll_clip)
    .bind(e.ff_mse)
    .bind(e.lmcut_mse)
    .bind(e.sigma)
    .execute(tx)
    .await?;
    Ok(())
}
