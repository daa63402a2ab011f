//! The NLM's input: one dense 0/1 tensor per arity r of shape
//! [batch, objects^r, features_r]. Features of arity r are the domain's
//! predicates of that arity, then the same predicates for the goal (goal atoms
//! are extra input predicates), then, for r = 1, the objects' types.
//! The network never depends on the number of objects: instances of
//! different sizes share a batch, padded to its largest and masked.

use std::collections::HashMap;

use planner::pddl::{Domain, Problem};
use planner::Task;
use tch::{Device, Kind, Tensor};

use crate::LearnError;

pub use crate::shape::{Vocabulary, MAX_ARITY};

/// One set bit of the input: arity, object indices, feature.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    arity: u8,
    args: [u16; MAX_ARITY],
    feature: u16,
}

/// An instance prepared for the NLM.
pub struct RelationalInstance {
    pub num_objects: usize,
    features: Vec<usize>,
    /// Static atoms, goal atoms and types: true in every state.
    base: Vec<Entry>,
    /// The entry of each task fact.
    facts: Vec<Entry>,
}

impl RelationalInstance {
    pub fn new(vocab: &Vocabulary, domain: &Domain, problem: &Problem, task: &Task) -> Result<Self, LearnError> {
        let entry = |pred: &str, args: &[u32], goal: bool| -> Result<Entry, LearnError> {
            let (arity, feature) = vocab.slot(pred, goal).ok_or_else(|| {
                LearnError::Input(format!("{}: predicate {pred} is not in the model's vocabulary", problem.name))
            })?;
            let mut a = [0u16; MAX_ARITY];
            for (k, &o) in args.iter().enumerate().take(arity) {
                a[k] = o as u16;
            }
            Ok(Entry { arity: arity as u8, args: a, feature: feature as u16 })
        };
        if task.objects.len() > u16::MAX as usize {
            return Err(LearnError::Input(format!("{}: too many objects", problem.name)));
        }
        let pname = |p: u32| task.predicates[p as usize].as_str();
        let facts =
            task.facts.iter().map(|a| entry(pname(a.predicate), &a.args, false)).collect::<Result<Vec<_>, _>>()?;
        let mut base = vec![];
        for a in &task.static_atoms {
            base.push(entry(pname(a.predicate), &a.args, false)?);
        }
        for &g in &task.goal {
            let a = &task.facts[g as usize];
            base.push(entry(pname(a.predicate), &a.args, true)?);
        }
        // Types (with their ancestors) as unary predicates.
        let index: HashMap<&str, usize> = task.objects.iter().enumerate().map(|(i, o)| (o.as_str(), i)).collect();
        let n_unary_preds = vocab.predicates.iter().filter(|(_, a)| *a == 1).count() * 2;
        for obj in domain.constants.iter().chain(&problem.objects) {
            let Some(&i) = index.get(obj.name.as_str()) else { continue };
            let mut todo: Vec<String> = obj.types.clone();
            let mut seen: Vec<String> = vec![];
            while let Some(t) = todo.pop() {
                if seen.contains(&t) {
                    continue;
                }
                for (c, p) in &domain.types {
                    if *c == t {
                        todo.push(p.clone());
                    }
                }
                seen.push(t);
            }
            for t in seen {
                if let Some(k) = vocab.types.iter().position(|x| *x == t) {
                    base.push(Entry { arity: 1, args: [i as u16, 0, 0], feature: (n_unary_preds + k) as u16 });
                }
            }
        }
        Ok(RelationalInstance { num_objects: task.objects.len(), features: vocab.features(), base, facts })
    }
}

/// A padded batch: `inputs[r]` is [B, O^r, F_r] (None where F_r = 0), and
/// `valid` is [B, O] (object index < the sample's number of objects).
pub struct RelationalBatch {
    pub inputs: Vec<Option<Tensor>>,
    pub valid: Tensor,
    pub objects: i64,
}

impl RelationalBatch {
    pub fn new(items: &[(&RelationalInstance, &[u32])], device: Device) -> RelationalBatch {
        let b = items.len();
        let o = items.iter().map(|(i, _)| i.num_objects).max().unwrap_or(0).max(1);
        let features = items.first().map(|(i, _)| i.features.clone()).unwrap_or_else(|| vec![0; MAX_ARITY + 1]);
        let sizes: Vec<usize> = (0..=MAX_ARITY).map(|r| o.pow(r as u32) * features[r]).collect();
        let mut dense: Vec<Vec<f32>> = sizes.iter().map(|&s| vec![0.0; s * b]).collect();
        for (k, (inst, facts)) in items.iter().enumerate() {
            let mut set = |e: &Entry| {
                let r = e.arity as usize;
                let mut idx = 0usize;
                for a in &e.args[..r] {
                    idx = idx * o + *a as usize;
                }
                dense[r][k * sizes[r] + idx * features[r] + e.feature as usize] = 1.0;
            };
            inst.base.iter().for_each(&mut set);
            facts.iter().for_each(|&f| set(&inst.facts[f as usize]));
        }
        let inputs = (0..=MAX_ARITY)
            .map(|r| {
                (features[r] > 0).then(|| {
                    let mut shape = vec![b as i64];
                    shape.extend(std::iter::repeat_n(o as i64, r));
                    shape.push(features[r] as i64);
                    Tensor::from_slice(&dense[r]).reshape(&shape).to(device)
                })
            })
            .collect();
        let valid: Vec<bool> = items.iter().flat_map(|(i, _)| (0..o).map(move |j| j < i.num_objects)).collect();
        let valid = Tensor::from_slice(&valid).reshape([b as i64, o as i64]).to_kind(Kind::Bool).to(device);
        RelationalBatch { inputs, valid, objects: o as i64 }
    }
}
