//! `evaluate`: test metrics (section 4.1) of a train job's best-validation-MSE
//! model on the test split's labelled states.

use jobs::grid::Bound;
use schema::training::Tag;

use crate::job::{blocking, failed, Ctx, JobError};
use crate::learned;

pub async fn run(ctx: &Ctx<'_>, domain: String, bound: Bound) -> Result<bool, JobError> {
    let (model, tests) = ctx.job.inputs.split_first().ok_or_else(|| failed("evaluate job without its model"))?;
    let (config, weights) = learned::checkpoint(ctx.pool, model, Tag::BestMse).await?;
    let test = learned::datasets(ctx.pool, tests).await?.remove("test");
    let m = blocking(move || {
        let test = test.ok_or("no labelled test instances")?;
        let device = learner::device().map_err(|e| e.to_string())?;
        let mut p = learner::Predictor::load(config, &weights, device).map_err(|e| e.to_string())?;
        learner::evaluate::evaluate(&mut p, &test.domain_pddl, &test.instances, Some(bound)).map_err(|e| e.to_string())
    })
    .await?;
    let row = schema::results::Evaluation {
        model: model.clone(),
        domain,
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
    let mut tx = ctx.begin().await?;
    schema::results::insert_evaluation(&mut tx, ctx.key(), &row).await?;
    ctx.complete(tx).await
}
