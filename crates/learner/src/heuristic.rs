//! A trained model as a planner heuristic: the point estimate E[x] (or the
//! Gaussian's +clip estimate) of every successor of an expansion, computed
//! in one forward pass.

use planner::heuristics::{FeatureValues, Heuristic, RelaxedPlanFeatures, StateBatch, DEAD_END};
use planner::pddl::Domain;
use planner::Task;
use tch::{Device, Kind};

use crate::config::{Family, LowerBound, ModelKind};
use crate::encode::{Encoder, InstanceInput, StateInput};
use crate::predictor::{Predictor, Side};
use crate::prepare::parse_domain;
use crate::LearnError;

pub struct LearnedHeuristic {
    predictor: Predictor,
    domain: Domain,
    instance: InstanceInput,
    lower: Option<Box<dyn Heuristic>>,
    residual: Option<Box<dyn Heuristic>>,
    features: Option<RelaxedPlanFeatures>,
    clip: bool,
    name: String,
    /// Forward passes made (one per evaluated batch).
    pub forward_passes: u64,
}

impl LearnedHeuristic {
    /// Builds the heuristic for one problem. Search must run on
    /// [`LearnedHeuristic::task`]: the unpruned grounding whose facts the
    /// model was trained on. `clip` asks a Gaussian model for its +clip
    /// estimate against `clip_bound`.
    pub fn new(
        mut predictor: Predictor,
        domain_pddl: &str,
        problem_pddl: &str,
        clip_bound: Option<LowerBound>,
    ) -> Result<LearnedHeuristic, LearnError> {
        let domain = parse_domain(domain_pddl)?;
        let (problem, task) = crate::encode::ground(&domain, problem_pddl, "problem.pddl")?;
        let clip = predictor.config.family == Family::Gaussian && clip_bound.is_some();
        if predictor.config.family == Family::Gaussian {
            predictor.config.lower = clip_bound;
        }
        let lower = predictor.config.lower.map(|h| h.build(&task));
        let residual = predictor.config.residual.map(|h| h.build(&task));
        let features = (predictor.config.model == ModelKind::Linear).then(|| RelaxedPlanFeatures::new(&task));
        let instance = Encoder { shape: &predictor.config.shape, domain: &domain }.prepare(task, &problem)?;
        let c = &predictor.config;
        let name = format!(
            "{:?}/{:?}/{:?}/{}{}",
            c.model,
            c.family,
            c.sigma,
            c.residual.map_or("none", |h| h.name()),
            if clip { "+clip" } else { "" }
        )
        .to_lowercase();
        Ok(LearnedHeuristic { predictor, domain, instance, lower, residual, features, clip, name, forward_passes: 0 })
    }

    pub fn task(&self) -> &Task {
        &self.instance.task
    }

    pub fn device(&self) -> Device {
        self.predictor.device()
    }
}

impl Heuristic for LearnedHeuristic {
    fn name(&self) -> &str {
        &self.name
    }

    fn evaluate_batch(&mut self, batch: StateBatch<'_>, out: &mut Vec<f64>) {
        out.clear();
        // The classical inputs through their own batched evaluation.
        let classical = |h: &mut Option<Box<dyn Heuristic>>, missing: f64| {
            let mut v = vec![];
            match h {
                Some(h) => h.evaluate_batch(batch, &mut v),
                None => v.resize(batch.len(), missing),
            }
            v
        };
        let all_lows = classical(&mut self.lower, f64::NAN);
        let all_ress = classical(&mut self.residual, 0.0);
        let mut states = vec![];
        let (mut lows, mut ress, mut slots) = (vec![], vec![], vec![]);
        for (k, s) in batch.iter().enumerate() {
            let (low, res) = (all_lows[k], all_ress[k]);
            let feats: Option<FeatureValues> = match self.features.as_mut() {
                Some(f) => f.features(s),
                None => Some(FeatureValues::default()),
            };
            // A dead end by any of the model's inputs is a dead end.
            let (Some(f), true, true) = (feats, low != DEAD_END, res != DEAD_END) else {
                out.push(DEAD_END);
                continue;
            };
            let mut facts = vec![];
            planner::state::for_each_fact(s, |x| facts.push(x));
            let features = [f.goal_count as f32, f.ff as f32, f.deletes_ignored as f32, f.mean_deletes_ignored as f32];
            slots.push(out.len());
            out.push(0.0);
            states.push(StateInput { facts, features });
            lows.push(low);
            ress.push(res);
        }
        if states.is_empty() {
            return;
        }
        let device = self.device();
        let encoder = Encoder { shape: &self.predictor.config.shape, domain: &self.domain };
        let pairs: Vec<(&InstanceInput, &StateInput)> = states.iter().map(|s| (&self.instance, s)).collect();
        let values: Vec<f64> = tch::no_grad(|| {
            let b = encoder.batch(&pairs, device);
            let side = Side::new(&lows, &ress, device);
            let dist = self.predictor.distribution(&b, &side).expect("batch built for this model");
            let est = if self.clip { dist.clipped().mean() } else { dist.mean() };
            Vec::<f64>::try_from(est.to_kind(Kind::Double).to(Device::Cpu)).expect("a vector of f64")
        });
        self.forward_passes += 1;
        for (slot, v) in slots.into_iter().zip(values) {
            // A NaN would break the open list's order: treat as a dead end.
            out[slot] = if v.is_nan() { DEAD_END } else { v };
        }
    }
}
