//! Training data and training: every state on an optimal plan of each
//! training problem, labelled with its h* (the cost of the plan's rest),
//! as the WL paper trains; then ridge regression on the states' WL features.
//!
//! Plans come from A* with LM-cut on the pruned grounding (the fast one);
//! the states are replayed on the unpruned grounding, whose facts are the
//! whole relational state the ILG describes (the same grounding the search
//! with the model then runs on). Problems A* does not solve within the limit
//! give no states: the track's convention would label them with a satisficing
//! plan's costs, which are not h*; we keep the labels exact and report how
//! many problems were left out.

use std::collections::HashMap;
use std::time::Instant;

use planner::ground::GroundOptions;
use planner::heuristics::LmCut;
use planner::search::{astar, Limits, SearchStatus};
use planner::successors::{apply, is_applicable};
use planner::Task;

use crate::graph::Ilg;
use crate::model::{Model, TrainSummary};
use crate::refine::{features_train, initial_keys, Dictionary, Scratch};
use crate::ridge;

/// Parses and grounds, naming the file in errors.
pub fn load(domain: &str, problem: &str, problem_file: &str, prune: bool) -> Result<Task, String> {
    let d = planner::pddl::parse_domain(domain, "domain.pddl").map_err(|e| e.to_string())?;
    let p = planner::pddl::parse_problem(problem, problem_file, &d).map_err(|e| e.to_string())?;
    planner::ground::ground_with(&d, &p, GroundOptions { prune_irrelevant: prune })
        .map_err(|e| format!("{problem_file}: {e}"))
}

/// The unpruned grounding the model reads and the search with it runs on.
pub fn load_for_model(domain: &str, problem: &str, problem_file: &str) -> Result<Task, String> {
    load(domain, problem, problem_file, false)
}

/// A packed state of the unpruned task and its h*.
pub type LabelledState = (Vec<u64>, f64);

/// States of an optimal plan on `full` (s_0 .. s_n) with their h*, or None
/// when A*+LM-cut does not solve the problem within `limits`.
pub fn optimal_plan_states(
    domain: &str,
    problem: &str,
    problem_file: &str,
    full: &Task,
    limits: Limits,
) -> Result<Option<Vec<LabelledState>>, String> {
    let pruned = load(domain, problem, problem_file, true)?;
    let mut h = LmCut::new(&pruned);
    let r = astar(&pruned, &mut h, limits);
    if r.status != SearchStatus::Solved {
        return Ok(None);
    }
    let by_name: HashMap<&str, u32> =
        full.operators.iter().enumerate().map(|(i, o)| (o.name.as_str(), i as u32)).collect();
    let mut s = planner::state::initial_state(full);
    let mut next = s.clone();
    let mut states = vec![s.clone()];
    let mut costs = vec![];
    for &op in &r.plan {
        let name = &pruned.operators[op as usize].name;
        let &o = by_name
            .get(name.as_str())
            .ok_or_else(|| format!("{problem_file}: plan step {name} is not an operator of the unpruned task"))?;
        if !is_applicable(full, &s, o) {
            return Err(format!("{problem_file}: plan step {name} is not applicable on the unpruned task"));
        }
        apply(full, &s, o, &mut next);
        std::mem::swap(&mut s, &mut next);
        states.push(s.clone());
        costs.push(full.operators[o as usize].cost as f64);
    }
    let mut rest = 0.0;
    let mut out = vec![(states.pop().unwrap_or_default(), 0.0)];
    while let (Some(st), Some(c)) = (states.pop(), costs.pop()) {
        rest += c;
        out.push((st, rest));
    }
    out.reverse();
    Ok(Some(out))
}

#[derive(Debug, Clone, Copy)]
pub struct TrainOptions {
    pub iterations: usize,
    pub lambda: f64,
    /// A*+LM-cut's limits per training problem.
    pub limits: Limits,
}

/// A training problem: its file name (for errors) and text.
pub struct TrainingProblem<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

/// Trains a model on the problems' optimal plans; `progress` hears one line per problem.
pub fn train(
    domain: &str,
    problems: &[TrainingProblem<'_>],
    options: TrainOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Model, String> {
    let mut dict = Dictionary::new(options.iterations);
    let mut rows = vec![];
    let mut ys = vec![];
    let mut summary = TrainSummary { problems: problems.len(), ..Default::default() };
    let mut domain_name = None;
    let mut scratch = Scratch::default();
    for p in problems {
        let full = load_for_model(domain, p.text, p.file)?;
        domain_name.get_or_insert_with(|| full.domain_name.clone());
        let t0 = Instant::now();
        let states = optimal_plan_states(domain, p.text, p.file, &full, options.limits)?;
        summary.plan_seconds += t0.elapsed().as_secs_f64();
        let Some(states) = states else {
            progress(&format!("{}: not solved optimally within the limit, left out", p.file));
            continue;
        };
        summary.solved += 1;
        let t1 = Instant::now();
        let ilg = Ilg::new(&full);
        let keys = initial_keys(&ilg);
        for (s, h) in &states {
            rows.push(features_train(&ilg, &keys, s, &mut dict, &mut scratch));
            ys.push(*h);
        }
        summary.feature_seconds += t1.elapsed().as_secs_f64();
        progress(&format!("{}: {} states, h*(s0) = {}", p.file, states.len(), states[0].1));
    }
    if rows.is_empty() {
        return Err("no training problem was solved optimally within the limit: no training data".into());
    }
    let t2 = Instant::now();
    let fit = ridge::fit(&rows, &ys, dict.len(), options.lambda)?;
    summary.fit_seconds = t2.elapsed().as_secs_f64();
    summary.states = rows.len();
    summary.colours = dict.len();
    summary.cg_iterations = fit.iterations;
    summary.train_mse = rows
        .iter()
        .zip(&ys)
        .map(|(r, y)| {
            let p: f64 = r.iter().map(|&(j, x)| x * fit.weights[j as usize]).sum::<f64>() + fit.bias;
            (p - y).powi(2)
        })
        .sum::<f64>()
        / rows.len() as f64;
    Ok(Model {
        domain: domain_name.unwrap_or_default(),
        lambda: options.lambda,
        dictionary: dict,
        weights: fit.weights,
        bias: fit.bias,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::graph::tests::{DOMAIN, PROBLEM};
    use crate::WlHeuristic;
    use planner::heuristics::Heuristic;

    #[test]
    fn plan_states_carry_h_star_and_a_trained_model_fits_them() {
        let full = load_for_model(DOMAIN, PROBLEM, "p.pddl").unwrap();
        let states = optimal_plan_states(DOMAIN, PROBLEM, "p.pddl", &full, Limits::default()).unwrap().unwrap();
        // c off a, b onto c, a onto b: unstack, putdown, pickup, stack, pickup, stack.
        let hs: Vec<f64> = states.iter().map(|s| s.1).collect();
        assert_eq!(hs, [6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0]);
        assert!(planner::state::is_goal(&full, &states[6].0));
        let opts = TrainOptions { iterations: 2, lambda: 1e-6, limits: Limits::default() };
        let m = train(DOMAIN, &[TrainingProblem { file: "p.pddl", text: PROBLEM }], opts, &mut |_| {}).unwrap();
        assert_eq!(m.summary.states, 7);
        assert_eq!(m.domain, "bw");
        // Seven distinct states, far more colours than states: the fit interpolates.
        assert!(m.summary.train_mse < 1e-3, "{:?}", m.summary);
        let mut h = WlHeuristic::new(Arc::new(m), &full).unwrap();
        for (s, want) in &states {
            assert!((h.evaluate(s) - want).abs() < 0.1, "{} vs {want}", h.evaluate(s));
        }
    }

    #[test]
    fn models_are_refused_on_other_domains() {
        let full = load_for_model(DOMAIN, PROBLEM, "p.pddl").unwrap();
        let opts = TrainOptions { iterations: 1, lambda: 1e-3, limits: Limits::default() };
        let mut m = train(DOMAIN, &[TrainingProblem { file: "p.pddl", text: PROBLEM }], opts, &mut |_| {}).unwrap();
        m.domain = "other".into();
        let e = WlHeuristic::new(Arc::new(m), &full).err().unwrap();
        assert!(e.contains("\"other\""), "{e}");
    }
}
