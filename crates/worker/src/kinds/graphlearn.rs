//! Trunda's experiment kind (`jobs::graphlearn`): `graph_bootstrap` runs
//! Algorithm 1 one round at a time, writing its state as the job's `last`
//! checkpoint after each (only while the job is still ours), so that a new
//! attempt after a dead worker resumes at the last finished round; it
//! stores every problem with its samples. `graph_fold` trains a network on
//! the samples of every problem but one and searches that one with A*;
//! `graph_baseline` searches a problem with A* and a classical heuristic.
//! A fold with adjustments also searches with its network adjusted by the
//! Delta-sets of its training samples, a row each, and with value
//! adjustments, with classical heuristics adjusted by the Delta-sets of
//! their values (the thesis's adjustment experiment), a row each; adjusted
//! rows record their fallbacks to plain h in `run`, and the network's row
//! its fit to the training samples (`run.fit`, section 5.4.3).
//!
//! These run on the worker's blocking threads, not in an isolated child
//! process: a bootstrap is checkpointed like a training.

use std::time::Instant;

use graphlearn::adjust::{feature_delta_stats, Adjustment};
use graphlearn::bootstrap::{Bootstrap, BootstrapSettings, StopReason};
use graphlearn::ipc::RunRow;
use graphlearn::labels::{LabelledState, LabellerSettings};
use graphlearn::mlp::{Loss, TrainSettings, THESIS_DROPOUT, THESIS_HIDDEN};
use graphlearn::protocol::{run_baselines, run_fold, Configuration, ProtocolSettings, SampleSource, ValueAdjustment};
use graphlearn::sampling::SearchLimit;
use graphlearn::Problem;
use jobs::graphlearn::{self as spec, BootstrapParams, NamedProblem, NetworkParams, SearchParams};
use schema::graphlearn::Run;
use schema::training::{self, Tag};

use crate::job::{blocking, failed, Ctx, JobError};

fn configuration(c: spec::Configuration) -> Configuration {
    let loss = match c.loss {
        spec::Loss::Mse => Loss::Mse,
        spec::Loss::LogMse => Loss::LogMse,
    };
    Configuration { alpha: c.alpha as usize, loss, ff_input: c.ff_input }
}

/// Hidden widths and dropout rates (the thesis's unless the grid sets widths;
/// dropout after the first three hidden layers at most).
fn network(n: &NetworkParams) -> (Vec<usize>, Vec<f32>) {
    let hidden = n.hidden.clone().unwrap_or_else(|| THESIS_HIDDEN.to_vec());
    let dropout = THESIS_DROPOUT.iter().copied().take(hidden.len()).collect();
    (hidden, dropout)
}

fn train_settings(n: &NetworkParams) -> TrainSettings {
    let d = TrainSettings::default();
    TrainSettings {
        patience: n.patience.unwrap_or(d.patience),
        max_epochs: n.max_epochs.unwrap_or(d.max_epochs),
        max_seconds: n.max_seconds.or(d.max_seconds),
        ..d
    }
}

fn load(domain_pddl: &str, problems: &[NamedProblem]) -> Result<Vec<Problem>, String> {
    problems
        .iter()
        .map(|p| Problem::from_text(&p.name, domain_pddl, &p.pddl).map_err(|e| format!("problem {}: {e}", p.name)))
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub async fn bootstrap(
    ctx: &Ctx<'_>,
    domain: String,
    domain_pddl: String,
    problems: Vec<NamedProblem>,
    held_out: Option<String>,
    c: spec::Configuration,
    params: BootstrapParams,
    net: NetworkParams,
    seed: u64,
) -> Result<bool, JobError> {
    let training: Vec<NamedProblem> = problems.iter().filter(|p| Some(&p.name) != held_out.as_ref()).cloned().collect();
    let (dp, tp) = (domain_pddl.clone(), training.clone());
    let train_problems = blocking(move || load(&dp, &tp)).await?;
    let pddl_domain = train_problems.first().map(|p| p.graphs().symbols().domain.clone()).unwrap_or_default();
    let (hidden, dropout) = network(&net);
    let settings = BootstrapSettings {
        model: configuration(c).model_settings(&hidden, &dropout),
        train: train_settings(&net),
        limit_unit: match (params.unit_expansions, params.unit_seconds) {
            (Some(n), _) => SearchLimit::Expansions(n),
            (None, Some(s)) => SearchLimit::Seconds(s),
            (None, None) => return Err(failed("a bootstrap without its search unit")),
        },
        labeller: match &params.solver {
            Some(name) => LabellerSettings::solver(name).map_err(failed)?,
            None => LabellerSettings::for_domain(&pddl_domain, params.label_max_evaluations),
        },
        enough_samples: params.enough_samples as usize,
        max_rounds: params.rounds,
        plan_states_as_samples: false,
        seed,
    };
    let mut boot = match training::checkpoint(ctx.pool, ctx.key(), Tag::Last).await? {
        Some(c) => {
            let text = String::from_utf8(c.weights).map_err(failed)?;
            Bootstrap::from_json(&text).map_err(|e| failed(format!("the last checkpoint does not read back: {e}")))?
        }
        None => Bootstrap::new(settings, &train_problems).map_err(failed)?,
    };
    let resumed_from = boot.rounds();
    let started = Instant::now();
    let mut train_problems = train_problems;
    while boot.stopped().is_none() {
        let (b, p) = blocking(move || {
            boot.round(&train_problems).map_err(|e| e.to_string())?;
            Ok((boot, train_problems))
        })
        .await?;
        (boot, train_problems) = (b, p);
        let checkpoint = training::Checkpoint {
            step: boot.rounds() as u64,
            config: serde_json::json!({ "kind": "graph_bootstrap", "domain": domain }),
            weights: boot.to_json().into_bytes(),
        };
        if !training::write_checkpoint_if_held(ctx.pool, ctx.key(), ctx.worker, Tag::Last, &checkpoint).await? {
            return Ok(false);
        }
    }
    // Tables 5.1-5.3 over this bootstrap's samples, for alpha 2 up to the configuration's.
    let per_problem = boot.samples();
    let alpha = c.alpha as usize;
    let (features, per_problem) = blocking(move || {
        let mut out = vec![];
        for a in 2..=alpha {
            let stats = feature_delta_stats(&train_problems, &per_problem, a).map_err(|e| e.to_string())?;
            let mut v = serde_json::to_value(stats).map_err(|e| e.to_string())?;
            v["alpha"] = a.into();
            out.push(v);
        }
        Ok((serde_json::Value::Array(out), per_problem))
    })
    .await?;
    let mut samples = per_problem.into_iter();
    let mut rows = vec![];
    for p in &problems {
        let own: Vec<LabelledState> =
            if Some(&p.name) == held_out.as_ref() { vec![] } else { samples.next().unwrap_or_default() };
        rows.push(schema::graphlearn::Problem {
            name: p.name.clone(),
            domain_pddl: domain_pddl.clone(),
            pddl: p.pddl.clone(),
            samples: serde_json::to_value(own).map_err(failed)?,
        });
    }
    let stored = schema::graphlearn::Bootstrap {
        domain,
        held_out,
        rounds: boot.rounds(),
        stopped: match boot.stopped() {
            Some(StopReason::EnoughSamples) => "enough_samples",
            Some(StopReason::AllSolved) => "all_solved",
            Some(StopReason::MaxRounds) | None => "max_rounds",
        }
        .to_string(),
        samples: boot.num_samples() as u64,
        history: serde_json::to_value(boot.history()).map_err(failed)?,
        seconds: started.elapsed().as_secs_f64(),
        resumed_from,
        features,
    };
    let mut tx = ctx.begin().await?;
    schema::graphlearn::insert_bootstrap(&mut tx, ctx.key(), &stored, &rows).await?;
    ctx.complete(tx).await
}

fn stored_run(
    domain: String,
    row: &RunRow,
    learned: bool,
    seed: Option<u64>,
    samples: Option<u64>,
    fit: Option<&graphlearn::fit::FitStats>,
) -> Result<Run, JobError> {
    let mut run = serde_json::to_value(row).map_err(failed)?;
    if let Some(f) = fit {
        run["fit"] = serde_json::to_value(f).map_err(failed)?;
    }
    Ok(Run {
        domain,
        problem: row.problem.clone(),
        configuration: row.configuration.clone(),
        learned,
        seed,
        solved: row.counts(),
        status: row.status.clone(),
        cost: row.cost,
        expansions: row.expansions,
        evaluations: row.evaluations,
        seconds: row.time_s,
        samples,
        run,
    })
}

fn protocol(
    c: Option<spec::Configuration>,
    net: &NetworkParams,
    search: SearchParams,
    baselines: Vec<String>,
    seed: u64,
) -> ProtocolSettings {
    let (hidden, dropout) = network(net);
    ProtocolSettings {
        configurations: c.into_iter().map(configuration).collect(),
        hidden,
        dropout,
        train: train_settings(net),
        time_s: search.time_s,
        max_evaluations: search.max_evaluations,
        baselines,
        seed,
        adjustments: vec![],
        value_adjustments: vec![],
    }
}

/// What a fold adjusts: its network, by feature Delta-sets, and classical
/// heuristics, by value Delta-sets.
pub struct FoldAdjustments {
    pub networks: Vec<spec::Adjustment>,
    pub values: Vec<spec::ValueAdjustment>,
}

fn adjustment(a: spec::Adjustment) -> Adjustment {
    match a {
        spec::Adjustment::Min => Adjustment::Min,
        spec::Adjustment::Avg => Adjustment::Avg,
        spec::Adjustment::Shift => Adjustment::Shift,
    }
}

#[allow(clippy::too_many_arguments)]
pub async fn fold(
    ctx: &Ctx<'_>,
    domain: String,
    held_out: String,
    c: spec::Configuration,
    adjust: FoldAdjustments,
    net: NetworkParams,
    search: SearchParams,
    seed: u64,
) -> Result<bool, JobError> {
    let boot = ctx.input(0, "bootstrap")?;
    let stored = schema::graphlearn::problems(ctx.pool, boot).await?;
    let held = stored
        .iter()
        .position(|p| p.name == held_out)
        .ok_or_else(|| failed(format!("bootstrap {boot} has no problem {held_out}")))?;
    let mut settings = protocol(Some(c), &net, search, vec![], seed);
    settings.adjustments = adjust.networks.into_iter().map(adjustment).collect();
    settings.value_adjustments = adjust
        .values
        .into_iter()
        .map(|v| ValueAdjustment { heuristic: v.heuristic, mode: adjustment(v.mode) })
        .collect();
    let (rows, samples, fits) = blocking(move || {
        let mut problems = vec![];
        let mut samples = vec![];
        for p in &stored {
            problems.push(Problem::from_text(&p.name, &p.domain_pddl, &p.pddl).map_err(|e| e.to_string())?);
            let s: Vec<LabelledState> = serde_json::from_value(p.samples.clone()).map_err(|e| e.to_string())?;
            samples.push(s);
        }
        let fold = run_fold(&problems, &SampleSource::Given(samples), held, &settings).map_err(|e| e.to_string())?;
        Ok((fold.rows, fold.samples, fold.fits))
    })
    .await?;
    // The network's row (with its fit), one per adjustment of it (named
    // `a3-mse:min`), one per value adjustment (`goalcount:min`, not learned).
    let mut tx = ctx.begin().await?;
    for row in &rows {
        let fit = fits.iter().find(|(name, _)| *name == row.configuration).map(|(_, f)| f);
        let learned = row.configuration.starts_with(&configuration(c).name());
        let run = stored_run(domain.clone(), row, learned, Some(seed), Some(samples as u64), fit)?;
        schema::graphlearn::insert_run(&mut tx, ctx.key(), &run).await?;
    }
    ctx.complete(tx).await
}

pub async fn baseline(
    ctx: &Ctx<'_>,
    domain: String,
    domain_pddl: String,
    problem: NamedProblem,
    heuristic: String,
    search: SearchParams,
) -> Result<bool, JobError> {
    let settings = protocol(None, &NetworkParams::default(), search, vec![heuristic.clone()], 0);
    let row = blocking(move || {
        let p = Problem::from_text(&problem.name, &domain_pddl, &problem.pddl).map_err(|e| e.to_string())?;
        let rows = run_baselines(&p, &settings).map_err(|e| e.to_string())?;
        rows.into_iter().next().ok_or_else(|| "no baseline run".to_string())
    })
    .await?;
    let run = stored_run(domain, &row, false, None, None, None)?;
    let mut tx = ctx.begin().await?;
    schema::graphlearn::insert_run(&mut tx, ctx.key(), &run).await?;
    ctx.complete(tx).await
}
