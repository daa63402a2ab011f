//! The networks: each maps a batch to raw outputs [B, 1 or 2] (delta mu, and
//! the raw sigma when sigma is learned); `Predictor` turns those into
//! distributions.
//!
//! Each model describes itself beside its network ([`ModelInfo`]: name,
//! what it reads, whether it stacks runs, the paper's optimiser settings,
//! its shape for a domain) and is registered by one line in the
//! `register!` call below, which declares [`ModelKind`]. The farm's half of
//! the description (where it plans, its cost defaults) is
//! `jobs::model::ModelInfo`, under the same name.

mod hgn;
mod hgn_relu;
mod linear;
mod nlm;
pub mod stacked;

use planner::pddl::Domain;
use planner::Task;
use serde::{Deserialize, Serialize};
use tch::{nn, Tensor};

use crate::encode::Batch;
use crate::LearnError;

pub use hgn::Hgn;
pub use hgn_relu::ReluHgn;
pub use linear::Linear;
pub use nlm::Nlm;

pub use crate::shape::{HgnBlocks, Shape, NLM_HIDDEN};

/// What a model's network reads, which its encoder prepares
/// (`encode::Encoder::prepare`, by its [`Shape`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reads {
    /// Gomoluch et al.'s relaxed-plan features of each state
    /// (`encode::NUM_FEATURES`), computed by the planner's hFF.
    Features,
    /// The relational state and goal, one tensor per arity (`encode::relational`).
    Relational,
    /// The grounded task's hypergraph (`encode::hypergraph`).
    Hypergraph,
}

/// A learned model's description for the learner; the farm's half is
/// `jobs::model::ModelInfo` under the same [`ModelInfo::name`].
#[derive(Debug)]
pub struct ModelInfo {
    /// The name on the command line, in grids and in stored configurations
    /// (`ModelConfig::model`): the snake_case of its [`ModelKind`] variant
    /// (tested). Never rename: stored models read it back.
    pub name: &'static str,
    /// What its network reads.
    pub reads: Reads,
    /// Whether its batches carry runs in their leading dimension, so that a
    /// group of runs trains as one stacked network (`train::Trainer`);
    /// otherwise it trains one run at a time.
    pub stacks: bool,
    /// The learning rate the authors' code trained it with.
    pub learning_rate: f64,
    /// AdamW's weight decay as the authors' code trained it.
    pub weight_decay: f64,
    /// Its architecture for a domain, given the training tasks.
    pub shape: fn(&Domain, &[&Task]) -> Result<Shape, LearnError>,
}

/// Declares [`ModelKind`] (one variant per registered model, serialized as
/// the snake_case of the variant, the descriptor's name), [`ModelKind::ALL`]
/// and [`ModelKind::info`] from one line per model.
macro_rules! register {
    ($($(#[$doc:meta])* $variant:ident => $info:path),* $(,)?) => {
        /// The function approximator: a registered model, described by
        /// [`ModelKind::info`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum ModelKind {
            $($(#[$doc])* $variant),*
        }

        impl ModelKind {
            /// Every registered model, in registration order.
            pub const ALL: &'static [ModelKind] = &[$(ModelKind::$variant),*];

            /// The model's description.
            pub fn info(self) -> &'static ModelInfo {
                match self {
                    $(ModelKind::$variant => &$info),*
                }
            }
        }
    };
}

// The registry: adding a model is its module (network and descriptor) and
// one line here; the compiler then asks for its `Shape` arms.
register! {
    /// Linear regression on Gomoluch et al.'s relaxed-plan features.
    Linear => linear::INFO,
    /// Neural Logic Machine over the relational state and goal.
    Nlm => nlm::INFO,
    /// STRIPS-HGN over the grounded task's hypergraph.
    Hgn => hgn::INFO,
}

impl ModelKind {
    /// The model's name ([`ModelInfo::name`]).
    pub fn name(self) -> &'static str {
        self.info().name
    }

    /// The model of that name, if one is registered.
    pub fn by_name(name: &str) -> Option<ModelKind> {
        ModelKind::ALL.iter().copied().find(|m| m.name() == name)
    }

    /// The registered names, for messages.
    pub fn names() -> Vec<&'static str> {
        ModelKind::ALL.iter().map(|m| m.name()).collect()
    }

    /// The learning rate the authors' code trained this model with
    /// ([`ModelInfo::learning_rate`]).
    pub fn paper_learning_rate(self) -> f64 {
        self.info().learning_rate
    }

    /// AdamW's weight decay as the authors' code trained this model
    /// ([`ModelInfo::weight_decay`]).
    pub fn paper_weight_decay(self) -> f64 {
        self.info().weight_decay
    }
}

impl Shape {
    /// The model this shape builds.
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

    /// A model's stored form is its descriptor's name, names are unique,
    /// and only a stacking model builds a stacked network.
    #[test]
    fn registered_models_describe_themselves() {
        for &m in ModelKind::ALL {
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.name()));
            assert_eq!(serde_json::from_str::<ModelKind>(&json).unwrap(), m);
            assert_eq!(ModelKind::by_name(m.name()), Some(m));
            assert_eq!(ModelKind::ALL.iter().filter(|o| o.name() == m.name()).count(), 1);
        }
        assert_eq!(ModelKind::names(), ["linear", "nlm", "hgn"]);
        let p = planner::generate::Params::Gripper { balls: 2 };
        let problem_pddl = planner::generate::generate(&p, 1).unwrap();
        let domain = crate::prepare::parse_domain(planner::generate::domain_pddl(p.domain()).unwrap()).unwrap();
        let (_, task) = crate::encode::ground(&domain, &problem_pddl, "p").unwrap();
        for &m in ModelKind::ALL {
            let shape = (m.info().shape)(&domain, &[&task]).unwrap();
            assert_eq!(shape.kind(), m);
            let vs = nn::VarStore::new(tch::Device::Cpu);
            let stacked = Network::new(&vs.root(), &shape, 2, &[1, 2]);
            assert_eq!(stacked.is_ok(), m.info().stacks, "{}", m.name());
        }
    }

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
