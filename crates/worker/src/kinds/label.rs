//! `label`: every state on the input instance's optimal plan, with h*, every
//! registered classical heuristic (by name) and the relaxed-plan features
//! (`planner::label`).

use schema::results::Label;

use planner::heuristics::Definitions;
use planner::label::LabelledState;

use crate::isolate::{Bounds, Finished, Task};
use crate::job::{failed, instance, Ctx, JobError};

pub async fn run(ctx: &Ctx<'_>, features: Definitions) -> Result<bool, JobError> {
    let input = ctx.input(0, "instance")?;
    let inst = instance(ctx.pool, input).await?;
    let task =
        Task::Label { domain_pddl: inst.domain_pddl, problem_pddl: inst.problem_pddl, plan: inst.plan, features };
    // Labelling follows a known plan: no limit of its own, only the isolation.
    let states = match ctx.isolation.run::<Vec<LabelledState>>(task, Bounds::default()).await? {
        Finished::Done(states) => states,
        Finished::MemoryLimit | Finished::TimeLimit => return Err(failed("labelling was stopped by a limit")),
    };
    let labels: Vec<Label> = states
        .into_iter()
        .map(|s| Label {
            step: s.step,
            atoms: s.atoms,
            h_star: s.h_star,
            heuristics: s.heuristics,
            deletes_ignored: s.deletes_ignored,
            mean_deletes_ignored: s.mean_deletes_ignored,
            feature_ff: s.feature_ff,
        })
        .collect();
    let mut tx = ctx.begin().await?;
    schema::results::insert_labels(&mut tx, ctx.key(), input, &inst.domain, &inst.split, &labels).await?;
    ctx.complete(tx).await
}
