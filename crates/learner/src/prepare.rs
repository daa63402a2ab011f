//! Labelled instances turned into encoded samples for one model.

use planner::heuristics::{FF, LMCUT};
use planner::pddl::Domain;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use tch::{Device, Tensor};

use crate::config::{Family, LowerBound, ModelConfig, ModelKind, ResidualBase, SigmaMode};
use crate::data::LabelledInstance;
use crate::encode::{self, AtomIndex, Batch, Encoder, InstanceInput, StateInput};

use crate::predictor::Side;
use crate::LearnError;

/// The paper's axes of one model (section 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axes {
    pub model: ModelKind,
    pub family: Family,
    pub sigma: SigmaMode,
    pub lower: Option<LowerBound>,
    pub residual: Option<ResidualBase>,
}

pub fn parse_domain(domain_pddl: &str) -> Result<Domain, LearnError> {
    planner::pddl::parse_domain(domain_pddl, "domain.pddl").map_err(|e| LearnError::Input(e.to_string()))
}

/// The model's configuration for a domain, as the authors' code builds it
/// (its shape from the model's descriptor, `models::ModelInfo::shape`).
pub fn model_config(axes: Axes, domain: &Domain, tasks: &[&planner::Task]) -> Result<ModelConfig, LearnError> {
    let shape = (axes.model.info().shape)(domain, tasks)?;
    Ok(ModelConfig {
        model: axes.model,
        family: axes.family,
        sigma: axes.sigma,
        lower: axes.lower,
        residual: axes.residual,
        shape,
    })
}

/// One encoded labelled state.
pub struct Item {
    pub instance: usize,
    pub state: StateInput,
    pub target: f64,
    /// Raw lower bound (NaN where the model has none).
    pub lower: f64,
    pub residual: f64,
    pub ff: f64,
    pub lmcut: f64,
}

/// Encoded samples of a set of instances.
pub struct Prepared {
    pub instances: Vec<InstanceInput>,
    pub items: Vec<Item>,
}

/// Grounds the instances (unpruned, as the labels were recorded).
pub fn ground_all(
    domain: &Domain,
    instances: &[&LabelledInstance],
) -> Result<Vec<(planner::pddl::Problem, planner::Task)>, LearnError> {
    instances.iter().map(|i| encode::ground(domain, &i.problem_pddl, &i.name)).collect()
}

impl Prepared {
    pub fn new(
        config: &ModelConfig,
        domain: &Domain,
        instances: &[&LabelledInstance],
        grounded: Vec<(planner::pddl::Problem, planner::Task)>,
    ) -> Result<Prepared, LearnError> {
        let encoder = Encoder { shape: &config.shape, domain };
        let mut out = Prepared { instances: vec![], items: vec![] };
        for (k, (inst, (problem, task))) in instances.iter().zip(grounded).enumerate() {
            let index = AtomIndex::new(&task);
            for s in &inst.samples {
                let value = |h: Option<&str>, what: &str| -> Result<f64, LearnError> {
                    let Some(h) = h else { return Ok(f64::NAN) };
                    match s.heuristics.get(h) {
                        Some(Some(v)) => Ok(*v),
                        Some(None) => Err(LearnError::Input(format!(
                            "{}: a labelled state is a dead end for the {what} {h}",
                            inst.name
                        ))),
                        None => Err(LearnError::Input(format!(
                            "{}: a labelled state has no {what} value ({h}): labelled before {h} was registered?",
                            inst.name
                        ))),
                    }
                };
                let lower = value(config.lower.map(LowerBound::name), "lower bound")?;
                let residual = match config.residual {
                    None => 0.0,
                    Some(r) => value(Some(r.name()), "residual base")?,
                };
                out.items.push(Item {
                    instance: k,
                    state: index.state(s, &inst.name)?,
                    target: s.h_star,
                    lower,
                    residual,
                    ff: s.value(FF.name).unwrap_or(f64::NAN),
                    lmcut: s.value(LMCUT.name).unwrap_or(f64::NAN),
                });
            }
            out.instances.push(encoder.prepare(task, &problem)?);
        }
        Ok(out)
    }

    /// The batch of items `idx`, with side values and targets [B] (f64).
    pub fn batch(&self, config: &ModelConfig, domain: &Domain, idx: &[usize], device: Device) -> (Batch, Side, Tensor) {
        let encoder = Encoder { shape: &config.shape, domain };
        let pairs: Vec<(&InstanceInput, &StateInput)> =
            idx.iter().map(|&i| (&self.instances[self.items[i].instance], &self.items[i].state)).collect();
        let batch = encoder.batch(&pairs, device);
        let lower: Vec<f64> = idx.iter().map(|&i| self.items[i].lower).collect();
        let residual: Vec<f64> = idx.iter().map(|&i| self.items[i].residual).collect();
        let target: Vec<f64> = idx.iter().map(|&i| self.items[i].target).collect();
        (batch, Side::new(&lower, &residual, device), Tensor::from_slice(&target).to(device))
    }
}

/// The training instances of a run: `n` drawn from `all` by `seed`
/// (independent of the order the instances were given in).
pub fn draw_instances(all: &[LabelledInstance], n: usize, seed: u64) -> Vec<&LabelledInstance> {
    let mut v: Vec<&LabelledInstance> = all.iter().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    v.shuffle(&mut rng);
    v.truncate(n);
    v
}
