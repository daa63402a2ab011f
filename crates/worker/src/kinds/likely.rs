//! Marom & Rosman's experiment kind (`jobs::likely`): `puzzle_learn` runs
//! LearnHeuristicPrac one outer iteration at a time, writing the learner
//! as the job's `last` checkpoint after each (only while the job is still
//! ours) so that a new attempt after a dead worker resumes at the last
//! finished iteration; `puzzle_solve` finds a test task's optimal cost with
//! IDA* and the family's optimal heuristic (PDBs built once for the farm:
//! `pdb_store`; the gap heuristic for pancakes);
//! `puzzle_test` solves a task with the learned heuristic under one alpha;
//! `puzzle_efficiency` runs one set of growing walks under its cumulative
//! budget (the paper's Table 8, `likely::efficiency`).
//! A learner reads one-hot tiles or the PDB values of a pattern set (the
//! paper's 24-puzzle, pancake and blocksworld inputs), its PDBs from the
//! same store; `likely::inputs::with_features` opens the domain and its
//! features once per blocking call and hands both, statically typed, to the work.
//!
//! These run on the worker's blocking threads, not in an isolated child
//! process: a learner is checkpointed like a training, and the hand-written
//! networks hold no memory worth bounding.

use std::sync::LazyLock;
use std::time::{Duration, Instant};

use jobs::likely::{Preset, Rule as JobRule, SearchLimits, TaskSource as JobTasks};
use likely::efficiency::{growing_walks, run_set, SetRun};
use likely::features::Features;
use likely::heuristic::Rule;
use likely::inputs::{self, Width, WithFeatures};
use likely::prac::{IterationReport, Learner};
use likely::settings::{Model, Settings, TaskSource};
use likely::test::{solve_tests, TestResult, TestTask};
use puzzles::registry::{PdbCache, PdbSource};
use puzzles::search::{Limits, SearchKind, Status};
use puzzles::Domain;
use schema::likely::{EfficiencyRun, Iteration, Optimal, Source, TestRun};
use schema::training::{self, Tag};

use crate::job::{blocking, failed, Ctx, JobError};
use crate::pdb_store::DbPdbStore;

/// PDBs this worker process has loaded: every solve job of a domain reads
/// them once (the 15-puzzle's 7-8 partition is hundreds of MiB).
static PDBS: LazyLock<PdbCache> = LazyLock::new(PdbCache::default);

fn settings(
    preset: Preset,
    rule: JobRule,
    iterations: u32,
    tasks: JobTasks,
    pdb_inputs: bool,
) -> Result<Settings, JobError> {
    let model = match rule {
        JobRule::Quantile => Model::Quantile,
        JobRule::Mean => Model::Mean,
    };
    let base = match preset {
        Preset::Paper => Settings::paper(model, pdb_inputs),
        Preset::Tiny => Settings::tiny(model),
    };
    let tasks = match tasks {
        JobTasks::Uncertainty => TaskSource::Uncertainty,
        JobTasks::RandomWalk { length_inc } => TaskSource::RandomWalk { length_inc },
    };
    let s = Settings { num_iter: iterations, tasks, ..base };
    s.validate().map_err(failed)?;
    Ok(s)
}

/// The spec's limits (the paper's 60 s per training task when it gives
/// none), the searches stopping when the job stops being ours.
fn limits(ctx: &Ctx<'_>, l: SearchLimits, default_time: Option<Duration>) -> Limits {
    let cancel = Some(ctx.cancel.clone());
    match (l.time_s, l.max_generated) {
        (None, None) => Limits { time: default_time, generated: None, cancel },
        (t, g) => Limits { time: t.map(Duration::from_secs_f64), generated: g, cancel },
    }
}

/// Opens `domain` with its inputs, PDBs from the farm's store through this
/// process's cache (built with `threads` where the farm lacks one), and runs
/// `v` ([`likely::inputs::with_features`]).
fn with_features<V: WithFeatures>(
    domain: &str,
    pdb_inputs: Option<&str>,
    store: &DbPdbStore,
    threads: usize,
    v: V,
) -> Result<V::Out, String> {
    inputs::with_features(domain, pdb_inputs, PdbSource { store, threads, cache: Some(&PDBS) }, v)
}

/// One outer iteration of a learner.
struct Iterate {
    learner: Learner,
    settings: Settings,
    limits: Limits,
}

impl WithFeatures for Iterate {
    type Out = (Learner, IterationReport);
    fn run<D: Domain, F: Features>(mut self, d: &D, features: &mut F) -> Result<Self::Out, String> {
        let r = self.learner.iteration(d, features, &self.settings, &self.limits).map_err(|e| e.to_string())?;
        Ok((self.learner, r))
    }
}

#[allow(clippy::too_many_arguments)]
pub async fn learn(
    ctx: &Ctx<'_>,
    domain: String,
    pdb_inputs: Option<String>,
    preset: Preset,
    rule: JobRule,
    iterations: u32,
    seed: u64,
    tasks: JobTasks,
    search: SearchLimits,
) -> Result<bool, JobError> {
    let settings = settings(preset, rule, iterations, tasks, pdb_inputs.is_some())?;
    let limits = limits(ctx, search, Some(Settings::paper_time_limit(pdb_inputs.is_some())));
    let store = DbPdbStore::new(ctx.pool.clone(), tokio::runtime::Handle::current());
    let threads = ctx.pdb_threads;
    let mut learner = match training::checkpoint(ctx.pool, ctx.key(), Tag::Last).await? {
        Some(c) => serde_json::from_slice::<Learner>(&c.weights)
            .map_err(|e| failed(format!("the last checkpoint does not read back: {e}")))?,
        None => {
            // The network's width is the features' (PDB inputs: once the PDBs are loaded).
            let (d, p, st, s2) = (domain.clone(), pdb_inputs.clone(), store.clone(), settings.clone());
            blocking(move || {
                let inputs = with_features(&d, p.as_deref(), &st, threads, Width)?;
                Learner::new(&s2, inputs, seed).map_err(|e| e.to_string())
            })
            .await?
        }
    };
    let resumed_from = learner.iteration;
    let started = Instant::now();
    while learner.iteration < iterations {
        let (d, p, st) = (domain.clone(), pdb_inputs.clone(), store.clone());
        let step = Iterate { learner, settings: settings.clone(), limits: limits.clone() };
        let (next, report) = blocking(move || with_features(&d, p.as_deref(), &st, threads, step)).await?;
        learner = next;
        let state = serde_json::to_vec(&learner).map_err(failed)?;
        let checkpoint = training::Checkpoint {
            step: learner.iteration as u64,
            config: serde_json::json!({ "kind": "puzzle_learn", "domain": domain }),
            weights: state,
        };
        let row = Iteration {
            iteration: report.iteration,
            tasks: report.tasks.len() as u32,
            solved: report.solved as u32,
            alpha: report.alpha,
            beta: report.beta,
            buffer: report.buffer_len as u32,
            seconds: report.seconds_tasks + report.seconds_ffnn + report.seconds_wunn,
            report: serde_json::to_value(&report).map_err(failed)?,
        };
        // The iteration's row and the checkpoint it leads to land together: a
        // kill between two separate writes would resume after an iteration
        // whose row was never written.
        let mut tx = ctx.begin().await?;
        if !training::write_checkpoint_if_held(&mut *tx, ctx.key(), ctx.worker, Tag::Last, &checkpoint).await? {
            return Ok(false);
        }
        schema::likely::record_iteration(&mut tx, ctx.key(), &row).await?;
        tx.commit().await.map_err(schema::DbError::from)?;
    }
    let mut tx = ctx.begin().await?;
    let seconds = started.elapsed().as_secs_f64();
    schema::likely::insert_learner(&mut tx, ctx.key(), &domain, learner.iteration, seconds, resumed_from).await?;
    ctx.complete(tx).await
}

/// A test task's optimal cost: IDA* with the family's optimal heuristic, which must
/// agree with the published optimum where there is one; or that optimum as
/// it is (`trust`).
pub async fn solve(
    ctx: &Ctx<'_>,
    domain: String,
    state: String,
    published: Option<u32>,
    trust: bool,
) -> Result<bool, JobError> {
    if let (Some(cost), true) = (published, trust) {
        let o = Optimal { domain, state, cost, generated: 0, seconds: 0.0, source: Source::Published };
        let mut tx = ctx.begin().await?;
        schema::likely::insert_optimal(&mut tx, ctx.key(), &o).await?;
        return ctx.complete(tx).await;
    }
    let store = DbPdbStore::new(ctx.pool.clone(), tokio::runtime::Handle::current());
    let (d, s, threads) = (domain.clone(), state.clone(), ctx.pdb_threads);
    let unlimited = Limits { cancel: Some(ctx.cancel.clone()), ..Limits::default() };
    let r = blocking(move || {
        let dynd = puzzles::by_name(&d).map_err(|e| e.to_string())?;
        let start = dynd.parse_state(&s).map_err(|e| e.to_string())?;
        let src = PdbSource { store: &store, threads, cache: Some(&PDBS) };
        let h = dynd.family().optimal_heuristic;
        dynd.solve(&start, h, SearchKind::IdaStar, &unlimited, src).map_err(|e| e.to_string())
    })
    .await?;
    let cost = r.cost.ok_or_else(|| failed(format!("no optimal cost: the search ended {}", r.status.as_str())))?;
    if let Some(p) = published.filter(|&p| p != cost) {
        return Err(failed(format!("IDA* with the PDBs found cost {cost}, the published optimum is {p}")));
    }
    let o = Optimal { domain, state, cost, generated: r.generated, seconds: r.time_s, source: Source::Search };
    let mut tx = ctx.begin().await?;
    schema::likely::insert_optimal(&mut tx, ctx.key(), &o).await?;
    ctx.complete(tx).await
}

/// One test task under one rule.
struct Test {
    learner: Learner,
    state: String,
    optimal: u32,
    rule: Rule,
    limits: Limits,
}

impl WithFeatures for Test {
    type Out = TestResult;
    fn run<D: Domain, F: Features>(self, d: &D, features: &mut F) -> Result<TestResult, String> {
        let cells = puzzles::state::parse_numbers(&self.state, d.size()).map_err(|e| e.to_string())?;
        let start = d.state_from_cells(&cells).map_err(|e| e.to_string())?;
        let task = [TestTask { start, optimal: self.optimal }];
        let mut r =
            solve_tests(d, &self.learner.ffnn, features, &task, self.rule, &self.limits).map_err(|e| e.to_string())?;
        r.pop().ok_or_else(|| "no test result".to_string())
    }
}

pub async fn test(
    ctx: &Ctx<'_>,
    domain: String,
    pdb_inputs: Option<String>,
    state: String,
    alpha: Option<f64>,
    search: SearchLimits,
) -> Result<bool, JobError> {
    let learner_job = ctx.input(0, "learner")?.to_string();
    let solve_job = ctx.input(1, "optimal cost")?;
    let optimal = schema::likely::optimal_cost(ctx.pool, solve_job)
        .await?
        .ok_or_else(|| failed(format!("input {solve_job} has no optimal cost")))?;
    let stored = training::checkpoint(ctx.pool, &learner_job, Tag::Last)
        .await?
        .ok_or_else(|| failed(format!("input {learner_job} has no learner")))?;
    let learner: Learner = serde_json::from_slice(&stored.weights).map_err(failed)?;
    let store = DbPdbStore::new(ctx.pool.clone(), tokio::runtime::Handle::current());
    let threads = ctx.pdb_threads;
    let test = Test {
        learner,
        state: state.clone(),
        optimal,
        rule: alpha.map_or(Rule::Mean, Rule::test),
        limits: limits(ctx, search, None),
    };
    let d = domain.clone();
    let result = blocking(move || with_features(&d, pdb_inputs.as_deref(), &store, threads, test)).await?;
    let run = TestRun {
        learner: learner_job,
        domain,
        state,
        alpha,
        status: result.status.as_str().to_string(),
        cost: result.cost.filter(|_| result.status == Status::Solved),
        optimal,
        generated: result.generated,
        expanded: result.expanded,
        seconds: result.seconds,
    };
    let mut tx = ctx.begin().await?;
    schema::likely::insert_test_run(&mut tx, ctx.key(), &run).await?;
    ctx.complete(tx).await
}

/// Which set of growing walks an efficiency job runs, and its budget.
#[derive(Debug, Clone, Copy)]
pub struct GrowingSet {
    pub tasks: u32,
    pub seed: u64,
    pub set: u32,
    pub budget_s: f64,
}

/// One set of growing walks under one rule.
struct Growing {
    learner: Learner,
    set: GrowingSet,
    rule: Rule,
    limits: Limits,
}

impl WithFeatures for Growing {
    type Out = SetRun;
    fn run<D: Domain, F: Features>(self, d: &D, features: &mut F) -> Result<SetRun, String> {
        let tasks = growing_walks(d, self.set.tasks, self.set.seed, self.set.set as u64);
        let budget = Duration::from_secs_f64(self.set.budget_s);
        run_set(d, &self.learner.ffnn, features, &tasks, self.rule, budget, &self.limits).map_err(|e| e.to_string())
    }
}

/// The efficiency test on one set: each search under the spec's limits, or
/// the budget where it gives none (the code's 60 s for both).
pub async fn efficiency(
    ctx: &Ctx<'_>,
    domain: String,
    pdb_inputs: Option<String>,
    alpha: Option<f64>,
    set: GrowingSet,
    search: SearchLimits,
) -> Result<bool, JobError> {
    let learner_job = ctx.input(0, "learner")?.to_string();
    let stored = training::checkpoint(ctx.pool, &learner_job, Tag::Last)
        .await?
        .ok_or_else(|| failed(format!("input {learner_job} has no learner")))?;
    let learner: Learner = serde_json::from_slice(&stored.weights).map_err(failed)?;
    if !(set.budget_s.is_finite() && set.budget_s > 0.0) {
        return Err(failed(format!("budget {} s is not positive", set.budget_s)));
    }
    let store = DbPdbStore::new(ctx.pool.clone(), tokio::runtime::Handle::current());
    let threads = ctx.pdb_threads;
    let work = Growing {
        learner,
        set,
        rule: alpha.map_or(Rule::Mean, Rule::test),
        limits: limits(ctx, search, Some(Duration::from_secs_f64(set.budget_s))),
    };
    let d = domain.clone();
    let r = blocking(move || with_features(&d, pdb_inputs.as_deref(), &store, threads, work)).await?;
    if ctx.cancel.load(std::sync::atomic::Ordering::Relaxed) {
        // The job stopped being ours and its searches were cut short: the
        // set's count would be wrong, so nothing is written.
        return Ok(false);
    }
    let run = EfficiencyRun {
        learner: learner_job,
        domain,
        alpha,
        seed: set.seed,
        set: set.set,
        budget_s: set.budget_s,
        tasks: r.tasks,
        attempted: r.attempted,
        solved: r.solved,
        seconds: r.seconds,
        runs: serde_json::to_value(&r.runs).map_err(failed)?,
    };
    let mut tx = ctx.begin().await?;
    schema::likely::insert_efficiency_run(&mut tx, ctx.key(), &run).await?;
    ctx.complete(tx).await
}
