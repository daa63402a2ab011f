//! A trained model as a planner heuristic: the point estimate E[x] (or the
//! Gaussian's +clip estimate) of every successor of an expansion, computed
//! in one forward pass, of its own (`LearnedHeuristic::new`) or shared with
//! many searches at once (`crate::many`).
//!
//! Values are rounded to multiples of 2^-16: a forward pass's floating-point
//! result may differ in its last bits with the batch it is part of (other
//! states, other instances' padding), and greedy search breaks ties on exact
//! equality, so unrounded values would let batch composition change which
//! node is expanded. Rounded, a search gives the same result alone or among
//! many, except where a value falls within an ulp of a rounding boundary.

pub mod many;

use planner::heuristics::{
    Definitions, FeatureValues, GoalCount, Heuristic, PyperplanFeatures, RelaxedPlanFeatures, StateBatch, DEAD_END,
};
use planner::pddl::Domain;
use planner::search::Greedy;
use planner::Task;
use std::sync::Arc;

use tch::{Device, Kind};

use crate::config::{Family, LowerBound, ModelConfig};
use crate::encode::{Encoder, InstanceInput, StateInput};
use crate::models::Reads;
use crate::predictor::{Predictor, Side};
use crate::prepare::parse_domain;
use crate::shape::Shape;
use crate::LearnError;

/// Where a heuristic's forward passes run.
enum Eval {
    /// Its own network.
    Own(Predictor),
    /// A network shared with other searches (`crate::many`).
    Shared(many::Client),
}

/// How a learned heuristic's searches run: which greedy search, and whose
/// definitions compute the model's classical inputs (its bound, residual and
/// the linear model's features). The default is ours; the authors' planning
/// is `Greedy::Pddlsl` with `Definitions::Pyperplan`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SearchMode {
    pub greedy: Greedy,
    pub definitions: Definitions,
}

/// The linear model's features of a state.
enum Features {
    /// Ours: hFF's relaxed plan and the state's goal count, as labels have them.
    Hfarm(RelaxedPlanFeatures),
    /// As the authors' planning computes them (`pyperplan_heuristic_gomoluch.py`):
    /// pyperplan's `calc_h_with_plan` and its relaxed plan's deletes, and the
    /// goal count of the task's initial state for every state (l. 38:
    /// `len(task.goals - task.initial_state)`), although training read each
    /// state's own.
    Pyperplan { features: PyperplanFeatures, root_goal_count: f64 },
}

impl Features {
    fn new(task: &Task, definitions: Definitions) -> Features {
        match definitions {
            Definitions::Hfarm => Features::Hfarm(RelaxedPlanFeatures::new(task)),
            Definitions::Pyperplan => Features::Pyperplan {
                features: PyperplanFeatures::new(task),
                root_goal_count: GoalCount::new(task).value(&planner::state::initial_state(task)),
            },
        }
    }

    /// None at a relaxed dead end.
    fn of(&mut self, state: &[u64]) -> Option<FeatureValues> {
        match self {
            Features::Hfarm(f) => f.features(state),
            Features::Pyperplan { features, root_goal_count } => features.features(state, *root_goal_count),
        }
    }
}

pub struct LearnedHeuristic {
    eval: Eval,
    domain: Domain,
    instance: Arc<InstanceInput>,
    lower: Option<Box<dyn Heuristic>>,
    residual: Option<Box<dyn Heuristic>>,
    features: Option<Features>,
    /// The configuration's bound and residual, by name, to rebuild them
    /// under other definitions ([`LearnedHeuristic::use_definitions`]).
    inputs: (Option<&'static str>, Option<&'static str>),
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
        predictor: Predictor,
        domain_pddl: &str,
        problem_pddl: &str,
        clip_bound: Option<LowerBound>,
    ) -> Result<LearnedHeuristic, LearnError> {
        let config = predictor.config.clone();
        LearnedHeuristic::with(config, Eval::Own(predictor), domain_pddl, problem_pddl, clip_bound)
    }

    /// The same heuristic, its forward passes made by `client`'s shared network.
    pub(crate) fn shared(
        config: ModelConfig,
        client: many::Client,
        domain_pddl: &str,
        problem_pddl: &str,
        clip_bound: Option<LowerBound>,
    ) -> Result<LearnedHeuristic, LearnError> {
        LearnedHeuristic::with(config, Eval::Shared(client), domain_pddl, problem_pddl, clip_bound)
    }

    fn with(
        mut config: ModelConfig,
        mut eval: Eval,
        domain_pddl: &str,
        problem_pddl: &str,
        clip_bound: Option<LowerBound>,
    ) -> Result<LearnedHeuristic, LearnError> {
        let domain = parse_domain(domain_pddl)?;
        let (problem, task) = crate::encode::ground(&domain, problem_pddl, "problem.pddl")?;
        let clip = config.family == Family::Gaussian && clip_bound.is_some();
        if config.family == Family::Gaussian {
            config.lower = clip_bound;
        }
        if let Eval::Own(p) = &mut eval {
            p.config.lower = config.lower;
        }
        let lower = config.lower.map(|h| h.build(&task));
        let residual = config.residual.map(|h| h.build(&task));
        let features = (config.model.info().reads == Reads::Features).then(|| Features::new(&task, Definitions::Hfarm));
        let inputs = (config.lower.map(|h| h.name()), config.residual.map(|h| h.name()));
        let instance = Arc::new(Encoder { shape: &config.shape, domain: &domain }.prepare(task, &problem)?);
        if let Eval::Shared(c) = &eval {
            c.register(instance.clone());
        }
        let c = &config;
        let name = format!(
            "{:?}/{:?}/{:?}/{}{}",
            c.model,
            c.family,
            c.sigma,
            c.residual.map_or("none", |h| h.name()),
            if clip { "+clip" } else { "" }
        )
        .to_lowercase();
        Ok(LearnedHeuristic {
            eval,
            domain,
            instance,
            lower,
            residual,
            features,
            inputs,
            clip,
            name,
            forward_passes: 0,
        })
    }

    /// Computes the model's classical inputs under `definitions` from now
    /// on (ours at construction).
    pub fn use_definitions(&mut self, definitions: Definitions) {
        let task = &self.instance.task;
        let build = |name: Option<&str>| {
            name.map(|n| {
                let info = definitions.resolve(n).expect("a configuration's heuristics are registered");
                (info.build)(task)
            })
        };
        self.lower = build(self.inputs.0);
        self.residual = build(self.inputs.1);
        if self.features.is_some() {
            self.features = Some(Features::new(task, definitions));
        }
    }

    pub fn task(&self) -> &Task {
        &self.instance.task
    }
}

/// The point estimates of `pairs` (E[x], or the +clip mean) in one forward
/// pass, rounded to multiples of 2^-16 (see the module's note).
pub(crate) fn estimates(
    predictor: &Predictor,
    domain: &Domain,
    pairs: &[(&InstanceInput, &StateInput)],
    lows: &[f64],
    ress: &[f64],
    clip: bool,
) -> Vec<f64> {
    let device = predictor.device();
    let encoder = Encoder { shape: &predictor.config.shape, domain };
    let mut raw: Vec<f64> = Vec::with_capacity(pairs.len());
    for range in passes(&predictor.config.shape, pairs) {
        tch::no_grad(|| {
            let b = encoder.batch(&pairs[range.clone()], device);
            let side = Side::new(&lows[range.clone()], &ress[range.clone()], device);
            let dist = predictor.distribution(&b, &side).expect("batch built for this model");
            let est = if clip { dist.clipped().mean() } else { dist.mean() };
            raw.extend(Vec::<f64>::try_from(est.to_kind(Kind::Double).to(Device::Cpu)).expect("a vector of f64"));
        });
    }
    raw.into_iter().map(|v| (v * 65536.0).round() / 65536.0).collect()
}

/// Cells of an NLM's arity-3 tensors (objects cubed, summed over states) in
/// one forward pass. Each cell carries a few hundred channels (16 per arity,
/// expanded, reduced and permuted), so a pass stays within a few GiB per
/// tensor: 256 gripper-20 searches' successors in one pass asked a GPU for
/// 56 GiB (the first `scripts/gpu-check` on an H100).
const NLM_CELLS_PER_PASS: usize = 1 << 21;
/// States of the other models in one forward pass.
const STATES_PER_PASS: usize = 4096;

/// The forward passes that evaluate `pairs`: consecutive ranges bounded in
/// memory. Values do not depend on how states are grouped (they are rounded
/// past what a batch's composition changes).
fn passes(shape: &Shape, pairs: &[(&InstanceInput, &StateInput)]) -> Vec<std::ops::Range<usize>> {
    let weights: Vec<usize> = pairs
        .iter()
        .map(|(instance, _)| match (shape, &instance.relational) {
            (Shape::Nlm { .. }, Some(r)) => r.num_objects.pow(3).max(1),
            _ => NLM_CELLS_PER_PASS / STATES_PER_PASS,
        })
        .collect();
    ranges_within(&weights, NLM_CELLS_PER_PASS)
}

/// Splits `weights` into consecutive ranges of total weight at most
/// `budget`; an item heavier than the budget gets a range of its own.
fn ranges_within(weights: &[usize], budget: usize) -> Vec<std::ops::Range<usize>> {
    let mut ranges = vec![];
    let (mut start, mut load) = (0, 0);
    for (i, &w) in weights.iter().enumerate() {
        if i > start && load + w > budget {
            ranges.push(start..i);
            (start, load) = (i, 0);
        }
        load += w;
    }
    if start < weights.len() {
        ranges.push(start..weights.len());
    }
    ranges
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
                Some(f) => f.of(s),
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
        let values = match &mut self.eval {
            Eval::Own(p) => {
                let pairs: Vec<(&InstanceInput, &StateInput)> = states.iter().map(|s| (&*self.instance, s)).collect();
                estimates(p, &self.domain, &pairs, &lows, &ress, self.clip)
            }
            Eval::Shared(c) => c.estimates(states, lows, ress, self.clip),
        };
        self.forward_passes += 1;
        for (slot, v) in slots.into_iter().zip(values) {
            // A NaN would break the open list's order: treat as a dead end.
            out[slot] = if v.is_nan() { DEAD_END } else { v };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::ranges_within;

    #[test]
    fn forward_passes_stay_within_their_budget_and_cover_every_state_once() {
        assert_eq!(ranges_within(&[3, 3, 3, 3], 7), vec![0..2, 2..4]);
        assert_eq!(ranges_within(&[3, 3, 3, 3], 12), vec![0..4]);
        // Heavier than the budget alone: a pass of its own, never none.
        assert_eq!(ranges_within(&[2, 9, 2], 5), vec![0..1, 1..2, 2..3]);
        assert_eq!(ranges_within(&[], 5), Vec::<std::ops::Range<usize>>::new());
        // The 256 gripper-20 searches' successors of the first H100 run:
        // about 3,500 states of 24^3 cells each, in passes of at most 2^21.
        let weights = vec![24usize.pow(3); 3500];
        let ranges = ranges_within(&weights, super::NLM_CELLS_PER_PASS);
        assert_eq!(ranges.first(), Some(&(0..151)));
        assert_eq!(ranges.last().map(|r| r.end), Some(3500));
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
    }
}
