//! Property tests on random small tasks written as PDDL text, so that the
//! parser, grounder, heuristics and searches are all exercised together:
//! hmax <= LM-cut <= h* on every reachable state, every heuristic registered
//! as admissible <= h*, dead ends reported only where there are some, A* cost
//! = breadth-first cost, and every plan found validates against the PDDL.

mod seeded;

use std::collections::VecDeque;

use planner::heuristics::{HMax, Heuristic, LmCut};
use planner::search::{astar, gbfs, Limits, SearchStatus};
use planner::state::{initial_state, is_goal, StateRegistry};
use planner::successors::{apply, SuccessorGenerator};
use planner::{pddl, plan, validate};
use proptest::prelude::*;
use proptest::test_runner::TestRunner;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A random domain: unary and binary predicates, actions whose literals use
/// their parameters, negative preconditions and equality included.
fn random_pddl(seed: u64) -> (String, String) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let preds: Vec<(String, usize)> =
        (0..rng.gen_range(2..5)).map(|i| (format!("p{i}"), rng.gen_range(0..3))).collect();
    let objects: Vec<String> = (0..rng.gen_range(2..4)).map(|i| format!("o{i}")).collect();
    let mut d =
        String::from("(define (domain rnd) (:requirements :strips :negative-preconditions :equality)\n (:constants");
    for o in &objects {
        d.push_str(&format!(" {o}"));
    }
    d.push_str(")\n (:predicates");
    for (p, n) in &preds {
        d.push_str(&format!(" ({p}"));
        for k in 0..*n {
            d.push_str(&format!(" ?x{k}"));
        }
        d.push(')');
    }
    d.push_str(")\n");
    let atom = |rng: &mut ChaCha8Rng, nparams: usize| {
        let (p, n) = &preds[rng.gen_range(0..preds.len())];
        let mut s = format!("({p}");
        for _ in 0..*n {
            if nparams > 0 && rng.gen_bool(0.85) {
                s.push_str(&format!(" ?a{}", rng.gen_range(0..nparams)));
            } else {
                s.push_str(&format!(" {}", objects[rng.gen_range(0..objects.len())]));
            }
        }
        s.push(')');
        s
    };
    for a in 0..rng.gen_range(1..4) {
        let nparams = rng.gen_range(0..3);
        d.push_str(&format!(" (:action a{a} :parameters ("));
        for k in 0..nparams {
            d.push_str(&format!(" ?a{k}"));
        }
        d.push_str(")\n  :precondition (and");
        for _ in 0..rng.gen_range(0..3) {
            let at = atom(&mut rng, nparams);
            if rng.gen_bool(0.25) {
                d.push_str(&format!(" (not {at})"));
            } else {
                d.push_str(&format!(" {at}"));
            }
        }
        if nparams == 2 && rng.gen_bool(0.3) {
            d.push_str(" (not (= ?a0 ?a1))");
        }
        d.push_str(")\n  :effect (and");
        for _ in 0..rng.gen_range(1..4) {
            let at = atom(&mut rng, nparams);
            if rng.gen_bool(0.4) {
                d.push_str(&format!(" (not {at})"));
            } else {
                d.push_str(&format!(" {at}"));
            }
        }
        d.push_str("))\n");
    }
    d.push(')');
    let ground_atom = |rng: &mut ChaCha8Rng| atom(rng, 0);
    let mut init = String::from("(define (problem r) (:domain rnd)\n (:init");
    for _ in 0..rng.gen_range(0..5) {
        init.push_str(&format!(" {}", ground_atom(&mut rng)));
    }
    init.push_str(")\n");
    // Mostly, the goal is what a random walk reaches (solvable, often not
    // trivially); sometimes random literals (often unsolvable).
    let mut goal = String::from("(:goal (and");
    let walked = rng.gen_bool(0.8).then(|| random_walk_goal(&d, &init, &mut rng)).flatten();
    match walked {
        Some(g) => goal.push_str(&g),
        None => {
            for _ in 0..rng.gen_range(1..4) {
                let at = ground_atom(&mut rng);
                if rng.gen_bool(0.2) {
                    goal.push_str(&format!(" (not {at})"));
                } else {
                    goal.push_str(&format!(" {at}"));
                }
            }
        }
    }
    let p = format!("{init}{goal})))");
    (d, p)
}

/// Goal literals that hold after a random walk of a few steps from the initial state.
fn random_walk_goal(domain: &str, init: &str, rng: &mut ChaCha8Rng) -> Option<String> {
    let task = planner::load_task_from_text(domain, "d", &format!("{init}(:goal (and)))"), "p").ok()?;
    let succ = SuccessorGenerator::new(&task);
    let mut s = initial_state(&task);
    let start = s.clone();
    let mut next = s.clone();
    let mut ops = vec![];
    for _ in 0..rng.gen_range(3..12) {
        ops.clear();
        succ.applicable(&task, &s, &mut ops);
        if ops.is_empty() {
            break;
        }
        apply(&task, &s, ops[rng.gen_range(0..ops.len())], &mut next);
        std::mem::swap(&mut s, &mut next);
    }
    let changed: Vec<u32> = (0..task.num_facts() as u32)
        .filter(|&f| planner::state::has(&s, f) != planner::state::has(&start, f))
        .collect();
    if changed.is_empty() {
        return None;
    }
    let mut goal = String::new();
    for _ in 0..rng.gen_range(1..6) {
        let f = changed[rng.gen_range(0..changed.len())];
        if planner::state::has(&s, f) {
            goal.push_str(&format!(" {}", task.fact_name(f)));
        } else {
            goal.push_str(&format!(" (not {})", task.fact_name(f)));
        }
    }
    Some(goal)
}

/// Exact goal distances of all reachable states, by breadth-first search
/// forward and then backward over the explicit state graph.
fn exact_distances(task: &planner::Task) -> Option<(StateRegistry, Vec<Option<u32>>)> {
    let succ = SuccessorGenerator::new(task);
    let init = initial_state(task);
    let mut reg = StateRegistry::new(init.len());
    reg.insert(&init);
    let mut preds: Vec<Vec<u32>> = vec![vec![]];
    let mut queue = VecDeque::from([0u32]);
    let mut ops = vec![];
    let mut child = vec![0; init.len()];
    while let Some(id) = queue.pop_front() {
        let s = reg.get(id).to_vec();
        ops.clear();
        succ.applicable(task, &s, &mut ops);
        for &o in &ops {
            apply(task, &s, o, &mut child);
            let (cid, new) = reg.insert(&child);
            if new {
                preds.push(vec![]);
                queue.push_back(cid);
                if reg.len() > 5000 {
                    return None;
                }
            }
            preds[cid as usize].push(id);
        }
    }
    let mut dist = vec![None; reg.len()];
    let mut queue = VecDeque::new();
    for id in 0..reg.len() as u32 {
        if is_goal(task, reg.get(id)) {
            dist[id as usize] = Some(0);
            queue.push_back(id);
        }
    }
    while let Some(id) = queue.pop_front() {
        let d = dist[id as usize].unwrap();
        for &p in &preds[id as usize] {
            if dist[p as usize].is_none() {
                dist[p as usize] = Some(d + 1);
                queue.push_back(p);
            }
        }
    }
    Some((reg, dist))
}

fn check_plan(domain: &str, problem: &str, task: &planner::Task, plan_ops: &[u32]) {
    let d = pddl::parse_domain(domain, "d").unwrap();
    let p = pddl::parse_problem(problem, "p", &d).unwrap();
    let text = plan::format_plan(task, plan_ops);
    let steps = plan::parse_plan(&text, "plan").unwrap();
    let cost = validate::validate(&d, &p, &steps).unwrap_or_else(|e| panic!("{e}\n{domain}\n{problem}\n{text}"));
    assert_eq!(cost, plan_ops.len() as u64);
}

/// Every registered heuristic on every reachable state: admissible ones
/// never above h*, none infinite on a state that reaches the goal, and only
/// those that detect dead ends ever infinite.
fn check_registered_heuristics(task: &planner::Task, reg: &StateRegistry, dist: &[Option<u32>]) -> Result<(), String> {
    for info in planner::heuristics::ALL {
        let mut h = (info.build)(task);
        for id in 0..reg.len() as u32 {
            let v = h.evaluate(reg.get(id));
            let name = info.name;
            match dist[id as usize] {
                Some(d) if info.admissible && v > d as f64 => return Err(format!("{name} {v} > h* {d}")),
                Some(d) if v.is_infinite() => return Err(format!("{name} says dead end, h* = {d}")),
                _ if v.is_infinite() && !info.detects_dead_ends => {
                    return Err(format!("{name} says dead end, but it does not detect them"))
                }
                _ => {}
            }
        }
    }
    Ok(())
}

/// What one random task exercised.
#[derive(Default)]
struct Exercised {
    /// Tasks whose state space was small enough to know h* everywhere.
    explored: usize,
    /// Of those, tasks with a plan: A*'s cost checked against h*, its plan validated.
    solvable: usize,
    /// States on which the heuristics were checked against h*.
    states: usize,
}

/// hmax <= LM-cut <= h*, every registered heuristic admissible where it
/// says so, A* optimal and GBFS complete, on one random task; nothing when
/// its state space is too large to explore (more than 5,000 states).
fn check_random_task(seed: u64, seen: &mut Exercised) -> Result<(), TestCaseError> {
    let (domain, problem) = random_pddl(seed);
    let task = planner::load_task_from_text(&domain, "d", &problem, "p").unwrap();
    let Some((reg, dist)) = exact_distances(&task) else { return Ok(()) };
    seen.explored += 1;
    seen.states += reg.len();
    let mut hmax = HMax::new(&task);
    let mut lmcut = LmCut::new(&task);
    let grounded_unsolvable = task.unsolvable.is_some();
    for id in 0..reg.len() as u32 {
        let s = reg.get(id);
        let (a, b) = (hmax.evaluate(s), lmcut.evaluate(s));
        prop_assert!(a <= b, "hmax {a} > lmcut {b}\n{domain}\n{problem}");
        match dist[id as usize] {
            Some(h) if !grounded_unsolvable => prop_assert!(b <= h as f64, "lmcut {b} > h* {h}\n{domain}\n{problem}"),
            _ => {}
        }
        if b.is_infinite() {
            prop_assert!(dist[id as usize].is_none() || grounded_unsolvable);
        }
    }
    if !grounded_unsolvable {
        check_registered_heuristics(&task, &reg, &dist)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{domain}\n{problem}")))?;
    }
    let mut h = LmCut::new(&task);
    let result = astar(&task, &mut h, Limits::default());
    match dist[0] {
        Some(d) if !grounded_unsolvable => {
            seen.solvable += 1;
            prop_assert_eq!(result.status, SearchStatus::Solved);
            prop_assert_eq!(result.cost, Some(d as u64));
            check_plan(&domain, &problem, &task, &result.plan);
        }
        _ => prop_assert_eq!(result.status, SearchStatus::Unsolvable),
    }
    let mut ff = planner::heuristics::Ff::new(&task);
    let g = gbfs(&task, &mut ff, Limits::default());
    if g.status == SearchStatus::Solved {
        check_plan(&domain, &problem, &task, &g.plan);
    } else {
        prop_assert!(dist[0].is_none() || grounded_unsolvable, "GBFS missed a solvable task");
    }
    Ok(())
}

/// [`check_random_task`] on 300 random tasks, and enough of them small
/// enough to check: a generator that drifted to large tasks would
/// otherwise pass by checking nothing.
/// Minimum counts of what the 300 cases exercise. Measured when written:
/// all 302 (with the two regressions) explored, 500-570 states, 76-108 with
/// a plan (about 30%: at 40 a seed would be 6 standard deviations off).
const EXPLORED_AT_LEAST: usize = 250;
const SOLVABLE_AT_LEAST: usize = 40;
const STATES_AT_LEAST: usize = 300;

#[test]
fn admissible_heuristics_are_ordered_and_astar_is_optimal() {
    const CASES: u32 = 300;
    let mut config = seeded::config(CASES);
    config.source_file = Some(file!());
    config.test_name = Some(concat!(module_path!(), "::admissible_heuristics_are_ordered_and_astar_is_optimal"));
    let mut runner = TestRunner::new(config);
    let seen = std::cell::RefCell::new(Exercised::default());
    let outcome = runner.run(&any::<u64>(), |seed| check_random_task(seed, &mut seen.borrow_mut()));
    if let Err(e) = outcome {
        panic!("{e}\n{runner}");
    }
    let seen = seen.into_inner();
    eprintln!(
        "random tasks: {} of {CASES} explored ({} states), {} with a plan",
        seen.explored, seen.states, seen.solvable
    );
    // Counts include the regressions file's cases, run first.
    assert!(seen.explored >= EXPLORED_AT_LEAST, "only {} of {CASES} tasks were small enough to check", seen.explored);
    assert!(seen.solvable >= SOLVABLE_AT_LEAST, "only {} checked tasks had a plan", seen.solvable);
    assert!(seen.states >= STATES_AT_LEAST, "only {} states checked against h*", seen.states);
}

/// Tasks whose goal the grounder declares relaxed-unreachable must really be unsolvable.
#[test]
fn grounder_unsolvable_verdicts_are_sound() {
    let mut verdicts = 0;
    for seed in 0..2000u64 {
        let (domain, problem) = random_pddl(seed);
        let task = planner::load_task_from_text(&domain, "d", &problem, "p").unwrap();
        if task.unsolvable.is_none() {
            continue;
        }
        verdicts += 1;
        // Ground the same domain with a trivially true goal: the original goal
        // must not hold in any state reachable there.
        let goal_start = problem.find("(:goal").unwrap();
        let open = format!("{}(:goal (and)))", &problem[..goal_start]);
        let d = pddl::parse_domain(&domain, "d").unwrap();
        let p = pddl::parse_problem(&problem, "p", &d).unwrap();
        // Keep every fact: with an empty goal, relevance pruning would drop them all.
        let open_problem = pddl::parse_problem(&open, "p", &d).unwrap();
        let keep_all = planner::ground::GroundOptions { prune_irrelevant: false };
        let relaxed_task = planner::ground::ground_with(&d, &open_problem, keep_all).unwrap();
        if let Some((reg, _)) = exact_distances(&relaxed_task) {
            for id in 0..reg.len() as u32 {
                let holds = p.goal.iter().all(|l| {
                    let name = format!(
                        "({}{})",
                        l.atom.predicate,
                        l.atom.args.iter().map(|t| format!(" {}", t.name())).collect::<String>()
                    );
                    let fact = (0..relaxed_task.num_facts() as u32).find(|&f| relaxed_task.fact_name(f) == name);
                    let truth = match fact {
                        Some(f) => planner::state::has(reg.get(id), f),
                        None => relaxed_task.static_atoms.iter().any(|a| relaxed_task.atom_name(a) == name),
                    };
                    truth == l.positive
                });
                assert!(!holds, "grounder said unsolvable but the goal is reachable\n{domain}\n{problem}");
            }
        }
    }
    assert!(verdicts > 10, "too few unsolvable verdicts to test ({verdicts})");
}

/// The same orderings on small instances of the shipped domains, whose
/// structure (mutexes, symmetries) random tasks rarely have.
#[test]
fn heuristics_are_admissible_on_small_generated_instances() {
    use planner::generate::{domain_pddl, generate, Params};
    let params = [
        Params::Blocksworld { blocks: 4 },
        Params::Ferry { locations: 3, cars: 2 },
        Params::Gripper { balls: 3 },
        Params::Visitall { size: 3, ratio: 1.0, height: None },
    ];
    let mut states_checked = 0;
    for p in params {
        for seed in 0..4 {
            let problem = generate(&p, seed).unwrap();
            let domain = domain_pddl(p.domain()).unwrap();
            let task = planner::load_task_from_text(domain, "d", &problem, "p").unwrap();
            let (reg, dist) = exact_distances(&task).expect("small instance");
            let mut hmax = HMax::new(&task);
            let mut lmcut = LmCut::new(&task);
            for id in 0..reg.len() as u32 {
                let s = reg.get(id);
                let (a, b) = (hmax.evaluate(s), lmcut.evaluate(s));
                let h = dist[id as usize].map_or(f64::INFINITY, |d| d as f64);
                assert!(a <= b && b <= h, "{p:?} seed {seed}: hmax {a}, lmcut {b}, h* {h}");
                states_checked += 1;
            }
            check_registered_heuristics(&task, &reg, &dist).unwrap_or_else(|e| panic!("{p:?} seed {seed}: {e}"));
            let mut h = LmCut::new(&task);
            let r = astar(&task, &mut h, Limits::default());
            assert_eq!(r.cost, dist[0].map(|d| d as u64), "{p:?} seed {seed}");
        }
    }
    assert!(states_checked > 1000);
}
