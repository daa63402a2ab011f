//! Measurements for `hfarm bench`: NLM training steps per second (the same
//! computation as tools/reference/nlm_bench.py in PyTorch, for a ratio) and
//! learned-heuristic GBFS evaluations per second.

use std::time::Instant;

use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics::Ff;
use planner::search::{gbfs, Limits, SearchStatus};
use serde::Serialize;
use tch::{nn, Device, Kind, Tensor};

use crate::data::{Dataset, LabelledInstance};
use crate::encode::RelationalBatch;
use crate::models::Nlm;
use crate::optim::AdamW;
use crate::train::{CheckpointTag, Recorder, Trainer};
use crate::{Axes, Family, LearnError, LowerBound, ModelKind, Predictor, ResidualBase, SigmaMode, TrainConfig};

#[derive(Debug, Serialize)]
pub struct NlmSpeed {
    pub device: String,
    pub objects: i64,
    pub batch: i64,
    pub steps: u64,
    pub steps_per_s: f64,
    pub ms_per_step: f64,
}

fn sync(device: Device) {
    if let Device::Cuda(i) = device {
        tch::Cuda::synchronize(i as i64);
    }
}

/// Seconds that `steps` calls of `step` take after `warmup` untimed ones,
/// the device drained before and after.
fn timed(device: Device, warmup: u64, steps: u64, mut step: impl FnMut()) -> f64 {
    for _ in 0..warmup {
        step();
    }
    sync(device);
    let t = Instant::now();
    for _ in 0..steps {
        step();
    }
    sync(device);
    t.elapsed().as_secs_f64()
}

/// Training steps of the paper's text's NLM (breadth 3, depth 5, 8 per
/// arity; the farm trains [`crate::models::NLM_HIDDEN`] = 16, as the code
/// does) on a fixed random batch: input predicates (4, 8, 8, 0) per arity,
/// Gaussian NLL with learned sigma, AdamW, gradient clipping 0.1. It stays
/// at 8 so that it matches `tools/reference/nlm_bench.py`, its PyTorch
/// reference.
pub fn nlm_steps(objects: i64, batch: i64, steps: u64, warmup: u64, device: Device) -> NlmSpeed {
    tch::manual_seed(0);
    let features = [4usize, 8, 8, 0];
    let vs = nn::VarStore::new(device);
    let net = Nlm::new(&vs.root(), &features, 5, 8, 2, &[0]);
    let mut opt = AdamW::new(vs.variables().into_iter().collect(), 1, 1e-2, 1e-2);
    let inputs: Vec<Option<Tensor>> = features
        .iter()
        .enumerate()
        .map(|(r, &f)| {
            (f > 0).then(|| {
                let mut shape = vec![batch];
                shape.extend(std::iter::repeat_n(objects, r));
                shape.push(f as i64);
                Tensor::rand(&shape, (Kind::Float, device)).gt(0.5).to_kind(Kind::Float)
            })
        })
        .collect();
    let valid = Tensor::ones([batch, objects], (Kind::Bool, device));
    let b = RelationalBatch { inputs, valid, objects };
    let target = Tensor::rand([batch], (Kind::Float, device)) * 20.0;
    let s = timed(device, warmup, steps, || {
        let out = net.forward(&b);
        let mu = out.select(1, 0);
        let sigma = out.select(1, 1).sigmoid() * 10.0 + 0.1;
        let loss = -crate::distribution::gaussian_log_prob(&mu, &sigma, &target).mean(Kind::Float);
        opt.zero_grad();
        loss.backward();
        opt.step(0.1);
    });
    NlmSpeed {
        device: format!("{device:?}"),
        objects,
        batch,
        steps,
        steps_per_s: steps as f64 / s,
        ms_per_step: 1000.0 * s / steps as f64,
    }
}

/// The paper's proposed configuration: TN, learned sigma, l = LM-cut, residual hFF.
fn proposed(model: ModelKind) -> Axes {
    Axes {
        model,
        family: Family::Truncated,
        sigma: SigmaMode::Learn,
        lower: Some(LowerBound::new("lmcut").expect("registered and admissible")),
        residual: Some(ResidualBase::new("ff").expect("registered")),
    }
}

#[derive(Debug, Serialize)]
pub struct GbfsSpeed {
    pub model: String,
    pub problem: String,
    pub solved: bool,
    pub evaluations: u64,
    pub expansions: u64,
    pub seconds: f64,
    pub evaluations_per_s: f64,
    /// hFF GBFS on the same instance, for scale.
    pub ff_evaluations_per_s: f64,
}

/// Trains `model` briefly on small instances of `train`, then runs GBFS
/// with it (TN, learned sigma, residual hFF) on `test` within `budget`
/// evaluations.
pub fn learned_gbfs(
    model: ModelKind,
    train: &[Params],
    test: &Params,
    budget: u64,
    train_steps: u64,
) -> Result<GbfsSpeed, LearnError> {
    let instances: Vec<LabelledInstance> =
        train.iter().flat_map(|p| (1..4).filter_map(|s| crate::data::solve_and_label(p, s))).collect();
    let dom = domain_pddl(test.domain()).ok_or_else(|| LearnError::Input("unknown domain".into()))?;
    let data = Dataset { domain_pddl: dom.to_string(), instances };
    let config = TrainConfig { validate_every: train_steps, ..TrainConfig::paper(model, 1, train_steps) };
    let axes = proposed(model);
    let mut t = Trainer::new(axes, config, &data, &data, Device::Cpu)?;
    let mut rec = Recorder::default();
    t.run(&mut rec)?;
    let best = rec.checkpoints.iter().find(|c| c.tag == CheckpointTag::BestMse).expect("a best checkpoint");
    let predictor = Predictor::load(t.model_config().clone(), &best.bytes, Device::Cpu)?;
    let problem = generate(test, 1000).map_err(LearnError::Input)?;
    let mut h = crate::LearnedHeuristic::new(predictor, dom, &problem, None)?;
    let task = h.task().clone();
    let limits = Limits::new(Some(budget), Some(600.0), Some(4096));
    let r = gbfs(&task, &mut h, limits);
    let secs = r.search_time.as_secs_f64();
    let ff = gbfs(&task, &mut Ff::new(&task), limits);
    Ok(GbfsSpeed {
        model: model.name().to_string(),
        problem: format!("{test:?}"),
        solved: r.status == SearchStatus::Solved,
        evaluations: r.evaluations,
        expansions: r.expansions,
        seconds: secs,
        evaluations_per_s: r.evaluations as f64 / secs,
        ff_evaluations_per_s: ff.evaluations as f64 / ff.search_time.as_secs_f64(),
    })
}

#[derive(Debug, Serialize)]
pub struct TrainSpeed {
    pub model: String,
    pub device: String,
    pub train_samples: usize,
    pub steps: u64,
    pub steps_per_s: f64,
    pub first_val_mse: f64,
    pub last_val_mse: f64,
}

/// A real training run (TN, learned sigma, l = LM-cut, residual hFF) on
/// labelled instances of `train` on `device`: steps per second and the
/// validation MSE at the first and last validation.
pub fn train_speed(model: ModelKind, train: &[Params], steps: u64, device: Device) -> Result<TrainSpeed, LearnError> {
    let instances: Vec<LabelledInstance> =
        train.iter().flat_map(|p| (1..6).filter_map(|s| crate::data::solve_and_label(p, s))).collect();
    let dom = domain_pddl(train[0].domain()).ok_or_else(|| LearnError::Input("unknown domain".into()))?;
    let data = Dataset { domain_pddl: dom.to_string(), instances };
    let config = TrainConfig { validate_every: (steps / 4).max(1), ..TrainConfig::paper(model, 1, steps) };
    let axes = proposed(model);
    let mut t = Trainer::new(axes, config, &data, &data, device)?;
    let mut rec = Recorder::default();
    let start = Instant::now();
    t.run(&mut rec)?;
    sync(device);
    let secs = start.elapsed().as_secs_f64();
    Ok(TrainSpeed {
        model: model.name().to_string(),
        device: format!("{device:?}"),
        train_samples: t.sizes(0).train_samples,
        steps,
        steps_per_s: steps as f64 / secs,
        first_val_mse: rec.curve.first().map_or(f64::NAN, |p| p.val_mse),
        last_val_mse: rec.curve.last().map_or(f64::NAN, |p| p.val_mse),
    })
}

#[derive(Debug, Serialize)]
pub struct GroupSpeed {
    pub model: String,
    pub device: String,
    pub runs: usize,
    pub steps: u64,
    pub batch_size: usize,
    /// Run-steps per second of the R runs trained as one stacked group.
    pub group_steps_per_s: f64,
    /// Run-steps per second of the same R runs trained one after another.
    pub sequential_steps_per_s: f64,
    pub speedup: f64,
}

/// R runs of the paper's grid that could share a group (seeds x
/// distribution x bound x residual, learned sigma), trained on labelled
/// gripper data as one stacked group and then one after another, both in
/// this call: run-steps per second of each, and their ratio.
pub fn train_group_speed(model: ModelKind, runs: usize, steps: u64, device: Device) -> Result<GroupSpeed, LearnError> {
    let train = [Params::Gripper { balls: 2 }, Params::Gripper { balls: 4 }];
    let instances: Vec<LabelledInstance> =
        train.iter().flat_map(|p| (1..6).filter_map(|s| crate::data::solve_and_label(p, s))).collect();
    let dom = domain_pddl("gripper").ok_or_else(|| LearnError::Input("unknown domain".into()))?;
    let data = Dataset { domain_pddl: dom.to_string(), instances };
    let mut members = vec![];
    let families = [Family::Gaussian, Family::Truncated];
    let lowers = ["lmcut", "hmax"];
    let residuals = [Some("ff"), None];
    for k in 0..runs {
        let config =
            TrainConfig { validate_every: steps.max(1), ..TrainConfig::paper(model, 1 + (k / 8) as u64, steps) };
        let axes = Axes {
            model,
            family: families[k % 2],
            sigma: SigmaMode::Learn,
            lower: Some(LowerBound::new(lowers[(k / 2) % 2]).expect("registered and admissible")),
            residual: residuals[(k / 4) % 2].map(|r| ResidualBase::new(r).expect("registered")),
        };
        members.push((axes, config));
    }
    let batch_size = members[0].1.batch_size;
    let timed = |members: Vec<(Axes, TrainConfig)>| -> Result<f64, LearnError> {
        let mut t = Trainer::group(members, &data, &data, device)?;
        let mut recs: Vec<Recorder> = (0..t.runs()).map(|_| Recorder::default()).collect();
        let mut obs: Vec<&mut dyn crate::train::Observer> =
            recs.iter_mut().map(|r| r as &mut dyn crate::train::Observer).collect();
        let start = Instant::now();
        for r in t.run_group(&mut obs) {
            r?;
        }
        sync(device);
        Ok(start.elapsed().as_secs_f64())
    };
    let group_s = timed(members.clone())?;
    let mut sequential_s = 0.0;
    for m in members {
        sequential_s += timed(vec![m])?;
    }
    let run_steps = (runs as u64 * steps) as f64;
    Ok(GroupSpeed {
        model: model.name().to_string(),
        device: format!("{device:?}"),
        runs,
        steps,
        batch_size,
        group_steps_per_s: run_steps / group_s,
        sequential_steps_per_s: run_steps / sequential_s,
        speedup: sequential_s / group_s,
    })
}

#[derive(Debug, Serialize)]
pub struct LossSpeed {
    pub device: String,
    pub batch: i64,
    pub steps: u64,
    pub gaussian_us_per_step: f64,
    pub truncated_us_per_step: f64,
    /// truncated / gaussian: what the truncated Gaussian adds to a step.
    pub ratio: f64,
}

/// The training loss alone, forward and backward, per family on the same
/// batch: -mean log p(h*) with mu, sigma leaves, lower bounds below h* and
/// the upper bound missing (the paper's grid). Half the batch starts with
/// mu far below its bound, where a model starts training.
pub fn loss_speed(batch: i64, steps: u64, device: Device) -> LossSpeed {
    tch::manual_seed(0);
    let opts = (Kind::Float, device);
    let target = (Tensor::rand([batch], opts) * 30.0).round() + 1.0;
    let lower = (&target - (Tensor::rand([batch], opts) * 5.0).round()).clamp_min(0.0);
    let upper = Tensor::full([batch], f64::NAN, opts);
    let far = Tensor::rand([batch], opts).lt(0.5).to_kind(Kind::Float) * -40.0;
    let mu0 = &target + Tensor::randn([batch], opts) * 3.0 + far;
    let mu = mu0.detach().set_requires_grad(true);
    let sigma = (Tensor::rand([batch], opts) * 3.0 + 0.2).set_requires_grad(true);
    let time = |family: Family| {
        let s = timed(device, steps.div_ceil(10), steps, || {
            let d = crate::distribution::Dist::new(family, &mu, &sigma, &lower, &upper);
            let loss = -d.log_prob(&target).mean(Kind::Double);
            let g = Tensor::run_backward(&[&loss], &[&mu, &sigma], false, false);
            assert!(g[0].isfinite().all().int64_value(&[]) == 1, "finite gradients");
        });
        s * 1e6 / steps as f64
    };
    let gaussian_us_per_step = time(Family::Gaussian);
    let truncated_us_per_step = time(Family::Truncated);
    LossSpeed {
        device: format!("{device:?}"),
        batch,
        steps,
        gaussian_us_per_step,
        truncated_us_per_step,
        ratio: truncated_us_per_step / gaussian_us_per_step,
    }
}

#[derive(Debug, Serialize)]
pub struct ManySpeed {
    pub model: String,
    pub device: String,
    pub problem: String,
    pub searches: usize,
    pub budget: u64,
    /// Evaluations per second of all searches together, forward passes shared.
    pub batched_evaluations_per_s: f64,
    /// The same searches one after another, each with its own passes.
    pub single_evaluations_per_s: f64,
    pub speedup: f64,
    /// Searches whose status, evaluations, expansions and plan are the same both ways.
    pub identical: usize,
    pub differing: usize,
    pub shared_passes: u64,
    pub single_passes: u64,
}

/// `searches` GBFS runs of a briefly trained `model` (TN, learned sigma,
/// l = LM-cut, residual hFF) on `test` instances (seeds 1..=searches), each
/// within `budget` evaluations: all at once with shared forward passes, then
/// one after another, both in this call.
pub fn plan_many_speed(
    model: ModelKind,
    test: &Params,
    searches: usize,
    budget: u64,
    device: Device,
) -> Result<ManySpeed, LearnError> {
    let train: Vec<Params> = match test {
        Params::Gripper { .. } => vec![Params::Gripper { balls: 2 }, Params::Gripper { balls: 3 }],
        Params::Blocksworld { .. } => vec![Params::Blocksworld { blocks: 4 }, Params::Blocksworld { blocks: 5 }],
        other => return Err(LearnError::Input(format!("plan-many trains on gripper or blocksworld, not {other:?}"))),
    };
    let instances: Vec<LabelledInstance> =
        train.iter().flat_map(|p| (1..4).filter_map(|s| crate::data::solve_and_label(p, s))).collect();
    let dom = domain_pddl(test.domain()).ok_or_else(|| LearnError::Input("unknown domain".into()))?;
    let data = Dataset { domain_pddl: dom.to_string(), instances };
    let config = TrainConfig { validate_every: 100, batch_size: 64, ..TrainConfig::paper(model, 1, 100) };
    let mut t = Trainer::new(proposed(model), config, &data, &data, Device::Cpu)?;
    let mut rec = Recorder::default();
    t.run(&mut rec)?;
    let best = rec.checkpoints.iter().find(|c| c.tag == CheckpointTag::BestMse).expect("a best checkpoint");
    let load = || Predictor::load(t.model_config().clone(), &best.bytes, device);
    let problems: Vec<String> =
        (1..=searches as u64).map(|s| generate(test, s)).collect::<Result<_, _>>().map_err(LearnError::Input)?;
    let limits = Limits::new(Some(budget), None, None);

    let shared = load()?;
    let start = Instant::now();
    let (many, shared_passes) = crate::many::gbfs_many(&shared, dom, &problems, None, limits, Default::default())?;
    sync(device);
    let batched_s = start.elapsed().as_secs_f64();

    let (mut single_s, mut single_passes, mut evals, mut identical) = (0.0, 0, 0u64, 0);
    for (problem, m) in problems.iter().zip(&many) {
        let mut h = crate::LearnedHeuristic::new(load()?, dom, problem, None)?;
        let task = h.task().clone();
        let start = Instant::now();
        let r = gbfs(&task, &mut h, limits);
        sync(device);
        single_s += start.elapsed().as_secs_f64();
        single_passes += h.forward_passes;
        evals += r.evaluations;
        let m = m.as_ref().map_err(|e| LearnError::Internal(e.to_string()))?;
        if (m.status, m.evaluations, m.expansions, &m.plan) == (r.status, r.evaluations, r.expansions, &r.plan) {
            identical += 1;
        }
    }
    let batched_evals: u64 = many.iter().filter_map(|m| m.as_ref().ok()).map(|m| m.evaluations).sum();
    Ok(ManySpeed {
        model: model.name().to_string(),
        device: format!("{device:?}"),
        problem: format!("{test:?}"),
        searches,
        budget,
        batched_evaluations_per_s: batched_evals as f64 / batched_s,
        single_evaluations_per_s: evals as f64 / single_s,
        speedup: (batched_evals as f64 / batched_s) / (evals as f64 / single_s),
        identical,
        differing: searches - identical,
        shared_passes,
        single_passes,
    })
}
