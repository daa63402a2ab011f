//! `noop`: nothing to load, compute or store (the queue benchmark).

use crate::job::{Ctx, JobError};

pub async fn run(ctx: &Ctx<'_>) -> Result<bool, JobError> {
    // No results to commit with: no transaction of its own either.
    ctx.complete_empty().await
}
