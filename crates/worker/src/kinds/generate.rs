//! `generate`: generate an instance and solve it optimally (A*+LM-cut)
//! within the split's limits, regenerating with derived seeds when a try is
//! trivial or unsolved.

use jobs::grid::Instances;
use jobs::split::{SolveLimits, Split};
use planner::generate::Params;
use schema::results::{Effort, NewInstance};
use schema::slots::{SlotEnd, Try, UnfilledSlot};

use crate::compute::{Instance, TryOutcome};
use crate::isolate::{Bounds, Finished, Isolation, Task};
use crate::job::{failed, Ctx, JobError};

pub async fn run(
    ctx: &Ctx<'_>,
    domain: String,
    split: Split,
    params: Params,
    seed: u64,
    limits: SolveLimits,
    instances: Instances,
) -> Result<bool, JobError> {
    // The extrapolation rule: the same seed's easier slots say how long
    // this one's solve will take; past the grid's bound it is not tried.
    let chain = schema::slots::gate_chain_solve_cpu(ctx.pool, ctx.key(), 2).await?;
    let predicted = predicted_cpu_s(&chain);
    let outcome = if predicted.zip(limits.skip_predicted_over).is_some_and(|(p, f)| p > f * limits.time_s) {
        Outcome::NoInstance { tries: vec![], end: SlotEnd::Predicted }
    } else if previous_seeds_failed(ctx, &limits).await? {
        Outcome::NoInstance { tries: vec![], end: SlotEnd::Seeds }
    } else {
        generate_instance(ctx.isolation, &domain, split, &params, seed, instances, &limits).await?
    };
    let generator = serde_json::to_value(params).map_err(failed)?;
    let mut tx = ctx.begin().await?;
    match outcome {
        Outcome::Instance(inst) => {
            let row = NewInstance {
                domain,
                split: split.as_str().to_string(),
                generator,
                seed,
                generator_seed: inst.generator_seed,
                tries: inst.tries,
                domain_pddl: inst.domain_pddl,
                problem_pddl: inst.problem_pddl,
                optimal_cost: inst.optimal_cost,
                plan: inst.plan,
                expansions: inst.expansions,
                search_time_s: inst.search_time_s,
                effort: Effort { cpu_s: inst.cpu_s, solve_cpu_s: inst.solve_cpu_s, predicted_cpu_s: predicted },
            };
            schema::results::insert_instance(&mut tx, ctx.key(), &row).await?;
        }
        Outcome::NoInstance { tries, end } => {
            // Not a failure: the slot stays empty, and the jobs that need
            // this instance are skipped (`lifecycle::promote_ready`).
            let split = split.as_str().to_string();
            let row = UnfilledSlot { domain, split, generator, seed, tries, reason: end, predicted_cpu_s: predicted };
            schema::slots::record_unfilled(&mut tx, ctx.key(), &row).await?;
        }
    }
    ctx.complete(tx).await
}

/// The cross-seed rule: whether the same size's previous
/// `skip_after_failed_seeds` seeds (the job's inputs after its gate,
/// `jobs::expand`) all ended without an instance. A job with fewer of them
/// (the split's first seeds) is tried.
async fn previous_seeds_failed(ctx: &Ctx<'_>, limits: &SolveLimits) -> Result<bool, JobError> {
    let Some(k) = limits.skip_after_failed_seeds else { return Ok(false) };
    let peers = ctx.job.inputs.get(1..).unwrap_or_default();
    if peers.len() < k as usize {
        return Ok(false);
    }
    Ok(schema::slots::without_instance(ctx.pool, peers).await? == peers.len())
}

/// What a generate job found.
#[derive(Debug, Clone)]
pub enum Outcome {
    Instance(Instance),
    /// No try was accepted: what each found, and why the slot stopped.
    NoInstance {
        tries: Vec<Try>,
        end: SlotEnd,
    },
}

/// The CPU seconds a slot's accepted try is predicted to take, from the
/// accepted tries of the same seed's chain of easier slots, nearest first
/// (`schema::slots::gate_chain_solve_cpu`): the nearest one's CPU times its
/// growth over the one before, at least 1. None with fewer than two links,
/// where there is no growth to go on.
pub fn predicted_cpu_s(chain: &[f64]) -> Option<f64> {
    match chain {
        [t1, t2, ..] if *t1 >= 0.0 && *t2 > 0.0 => Some(t1 * (t1 / t2).max(1.0)),
        _ => None,
    }
}

/// Generates until an instance is non-trivial and solved optimally within
/// the limits, trying derived seeds up to `limits.tries` times. Each try
/// runs under `isolation`: a try the kernel stops for memory, or that
/// overruns its time, is recorded like one the search stopped itself.
pub async fn generate_instance(
    isolation: &Isolation,
    domain: &str,
    split: Split,
    params: &Params,
    seed: u64,
    instances: Instances,
    limits: &SolveLimits,
) -> Result<Outcome, JobError> {
    let mut tries: Vec<Try> = vec![];
    for attempt in 0..limits.tries {
        let task =
            Task::SolveTry { domain: domain.into(), split, params: *params, seed, attempt, instances, limits: *limits };
        // The search stops itself on its CPU clock; the kill on the wall
        // clock only catches a try that never looks (setup, grounding), with
        // room for a busy machine, where a CPU second takes longer.
        let bounds = Bounds::behind(Some(limits.memory_mib), Some(3.0 * limits.time_s));
        let started = std::time::Instant::now();
        let stopped = |outcome: &str| Try {
            generator_seed: instances.splits.generator_seed(split, seed, attempt),
            outcome: outcome.into(),
            // A killed child's CPU time is not ours to read: its wall time bounds it.
            cpu_s: started.elapsed().as_secs_f64(),
        };
        let t = match isolation.run::<TryOutcome>(task, bounds).await? {
            Finished::Done(TryOutcome::Solved(inst)) => {
                let cpu_s = inst.solve_cpu_s + tries.iter().map(|t| t.cpu_s).sum::<f64>();
                return Ok(Outcome::Instance(Instance { cpu_s, ..inst }));
            }
            Finished::Done(TryOutcome::Unsolved { outcome, generator_seed, cpu_s }) => {
                Try { generator_seed, outcome, cpu_s }
            }
            Finished::MemoryLimit => stopped("memory_limit"),
            Finished::TimeLimit => stopped("time_limit"),
        };
        let limit_hit = t.outcome == "time_limit" || t.outcome == "memory_limit";
        tries.push(t);
        // The give-up rule: so many tries in a row out of time or memory.
        let in_a_row =
            tries.iter().rev().take_while(|t| t.outcome == "time_limit" || t.outcome == "memory_limit").count();
        if limit_hit && limits.give_up_after.is_some_and(|k| in_a_row >= k as usize) {
            return Ok(Outcome::NoInstance { tries, end: SlotEnd::GaveUp });
        }
    }
    Ok(Outcome::NoInstance { tries, end: SlotEnd::Tries })
}

#[cfg(test)]
mod tests {
    use super::*;
    use planner::generate::{domain_pddl_like, generate_with};

    #[tokio::test]
    async fn a_slot_unsolved_within_its_limits_has_no_instance_and_says_why() {
        let limits = SolveLimits {
            time_s: 0.000001,
            memory_mib: 512,
            tries: 3,
            give_up_after: None,
            skip_predicted_over: None,
            skip_after_failed_seeds: None,
            skip_after_easier_failed: true,
        };
        let Outcome::NoInstance { tries, end: SlotEnd::Tries } = generate_instance(
            &Isolation::InProcess,
            "blocksworld",
            Split::Test,
            &Params::Blocksworld { blocks: 14 },
            1,
            Instances::default(),
            &limits,
        )
        .await
        .unwrap() else {
            panic!("solved in a microsecond")
        };
        assert_eq!(tries.len(), 3);
        assert!(tries.iter().all(|t| t.outcome == "time_limit" && t.cpu_s >= 0.0), "{tries:?}");
        let seeds: std::collections::HashSet<u64> = tries.iter().map(|t| t.generator_seed).collect();
        assert_eq!(seeds.len(), 3, "each try is another instance");
        let give_up = SolveLimits { give_up_after: Some(2), ..limits };
        let Outcome::NoInstance { tries, end: SlotEnd::GaveUp } = generate_instance(
            &Isolation::InProcess,
            "blocksworld",
            Split::Test,
            &Params::Blocksworld { blocks: 14 },
            1,
            Instances::default(),
            &give_up,
        )
        .await
        .unwrap() else {
            panic!("solved in a microsecond")
        };
        assert_eq!(tries.len(), 2, "gave up after 2 tries in a row out of time");
    }

    /// The authors' instances: their generator's text, their domain file,
    /// and try i of seed s made with generator seed s*1000+i.
    #[tokio::test]
    async fn under_the_authors_instances_a_try_is_their_generators_problem_for_seed_s_times_1000_plus_i() {
        use jobs::grid::Splits;
        use planner::generate::Generator;
        let instances = Instances { generator: Generator::PddlGenerators, splits: Splits::Shared };
        let params = Params::Gripper { balls: 4 };
        let limits = SolveLimits { time_s: 30.0, memory_mib: 512, ..SolveLimits::default() };
        let Outcome::Instance(inst) =
            generate_instance(&Isolation::InProcess, "gripper", Split::Validation, &params, 7, instances, &limits)
                .await
                .unwrap()
        else {
            panic!("gripper with 4 balls is solved")
        };
        assert_eq!(inst.generator_seed, 7000 + u64::from(inst.tries - 1));
        let text = generate_with(&params, inst.generator_seed, Generator::PddlGenerators).unwrap();
        assert_eq!(inst.problem_pddl, text);
        assert_eq!(inst.domain_pddl, domain_pddl_like("gripper", Generator::PddlGenerators).unwrap());
        assert_ne!(inst.domain_pddl, domain_pddl_like("gripper", Generator::Hfarm).unwrap());
        // The same slot of the training split is the same instance.
        let Outcome::Instance(train) =
            generate_instance(&Isolation::InProcess, "gripper", Split::Train, &params, 7, instances, &limits)
                .await
                .unwrap()
        else {
            panic!("solved above")
        };
        assert_eq!((train.problem_pddl, train.optimal_cost), (inst.problem_pddl, inst.optimal_cost));
    }

    #[test]
    fn the_prediction_extrapolates_the_chains_growth() {
        assert_eq!(predicted_cpu_s(&[]), None);
        assert_eq!(predicted_cpu_s(&[2.0]), None, "one link has no growth");
        assert_eq!(predicted_cpu_s(&[2.0, 0.5]), Some(8.0), "x4 again");
        assert_eq!(predicted_cpu_s(&[2.0, 0.5, 0.1]), Some(8.0), "only the nearest growth counts");
        assert_eq!(predicted_cpu_s(&[2.0, 3.0]), Some(2.0), "an easier-looking step predicts no shrinking");
        assert_eq!(predicted_cpu_s(&[2.0, 0.0]), None, "no growth from a zero");
    }
}
