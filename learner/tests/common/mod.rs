//! Labelled gripper data made on the spot with the planner (generate, solve
//! with A*+LM-cut, label the optimal plan's states), as the farm does.
#![allow(dead_code)]

use learner::{Dataset, LabelledInstance, Sample};
use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics::LmCut;
use planner::search::{astar, Limits, SearchStatus};

pub fn instance(domain: &str, params: &Params, seed: u64) -> Option<LabelledInstance> {
    let dom = domain_pddl(domain).unwrap();
    let problem = generate(params, seed).unwrap();
    let task = planner::load_task_from_text(dom, "d.pddl", &problem, "p.pddl").unwrap();
    let r = astar(&task, &mut LmCut::new(&task), Limits::new(None, Some(30.0), Some(1024)));
    if r.status != SearchStatus::Solved || r.plan.is_empty() {
        return None;
    }
    let plan: Vec<String> = r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect();
    let labels = planner::label::label(dom, &problem, &plan).unwrap();
    let samples = labels
        .into_iter()
        .map(|l| Sample {
            atoms: l.atoms,
            h_star: l.h_star as f64,
            lmcut: l.lmcut,
            hmax: l.hmax,
            blind: l.blind,
            ff: l.ff,
            goalcount: l.goalcount,
            deletes_ignored: l.deletes_ignored,
            mean_deletes_ignored: l.mean_deletes_ignored,
        })
        .collect();
    Some(LabelledInstance { name: format!("{domain}-{seed}"), problem_pddl: problem, samples })
}

pub fn dataset(domain: &str, params: &[Params], seeds: std::ops::Range<u64>) -> Dataset {
    let mut instances = vec![];
    for p in params {
        for s in seeds.clone() {
            instances.extend(instance(domain, p, s));
        }
    }
    Dataset { domain_pddl: domain_pddl(domain).unwrap().to_string(), instances }
}

pub fn gripper(balls: &[u32], seeds: std::ops::Range<u64>) -> Dataset {
    let params: Vec<Params> = balls.iter().map(|&b| Params::Gripper { balls: b }).collect();
    dataset("gripper", &params, seeds)
}
