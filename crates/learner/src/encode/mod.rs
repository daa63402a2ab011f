//! From planning states to network inputs.
//!
//! Every model sees a state of a grounded task (grounded without relevance
//! pruning, so that the atoms the farm stored for a labelled state are
//! exactly the task's facts plus its static atoms). An instance is prepared
//! once ([`Encoder::prepare`]); then states are lists of true fact ids and
//! batches are built from them for one forward pass.

pub mod hypergraph;
mod relational;

pub use hypergraph::{operator_sizes, HypergraphBatch, HypergraphInstance};
pub use relational::{RelationalBatch, RelationalInstance, Vocabulary};

use std::collections::HashMap;

use planner::pddl::{Domain, Problem};
use planner::Task;
use tch::Device;

use crate::data::Sample;
use crate::shape::Shape;
use crate::LearnError;

/// Gomoluch et al.'s features: goal count, hFF, and the total and mean number
/// of delete effects FF's relaxed plan ignores.
pub const NUM_FEATURES: usize = 4;

/// A state as the networks read it.
#[derive(Debug, Clone, PartialEq)]
pub struct StateInput {
    /// The task's true facts (static atoms excluded: they are per instance).
    pub facts: Vec<u32>,
    pub features: [f32; NUM_FEATURES],
}

/// A prepared instance: the grounded task and what each model needs of it.
pub struct InstanceInput {
    pub task: Task,
    pub relational: Option<RelationalInstance>,
    pub hypergraph: Option<HypergraphInstance>,
}

/// One batch, in the form of the model it is for.
pub enum Batch {
    Features(tch::Tensor),
    Relational(RelationalBatch),
    Hypergraph(HypergraphBatch),
}

/// Parses and grounds an instance without relevance pruning.
pub fn ground(domain: &Domain, problem_pddl: &str, name: &str) -> Result<(Problem, Task), LearnError> {
    let problem = planner::pddl::parse_problem(problem_pddl, name, domain)
        .map_err(|e| LearnError::Input(format!("{name}: {e}")))?;
    let task =
        planner::ground::ground_with(domain, &problem, planner::ground::GroundOptions { prune_irrelevant: false })
            .map_err(|e| LearnError::Input(format!("{name}: {e}")))?;
    Ok((problem, task))
}

/// Builds network inputs for one model shape.
pub struct Encoder<'a> {
    pub shape: &'a Shape,
    pub domain: &'a Domain,
}

impl Encoder<'_> {
    /// Prepares an instance for this model.
    pub fn prepare(&self, task: Task, problem: &Problem) -> Result<InstanceInput, LearnError> {
        let mut input = InstanceInput { task, relational: None, hypergraph: None };
        match self.shape {
            Shape::Linear { .. } => {}
            Shape::Nlm { vocabulary, .. } => {
                input.relational = Some(RelationalInstance::new(vocabulary, self.domain, problem, &input.task)?)
            }
            Shape::Hgn { max_preconditions, max_add_effects, .. } => {
                input.hypergraph =
                    Some(HypergraphInstance::new(&input.task, *max_preconditions, *max_add_effects, &problem.name)?)
            }
        }
        Ok(input)
    }

    /// One batch of (instance, state) pairs on `device`.
    pub fn batch(&self, items: &[(&InstanceInput, &StateInput)], device: Device) -> Batch {
        match self.shape {
            Shape::Linear { .. } => {
                let flat: Vec<f32> = items.iter().flat_map(|(_, s)| s.features).collect();
                let t = tch::Tensor::from_slice(&flat).reshape([items.len() as i64, NUM_FEATURES as i64]).to(device);
                Batch::Features(t)
            }
            Shape::Nlm { .. } => Batch::Relational(RelationalBatch::new(
                &items
                    .iter()
                    .map(|(i, s)| (i.relational.as_ref().expect("prepared for the NLM"), s.facts.as_slice()))
                    .collect::<Vec<_>>(),
                device,
            )),
            Shape::Hgn { blocks, .. } => Batch::Hypergraph(HypergraphBatch::new(
                &items
                    .iter()
                    .map(|(i, s)| (i.hypergraph.as_ref().expect("prepared for the HGN"), s.facts.as_slice()))
                    .collect::<Vec<_>>(),
                *blocks,
                device,
            )),
        }
    }
}

/// The features of a labelled state (missing values read as 0).
pub fn sample_features(s: &Sample) -> [f32; NUM_FEATURES] {
    use planner::heuristics::{FF, GOALCOUNT};
    let ff = s.feature_ff.or_else(|| s.value(FF.name));
    [s.value(GOALCOUNT.name), ff, s.deletes_ignored, s.mean_deletes_ignored].map(|v| v.unwrap_or(0.0) as f32)
}

/// Maps a labelled state's atoms onto the task's facts. Static atoms are
/// skipped; any other atom the task does not know is an error (the labels
/// and the instance disagree).
pub struct AtomIndex {
    facts: HashMap<String, u32>,
    statics: std::collections::HashSet<String>,
}

impl AtomIndex {
    pub fn new(task: &Task) -> AtomIndex {
        AtomIndex {
            facts: (0..task.facts.len() as u32).map(|f| (task.fact_name(f), f)).collect(),
            statics: task.static_atoms.iter().map(|a| task.atom_name(a)).collect(),
        }
    }

    pub fn state(&self, sample: &Sample, instance: &str) -> Result<StateInput, LearnError> {
        let mut facts = Vec::with_capacity(sample.atoms.len());
        for a in &sample.atoms {
            let key = normalise_atom(a);
            if let Some(&f) = self.facts.get(&key) {
                facts.push(f);
            } else if !self.statics.contains(&key) {
                return Err(LearnError::Input(format!(
                    "{instance}: labelled atom {a} is neither a fact nor a static atom of the grounded task"
                )));
            }
        }
        facts.sort_unstable();
        Ok(StateInput { facts, features: sample_features(sample) })
    }
}

fn normalise_atom(a: &str) -> String {
    match crate::data::parse_atom(a) {
        Some((p, args)) if !args.is_empty() => format!("({} {})", p, args.join(" ")),
        Some((p, _)) => format!("({p})"),
        None => a.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The linear model's hFF feature is the label's own where it has one
    /// (pyperplan's, as the authors' training data), else the `ff` value.
    #[test]
    fn the_hff_feature_is_the_labels_own_where_it_has_one() {
        let mut s = Sample {
            atoms: vec![],
            h_star: 7.0,
            heuristics: [("ff".to_string(), Some(5.0)), ("goalcount".to_string(), Some(2.0))].into(),
            deletes_ignored: Some(4.0),
            mean_deletes_ignored: Some(1.0),
            feature_ff: None,
        };
        assert_eq!(sample_features(&s), [2.0, 5.0, 4.0, 1.0]);
        s.feature_ff = Some(6.0);
        assert_eq!(sample_features(&s), [2.0, 6.0, 4.0, 1.0]);
    }
}
