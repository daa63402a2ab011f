//! Labelled data made on the spot with the planner (generate, solve with
//! A*+LM-cut, label the optimal plan's states), as the farm does.
#![allow(dead_code)]

use learner::{Dataset, LabelledInstance};
use planner::generate::{domain_pddl, Params};

pub fn instance(params: &Params, seed: u64) -> Option<LabelledInstance> {
    learner::data::solve_and_label(params, seed)
}

pub fn dataset(domain: &str, params: &[Params], seeds: std::ops::Range<u64>) -> Dataset {
    let mut instances = vec![];
    for p in params {
        for s in seeds.clone() {
            instances.extend(instance(p, s));
        }
    }
    Dataset { domain_pddl: domain_pddl(domain).unwrap().to_string(), instances }
}

pub fn gripper(balls: &[u32], seeds: std::ops::Range<u64>) -> Dataset {
    let params: Vec<Params> = balls.iter().map(|&b| Params::Gripper { balls: b }).collect();
    dataset("gripper", &params, seeds)
}
