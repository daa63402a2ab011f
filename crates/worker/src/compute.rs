//! The CPU work of each job kind, as plain functions of their inputs (no
//! database, no Redis): easy to test, and run on blocking threads.

use jobs::grid::{PlanLimits, SolveLimits, Split};
use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics;
use planner::search::{astar, gbfs, Limits, SearchStatus};
use planner::state::initial_state;
use planner::Task;

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

/// One labelled state of an optimal plan.
pub use planner::label::{label, LabelledState};

fn load(domain: &str, problem: &str, prune: bool) -> Result<Task, String> {
    planner::label::load(domain, problem, prune)
}

/// One greedy planning run.
#[derive(Debug, Clone)]
pub struct PlanRun {
    pub status: SearchStatus,
    pub cost: Option<u64>,
    pub plan_length: Option<usize>,
    pub evaluations: u64,
    pub expansions: u64,
    pub generated: u64,
    pub search_time_s: f64,
}

/// GBFS with a classical heuristic under the paper's evaluation budget; an
/// unsolved run counts the whole budget, as the paper does.
pub fn plan_classical(domain: &str, problem: &str, heuristic: &str, limits: &PlanLimits) -> Result<PlanRun, String> {
    let task = load(domain, problem, true)?;
    let mut h = heuristics::by_name(heuristic, &task).ok_or_else(|| format!("unknown heuristic {heuristic}"))?;
    let r = gbfs(
        &task,
        h.as_mut(),
        Limits::new(Some(limits.max_evaluations), Some(limits.time_s), Some(limits.memory_mib)),
    );
    Ok(run_of(r, limits))
}

/// GBFS guided by a trained model's point estimate (one forward pass per
/// expansion), on CPU. Returns the run and the number of forward passes.
pub fn plan_learned(
    config: learner::ModelConfig,
    weights: &[u8],
    domain: &str,
    problem: &str,
    clip: Option<learner::Classical>,
    limits: &PlanLimits,
) -> Result<(PlanRun, u64), String> {
    let predictor = learner::Predictor::load(config, weights, tch::Device::Cpu).map_err(|e| e.to_string())?;
    let mut h = learner::LearnedHeuristic::new(predictor, domain, problem, clip).map_err(|e| e.to_string())?;
    // The model reads the unpruned grounding's facts: search on that task.
    let task = h.task().clone();
    let r =
        gbfs(&task, &mut h, Limits::new(Some(limits.max_evaluations), Some(limits.time_s), Some(limits.memory_mib)));
    Ok((run_of(r, limits), h.forward_passes))
}

fn run_of(r: planner::search::SearchResult, limits: &PlanLimits) -> PlanRun {
    let solved = r.status == SearchStatus::Solved;
    PlanRun {
        status: r.status,
        cost: r.cost,
        plan_length: solved.then_some(r.plan.len()),
        // The paper counts the whole budget for an unsolved instance.
        evaluations: if solved { r.evaluations } else { limits.max_evaluations },
        expansions: r.expansions,
        generated: r.generated,
        search_time_s: r.search_time.as_secs_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_instances_are_solved_labelled_and_planned() {
        let limits = SolveLimits { time_s: 30.0, memory_mib: 512, tries: 20 };
        let inst = generate_instance("gripper", Split::Train, &Params::Gripper { balls: 3 }, 1, &limits).unwrap();
        assert!(inst.optimal_cost > 0);
        assert_eq!(inst.plan.len() as u64, inst.optimal_cost);
        let labels = label(&inst.domain_pddl, &inst.problem_pddl, &inst.plan).unwrap();
        assert_eq!(labels.len(), inst.plan.len() + 1);
        assert_eq!(labels[0].h_star, inst.optimal_cost);
        assert_eq!(labels.last().unwrap().h_star, 0);
        for l in &labels {
            let (hmax, lmcut) = (l.hmax.unwrap(), l.lmcut.unwrap());
            assert!(hmax <= lmcut && lmcut <= l.h_star as f64, "{l:?}");
            assert!(l.atoms.iter().any(|a| a.starts_with("(room ")), "static atoms are part of the state");
        }
        let run = plan_classical(&inst.domain_pddl, &inst.problem_pddl, "ff", &PlanLimits::default()).unwrap();
        assert_eq!(run.status, SearchStatus::Solved);
        let budget = PlanLimits { max_evaluations: 1, ..PlanLimits::default() };
        let cut = plan_classical(&inst.domain_pddl, &inst.problem_pddl, "blind", &budget).unwrap();
        assert_eq!(cut.evaluations, 1);
    }

    #[test]
    fn unsolvable_within_limits_fails_after_its_tries() {
        let limits = SolveLimits { time_s: 0.000001, memory_mib: 512, tries: 3 };
        let e =
            generate_instance("blocksworld", Split::Test, &Params::Blocksworld { blocks: 14 }, 1, &limits).unwrap_err();
        assert!(e.contains("3 tries"), "{e}");
    }
}
