//! One claimed job: load its inputs, compute on a blocking thread, write its
//! results and mark it succeeded in the same transaction.

use jobs::spec::PlanHeuristic;
use jobs::JobSpec;
use schema::lifecycle::{self, Claimed};
use sqlx::PgPool;

use crate::{compute, learning};

/// Why a job attempt failed (recorded as the job's `last_error`).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{0}")]
    Failed(String),
    #[error("database: {0}")]
    Db(#[from] sqlx::Error),
    #[error("database: {0}")]
    Schema(#[from] schema::DbError),
}

pub(crate) fn failed(e: impl std::fmt::Display) -> JobError {
    JobError::Failed(e.to_string())
}

async fn blocking<T: Send + 'static>(f: impl FnOnce() -> Result<T, String> + Send + 'static) -> Result<T, JobError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| failed(format!("job panicked: {e}")))?.map_err(JobError::Failed)
}

/// The instance produced by a generate job.
async fn instance(pool: &PgPool, key: &str) -> Result<(String, String, Vec<String>, String, String), JobError> {
    let row: Option<(String, String, serde_json::Value, String, String)> =
        sqlx::query_as("SELECT domain_pddl, problem_pddl, plan, domain, split FROM instances WHERE job = $1")
            .bind(key)
            .fetch_optional(pool)
            .await?;
    let (d, p, plan, domain, split) = row.ok_or_else(|| failed(format!("input {key} has no instance")))?;
    let plan: Vec<String> = serde_json::from_value(plan).map_err(failed)?;
    Ok((d, p, plan, domain, split))
}

/// Runs `job` for `worker`. Ok(false) if the job stopped being ours (lease
/// lost, cancelled): its results were rolled back.
pub async fn execute(pool: &PgPool, job: &Claimed, worker: &str) -> Result<bool, JobError> {
    let spec: JobSpec = serde_json::from_value(job.spec.clone()).map_err(|e| failed(format!("bad job spec: {e}")))?;
    match spec {
        JobSpec::Generate { domain, split, params, seed, limits } => {
            let d = domain.clone();
            let inst = blocking(move || compute::generate_instance(&d, split, &params, seed, &limits)).await?;
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO instances (job, domain, split, generator, seed, generator_seed, tries, domain_pddl,
                     problem_pddl, optimal_cost, plan, expansions, search_time_s)
                 VALUES ($1, $2, $3, $4, $5, $6::numeric, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (job) DO NOTHING",
            )
            .bind(&job.key)
            .bind(&domain)
            .bind(split.as_str())
            .bind(serde_json::to_value(params).map_err(failed)?)
            .bind(seed as i64)
            .bind(inst.generator_seed.to_string())
            .bind(inst.tries as i32)
            .bind(&inst.domain_pddl)
            .bind(&inst.problem_pddl)
            .bind(inst.optimal_cost as i32)
            .bind(serde_json::to_value(&inst.plan).map_err(failed)?)
            .bind(inst.expansions as i64)
            .bind(inst.search_time_s)
            .execute(&mut *tx)
            .await?;
            commit_if_ours(tx, &job.key, worker).await
        }
        JobSpec::Label { .. } => {
            let input = job.inputs.first().ok_or_else(|| failed("label job without input"))?;
            let (d, p, plan, domain, split) = instance(pool, input).await?;
            let states = blocking(move || compute::label(&d, &p, &plan)).await?;
            let mut tx = pool.begin().await?;
            for s in &states {
                sqlx::query(
                    "INSERT INTO labelled_states (job, step, instance, domain, split, atoms, h_star, lmcut, hmax, blind,
                         hadd, ff, goalcount, deletes_ignored, mean_deletes_ignored)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) ON CONFLICT DO NOTHING",
                )
                .bind(&job.key)
                .bind(s.step as i32)
                .bind(input)
                .bind(&domain)
                .bind(&split)
                .bind(serde_json::to_value(&s.atoms).map_err(failed)?)
                .bind(s.h_star as i32)
                .bind(s.lmcut)
                .bind(s.hmax)
                .bind(s.blind)
                .bind(s.hadd)
                .bind(s.ff)
                .bind(s.goalcount)
                .bind(s.deletes_ignored)
                .bind(s.mean_deletes_ignored)
                .execute(&mut *tx)
                .await?;
            }
            commit_if_ours(tx, &job.key, worker).await
        }
        JobSpec::Plan { domain, heuristic, limits } => {
            let input = job.inputs.last().ok_or_else(|| failed("plan job without instance"))?;
            let (d, p, _, _, _) = instance(pool, input).await?;
            let (run, name, model, passes) = match heuristic {
                PlanHeuristic::Classical { name } => {
                    let h = name.clone();
                    (blocking(move || compute::plan_classical(&d, &p, &h, &limits)).await?, name, None, None)
                }
                PlanHeuristic::Learned { clip } => {
                    let model = job.inputs.first().ok_or_else(|| failed("learned plan job without its model"))?;
                    let (config, weights) = learning::checkpoint(pool, model, "best_mse")
                        .await?
                        .ok_or_else(|| failed(format!("{model} has no model")))?;
                    let clip = clip.map(learning::classical);
                    let (run, passes) =
                        blocking(move || compute::plan_learned(config, &weights, &d, &p, clip, &limits)).await?;
                    let name = if clip.is_some() { "learned+clip" } else { "learned" };
                    (run, name.to_string(), Some(model.clone()), Some(passes as i64))
                }
            };
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO plan_runs (job, instance, domain, heuristic, search, status, solved, cost, plan_length,
                     evaluations, expansions, generated, search_time_s, max_evaluations, model, forward_passes)
                 VALUES ($1, $2, $3, $4, 'gbfs', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
                 ON CONFLICT (job) DO NOTHING",
            )
            .bind(&job.key)
            .bind(input)
            .bind(&domain)
            .bind(&name)
            .bind(run.status.as_str())
            .bind(run.status == planner::search::SearchStatus::Solved)
            .bind(run.cost.map(|c| c as i32))
            .bind(run.plan_length.map(|c| c as i32))
            .bind(run.evaluations as i64)
            .bind(run.expansions as i64)
            .bind(run.generated as i64)
            .bind(run.search_time_s)
            .bind(limits.max_evaluations as i64)
            .bind(model)
            .bind(passes)
            .execute(&mut *tx)
            .await?;
            commit_if_ours(tx, &job.key, worker).await
        }
        JobSpec::Train { domain, model, distribution, sigma, bound, residual, seed, steps, train_instances } => {
            let axes = learning::axes(model, distribution, sigma, bound, residual);
            let mut config = learner::TrainConfig::paper(axes.model, seed, steps);
            config.train_instances = train_instances as usize;
            let t = learning::train(pool, &job.key, worker, axes, config, &job.inputs).await?;
            let best: Option<(Option<f64>, Option<f64>)> =
                sqlx::query_as("SELECT min(val_mse), min(val_nll) FROM training_curves WHERE job = $1")
                    .bind(&job.key)
                    .fetch_optional(pool)
                    .await?;
            let (best_mse, best_nll) = best.unwrap_or((None, None));
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO models (job, domain, config, device, steps, train_instances, train_samples,
                     validation_samples, best_val_mse, best_val_nll, train_seconds, resumed_from)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (job) DO NOTHING",
            )
            .bind(&job.key)
            .bind(&domain)
            .bind(serde_json::to_value(&t.config).map_err(failed)?)
            .bind(&t.device)
            .bind(steps as i64)
            .bind(t.train_instances as i32)
            .bind(t.train_samples as i32)
            .bind(t.validation_samples as i32)
            .bind(best_mse)
            .bind(best_nll)
            .bind(t.seconds)
            .bind(t.resumed_from as i64)
            .execute(&mut *tx)
            .await?;
            commit_if_ours(tx, &job.key, worker).await
        }
        JobSpec::Evaluate { domain, bound } => {
            let (model, tests) = job.inputs.split_first().ok_or_else(|| failed("evaluate job without its model"))?;
            let m = learning::evaluate(pool, model, bound, tests).await?;
            let mut tx = pool.begin().await?;
            sqlx::query(
                "INSERT INTO evaluations (job, model, domain, bound, samples, mse, mse_clip, nll, nll_clip, ff_mse,
                     lmcut_mse, sigma)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) ON CONFLICT (job) DO NOTHING",
            )
            .bind(&job.key)
            .bind(model)
            .bind(&domain)
            .bind(bound.as_str())
            .bind(m.samples as i32)
            .bind(m.mse)
            .bind(m.mse_clip)
            .bind(m.nll)
            .bind(m.nll_clip)
            .bind(m.ff_mse)
            .bind(m.lmcut_mse)
            .bind(m.sigma)
            .execute(&mut *tx)
            .await?;
            commit_if_ours(tx, &job.key, worker).await
        }
        JobSpec::Noop { .. } => commit_if_ours(pool.begin().await?, &job.key, worker).await,
    }
}

async fn commit_if_ours(
    mut tx: sqlx::Transaction<'_, sqlx::Postgres>,
    key: &str,
    worker: &str,
) -> Result<bool, JobError> {
    if lifecycle::finish(&mut tx, key, worker).await? {
        tx.commit().await?;
        Ok(true)
    } else {
        tx.rollback().await?;
        Ok(false)
    }
}
