//! `plan`: greedy best-first search on one test instance, with a classical
//! heuristic or a trained model's point estimate, under the paper's
//! evaluation budget. A worker may claim many learned plan jobs of one
//! model at once (`run_group`): their searches share forward passes.

use jobs::grid::{PlanLimits, Planning};
use jobs::spec::PlanHeuristic;
use jobs::JobSpec;
use planner::search::{Limits, SearchStatus};
use schema::lifecycle::Claimed;
use schema::training::Tag;
use schema::PgPool;

use crate::compute::{run_of, search_mode, PlanRun};
use crate::isolate::{Bounds, Finished, Task};
use crate::job::{blocking, failed, instance, Ctx, JobError};
use crate::learned;

pub async fn run(
    ctx: &Ctx<'_>,
    domain: String,
    heuristic: PlanHeuristic,
    limits: PlanLimits,
    planning: Planning,
) -> Result<bool, JobError> {
    // The instance is the last input; a learned heuristic's train job comes first.
    let input = ctx.job.inputs.last().ok_or_else(|| failed("plan job without instance"))?.clone();
    let inst = instance(ctx.pool, &input).await?;
    let (domain_pddl, problem_pddl) = (inst.domain_pddl, inst.problem_pddl);
    // The search stops itself at its limits; the isolation's are the backstop.
    let bounds = Bounds::behind(Some(limits.memory_mib), limits.time_s.0);
    let started = std::time::Instant::now();
    let (finished, name, model) = match heuristic {
        PlanHeuristic::Classical { name } => {
            let task = Task::PlanClassical { domain_pddl, problem_pddl, heuristic: name.clone(), limits, planning };
            let finished = ctx.isolation.run::<PlanRun>(task, bounds).await?;
            (finished.map(|run| (run, None)), name, None)
        }
        PlanHeuristic::Learned { clip, .. } => {
            let model = ctx.input(0, "model")?.to_string();
            let (config, weights) = learned::checkpoint(ctx.pool, &model, Tag::BestMse).await?;
            let task = Task::PlanLearned { config, weights, domain_pddl, problem_pddl, clip, limits, planning };
            let finished = ctx.isolation.run::<(PlanRun, u64)>(task, bounds).await?;
            let name = if clip.is_some() { "learned+clip" } else { "learned" };
            (finished.map(|(run, passes)| (run, Some(passes))), name.to_string(), Some(model))
        }
    };
    let (run, passes) = match finished {
        Finished::Done(r) => r,
        // Stopped from outside: nothing of the search's counts survived.
        Finished::MemoryLimit => (PlanRun::stopped(SearchStatus::MemoryLimit, &limits, started), None),
        Finished::TimeLimit => (PlanRun::stopped(SearchStatus::TimeLimit, &limits, started), None),
    };
    let row = run.row(input, domain, name, (&limits, planning), model, passes);
    let mut tx = ctx.begin().await?;
    schema::results::insert_plan_run(&mut tx, ctx.key(), &row).await?;
    ctx.complete(tx).await
}

/// Learned plan jobs of one model claimed together
/// (`schema::lifecycle::Together::Planning`: same spec, same model, other
/// instances): every search at once on this process's threads, the states
/// they all wait on evaluated in shared forward passes on the worker's
/// device (`learner::many::gbfs_many`). Each result equals the search's
/// alone (`hfarm bench plan-many` checks it); each job's run is written
/// with its own completion. One result per job, in order.
pub async fn run_group(pool: &PgPool, worker: &str, jobs: &[Claimed]) -> Vec<Result<bool, JobError>> {
    let searched = match search_group(pool, jobs).await {
        Ok(s) => s,
        // Shared failures (the model, an instance) fail every member alike.
        Err(e) => return jobs.iter().map(|_| Err(failed(e.to_string()))).collect(),
    };
    let mut results = vec![];
    for (job, run) in jobs.iter().zip(searched.runs) {
        results.push(match run {
            Ok(run) => {
                let instance = job.inputs.last().cloned().unwrap_or_default();
                // Forward passes are shared: none is counted per search.
                let row = run.row(
                    instance,
                    searched.domain.clone(),
                    searched.name.clone(),
                    (&searched.limits, searched.planning),
                    Some(searched.model.clone()),
                    None,
                );
                store(pool, worker, &job.key, &row).await
            }
            Err(e) => Err(failed(e)),
        });
    }
    results
}

/// What a group's searches share, and each one's run.
struct Searched {
    domain: String,
    name: String,
    model: String,
    limits: PlanLimits,
    planning: Planning,
    runs: Vec<Result<PlanRun, String>>,
}

async fn search_group(pool: &PgPool, jobs: &[Claimed]) -> Result<Searched, JobError> {
    let first = jobs.first().ok_or_else(|| failed("a group without members"))?;
    let (domain, clip, limits, planning) = match serde_json::from_value(first.spec.clone()) {
        Ok(JobSpec::Plan { domain, heuristic: PlanHeuristic::Learned { clip, .. }, limits, planning }) => {
            (domain, clip, limits, planning)
        }
        Ok(_) => return Err(failed("not a learned plan job")),
        Err(e) => return Err(failed(format!("bad job spec: {e}"))),
    };
    let model = first.inputs.first().ok_or_else(|| failed("plan job without its model"))?.clone();
    let (config, weights) = learned::checkpoint(pool, &model, Tag::BestMse).await?;
    let (mut domain_pddl, mut problems) = (String::new(), vec![]);
    for job in jobs {
        let key = job.inputs.last().ok_or_else(|| failed("plan job without instance"))?;
        let inst = instance(pool, key).await?;
        domain_pddl = inst.domain_pddl;
        problems.push(inst.problem_pddl);
    }
    let runs = blocking(move || {
        let device = learner::device().map_err(|e| e.to_string())?;
        let predictor = learner::Predictor::load(config, &weights, device).map_err(|e| e.to_string())?;
        let search_limits = Limits::new(Some(limits.max_evaluations), limits.time_s.0, Some(limits.memory_mib));
        let mode = search_mode(planning);
        let (outcomes, _passes) =
            learner::many::gbfs_many(&predictor, &domain_pddl, &problems, clip, search_limits, mode)
                .map_err(|e| e.to_string())?;
        Ok(outcomes.into_iter().map(|o| o.map(|r| run_of(r, &limits)).map_err(|e| e.to_string())).collect())
    })
    .await?;
    let name = if clip.is_some() { "learned+clip" } else { "learned" };
    Ok(Searched { domain, name: name.to_string(), model, limits, planning, runs })
}

async fn store(pool: &PgPool, worker: &str, key: &str, row: &schema::results::PlanRun) -> Result<bool, JobError> {
    let mut tx = schema::lifecycle::begin(pool).await?;
    schema::results::insert_plan_run(&mut tx, key, row).await?;
    Ok(schema::lifecycle::complete(tx, key, worker).await?)
}

impl PlanRun {
    /// The row it makes in `plan_runs`.
    fn row(
        &self,
        instance: String,
        domain: String,
        heuristic: String,
        (limits, planning): (&PlanLimits, Planning),
        model: Option<String>,
        forward_passes: Option<u64>,
    ) -> schema::results::PlanRun {
        schema::results::PlanRun {
            instance,
            domain,
            heuristic,
            search: planning.search.name().into(),
            status: self.status.as_str().to_string(),
            solved: self.status == SearchStatus::Solved,
            cost: self.cost,
            plan_length: self.plan_length.map(|l| l as u64),
            evaluations: self.evaluations,
            expansions: self.expansions,
            generated: self.generated,
            search_time_s: self.search_time_s,
            max_evaluations: limits.max_evaluations,
            model,
            forward_passes,
        }
    }

    /// A run the isolation stopped (the kernel's memory limit, the hard
    /// deadline): unsolved, so it counts the whole budget, as the paper does.
    fn stopped(status: SearchStatus, limits: &PlanLimits, started: std::time::Instant) -> PlanRun {
        PlanRun {
            status,
            cost: None,
            plan_length: None,
            evaluations: limits.max_evaluations,
            expansions: 0,
            generated: 0,
            search_time_s: started.elapsed().as_secs_f64(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compute::plan_classical;
    use crate::isolate::Isolation;
    use crate::kinds::{generate_instance, Outcome};
    use jobs::split::{SolveLimits, Split};
    use planner::generate::Params;
    use planner::label::label;

    #[tokio::test]
    async fn generated_instances_are_solved_labelled_and_planned() {
        let limits = SolveLimits {
            time_s: 30.0,
            memory_mib: 512,
            tries: 20,
            give_up_after: None,
            skip_predicted_over: None,
            skip_after_failed_seeds: None,
            skip_after_easier_failed: true,
        };
        let Outcome::Instance(inst) = generate_instance(
            &Isolation::InProcess,
            "gripper",
            Split::Train,
            &Params::Gripper { balls: 3 },
            1,
            Default::default(),
            &limits,
        )
        .await
        .unwrap() else {
            panic!("gripper with 3 balls is solved")
        };
        assert!(inst.optimal_cost > 0);
        assert_eq!(inst.plan.len() as u64, inst.optimal_cost);
        let labels = label(&inst.domain_pddl, &inst.problem_pddl, &inst.plan).unwrap();
        assert_eq!(labels.len(), inst.plan.len() + 1);
        assert_eq!(labels[0].h_star, inst.optimal_cost);
        assert_eq!(labels.last().unwrap().h_star, 0);
        for l in &labels {
            let (hmax, lmcut) = (l.value("hmax").unwrap(), l.value("lmcut").unwrap());
            assert!(hmax <= lmcut && lmcut <= l.h_star as f64, "{l:?}");
            assert!(l.atoms.iter().any(|a| a.starts_with("(room ")), "static atoms are part of the state");
        }
        let run =
            plan_classical(&inst.domain_pddl, &inst.problem_pddl, "ff", &PlanLimits::default(), Planning::default())
                .unwrap();
        assert_eq!(run.status, SearchStatus::Solved);
        let budget = PlanLimits { max_evaluations: 1, ..PlanLimits::default() };
        let cut = plan_classical(&inst.domain_pddl, &inst.problem_pddl, "blind", &budget, Planning::default()).unwrap();
        assert_eq!(cut.evaluations, 1);
    }

    /// A plan job of the paper's grid (`[planning] search = "pddlsl",
    /// heuristics = "pyperplan"`) is the authors' search with their hFF:
    /// its evaluation counts are the ones their code recorded on the same
    /// instances (`planner`'s fixture of the authors' `a_star.py`).
    #[test]
    fn the_authors_planning_counts_as_their_code() {
        use planner::heuristics::Definitions;
        use planner::search::Greedy;
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../planner/fixtures");
        let counts: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(format!("{root}/pddlsl_gbfs_counts.json")).unwrap()).unwrap();
        let theirs = Planning { search: Greedy::Pddlsl, heuristics: Definitions::Pyperplan };
        let limits =
            PlanLimits { max_evaluations: counts["max_evaluations"].as_u64().unwrap(), ..PlanLimits::default() };
        let mut checked = 0;
        for (key, want) in counts["instances"].as_object().unwrap() {
            let Some(file) = key.strip_prefix("fixtures/") else { continue };
            let dir = std::path::Path::new(root).join("pddlsl_gbfs").join(file).parent().unwrap().to_path_buf();
            let domain = std::fs::read_to_string(dir.join("domain.pddl")).unwrap();
            let problem = std::fs::read_to_string(std::path::Path::new(root).join("pddlsl_gbfs").join(file)).unwrap();
            let run = plan_classical(&domain, &problem, "ff", &limits, theirs).unwrap();
            assert_eq!(run.evaluations, want["evaluations"].as_u64().unwrap(), "{key}");
            assert_eq!(run.status == SearchStatus::Solved, want["solved"].as_bool().unwrap(), "{key}");
            checked += 1;
        }
        assert!(checked >= 20, "only {checked} instances");
    }
}
