//! The domain solvers (`planner::solvers`) against the validator and against
//! optimal plans: on every IPC blocksworld and zenotravel problem of
//! `tests/ipc/` (optimal costs from Fast Downward, `fd.json`) and on
//! generated problems (optimal costs from A* with LM-cut), every plan
//! replays on the lifted PDDL, never costs less than the optimum, and costs
//! at most a little more on average; from states inside an optimal plan too
//! (a label job solves from any state). The zenotravel generator and the
//! shipped domain file are checked here as well.

use std::path::{Path, PathBuf};

use planner::generate::{self, Params};
use planner::ground::GroundOptions;
use planner::heuristics::LmCut;
use planner::pddl::{parse_domain, parse_problem, Domain, Problem};
use planner::search::{astar, Limits, SearchStatus};
use planner::solvers::{self, Instance, SolverError};
use planner::state::{initial_state, is_goal};
use planner::successors::{apply, is_applicable};
use planner::validate::validate;
use planner::Task;
use serde_json::Value;

fn ipc(rel: &str) -> String {
    let path: PathBuf = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ipc").join(rel);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(domain file, problem file, optimal cost)` of fd.json's cases of a domain directory.
fn ipc_cases(dirs: &[&str]) -> Vec<(String, String, u64)> {
    let manifest: Value = serde_json::from_str(&ipc("fd.json")).unwrap();
    manifest
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| dirs.iter().any(|d| c["domain"].as_str().unwrap().starts_with(&format!("{d}/"))))
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            (s("domain"), s("problem"), c["fd_optimal_cost"].as_u64().unwrap())
        })
        .collect()
}

fn parse(domain: &str, problem: &str) -> (Domain, Problem) {
    let d = parse_domain(domain, "domain.pddl").unwrap_or_else(|e| panic!("{e}"));
    let p = parse_problem(problem, "problem.pddl", &d).unwrap_or_else(|e| panic!("{e}"));
    (d, p)
}

/// The solver's plan for the problem's initial state, checked by the lifted
/// validator; its cost.
fn solve_and_validate(solver: &str, d: &Domain, p: &Problem, seed: u64) -> u64 {
    let plan = solvers::solve_problem(solver, d, p, seed).unwrap_or_else(|e| panic!("{}: {e}", p.name));
    let steps = planner::plan::parse_plan(&plan.to_text(), "plan").unwrap();
    assert_eq!(validate(d, p, &steps), Ok(plan.cost()), "{}: {}", p.name, plan.to_text());
    plan.cost()
}

/// A* with LM-cut: an optimal plan, or None past the limit.
fn optimal(task: &Task, seconds: f64) -> Option<Vec<u32>> {
    let mut h = LmCut::new(task);
    let r = astar(task, &mut h, Limits::new(None, Some(seconds), Some(2048)));
    (r.status == SearchStatus::Solved).then_some(r.plan)
}

/// From every state along an optimal plan of the task, the solver's plan (as
/// the task's operators) applies, reaches the goal, and is no shorter than
/// the rest of the optimal plan (that state's h*). Returns (solver, optimal)
/// cost pairs.
fn check_along(solver: &str, task: &Task, plan: &[u32], seed: u64) -> Vec<(u64, u64)> {
    let mut s = initial_state(task);
    let mut next = s.clone();
    let mut out = vec![];
    for (i, &op) in plan.iter().enumerate() {
        let h_star = (plan.len() - i) as u64;
        let ops = solvers::solve_task(solver, task, &s, seed)
            .unwrap_or_else(|e| panic!("{}: step {i}: {e}", task.problem_name));
        let mut t = s.clone();
        let mut t_next = t.clone();
        for &o in &ops {
            assert!(
                is_applicable(task, &t, o),
                "{}: {} not applicable",
                task.problem_name,
                task.operators[o as usize].name
            );
            apply(task, &t, o, &mut t_next);
            std::mem::swap(&mut t, &mut t_next);
        }
        assert!(is_goal(task, &t), "{}: step {i}: the plan misses the goal", task.problem_name);
        assert!(ops.len() as u64 >= h_star, "{}: step {i}: {} < h* = {h_star}", task.problem_name, ops.len());
        out.push((ops.len() as u64, h_star));
        apply(task, &s, op, &mut next);
        std::mem::swap(&mut s, &mut next);
    }
    out
}

fn mean_ratio(pairs: &[(u64, u64)]) -> f64 {
    let pairs: Vec<_> = pairs.iter().filter(|(_, o)| *o > 0).collect();
    pairs.iter().map(|(s, o)| *s as f64 / *o as f64).sum::<f64>() / pairs.len().max(1) as f64
}

#[test]
fn ipc_problems_get_valid_plans_never_below_fast_downwards_optimum() {
    let mut pairs = vec![];
    for (solver, dirs) in [
        ("blocksworld-goodtower", &["blocks"][..]),
        ("zenotravel-ga", &["zenotravel", "ipc2002-zenotravel-strips-automatic"][..]),
    ] {
        let cases = ipc_cases(dirs);
        assert!(!cases.is_empty(), "{dirs:?}");
        for (domain_file, problem_file, opt) in cases {
            let (d, p) = parse(&ipc(&domain_file), &ipc(&problem_file));
            for seed in 0..3 {
                let cost = solve_and_validate(solver, &d, &p, seed);
                assert!(cost >= opt, "{problem_file}: {cost} < optimal {opt}");
                pairs.push((cost, opt));
            }
            // From the states of an optimal plan, on the pruned grounding.
            let task = planner::ground(&d, &p).unwrap();
            let plan = optimal(&task, 60.0).expect("fd.json's problems are solved quickly");
            assert_eq!(plan.len() as u64, opt);
            pairs.extend(check_along(solver, &task, &plan, 1));
            // And on the unpruned grounding learners read.
            let full = planner::ground::ground_with(&d, &p, GroundOptions { prune_irrelevant: false }).unwrap();
            let full_plan = optimal(&full, 60.0).unwrap();
            check_along(solver, &full, &full_plan, 2);
        }
    }
    let ratio = mean_ratio(&pairs);
    eprintln!("IPC: mean solver/optimal over {} (state, seed) pairs: {ratio:.3}", pairs.len());
    assert!(ratio <= 1.05, "mean ratio {ratio}");
}

#[test]
fn generated_problems_get_near_optimal_valid_plans() {
    for (solver, params, bound) in [
        ("blocksworld-goodtower", (3..=7).map(|blocks| Params::Blocksworld { blocks }).collect::<Vec<_>>(), 1.1),
        (
            "zenotravel-ga",
            vec![
                Params::Zenotravel { cities: 3, planes: 1, persons: 3, fuel_levels: None },
                Params::Zenotravel { cities: 3, planes: 2, persons: 3, fuel_levels: None },
                Params::Zenotravel { cities: 4, planes: 2, persons: 4, fuel_levels: Some(3) },
            ],
            1.1,
        ),
    ] {
        let mut pairs = vec![];
        for p in &params {
            let domain = generate::domain_pddl(p.domain()).unwrap();
            for seed in 0..4 {
                let text = generate::generate(p, seed).unwrap();
                let (d, prob) = parse(domain, &text);
                let cost = solve_and_validate(solver, &d, &prob, seed);
                let task = planner::ground(&d, &prob).unwrap();
                let plan = optimal(&task, 60.0).unwrap_or_else(|| panic!("{p:?} seed {seed}: A* gave up"));
                assert!(cost >= plan.len() as u64, "{p:?} seed {seed}: {cost} < optimal {}", plan.len());
                pairs.push((cost, plan.len() as u64));
                pairs.extend(check_along(solver, &task, &plan, seed));
            }
        }
        let ratio = mean_ratio(&pairs);
        eprintln!("{solver}: mean solver/optimal over {} generated states: {ratio:.3}", pairs.len());
        assert!(ratio <= bound, "{solver}: mean ratio {ratio}");
    }
}

#[test]
fn large_generated_problems_are_solved_quickly() {
    for (solver, p) in [
        ("blocksworld-goodtower", Params::Blocksworld { blocks: 150 }),
        ("zenotravel-ga", Params::Zenotravel { cities: 20, planes: 5, persons: 25, fuel_levels: None }),
    ] {
        let domain = generate::domain_pddl(p.domain()).unwrap();
        let text = generate::generate(&p, 7).unwrap();
        let (d, prob) = parse(domain, &text);
        let t = std::time::Instant::now();
        let cost = solve_and_validate(solver, &d, &prob, 7);
        assert!(cost > 0);
        assert!(t.elapsed().as_secs_f64() < 30.0, "{solver}: {:?}", t.elapsed());
    }
}

#[test]
fn the_same_seed_gives_the_same_plan() {
    for (solver, p) in [
        ("blocksworld-goodtower", Params::Blocksworld { blocks: 12 }),
        ("zenotravel-ga", Params::Zenotravel { cities: 6, planes: 3, persons: 8, fuel_levels: None }),
    ] {
        let text = generate::generate(&p, 3).unwrap();
        let (d, prob) = parse(generate::domain_pddl(p.domain()).unwrap(), &text);
        let a = solvers::solve_problem(solver, &d, &prob, 5).unwrap();
        assert_eq!(a, solvers::solve_problem(solver, &d, &prob, 5).unwrap(), "{solver}");
    }
}

#[test]
fn solvers_refuse_other_domains_and_negative_goals() {
    let p = Params::Ferry { locations: 3, cars: 2 };
    let (d, prob) = parse(generate::domain_pddl("ferry").unwrap(), &generate::generate(&p, 1).unwrap());
    for s in solvers::names() {
        let e = solvers::solve_problem(s, &d, &prob, 1).unwrap_err();
        assert!(matches!(e, SolverError::Unsupported(_)), "{s}: {e}");
    }
    let blocks = generate::domain_pddl("blocksworld").unwrap();
    let (d, prob) = parse(
        blocks,
        "(define (problem p) (:domain blocksworld) (:objects a) (:init (ontable a) (clear a) (handempty)) (:goal (not (clear a))))",
    );
    let e = Instance::from_problem(&d, &prob).unwrap_err();
    assert!(e.to_string().contains("not a positive atom"), "{e}");
}

#[test]
fn the_shipped_zenotravel_domain_runs_the_ipc_problems_unchanged() {
    let shipped = generate::domain_pddl("zenotravel").unwrap();
    for (_, problem_file, opt) in ipc_cases(&["zenotravel"]) {
        let (d, p) = parse(shipped, &ipc(&problem_file));
        let task = planner::ground(&d, &p).unwrap();
        assert_eq!(optimal(&task, 60.0).map(|p| p.len() as u64), Some(opt), "{problem_file}");
    }
}

#[test]
fn generated_zenotravel_problems_parse_ground_and_solve_optimally_when_small() {
    let p = Params::Zenotravel { cities: 3, planes: 2, persons: 2, fuel_levels: None };
    for seed in 0..6 {
        let text = generate::generate(&p, seed).unwrap();
        assert_eq!(text, generate::generate(&p, seed).unwrap());
        let task = planner::load_task_from_text(generate::domain_pddl("zenotravel").unwrap(), "d", &text, "p")
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        assert!(task.unsolvable.is_none());
        assert!(optimal(&task, 60.0).is_some(), "seed {seed}");
    }
    let a = generate::generate(&p, 1).unwrap();
    assert!((2..10).any(|s| generate::generate(&p, s).unwrap() != a));
}
