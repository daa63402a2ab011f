//! The bridge between the farm's stored data and the learner: the job
//! vocabulary's axes as the learner's, labelled states as its datasets,
//! stored checkpoints as its models. Used by the train, evaluate and plan
//! kinds.

use std::collections::BTreeMap;

use jobs::grid::{Bound, Distribution, Model, Residual, Sigma};
use learner::{Axes, Dataset, Family, LabelledInstance, ModelConfig, ModelKind, Sample, SigmaMode};
use schema::training::Tag;
use schema::PgPool;

use crate::job::{failed, JobError};

/// The learner's model of the farm's: the one registered under the same
/// name (`jobs::model` and `learner::models` each hold a half of a model's
/// description; `every_farm_model_is_a_learner_model` checks they agree).
pub fn model_kind(model: Model) -> Result<ModelKind, JobError> {
    ModelKind::by_name(model.as_str()).ok_or_else(|| {
        failed(format!(
            "model {}: not registered in the learner (registered: {:?})",
            model.as_str(),
            ModelKind::names()
        ))
    })
}

/// The learner's axes for a train job's parameters.
pub fn axes(
    model: Model,
    distribution: Distribution,
    sigma: Sigma,
    bound: Option<Bound>,
    residual: Residual,
) -> Result<Axes, JobError> {
    Ok(Axes {
        model: model_kind(model)?,
        family: match distribution {
            Distribution::Gaussian => Family::Gaussian,
            Distribution::Truncated => Family::Truncated,
        },
        sigma: match sigma {
            Sigma::Learn => SigmaMode::Learn,
            Sigma::Fixed => SigmaMode::Fixed,
        },
        // The job vocabulary's bound and residual are the learner's: registered
        // heuristics, checked when the job spec was read.
        lower: bound,
        residual: residual.0,
    })
}

/// The labelled instances of `label_jobs` as datasets, by split name.
pub async fn datasets(pool: &PgPool, label_jobs: &[String]) -> Result<BTreeMap<String, Dataset>, JobError> {
    let mut out: BTreeMap<String, Dataset> = BTreeMap::new();
    for i in schema::results::labelled_instances(pool, label_jobs).await? {
        let samples = i
            .labels
            .into_iter()
            .map(|l| Sample {
                atoms: l.atoms,
                h_star: l.h_star as f64,
                heuristics: l.heuristics,
                deletes_ignored: l.deletes_ignored,
                mean_deletes_ignored: l.mean_deletes_ignored,
                feature_ff: l.feature_ff,
            })
            .collect();
        let d = out.entry(i.split).or_insert_with(|| Dataset { domain_pddl: i.domain_pddl.clone(), instances: vec![] });
        d.instances.push(LabelledInstance { name: i.instance, problem_pddl: i.problem_pddl, samples });
    }
    Ok(out)
}

/// A train job's stored model: its configuration and `tag` weights.
pub async fn checkpoint(pool: &PgPool, job: &str, tag: Tag) -> Result<(ModelConfig, Vec<u8>), JobError> {
    let c = schema::training::checkpoint(pool, job, tag).await?.ok_or_else(|| failed(format!("{job} has no model")))?;
    let config = serde_json::from_value(c.config).map_err(|e| failed(format!("model config of {job}: {e}")))?;
    Ok((config, c.weights))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The farm's registry (`jobs::model`) and the learner's
    /// (`learner::models`) name the same models, and agree on which stack.
    #[test]
    fn every_farm_model_is_a_learner_model() {
        for &m in Model::ALL {
            let kind = model_kind(m).unwrap();
            assert_eq!(m.info().stacks, kind.info().stacks, "{}: stacks", m.as_str());
        }
        for &k in ModelKind::ALL {
            assert!(Model::by_name(k.name()).is_some(), "learner model {} has no jobs::model descriptor", k.name());
        }
    }
}
