//! What a network is built for: a network's shape for one domain, and the
//! domain vocabulary the NLM reads. Apart from the networks themselves
//! (`models`, which also registers the model kinds), so that the encoders
//! (`encode`) can name shapes without naming the networks.

use planner::pddl::Domain;
use serde::{Deserialize, Serialize};

use crate::LearnError;

/// A network's architecture for one domain.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "model", rename_all = "snake_case")]
pub enum Shape {
    Linear {
        features: usize,
    },
    /// Breadth 3, depth 5, `hidden` predicates per arity per layer (the
    /// code trains 16, [`NLM_HIDDEN`]; stored models may have 8, the
    /// paper's text), sigmoid layers without hidden units (appendix C.1).
    Nlm {
        vocabulary: Vocabulary,
        depth: usize,
        hidden: usize,
    },
    /// Hidden size 32, 4 recursion steps (appendix C.1; `train_all.sh:88`).
    Hgn {
        hidden: usize,
        steps: usize,
        max_preconditions: usize,
        max_add_effects: usize,
        /// Absent in models stored before the authors' blocks: those read
        /// back as [`HgnBlocks::Relu`], and that is not written out, so
        /// their stored configuration is unchanged byte for byte.
        #[serde(default, skip_serializing_if = "HgnBlocks::is_relu")]
        blocks: HgnBlocks,
    },
}

/// Predicates per arity per NLM layer: 16, as the authors' code trains it
/// (IBM/pddlsl `experiments/train_all.sh:21`, `--hidden-features 16`; every
/// NLM row of `results_training2.ods` has `hidden_features` 16). The paper's
/// appendix C.1 says 8, which is also `model_wrapper.py:61`'s default.
pub const NLM_HIDDEN: usize = 16;

/// Which STRIPS-HGN a shape builds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HgnBlocks {
    /// The farm's first HGN ([`crate::models::ReluHgn`]): one Linear + ReLU per block, a
    /// linear decoder, mean aggregation, log-scaled global inputs. Only for
    /// models stored before `StripsHgn`.
    #[default]
    Relu,
    /// The authors' STRIPS-HGN ([`crate::models::Hgn`]): two-layer LeakyReLU MLPs, sums,
    /// raw global inputs.
    StripsHgn,
}

impl HgnBlocks {
    pub fn is_relu(&self) -> bool {
        *self == HgnBlocks::Relu
    }
}

/// The largest predicate arity the NLM reads (its breadth).
pub const MAX_ARITY: usize = 3;

/// The predicates and types of a domain, in a fixed order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vocabulary {
    /// (name, arity) of every domain predicate, in declaration order.
    pub predicates: Vec<(String, usize)>,
    /// Every declared type but `object`.
    pub types: Vec<String>,
}

impl Vocabulary {
    pub fn of(domain: &Domain) -> Result<Vocabulary, LearnError> {
        let mut predicates = vec![];
        for p in &domain.predicates {
            if p.params.len() > MAX_ARITY {
                return Err(LearnError::Input(format!(
                    "predicate {} has arity {}: the NLM reads predicates of arity at most {MAX_ARITY}",
                    p.name,
                    p.params.len()
                )));
            }
            predicates.push((p.name.clone(), p.params.len()));
        }
        let mut types: Vec<String> = vec![];
        for (child, parent) in &domain.types {
            for t in [child, parent] {
                if t != "object" && !types.contains(t) {
                    types.push(t.clone());
                }
            }
        }
        if predicates.is_empty() && types.is_empty() {
            return Err(LearnError::Input(format!("domain {}: no predicates for the NLM to read", domain.name)));
        }
        Ok(Vocabulary { predicates, types })
    }

    /// Input features per arity 0..=MAX_ARITY.
    pub fn features(&self) -> Vec<usize> {
        let mut f = vec![0; MAX_ARITY + 1];
        for (_, a) in &self.predicates {
            f[*a] += 2; // state and goal
        }
        f[1] += self.types.len();
        f
    }

    /// (arity, feature index) of a predicate in the state (goal = false) or goal.
    pub(crate) fn slot(&self, name: &str, goal: bool) -> Option<(usize, usize)> {
        let &(_, arity) = self.predicates.iter().find(|(n, _)| n == name)?;
        let same: Vec<&str> = self.predicates.iter().filter(|(_, a)| *a == arity).map(|(n, _)| n.as_str()).collect();
        let i = same.iter().position(|n| *n == name)?;
        Some((arity, if goal { same.len() + i } else { i }))
    }
}
