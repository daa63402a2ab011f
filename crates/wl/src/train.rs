//! Training data and training: every state on an optimal plan of each
//! training problem, labelled with its h* (the cost of the plan's rest),
//! as the WL paper trains; then ridge regression on the states' WL features.
//! For the ranking model, also every sibling of each plan step's successor
//! (the parent's other successors), grouped as GOOSE's ranking data sets
//! do: per step s -> s', s' is good, s is bad and the siblings are "maybe",
//! and s' is asked to rank below each of the others (`crate::rank`).
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

use planner::successors::SuccessorGenerator;
use planner::task::OpId;

use crate::graph::Ilg;
use crate::model::{Kind, Model, TrainSummary};
use crate::rank::{self, Pair};
use crate::refine::{features_train, initial_keys, Dictionary, Scratch};
use crate::ridge::{self, Row};

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
    Ok(optimal_plan(domain, problem, problem_file, full, limits)?.map(|(states, _)| states))
}

/// A plan's states with their h*, and its operators on the unpruned task.
pub type OptimalPlan = (Vec<LabelledState>, Vec<OpId>);

/// As [`optimal_plan_states`], with the plan's operators on `full` (one per step).
pub fn optimal_plan(
    domain: &str,
    problem: &str,
    problem_file: &str,
    full: &Task,
    limits: Limits,
) -> Result<Option<OptimalPlan>, String> {
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
    let mut ops = vec![];
    for &op in &r.plan {
        let name = &pruned.operators[op as usize].name;
        let &o = by_name
            .get(name.as_str())
            .ok_or_else(|| format!("{problem_file}: plan step {name} is not an operator of the unpruned task"))?;
        if !is_applicable(full, &s, o) {
            return Err(format!("{problem_file}: plan step {name} is not applicable on the unpruned task"));
        }
        ops.push(o);
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
    Ok(Some((out, ops)))
}

#[derive(Debug, Clone, Copy)]
pub struct TrainOptions {
    pub kind: Kind,
    pub iterations: usize,
    /// The regulariser's weight: ridge's penalty, or the ranker's (lambda = 1
    /// is GOOSE's C = 1).
    pub lambda: f64,
    /// A*+LM-cut's limits per training problem.
    pub limits: Limits,
}

/// Everything the fits read: feature rows against one dictionary, which of
/// them are plan states with their h*, and the ranking pairs (empty unless
/// siblings were collected).
#[derive(Debug, Clone)]
pub struct TrainingData {
    pub domain: String,
    pub dictionary: Dictionary,
    pub rows: Vec<Row>,
    /// (row, h*) for every state on an optimal plan.
    pub labelled: Vec<(u32, f64)>,
    pub pairs: Vec<Pair>,
    /// Problems, solved, planning and feature times (the fit's parts are
    /// filled by [`fit`]).
    pub summary: TrainSummary,
}

/// A training problem: its file name (for errors) and text.
#[derive(Clone, Copy)]
pub struct TrainingProblem<'a> {
    pub file: &'a str,
    pub text: &'a str,
}

/// Labels the problems by optimal plans and computes their WL features;
/// with `siblings`, also the features of each plan step's siblings and the
/// ranking pairs. `progress` hears one line per problem.
pub fn collect(
    domain: &str,
    problems: &[TrainingProblem<'_>],
    iterations: usize,
    limits: Limits,
    siblings: bool,
    progress: &mut dyn FnMut(&str),
) -> Result<TrainingData, String> {
    let mut dict = Dictionary::new(iterations);
    let mut rows: Vec<Row> = vec![];
    let mut labelled = vec![];
    let mut pairs = vec![];
    let mut summary = TrainSummary { problems: problems.len(), ..Default::default() };
    let mut domain_name = None;
    let mut scratch = Scratch::default();
    let mut applicable = vec![];
    let mut child = vec![];
    for p in problems {
        let full = load_for_model(domain, p.text, p.file)?;
        domain_name.get_or_insert_with(|| full.domain_name.clone());
        let t0 = Instant::now();
        let plan = optimal_plan(domain, p.text, p.file, &full, limits)?;
        summary.plan_seconds += t0.elapsed().as_secs_f64();
        let Some((states, ops)) = plan else {
            progress(&format!("{}: not solved optimally within the limit, left out", p.file));
            continue;
        };
        summary.solved += 1;
        let t1 = Instant::now();
        let ilg = Ilg::new(&full);
        let keys = initial_keys(&ilg);
        let first = rows.len() as u32;
        for (s, h) in &states {
            labelled.push((rows.len() as u32, *h));
            rows.push(features_train(&ilg, &keys, s, &mut dict, &mut scratch));
        }
        let mut sibling_count = 0;
        if siblings {
            let gen = SuccessorGenerator::new(&full);
            for (i, &op) in ops.iter().enumerate() {
                let (parent, good) = (first + i as u32, first + i as u32 + 1);
                pairs.push(Pair { good, bad: parent });
                // `applicable` appends: start each state afresh.
                applicable.clear();
                gen.applicable(&full, &states[i].0, &mut applicable);
                for &o in &applicable {
                    if o == op {
                        continue;
                    }
                    child.resize(states[i].0.len(), 0);
                    apply(&full, &states[i].0, o, &mut child);
                    // Another operator reaching the plan's own successor is
                    // not a sibling; nothing could order a state against itself.
                    if child == states[i + 1].0 {
                        continue;
                    }
                    pairs.push(Pair { good, bad: rows.len() as u32 });
                    rows.push(features_train(&ilg, &keys, &child, &mut dict, &mut scratch));
                    sibling_count += 1;
                }
            }
        }
        summary.feature_seconds += t1.elapsed().as_secs_f64();
        progress(&format!("{}: {} states, {} siblings, h*(s0) = {}", p.file, states.len(), sibling_count, states[0].1));
    }
    if labelled.is_empty() {
        return Err("no training problem was solved optimally within the limit: no training data".into());
    }
    summary.states = labelled.len();
    summary.colours = dict.len();
    Ok(TrainingData { domain: domain_name.unwrap_or_default(), dictionary: dict, rows, labelled, pairs, summary })
}

/// Fits a model of `kind` on collected data. A ranker needs the data
/// collected with siblings (else it has only parent-successor pairs).
pub fn fit(data: &TrainingData, kind: Kind, lambda: f64) -> Result<Model, String> {
    let mut summary = data.summary.clone();
    let dim = data.dictionary.len();
    let t = Instant::now();
    let (weights, bias) = match kind {
        Kind::Ridge => {
            let rows: Vec<Row> = data.labelled.iter().map(|&(r, _)| data.rows[r as usize].clone()).collect();
            let ys: Vec<f64> = data.labelled.iter().map(|&(_, h)| h).collect();
            let fit = ridge::fit(&rows, &ys, dim, lambda)?;
            summary.cg_iterations = fit.iterations;
            let mse = rows
                .iter()
                .zip(&ys)
                .map(|(r, y)| {
                    let p: f64 = r.iter().map(|&(j, x)| x * fit.weights[j as usize]).sum::<f64>() + fit.bias;
                    (p - y).powi(2)
                })
                .sum::<f64>()
                / rows.len() as f64;
            summary.train_mse = Some(mse);
            (fit.weights, fit.bias)
        }
        Kind::Rank => {
            let fit = rank::fit(&data.rows, &data.pairs, dim, lambda)?;
            summary.pairs = data.pairs.len();
            summary.tied_pairs = fit.tied;
            summary.violated_pairs = fit.violated;
            summary.newton_iterations = fit.iterations;
            (fit.weights, 0.0)
        }
    };
    summary.fit_seconds = t.elapsed().as_secs_f64();
    Ok(Model { kind, domain: data.domain.clone(), lambda, dictionary: data.dictionary.clone(), weights, bias, summary })
}

/// Trains a model on the problems' optimal plans (and, for a ranker, their
/// siblings); `progress` hears one line per problem.
pub fn train(
    domain: &str,
    problems: &[TrainingProblem<'_>],
    options: TrainOptions,
    progress: &mut dyn FnMut(&str),
) -> Result<Model, String> {
    let siblings = options.kind == Kind::Rank;
    let data = collect(domain, problems, options.iterations, options.limits, siblings, progress)?;
    fit(&data, options.kind, options.lambda)
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
        let opts = TrainOptions { kind: Kind::Ridge, iterations: 2, lambda: 1e-6, limits: Limits::default() };
        let m = train(DOMAIN, &[TrainingProblem { file: "p.pddl", text: PROBLEM }], opts, &mut |_| {}).unwrap();
        assert_eq!(m.summary.states, 7);
        assert_eq!(m.domain, "bw");
        // Seven distinct states, far more colours than states: the fit interpolates.
        assert!(m.summary.train_mse.unwrap() < 1e-3, "{:?}", m.summary);
        let mut h = WlHeuristic::new(Arc::new(m), &full).unwrap();
        for (s, want) in &states {
            assert!((h.evaluate(s) - want).abs() < 0.1, "{} vs {want}", h.evaluate(s));
        }
    }

    #[test]
    fn a_ranker_orders_each_plan_successor_below_its_parent_and_siblings() {
        let full = load_for_model(DOMAIN, PROBLEM, "p.pddl").unwrap();
        let problems = [TrainingProblem { file: "p.pddl", text: PROBLEM }];
        // A larger problem first: buffers carried from it must not leak
        // into the smaller one (they once did: stale operator ids).
        let big = "(define (problem q) (:domain bw) (:objects a b c d)
          (:init (block a) (block b) (block c) (block d) (ontable a) (ontable b) (ontable c) (ontable d)
                 (clear a) (clear b) (clear c) (clear d) (handempty))
          (:goal (and (on a b) (on b c) (on c d))))";
        let both = [TrainingProblem { file: "q.pddl", text: big }, problems[0]];
        let data = collect(DOMAIN, &both, 2, Limits::default(), true, &mut |_| {}).unwrap();
        assert_eq!(data.labelled.len(), 7 + 7);
        let data = collect(DOMAIN, &problems, 2, Limits::default(), true, &mut |_| {}).unwrap();
        // Six steps: each has its parent and at least one sibling to beat.
        assert_eq!(data.labelled.len(), 7);
        assert!(data.pairs.len() > 6, "{}", data.pairs.len());
        let m = fit(&data, Kind::Rank, 1e-3).unwrap();
        assert_eq!(m.kind, Kind::Rank);
        assert_eq!(m.summary.violated_pairs, 0, "{:?}", m.summary);
        assert!(m.summary.train_mse.is_none());
        // Through the search's heuristic (not the training rows): every
        // sibling scores above the plan's successor.
        let (states, ops) = optimal_plan(DOMAIN, PROBLEM, "p.pddl", &full, Limits::default()).unwrap().unwrap();
        let mut h = WlHeuristic::new(Arc::new(m), &full).unwrap();
        let gen = SuccessorGenerator::new(&full);
        let mut applicable = vec![];
        let mut child = states[0].0.clone();
        for (i, &op) in ops.iter().enumerate() {
            let good = h.evaluate(&states[i + 1].0);
            assert!(good < h.evaluate(&states[i].0), "step {i}: successor not below parent");
            applicable.clear();
            gen.applicable(&full, &states[i].0, &mut applicable);
            for &o in applicable.iter().filter(|&&o| o != op) {
                apply(&full, &states[i].0, o, &mut child);
                if child != states[i + 1].0 {
                    assert!(good < h.evaluate(&child), "step {i}: sibling by operator {o} ranks above the plan's");
                }
            }
        }
        // The same data fits a ridge model too (the siblings' rows unused).
        let ridge = fit(&data, Kind::Ridge, 1e-6).unwrap();
        assert!(ridge.summary.train_mse.unwrap() < 1e-3, "{:?}", ridge.summary);
    }

    #[test]
    fn models_are_refused_on_other_domains() {
        let full = load_for_model(DOMAIN, PROBLEM, "p.pddl").unwrap();
        let opts = TrainOptions { kind: Kind::Ridge, iterations: 1, lambda: 1e-3, limits: Limits::default() };
        let mut m = train(DOMAIN, &[TrainingProblem { file: "p.pddl", text: PROBLEM }], opts, &mut |_| {}).unwrap();
        m.domain = "other".into();
        let e = WlHeuristic::new(Arc::new(m), &full).err().unwrap();
        assert!(e.contains("\"other\""), "{e}");
    }
}
