//! What a job hands to its isolation (`crate::isolate`), and what comes
//! back: one try of a generate slot (`solve_try`: generate, then A*+LM-cut
//! within the split's limits) and one greedy planning run with a classical
//! heuristic or a trained model (`plan_classical`, `plan_learned`). Pure
//! functions of their inputs: a child process runs them
//! (`isolate::Task::run_here`), and the job kinds (`crate::kinds`) read what
//! they return.

use jobs::grid::{Instances, PlanLimits, Planning};
use jobs::split::{SolveLimits, Split};
use planner::generate::{domain_pddl_like, generate_with, Params};
use planner::heuristics;
use planner::search::{astar, Limits, SearchStatus};
use planner::state::initial_state;

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
    /// CPU seconds of the accepted try (generating, grounding, searching).
    pub solve_cpu_s: f64,
    /// CPU seconds of every try of the slot, the accepted one included.
    pub cpu_s: f64,
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

/// Try number `attempt` of a slot: generate with its derived seed, then
/// solve optimally with A*+LM-cut within the limits.
pub fn solve_try(
    domain: &str,
    split: Split,
    params: &Params,
    seed: u64,
    attempt: u32,
    instances: Instances,
    limits: &SolveLimits,
) -> Result<TryOutcome, String> {
    let domain_text =
        domain_pddl_like(domain, instances.generator).ok_or_else(|| match planner::generate::domain(domain) {
            None => format!("unknown domain {domain}"),
            Some(_) => format!("{} does not make {domain} problems", instances.generator),
        })?;
    let start = planner::search::thread_cpu_time().as_secs_f64();
    let gseed = instances.splits.generator_seed(split, seed, attempt);
    let problem = generate_with(params, gseed, instances.generator)?;
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
            let cpu_s = planner::search::thread_cpu_time().as_secs_f64() - start;
            return Ok(TryOutcome::Solved(Instance {
                domain_pddl: domain_text.to_string(),
                problem_pddl: problem,
                generator_seed: gseed,
                tries: attempt + 1,
                optimal_cost: r.cost.unwrap_or(0),
                plan: r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect(),
                expansions: r.expansions,
                search_time_s: r.search_time.as_secs_f64(),
                solve_cpu_s: cpu_s,
                cpu_s,
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

fn load(domain: &str, problem: &str, prune: bool) -> Result<planner::Task, String> {
    planner::label::load(domain, problem, prune)
}

/// One greedy planning run.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
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
pub fn plan_classical(
    domain: &str,
    problem: &str,
    heuristic: &str,
    limits: &PlanLimits,
    planning: Planning,
) -> Result<PlanRun, String> {
    let task = load(domain, problem, true)?;
    let info = planning.heuristics.resolve(heuristic).ok_or_else(|| format!("unknown heuristic {heuristic}"))?;
    let mut h = (info.build)(&task);
    let search_limits = Limits::new(Some(limits.max_evaluations), limits.time_s.0, Some(limits.memory_mib));
    Ok(run_of(planning.search.run(&task, h.as_mut(), search_limits), limits))
}

/// The learner's view of a plan job's [`Planning`].
pub(crate) fn search_mode(planning: Planning) -> learner::SearchMode {
    learner::SearchMode { greedy: planning.search, definitions: planning.heuristics }
}

/// GBFS guided by a trained model's point estimate (one forward pass per
/// expansion), on CPU. Returns the run and the number of forward passes.
pub fn plan_learned(
    config: learner::ModelConfig,
    weights: &[u8],
    domain: &str,
    problem: &str,
    clip: Option<learner::LowerBound>,
    limits: &PlanLimits,
    planning: Planning,
) -> Result<(PlanRun, u64), String> {
    let predictor = learner::Predictor::load(config, weights, tch::Device::Cpu).map_err(|e| e.to_string())?;
    let mut h = learner::LearnedHeuristic::new(predictor, domain, problem, clip).map_err(|e| e.to_string())?;
    h.use_definitions(planning.heuristics);
    // The model reads the unpruned grounding's facts: search on that task.
    let task = h.task().clone();
    let search_limits = Limits::new(Some(limits.max_evaluations), limits.time_s.0, Some(limits.memory_mib));
    let r = planning.search.run(&task, &mut h, search_limits);
    Ok((run_of(r, limits), h.forward_passes))
}

pub(crate) fn run_of(r: planner::search::SearchResult, limits: &PlanLimits) -> PlanRun {
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
