//! How a job is priced: its cost class (kind, domain, group, resource
//! class) and the units one job of it takes, with an upper bound on its
//! seconds. `coordinator::cost` turns classes into seconds (rates measured
//! on the farm, benchmarks, defaults); submitting stores each job's class
//! beside it (`jobs.cost_group`, `cost_units`, `cost_cap_s`), so that what
//! is left of an experiment is priced by the same definition.

use std::collections::{HashMap, HashSet};

use crate::spec::{Job, JobKind, JobSpec, PlanHeuristic, Resource};
use crate::JobKey;

/// Jobs alike in cost: a kind, a domain and a group (generate: the split;
/// train, evaluate and learned plans: the model; classical plans: the
/// heuristic), with the units one job of it takes.
#[derive(Debug, Clone, PartialEq)]
pub struct JobClass {
    pub kind: JobKind,
    pub domain: String,
    pub group: String,
    pub resource: Resource,
    /// Steps (train), evaluation budget (plan), 1 otherwise.
    pub units: f64,
    /// An upper bound on a job's seconds (generate: tries x time limit).
    pub cap_s: Option<f64>,
}

impl JobClass {
    /// The class of `job`; `models` maps train job keys to their model's
    /// name (a learned plan job costs what its model costs to evaluate).
    pub fn of(job: &Job, models: &HashMap<JobKey, String>) -> JobClass {
        let (domain, group, units, cap_s) = match &job.spec {
            JobSpec::Generate { domain, split, limits, .. } => {
                // A slot gives up after `give_up_after` tries in a row out of time.
                let tries = limits.give_up_after.map_or(limits.tries, |k| k.min(limits.tries));
                (domain.clone(), split.as_str().to_string(), 1.0, Some(tries as f64 * limits.time_s))
            }
            JobSpec::Label { domain, split, .. } => (domain.clone(), split.as_str().to_string(), 1.0, None),
            JobSpec::Train { domain, model, steps, .. } => {
                (domain.clone(), model.cost_group().to_string(), *steps as f64, None)
            }
            JobSpec::Evaluate { domain, .. } => {
                let model = job.inputs.first().and_then(|k| models.get(k)).cloned().unwrap_or_default();
                (domain.clone(), model, 1.0, None)
            }
            JobSpec::Plan { domain, heuristic, limits, .. } => {
                let group = match heuristic {
                    PlanHeuristic::Classical { name } => name.clone(),
                    PlanHeuristic::Learned { .. } => {
                        job.inputs.first().and_then(|k| models.get(k)).cloned().unwrap_or_default()
                    }
                };
                (domain.clone(), group, limits.max_evaluations as f64, limits.time_s.0)
            }
            JobSpec::Draw { domain, .. } => (domain.clone(), String::new(), 1.0, None),
            JobSpec::Noop { .. } => (String::new(), String::new(), 1.0, None),
            JobSpec::PuzzleLearn { domain, settings, iterations, .. } => {
                (domain.clone(), settings.as_str().to_string(), *iterations as f64, None)
            }
            // A published optimum taken as it is costs nothing.
            JobSpec::PuzzleSolve { domain, trust_published, .. } => {
                (domain.clone(), String::new(), if *trust_published { 0.0 } else { 1.0 }, None)
            }
            JobSpec::PuzzleTest { domain, limits, .. } => (domain.clone(), String::new(), 1.0, limits.time_s),
            // A set of growing walks: a unit per second of its budget, capped
            // by the budget plus the last task's limit.
            JobSpec::PuzzleEfficiency { domain, budget_s, limits, .. } => {
                (domain.clone(), String::new(), *budget_s, Some(budget_s + limits.time_s.unwrap_or(*budget_s)))
            }
            JobSpec::GraphBootstrap { domain, bootstrap, configuration, .. } => {
                (domain.clone(), configuration.name(), bootstrap.rounds as f64, None)
            }
            JobSpec::GraphFold { domain, configuration, .. } => (domain.clone(), configuration.name(), 1.0, None),
            JobSpec::GraphBaseline { domain, heuristic, search, .. } => {
                (domain.clone(), heuristic.clone(), 1.0, search.time_s)
            }
        };
        JobClass { kind: job.spec.kind(), domain, group, resource: job.spec.resource(), units, cap_s }
    }
}

impl JobClass {
    /// The class of every job of a grid's expansion, in order. A plan job
    /// behind a reserve draw (ranked at or beyond its sample's size) takes
    /// no units: it runs only in place of an unsolved slot, and the sample
    /// is full whenever at least that many test slots are solved.
    pub fn of_all(jobs: &[Job]) -> Vec<JobClass> {
        let models: HashMap<JobKey, String> = jobs
            .iter()
            .filter_map(|j| match &j.spec {
                JobSpec::Train { model, .. } => Some((j.key.clone(), model.cost_group().to_string())),
                _ => None,
            })
            .collect();
        let reserves: HashSet<&JobKey> = jobs
            .iter()
            .filter(|j| matches!(j.spec, JobSpec::Draw { n, rank, .. } if rank >= n))
            .map(|j| &j.key)
            .collect();
        jobs.iter()
            .map(|j| {
                let mut c = JobClass::of(j, &models);
                if c.kind == JobKind::Plan && j.inputs.iter().any(|k| reserves.contains(k)) {
                    c.units = 0.0;
                }
                c
            })
            .collect()
    }
}
