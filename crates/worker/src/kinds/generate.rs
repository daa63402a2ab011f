//! `generate`: generate an instance and solve it optimally (A*+LM-cut)
//! within the split's limits, regenerating with derived seeds when a try is
//! trivial or unsolved.

use jobs::grid::{SolveLimits, Split};
use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics;
use planner::search::{astar, Limits, SearchStatus};
use planner::state::initial_state;
use schema::results::NewInstance;
use schema::slots::{Try, UnfilledSlot};

use crate::isolate::{Bounds, Finished, Isolation, Task};
use crate::job::{failed, Ctx, JobError};

pub async fn run(
    ctx: &Ctx<'_>,
    domain: String,
    split: Split,
    params: Params,
    seed: u64,
    limits: SolveLimits,
) -> Result<bool, JobError> {
    let outcome = generate_instance(ctx.isolation, &domain, split, &params, seed, &limits).await?;
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
            };
            schema::results::insert_instance(&mut tx, ctx.key(), &row).await?;
        }
        Outcome::NoInstance(tries) => {
            // Not a failure: the slot stays empty, and the jobs that need
            // this instance are skipped (`lifecycle::promote_ready`).
            let row = UnfilledSlot { domain, split: split.as_str().to_string(), generator, seed, tries };
            schema::slots::record_unfilled(&mut tx, ctx.key(), &row).await?;
        }
    }
    ctx.complete(tx).await
}

/// A generated instance with its optimal plan.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    pub domain_pddl: String,
    pub problem_pddl: String,
    pub generator_seed: u64,
    pub tries: u32,
    pub optimal_cost: u64,
    pub plan: Vec<String>,
    pub expansions: u64,
    pub search_time_s: f64,
}

/// What a generate job found.
#[derive(Debug, Clone)]
pub enum Outcome {
    Instance(Instance),
    /// Every try was trivial or unsolved within the limits: what each found.
    NoInstance(Vec<Try>),
}

/// What one try found.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TryOutcome {
    Solved(Instance),
    /// `trivial`, or the search's status (`time_limit`, `memory_limit`,
    /// `unsolvable`), with the CPU seconds the try took.
    Unsolved {
        outcome: String,
        generator_seed: u64,
        cpu_s: f64,
    },
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
    limits: &SolveLimits,
) -> Result<Outcome, JobError> {
    let mut tries = vec![];
    for attempt in 0..limits.tries {
        let task = Task::SolveTry { domain: domain.into(), split, params: *params, seed, attempt, limits: *limits };
        // The search stops itself on its CPU clock; the kill on the wall
        // clock only catches a try that never looks (setup, grounding), with
        // room for a busy machine, where a CPU second takes longer.
        let bounds = Bounds::behind(Some(limits.memory_mib), Some(3.0 * limits.time_s));
        let started = std::time::Instant::now();
        let stopped = |outcome: &str| Try {
            generator_seed: jobs::spec::generator_seed(split, seed, attempt),
            outcome: outcome.into(),
            // A killed child's CPU time is not ours to read: its wall time bounds it.
            cpu_s: started.elapsed().as_secs_f64(),
        };
        let t = match isolation.run::<TryOutcome>(task, bounds).await? {
            Finished::Done(TryOutcome::Solved(inst)) => return Ok(Outcome::Instance(inst)),
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
            break;
        }
    }
    Ok(Outcome::NoInstance(tries))
}

/// Try number `attempt` of a slot: generate with its derived seed, then
/// solve optimally with A*+LM-cut within the limits.
pub fn solve_try(
    domain: &str,
    split: Split,
    params: &Params,
    seed: u64,
    attempt: u32,
    limits: &SolveLimits,
) -> Result<TryOutcome, String> {
    let domain_text = domain_pddl(domain).ok_or_else(|| format!("unknown domain {domain}"))?;
    let start = planner::search::thread_cpu_time().as_secs_f64();
    let gseed = jobs::spec::generator_seed(split, seed, attempt);
    let problem = generate(params, gseed)?;
    let task = planner::load_task_from_text(domain_text, "domain.pddl", &problem, "problem.pddl")
        .map_err(|e| e.to_string())?;
    let outcome = if planner::state::is_goal(&task, &initial_state(&task)) {
        "trivial".to_string()
    } else {
        // CPU time, as the authors' code limits it: a try's outcome must not
        // depend on how busy the machine is.
        let search_limits = Limits::new(None, Some(limits.time_s), Some(limits.memory_mib)).on_cpu_clock();
        let r = astar(&task, &mut heuristics::LmCut::new(&task), search_limits);
        if r.status == SearchStatus::Solved {
            return Ok(TryOutcome::Solved(Instance {
                domain_pddl: domain_text.to_string(),
                problem_pddl: problem,
                generator_seed: gseed,
                tries: attempt + 1,
                optimal_cost: r.cost.unwrap_or(0),
                plan: r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect(),
                expansions: r.expansions,
                search_time_s: r.search_time.as_secs_f64(),
            }));
        }
        r.status.as_str().to_string()
    };
    Ok(TryOutcome::Unsolved {
        outcome,
        generator_seed: gseed,
        cpu_s: planner::search::thread_cpu_time().as_secs_f64() - start,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_slot_unsolved_within_its_limits_has_no_instance_and_says_why() {
        let limits = SolveLimits { time_s: 0.000001, memory_mib: 512, tries: 3, give_up_after: None };
        let Outcome::NoInstance(tries) = generate_instance(
            &Isolation::InProcess,
            "blocksworld",
            Split::Test,
            &Params::Blocksworld { blocks: 14 },
            1,
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
        let Outcome::NoInstance(tries) = generate_instance(
            &Isolation::InProcess,
            "blocksworld",
            Split::Test,
            &Params::Blocksworld { blocks: 14 },
            1,
            &give_up,
        )
        .await
        .unwrap() else {
            panic!("solved in a microsecond")
        };
        assert_eq!(tries.len(), 2, "gave up after 2 tries in a row out of time");
    }
}
