//! `draw`: whether a test slot is in the planning sample. Nothing to
//! compute: the decision is one statement over the slot's instance and the
//! previous draw's count (`schema::slots::draw`), written with the
//! completion. A slot not drawn leaves its plan jobs skipped.

use crate::job::{Ctx, JobError};

pub async fn run(ctx: &Ctx<'_>, n: u32, rank: u32) -> Result<bool, JobError> {
    let slot = ctx.input(0, "test slot")?.to_string();
    let previous = ctx.job.inputs.get(1).cloned();
    let mut tx = ctx.begin().await?;
    schema::slots::draw(&mut tx, ctx.key(), &slot, previous.as_deref(), rank, n).await?;
    ctx.complete(tx).await
}
