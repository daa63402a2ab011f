//! `evaluate`: test metrics (section 4.1) of a train job's best-validation-MSE
//! and best-validation-NLL models on the test split's labelled states, one
//! `evaluations` row per checkpoint (the authors test both:
//! docs/pddlsl-code-vs-paper.md, section 4). The published tables are the
//! best-MSE checkpoint's (`report_accuracy` reads those rows only).

use jobs::grid::Bound;
use schema::training::Tag;

use crate::job::{blocking, failed, Ctx, JobError};
use crate::learned;

/// The checkpoints an evaluate job tests, in the order it tests them.
const CHECKPOINTS: [Tag; 2] = [Tag::BestMse, Tag::BestNll];

pub async fn run(ctx: &Ctx<'_>, domain: String, bound: Bound) -> Result<bool, JobError> {
    let (model, tests) = ctx.job.inputs.split_first().ok_or_else(|| failed("evaluate job without its model"))?;
    let mut models = vec![];
    for tag in CHECKPOINTS {
        match tag {
            Tag::BestMse => models.push((tag, learned::checkpoint(ctx.pool, model, tag).await?)),
            // A train job that stored no best-NLL checkpoint (one trained
            // before training kept it) gets its best-MSE row only.
            _ => {
                if let Some(c) = schema::training::checkpoint(ctx.pool, model, tag).await? {
                    let config = serde_json::from_value(c.config)
                        .map_err(|e| failed(format!("model config of {model}: {e}")))?;
                    models.push((tag, (config, c.weights)));
                }
            }
        }
    }
    let test = learned::datasets(ctx.pool, tests).await?.remove("test");
    let metrics = blocking(move || {
        let test = test.ok_or("no labelled test instances")?;
        let device = learner::device().map_err(|e| e.to_string())?;
        let mut out = vec![];
        for (tag, (config, weights)) in models {
            let mut p = learner::Predictor::load(config, &weights, device).map_err(|e| e.to_string())?;
            let m = learner::evaluate::evaluate(&mut p, &test.domain_pddl, &test.instances, Some(bound))
                .map_err(|e| e.to_string())?;
            out.push((tag, m));
        }
        Ok::<_, String>(out)
    })
    .await?;
    let mut tx = ctx.begin().await?;
    for (checkpoint, m) in metrics {
        let row = schema::results::Evaluation {
            model: model.clone(),
            checkpoint,
            domain: domain.clone(),
            bound: bound.name().to_string(),
            samples: m.samples as u32,
            mse: m.mse,
            mse_clip: m.mse_clip,
            nll: m.nll,
            nll_clip: m.nll_clip,
            ff_mse: m.ff_mse,
            lmcut_mse: m.lmcut_mse,
            sigma: m.sigma,
        };
        schema::results::insert_evaluation(&mut tx, ctx.key(), &row).await?;
    }
    ctx.complete(tx).await
}
