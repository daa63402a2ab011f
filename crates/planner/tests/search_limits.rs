//! Searches stop cleanly at their limits, with the right status.

use std::time::{Duration, Instant};

use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics::{Blind, Ff, LmCut};
use planner::search::{astar, gbfs, Limits, SearchStatus};

fn task(p: Params, seed: u64) -> planner::Task {
    let problem = generate(&p, seed).unwrap();
    planner::load_task_from_text(domain_pddl(p.domain()).unwrap(), "d", &problem, "p").unwrap()
}

fn hard() -> planner::Task {
    // Blind A* on 12 blocks takes far longer than any limit below.
    task(Params::Blocksworld { blocks: 12 }, 3)
}

#[test]
fn time_limit_stops_search() {
    let t = hard();
    let start = Instant::now();
    let limits = Limits { time_limit: Some(Duration::from_millis(200)), ..Limits::default() };
    let r = astar(&t, &mut Blind::new(&t), limits);
    assert_eq!(r.status, SearchStatus::TimeLimit);
    assert!(r.plan.is_empty() && r.cost.is_none());
    // Generous: the check is about stopping at all, not about precision.
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn a_cpu_time_limit_counts_the_searching_threads_cpu_time() {
    let t = hard();
    let limit = Duration::from_millis(200);
    let limits = Limits::new(None, Some(0.2), None).on_cpu_clock();
    assert_eq!((limits.time_limit, limits.cpu_time_limit), (None, Some(limit)));
    let (cpu0, wall0) = (planner::search::thread_cpu_time(), Instant::now());
    let r = astar(&t, &mut Blind::new(&t), limits);
    assert_eq!(r.status, SearchStatus::TimeLimit);
    // It stops only once this thread has spent the limit in CPU time,
    // however long that took on the wall clock.
    assert!(planner::search::thread_cpu_time() - cpu0 >= limit);
    assert!(wall0.elapsed() < Duration::from_secs(20));
}

#[test]
fn memory_limit_stops_search() {
    let t = hard();
    let limits = Limits { memory_limit: Some(1 << 20), ..Limits::default() };
    let r = astar(&t, &mut Blind::new(&t), limits);
    assert_eq!(r.status, SearchStatus::MemoryLimit);
    assert!(r.memory_bytes >= 1 << 20);
    let r = gbfs(&t, &mut Blind::new(&t), limits);
    assert_eq!(r.status, SearchStatus::MemoryLimit);
}

#[test]
fn evaluation_budget_is_exact() {
    let t = task(Params::Blocksworld { blocks: 16 }, 5);
    for budget in [1, 2, 37, 500] {
        let limits = Limits { max_evaluations: Some(budget), ..Limits::default() };
        let r = gbfs(&t, &mut Blind::new(&t), limits);
        assert_eq!(r.status, SearchStatus::EvaluationLimit, "budget {budget}");
        assert_eq!(r.evaluations, budget, "budget {budget}");
    }
}

#[test]
fn astar_stops_once_its_evaluation_budget_is_spent() {
    let t = hard();
    for budget in [1, 50, 2_000] {
        let limits = Limits { max_evaluations: Some(budget), ..Limits::default() };
        let r = astar(&t, &mut Blind::new(&t), limits);
        assert_eq!(r.status, SearchStatus::EvaluationLimit, "budget {budget}");
        // It stops before the first expansion after the budget: only the
        // last expansion's successors may pass it.
        let branching = t.operators.len() as u64;
        assert!(r.evaluations >= budget && r.evaluations < budget + branching, "budget {budget}: {}", r.evaluations);
    }
    // Within its budget, A* is not cut short.
    let easy = task(Params::Blocksworld { blocks: 4 }, 1);
    let r = astar(&easy, &mut LmCut::new(&easy), Limits { max_evaluations: Some(1_000_000), ..Limits::default() });
    assert_eq!(r.status, SearchStatus::Solved);
}

#[test]
fn gbfs_with_ff_solves_and_plans_validate() {
    for (p, seed) in [
        (Params::Blocksworld { blocks: 10 }, 1),
        (Params::Ferry { locations: 5, cars: 5 }, 2),
        (Params::Gripper { balls: 10 }, 3),
        (Params::Visitall { size: 5, ratio: 1.0, height: None }, 4),
    ] {
        let t = task(p, seed);
        let limits = Limits { max_evaluations: Some(10_000), ..Limits::default() };
        let r = gbfs(&t, &mut Ff::new(&t), limits);
        assert_eq!(r.status, SearchStatus::Solved, "{p:?}");
        assert!(r.evaluations <= 10_000);
        let problem = generate(&p, seed).unwrap();
        let d = planner::pddl::parse_domain(domain_pddl(p.domain()).unwrap(), "d").unwrap();
        let pr = planner::pddl::parse_problem(&problem, "p", &d).unwrap();
        let steps = planner::plan::parse_plan(&planner::plan::format_plan(&t, &r.plan), "plan").unwrap();
        assert_eq!(planner::validate::validate(&d, &pr, &steps), Ok(r.cost.unwrap()));
    }
}

#[test]
fn goal_true_initially_gives_the_empty_plan() {
    let d = domain_pddl("gripper").unwrap();
    let p = "(define (problem g) (:domain gripper) (:objects rooma ball1) (:init (room rooma) (ball ball1) (at ball1 rooma)) (:goal (at ball1 rooma)))";
    let t = planner::load_task_from_text(d, "d", p, "p").unwrap();
    for r in [astar(&t, &mut LmCut::new(&t), Limits::default()), gbfs(&t, &mut Ff::new(&t), Limits::default())] {
        assert_eq!(r.status, SearchStatus::Solved);
        assert_eq!(r.cost, Some(0));
        assert!(r.plan.is_empty());
    }
}

#[test]
fn relaxed_unreachable_goal_is_unsolvable_without_search() {
    let d = domain_pddl("gripper").unwrap();
    // No gripper object: nothing can ever be picked up.
    let p = "(define (problem g) (:domain gripper) (:objects rooma roomb ball1) (:init (room rooma) (room roomb) (ball ball1) (at ball1 rooma) (at-robby rooma)) (:goal (at ball1 roomb)))";
    let t = planner::load_task_from_text(d, "d", p, "p").unwrap();
    assert!(t.unsolvable.as_deref().unwrap().contains("(at ball1 roomb)"));
    let r = astar(&t, &mut LmCut::new(&t), Limits::default());
    assert_eq!(r.status, SearchStatus::Unsolvable);
    assert_eq!(r.expansions, 0);
}

#[test]
fn grounding_large_instances_stays_small() {
    // Blocksworld with 30 blocks and visitall 10x10: reachable facts and operators only.
    let bw = task(Params::Blocksworld { blocks: 30 }, 1);
    // The domain has no (not (= ?x ?y)), so stack/unstack of a block onto
    // itself are relaxed-reachable too (Fast Downward drops them later by
    // mutex reasoning; they are never applicable).
    assert_eq!(bw.operators.len(), 2 * 30 + 2 * 30 * 30);
    assert_eq!(bw.num_facts(), 30 * 30 + 3 * 30 + 1);
    let va = task(Params::Visitall { size: 10, ratio: 1.0, height: None }, 1);
    assert_eq!(va.operators.len(), 4 * 10 * 9);
    assert_eq!(va.num_facts(), 100 + 100);
}

#[test]
fn irrelevant_facts_and_operators_are_pruned() {
    // Visitall with half the cells as goals: visiting a non-goal cell still
    // moves the robot (relevant), but `visited` of non-goal cells is irrelevant.
    let p = Params::Visitall { size: 4, ratio: 0.5, height: None };
    let problem = generate(&p, 3).unwrap();
    let d = planner::pddl::parse_domain(domain_pddl("visitall").unwrap(), "d").unwrap();
    let pr = planner::pddl::parse_problem(&problem, "p", &d).unwrap();
    let full =
        planner::ground::ground_with(&d, &pr, planner::ground::GroundOptions { prune_irrelevant: false }).unwrap();
    let pruned = planner::ground(&d, &pr).unwrap();
    let goals = pr.goal.len();
    assert_eq!(full.num_facts(), 16 + 16);
    assert_eq!(pruned.num_facts(), 16 + goals, "at-robot cells plus the goal cells");
    assert_eq!(pruned.operators.len(), full.operators.len());
    let a = astar(&full, &mut LmCut::new(&full), Limits::default());
    let b = astar(&pruned, &mut LmCut::new(&pruned), Limits::default());
    assert_eq!(a.cost, b.cost);
    assert!(b.expansions <= a.expansions);
}
