//! The networks: each maps a batch to raw outputs [B, 1 or 2] (delta mu, and
//! the raw sigma when sigma is learned); `Predictor` turns those into
//! distributions.

mod hgn;
mod hgn_relu;
mod linear;
mod nlm;
pub mod stacked;

use tch::{nn, Tensor};

use crate::encode::Batch;
use crate::LearnError;

pub use hgn::Hgn;
pub use hgn_relu::ReluHgn;
pub use linear::Linear;
pub use nlm::Nlm;

pub use crate::shape::{HgnBlocks, Shape, NLM_HIDDEN};

/// A built network.
pub enum Network {
    Linear(Linear),
    Nlm(Nlm),
    Hgn(Box<Hgn>),
    ReluHgn(Box<ReluHgn>),
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
            Shape::Hgn { hidden, steps, max_preconditions, max_add_effects, blocks } => {
                let [seed] = seeds else {
                    return Err(LearnError::Input("the HGN trains one run at a time, not a stacked group".into()));
                };
                let (h, p, a) = (*hidden as i64, *max_preconditions as i64, *max_add_effects as i64);
                match blocks {
                    HgnBlocks::StripsHgn => Network::Hgn(Box::new(Hgn::new(path, h, *steps, p, a, outputs, *seed))),
                    HgnBlocks::Relu => Network::ReluHgn(Box::new(ReluHgn::new(path, h, *steps, p, a, outputs, *seed))),
                }
            }
        })
    }

    /// Every dense layer (all of the network's variables).
    fn dense(&self) -> Vec<&stacked::StackedLinear> {
        match self {
            Network::Linear(m) => m.dense(),
            Network::Nlm(m) => m.dense(),
            Network::Hgn(m) => m.dense(),
            Network::ReluHgn(m) => m.dense(),
        }
    }

    /// Parameters of one run (what torch's `numel` sums over a run's model).
    pub fn parameters_per_run(&self) -> i64 {
        self.dense().iter().map(|d| (d.weight.numel() + d.bias.numel()) as i64 / d.runs()).sum()
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
            (Network::ReluHgn(m), Batch::Hypergraph(b)) => Ok(m.forward(b)),
            _ => Err(LearnError::Internal("batch does not match the network".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// HGN shapes stored before the authors' blocks read back as the first
    /// HGN and are written back unchanged; new shapes name their blocks.
    #[test]
    fn stored_hgn_shapes_keep_their_blocks() {
        let old = r#"{"model":"hgn","hidden":32,"steps":4,"max_preconditions":7,"max_add_effects":3}"#;
        let shape: Shape = serde_json::from_str(old).unwrap();
        assert!(matches!(shape, Shape::Hgn { blocks: HgnBlocks::Relu, .. }), "{shape:?}");
        assert_eq!(serde_json::to_string(&shape).unwrap(), old);

        let new =
            Shape::Hgn { hidden: 32, steps: 4, max_preconditions: 7, max_add_effects: 3, blocks: HgnBlocks::StripsHgn };
        let json = serde_json::to_string(&new).unwrap();
        assert_eq!(json, old.replace('}', r#","blocks":"strips_hgn"}"#));
        assert_eq!(serde_json::from_str::<Shape>(&json).unwrap(), new);
        let bad = old.replace('}', r#","blocks":"gcn"}"#);
        assert!(serde_json::from_str::<Shape>(&bad).is_err());
    }

    /// The two HGNs have their own variables: stored weights of one never
    /// load into the other.
    #[test]
    fn hgn_blocks_build_different_networks() {
        let build = |blocks| {
            let vs = nn::VarStore::new(tch::Device::Cpu);
            let shape = Shape::Hgn { hidden: 32, steps: 4, max_preconditions: 7, max_add_effects: 3, blocks };
            let net = Network::new(&vs.root(), &shape, 2, &[1]).unwrap();
            (net.parameters_per_run(), net.export(0), vs)
        };
        let (ours, named, _a) = build(HgnBlocks::StripsHgn);
        let (first, _, _b) = build(HgnBlocks::Relu);
        // strips_hgn at 8e53645 with model_wrapper.py's sizes (checked against
        // the authors' module by tests/pddlsl_networks.rs).
        assert_eq!(ours, 38_626);
        assert_ne!(first, ours);
        let vs = nn::VarStore::new(tch::Device::Cpu);
        let shape =
            Shape::Hgn { hidden: 32, steps: 4, max_preconditions: 7, max_add_effects: 3, blocks: HgnBlocks::Relu };
        let relu = Network::new(&vs.root(), &shape, 2, &[1]).unwrap();
        let e = relu.import(0, &named, "").unwrap_err().to_string();
        assert!(e.contains("stored weights lack"), "{e}");
    }
}
