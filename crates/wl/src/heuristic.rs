//! The linear WL model as a planner heuristic: h(s) = bias + the sum of the
//! weights of every node's colour at every iteration (the dot product of
//! the weights with the colour counts, without building the vector).

use std::sync::Arc;

use planner::heuristics::{Heuristic, StateBatch};
use planner::Task;

use crate::graph::Ilg;
use crate::model::Model;
use crate::refine::{initial_keys, refine, Scratch, StaticPart, UNSEEN};

pub struct WlHeuristic {
    model: Arc<Model>,
    ilg: Ilg,
    keys: Vec<[u64; 3]>,
    statics: StaticPart,
    scratch: Scratch,
}

impl WlHeuristic {
    /// The model on `task`; refused when the task is of another domain.
    pub fn new(model: Arc<Model>, task: &Task) -> Result<WlHeuristic, String> {
        if model.domain != task.domain_name {
            return Err(format!(
                "the model was trained on domain {:?}, the task is of domain {:?}",
                model.domain, task.domain_name
            ));
        }
        let ilg = Ilg::new(task);
        let keys = initial_keys(&ilg);
        let statics = StaticPart::new(&ilg, &keys, &model.dictionary);
        Ok(WlHeuristic { model, ilg, keys, statics, scratch: Scratch::default() })
    }

    pub fn value(&mut self, state: &[u64]) -> f64 {
        let m = &*self.model;
        let mut h = m.bias;
        refine(
            &self.ilg,
            &self.keys,
            state,
            m.iterations(),
            &mut self.scratch,
            Some(&self.statics),
            &mut |t, k| m.dictionary.get(t, k),
            &mut |cs| {
                let mut sum = 0.0;
                for &c in cs {
                    if c != UNSEEN {
                        sum += m.weights[c as usize];
                    }
                }
                h += sum
            },
        );
        h
    }
}

impl Heuristic for WlHeuristic {
    fn name(&self) -> &str {
        "wl"
    }

    fn evaluate_batch(&mut self, batch: StateBatch<'_>, out: &mut Vec<f64>) {
        out.clear();
        for s in batch.iter() {
            out.push(self.value(s));
        }
    }
}
