//! One module per job kind, each `load -> compute -> store`: read its inputs
//! from PostgreSQL, compute on a blocking thread with the science crates,
//! and write its results with its completion in one transaction.
//!
//! Adding a job kind: a `JobSpec` variant (`jobs::spec`), a module here with
//! its `run`, and one line in [`execute`]'s match.

mod draw;
mod evaluate;
pub(crate) mod generate;
mod graphlearn;
mod label;
mod likely;
mod noop;
pub mod plan;
pub mod train;

use jobs::JobSpec;
use schema::lifecycle::Claimed;
use schema::PgPool;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use crate::isolate::Isolation;
use crate::job::{failed, Ctx, JobError};

pub use generate::{generate_instance, Outcome};

/// Runs a claimed job for `worker`. Ok(false) if the job stopped being ours
/// (lease lost, cancelled): its results were rolled back.
pub async fn execute(
    pool: &PgPool,
    job: &Claimed,
    worker: &str,
    isolation: &Isolation,
    pdb_threads: usize,
    cancel: Arc<AtomicBool>,
) -> Result<bool, JobError> {
    let spec: JobSpec = serde_json::from_value(job.spec.clone()).map_err(|e| failed(format!("bad job spec: {e}")))?;
    let ctx = Ctx { pool, job, worker, isolation, pdb_threads, cancel };
    match spec {
        JobSpec::Generate { domain, split, params, seed, limits, instances } => {
            generate::run(&ctx, domain, split, params, seed, limits, instances).await
        }
        JobSpec::Label { features, .. } => label::run(&ctx, features).await,
        JobSpec::Plan { domain, heuristic, limits, planning } => {
            plan::run(&ctx, domain, heuristic, limits, planning).await
        }
        JobSpec::Train { domain, model, distribution, sigma, bound, residual, seed, steps, train_instances } => {
            let axes = crate::learned::axes(model, distribution, sigma, bound, residual)?;
            train::run(&ctx, domain, axes, seed, steps, train_instances).await
        }
        JobSpec::Evaluate { domain, bound } => evaluate::run(&ctx, domain, bound).await,
        JobSpec::Draw { n, rank, .. } => draw::run(&ctx, n, rank).await,
        JobSpec::Noop { .. } => noop::run(&ctx).await,
        JobSpec::PuzzleLearn { domain, pdb_inputs, settings, model, iterations, seed, tasks, limits } => {
            likely::learn(&ctx, domain, pdb_inputs, settings, model, iterations, seed, tasks, limits).await
        }
        JobSpec::PuzzleSolve { domain, state, published, trust_published } => {
            likely::solve(&ctx, domain, state, published, trust_published).await
        }
        JobSpec::PuzzleTest { domain, pdb_inputs, state, alpha, limits } => {
            likely::test(&ctx, domain, pdb_inputs, state, alpha, limits).await
        }
        JobSpec::PuzzleEfficiency { domain, pdb_inputs, alpha, tasks, seed, set, budget_s, limits } => {
            let set = likely::GrowingSet { tasks, seed, set, budget_s };
            likely::efficiency(&ctx, domain, pdb_inputs, alpha, set, limits).await
        }
        JobSpec::GraphBootstrap {
            domain,
            domain_pddl,
            problems,
            held_out,
            configuration,
            bootstrap,
            network,
            seed,
        } => {
            graphlearn::bootstrap(
                &ctx,
                domain,
                domain_pddl,
                problems,
                held_out,
                configuration,
                bootstrap,
                network,
                seed,
            )
            .await
        }
        JobSpec::GraphFold {
            domain,
            held_out,
            configuration,
            adjustments,
            value_adjustments,
            network,
            search,
            seed,
        } => {
            let adjust = graphlearn::FoldAdjustments { networks: adjustments, values: value_adjustments };
            graphlearn::fold(&ctx, domain, held_out, configuration, adjust, network, search, seed).await
        }
        JobSpec::GraphBaseline { domain, domain_pddl, problem, heuristic, search } => {
            graphlearn::baseline(&ctx, domain, domain_pddl, problem, heuristic, search).await
        }
    }
}
