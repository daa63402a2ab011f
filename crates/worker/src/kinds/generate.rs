//! `generate`: generate an instance and solve it optimally (A*+LM-cut)
//! within the split's limits, regenerating with derived seeds when a try is
//! trivial or unsolved.

use jobs::grid::{SolveLimits, Split};
use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics;
use planner::search::{astar, Limits, SearchStatus};
use planner::state::initial_state;
use schema::results::NewInstance;

use crate::job::{blocking, failed, Ctx, JobError};

pub async fn run(
    ctx: &Ctx<'_>,
    domain: String,
    split: Split,
    params: Params,
    seed: u64,
    limits: SolveLimits,
) -> Result<bool, JobError> {
    let d = domain.clone();
    let inst = blocking(move || generate_instance(&d, split, &params, seed, &limits)).await?;
    let row = NewInstance {
        domain,
        split: split.as_str().to_string(),
        generator: serde_json::to_value(params).map_err(failed)?,
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
    let mut tx = ctx.begin().await?;
    schema::results::insert_instance(&mut tx, ctx.key(), &row).await?;
    ctx.complete(tx).await
}

/// A generated instance with its optimal plan.
#[derive(Debug, Clone)]
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

/// Generates until an instance is non-trivial and solved optimally within
/// the limits, trying derived seeds up to `limits.tries` times.
pub fn generate_instance(
    domain: &str,
    split: Split,
    params: &Params,
    seed: u64,
    limits: &SolveLimits,
) -> Result<Instance, String> {
    let domain_text = domain_pddl(domain).ok_or_else(|| format!("unknown domain {domain}"))?;
    let mut reasons = vec![];
    for attempt in 0..limits.tries {
        let gseed = jobs::spec::generator_seed(split, seed, attempt);
        let problem = generate(params, gseed)?;
        let task = planner::load_task_from_text(domain_text, "domain.pddl", &problem, "problem.pddl")
            .map_err(|e| e.to_string())?;
        if planner::state::is_goal(&task, &initial_state(&task)) {
            reasons.push("trivial".to_string());
            continue;
        }
        let search_limits = Limits::new(None, Some(limits.time_s), Some(limits.memory_mib));
        let r = astar(&task, &mut heuristics::LmCut::new(&task), search_limits);
        if r.status != SearchStatus::Solved {
            reasons.push(r.status.as_str().to_string());
            continue;
        }
        return Ok(Instance {
            domain_pddl: domain_text.to_string(),
            problem_pddl: problem,
            generator_seed: gseed,
            tries: attempt + 1,
            optimal_cost: r.cost.unwrap_or(0),
            plan: r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect(),
            expansions: r.expansions,
            search_time_s: r.search_time.as_secs_f64(),
        });
    }
    Err(format!("no non-trivial instance solved within the limits in {} tries ({})", limits.tries, reasons.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsolvable_within_limits_fails_after_its_tries() {
        let limits = SolveLimits { time_s: 0.000001, memory_mib: 512, tries: 3 };
        let e =
            generate_instance("blocksworld", Split::Test, &Params::Blocksworld { blocks: 14 }, 1, &limits).unwrap_err();
        assert!(e.contains("3 tries"), "{e}");
    }
}
