//! `hfarm bench nlm` and `hfarm bench learned-gbfs`: the learner's speed.
//! For a ratio against the paper's stack, run tools/reference/nlm_bench.py
//! with the same --objects/--batch on the same machine.

use std::process::ExitCode;

use anyhow::{bail, Result};
use learner::bench;
use learner::ModelKind;
use planner::generate::Params;

/// One result: its JSON line with `--json`, else `text` of it.
fn emit<T: serde::Serialize>(json: bool, r: &T, text: impl FnOnce(&T) -> String) -> Result<()> {
    println!("{}", if json { serde_json::to_string(r)? } else { text(r) });
    Ok(())
}

/// The device `--device` names; `HFARM_TORCH_THREADS` applies here as in a worker.
fn device(name: &str) -> Result<tch::Device> {
    learner::apply_thread_cap()?;
    Ok(match name {
        "cpu" => tch::Device::Cpu,
        "cuda" if learner::load_cuda_backend() => tch::Device::Cuda(0),
        "cuda" => bail!("--device cuda: libtorch sees no CUDA device"),
        other => bail!("--device {other}: expected cpu or cuda"),
    })
}

pub fn nlm(objects: i64, batch: i64, steps: u64, device_name: &str, json: bool) -> Result<ExitCode> {
    let r = bench::nlm_steps(objects, batch, steps, 5, device(device_name)?);
    emit(json, &r, |r| {
        format!(
            "NLM training ({} objects, batch {}, {:?}): {:.2} steps/s ({:.1} ms/step over {} steps)",
            r.objects, r.batch, r.device, r.steps_per_s, r.ms_per_step, r.steps
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The registered model of that name (`learner::models`).
fn model_kind(name: &str) -> Result<ModelKind> {
    match ModelKind::by_name(name) {
        Some(m) => Ok(m),
        None => bail!("--model {name}: expected one of {}", ModelKind::names().join(", ")),
    }
}

/// `searches` learned GBFS runs with shared forward passes and one after another.
pub fn plan_many(
    model: &str,
    searches: usize,
    budget: u64,
    balls: u32,
    device_name: &str,
    json: bool,
) -> Result<ExitCode> {
    let model = model_kind(model)?;
    if searches == 0 || balls == 0 {
        bail!("--searches and --balls must be at least 1");
    }
    let r = bench::plan_many_speed(model, &Params::Gripper { balls }, searches, budget, device(device_name)?)?;
    emit(json, &r, |r| {
        format!(
            "{} on {} x{} ({}, budget {}): shared {:.0} evaluations/s ({} passes), one after another {:.0} ({} passes): {:.2}x; {} identical, {} differing",
            r.model, r.problem, r.searches, r.device, r.budget, r.batched_evaluations_per_s, r.shared_passes,
            r.single_evaluations_per_s, r.single_passes, r.speedup, r.identical, r.differing
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

/// `runs` trainings as one stacked group and one after another, in one call.
pub fn train_group(model: &str, runs: usize, steps: u64, device_name: &str, json: bool) -> Result<ExitCode> {
    let model = model_kind(model)?;
    if !model.info().stacks {
        let name = model.name();
        bail!(
            "--model {name}: the {} trains one run at a time (its batches have no run dimension)",
            name.to_uppercase()
        );
    }
    if runs == 0 {
        bail!("--runs must be at least 1");
    }
    let r = bench::train_group_speed(model, runs, steps, device(device_name)?)?;
    emit(json, &r, |r| {
        format!(
            "{} x{} on {} (batch {}, {} steps each): group {:.1} run-steps/s, one after another {:.1}: {:.2}x",
            r.model, r.runs, r.device, r.batch_size, r.steps, r.group_steps_per_s, r.sequential_steps_per_s, r.speedup
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

pub fn loss(batch: i64, steps: u64, device_name: &str, json: bool) -> Result<ExitCode> {
    let r = bench::loss_speed(batch, steps.max(100), device(device_name)?);
    emit(json, &r, |r| {
        format!(
            "loss on {} (batch {}, {} steps): gaussian {:.1} us/step, truncated {:.1} us/step: {:.2}x",
            r.device, r.batch, r.steps, r.gaussian_us_per_step, r.truncated_us_per_step, r.ratio
        )
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Real training runs of each model on labelled gripper and blocksworld data.
pub fn train(steps: u64, device_name: &str, json: bool) -> Result<ExitCode> {
    let d = device(device_name)?;
    let gripper = vec![Params::Gripper { balls: 2 }, Params::Gripper { balls: 4 }];
    let blocks = vec![Params::Blocksworld { blocks: 5 }, Params::Blocksworld { blocks: 7 }];
    for (model, data) in [
        (ModelKind::Nlm, &gripper),
        (ModelKind::Hgn, &gripper),
        (ModelKind::Linear, &gripper),
        (ModelKind::Nlm, &blocks),
        (ModelKind::Hgn, &blocks),
    ] {
        let r = bench::train_speed(model, data, steps, d)?;
        emit(json, &r, |r| {
            format!(
                "{:<7} {:<12} {:?}: {:>7.1} steps/s over {} steps ({} samples); validation MSE {:.3} -> {:.3}",
                r.model,
                data[0].domain(),
                d,
                r.steps_per_s,
                r.steps,
                r.train_samples,
                r.first_val_mse,
                r.last_val_mse
            )
        })?;
    }
    Ok(ExitCode::SUCCESS)
}

pub fn learned_gbfs(json: bool) -> Result<ExitCode> {
    let cases = [
        (
            ModelKind::Nlm,
            vec![Params::Gripper { balls: 2 }, Params::Gripper { balls: 3 }],
            Params::Gripper { balls: 20 },
        ),
        (
            ModelKind::Linear,
            vec![Params::Gripper { balls: 2 }, Params::Gripper { balls: 3 }],
            Params::Gripper { balls: 20 },
        ),
        (
            ModelKind::Hgn,
            vec![Params::Gripper { balls: 2 }, Params::Gripper { balls: 3 }],
            Params::Gripper { balls: 20 },
        ),
        (
            ModelKind::Nlm,
            vec![Params::Blocksworld { blocks: 4 }, Params::Blocksworld { blocks: 5 }],
            Params::Blocksworld { blocks: 12 },
        ),
    ];
    for (model, train, test) in cases {
        let r = bench::learned_gbfs(model, &train, &test, 10_000, 100)?;
        emit(json, &r, |r| {
            format!(
                "{:<7} {:<40} solved={:<5} {:>6} evaluations in {:>6.2} s: {:>8.0} evaluations/s (hFF alone: {:.0}/s)",
                r.model, r.problem, r.solved, r.evaluations, r.seconds, r.evaluations_per_s, r.ff_evaluations_per_s
            )
        })?;
    }
    Ok(ExitCode::SUCCESS)
}
