//! `noop`: nothing to load, compute or store (the queue benchmark).

use crate::job::{Ctx, JobError};

pub async fn run(ctx: &Ctx<'_>) -> Result<bool, JobError> {
    ctx.complete(ctx.begin().await?).await
}
