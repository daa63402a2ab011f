//! The networks: each maps a batch to raw outputs [B, 1 or 2] (delta mu, and
//! the raw sigma when sigma is learned); `Predictor` turns those into
//! distributions.

mod hgn;
mod linear;
mod nlm;
pub mod stacked;

use serde::{Deserialize, Serialize};
use tch::{nn, Tensor};

use crate::config::ModelKind;
use crate::encode::{Batch, Vocabulary};
use crate::LearnError;

pub use hgn::Hgn;
pub use linear::Linear;
pub use nlm::Nlm;

/// A network's architecture for one domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum Shape {
    Linear {
        features: usize,
    },
    /// Breadth 3, depth 5, 8 predicates per arity per layer, sigmoid layers
    /// without hidden units (appendix C.1).
    Nlm {
        vocabulary: Vocabulary,
        depth: usize,
        hidden: usize,
    },
    /// Hidden size 32, 4 recursion steps (appendix C.1).
    Hgn {
        hidden: usize,
        steps: usize,
        max_preconditions: usize,
        max_add_effects: usize,
    },
}

impl Shape {
    pub fn kind(&self) -> ModelKind {
        match self {
            Shape::Linear { .. } => ModelKind::Linear,
            Shape::Nlm { .. } => ModelKind::Nlm,
            Shape::Hgn { .. } => ModelKind::Hgn,
        }
    }
}

/// A built network.
pub enum Network {
    Linear(Linear),
    Nlm(Nlm),
    Hgn(Box<Hgn>),
}

impl Network {
    /// Creates the variables of `shape` under `path`, with `outputs`
    /// outputs, for one stacked run per seed (`seeds[r]` initialises run r).
    pub fn new(path: &nn::Path, shape: &Shape, outputs: i64, seeds: &[u64]) -> Result<Network, LearnError> {
        Ok(match shape {
            Shape::Linear { features } => Network::Linear(Linear::new(path, *features as i64, outputs, seeds)),
            Shape::Nlm { vocabulary, depth, hidden } => {
                Network::Nlm(Nlm::new(path, &vocabulary.features(), *depth, *hidden as i64, outputs, seeds))
            }
            Shape::Hgn { hidden, steps, max_preconditions, max_add_effects } => {
                let [seed] = seeds else {
                    return Err(LearnError::Input("the HGN trains one run at a time, not a stacked group".into()));
                };
                Network::Hgn(Box::new(Hgn::new(
                    path,
                    *hidden as i64,
                    *steps,
                    *max_preconditions as i64,
                    *max_add_effects as i64,
                    outputs,
                    *seed,
                )))
            }
        })
    }

    /// Every dense layer (all of the network's variables).
    fn dense(&self) -> Vec<&stacked::StackedLinear> {
        match self {
            Network::Linear(m) => m.dense(),
            Network::Nlm(m) => m.dense(),
            Network::Hgn(m) => m.dense(),
        }
    }

    /// Run `r`'s variables as stored (nn::Linear's layout), sorted by name.
    pub fn export(&self, r: i64) -> Vec<(String, Tensor)> {
        let mut v: Vec<(String, Tensor)> = self.dense().iter().flat_map(|d| d.export(r)).collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }

    /// Sets run `r`'s variables from stored tensors named `prefix + name`.
    pub fn import(&self, r: i64, loaded: &[(String, Tensor)], prefix: &str) -> Result<(), LearnError> {
        for d in self.dense() {
            d.import(r, loaded, prefix).map_err(LearnError::Input)?;
        }
        Ok(())
    }

    pub fn forward(&self, batch: &Batch) -> Result<Tensor, LearnError> {
        match (self, batch) {
            (Network::Linear(m), Batch::Features(x)) => Ok(m.forward(x)),
            (Network::Nlm(m), Batch::Relational(b)) => Ok(m.forward(b)),
            (Network::Hgn(m), Batch::Hypergraph(b)) => Ok(m.forward(b)),
            _ => Err(LearnError::Internal("batch does not match the network".into())),
        }
    }
}
