//! The learned models as the farm knows them: one [`ModelInfo`] each, with
//! what grids, job specs, routing, the worker's grouping and the cost
//! model need, registered in one list ([`register!`] below).
//!
//! The networks themselves are in `learner::models`, which this crate must
//! not depend on (the coordinator links `jobs` and never libtorch); the
//! learner's registry holds the other half of each model's description
//! (its shape, encoder, whether its batches stack runs), under the same
//! name. The worker, which sees both, tests that the two registries name
//! the same models, and the coordinator tests that each has cost defaults.

use serde::{Deserialize, Serialize};

use crate::Resource;

/// A learned model's description for the farm.
#[derive(Debug)]
pub struct ModelInfo {
    /// The name in grids (`models = ["nlm"]`), job specs, the `model`
    /// column, the CLI and the cost defaults (`cost_defaults.toml`'s
    /// `[train.cpu]`, `[train.gpu]`, `[plan.NAME]` and, for models that
    /// plan on a GPU, `[plan_gpu.NAME]`). Part of job keys: never rename.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// Where its learned heuristic is evaluated best inside a search. The
    /// relational networks cost a tensor program per evaluation that a GPU
    /// runs for hundreds of searches at once (`learner::many`); the linear
    /// model's cost is its hFF features, which a GPU cannot help.
    pub plans_on: Resource,
    /// Whether its train jobs run as stacked groups on one worker (its
    /// batches carry the runs in their leading dimension); the learner's
    /// descriptor says the same (`learner::models::ModelInfo::stacks`).
    pub stacks: bool,
    /// How many of its trainings a CPU worker stacks by default (CUDA
    /// workers stack 8 of any model that stacks): a compute-bound network
    /// gains nothing on a CPU, an overhead-bound one shares the overhead.
    pub cpu_train_group: usize,
}

/// Linear regression on Gomoluch et al.'s relaxed-plan features.
static LINEAR: ModelInfo = ModelInfo {
    name: "linear",
    description: "linear regression on Gomoluch et al.'s four relaxed-plan features",
    plans_on: Resource::Cpu,
    stacks: true,
    // Bound by per-operation overhead, which a group shares.
    cpu_train_group: 4,
};

/// The Neural Logic Machine.
static NLM: ModelInfo = ModelInfo {
    name: "nlm",
    description: "Neural Logic Machine over the relational state and goal",
    plans_on: Resource::Gpu,
    stacks: true,
    // Compute-bound on a CPU: a stacked group is no faster than its runs in turn.
    cpu_train_group: 1,
};

/// STRIPS-HGN.
static HGN: ModelInfo = ModelInfo {
    name: "hgn",
    description: "STRIPS-HGN over the grounded task's hypergraph",
    plans_on: Resource::Gpu,
    // A hypergraph batch is a disjoint union with no run dimension.
    stacks: false,
    cpu_train_group: 1,
};

/// Declares [`Model`] (one variant per registered model, serialized as the
/// snake_case of the variant, which must be the descriptor's name: tested),
/// [`Model::ALL`] and [`Model::info`] from one line per model.
macro_rules! register {
    ($($variant:ident => $info:ident),* $(,)?) => {
        /// A registered learned model; its description is [`Model::info`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Model {
            $($variant),*
        }

        impl Model {
            /// Every registered model, in registration order.
            pub const ALL: &'static [Model] = &[$(Model::$variant),*];

            /// The model's description.
            pub fn info(self) -> &'static ModelInfo {
                match self {
                    $(Model::$variant => &$info),*
                }
            }
        }
    };
}

// The registry: adding a model is its descriptor above and one line here.
register! {
    Linear => LINEAR,
    Nlm => NLM,
    Hgn => HGN,
}

impl Model {
    /// The name grids, job specs and the `model` column use.
    pub fn as_str(self) -> &'static str {
        self.info().name
    }

    /// The model of that name, if one is registered.
    pub fn by_name(name: &str) -> Option<Model> {
        Model::ALL.iter().copied().find(|m| m.as_str() == name)
    }

    /// The registered names, for messages and listings.
    pub fn names() -> Vec<&'static str> {
        Model::ALL.iter().map(|m| m.as_str()).collect()
    }

    /// Where its learned heuristic is evaluated best ([`ModelInfo::plans_on`]).
    pub fn plans_on(self) -> Resource {
        self.info().plans_on
    }

    /// The group its jobs are priced under (`jobs::class::JobClass::group`,
    /// stored as `jobs.cost_group`) and its keys in `cost_defaults.toml`:
    /// its name.
    pub fn cost_group(self) -> &'static str {
        self.as_str()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A model's serialized form (grids, specs, job keys) is its
    /// descriptor's name, and names are unique.
    #[test]
    fn serialized_names_are_the_descriptors_names() {
        for &m in Model::ALL {
            let json = serde_json::to_string(&m).unwrap();
            assert_eq!(json, format!("\"{}\"", m.info().name));
            assert_eq!(serde_json::from_str::<Model>(&json).unwrap(), m);
            assert_eq!(Model::by_name(m.as_str()), Some(m));
            assert_eq!(Model::ALL.iter().filter(|o| o.as_str() == m.as_str()).count(), 1);
        }
        assert_eq!(Model::names(), ["linear", "nlm", "hgn"]);
        assert_eq!(Model::by_name("gcn"), None);
    }

    /// Only a model that stacks may be grouped by default.
    #[test]
    fn only_stacking_models_group() {
        for &m in Model::ALL {
            let i = m.info();
            assert!(i.cpu_train_group >= 1, "{}", i.name);
            assert!(
                i.stacks || i.cpu_train_group == 1,
                "{}: groups of {} but does not stack",
                i.name,
                i.cpu_train_group
            );
        }
    }
}
