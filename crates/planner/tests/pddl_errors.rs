//! PDDL as competition files write it, and PDDL that is not PDDL: what Fast
//! Downward reads we read the same way, and invalid input is refused with
//! `file:line:column` and what was expected (never `0:0`).
//!
//! Each refusal is checked with its exact message and position.

use planner::pddl::{parse_domain, parse_problem, Term};

/// The domain: `locatable` is a supertype declared nowhere else.
const DELIVERY: &str = "\
(define (domain delivery)
  (:requirements :strips :typing)
  (:types truck package - locatable location)
  (:predicates (at ?x - locatable ?l - location) (in ?p - package ?t - truck))
  (:action drive :parameters (?t - truck ?from ?to - location)
    :precondition (at ?t ?from) :effect (and (not (at ?t ?from)) (at ?t ?to)))
  (:action load :parameters (?p - package ?t - truck ?l - location)
    :precondition (and (at ?p ?l) (at ?t ?l)) :effect (and (not (at ?p ?l)) (in ?p ?t)))
  (:action unload :parameters (?p - package ?t - truck ?l - location)
    :precondition (and (in ?p ?t) (at ?t ?l)) :effect (and (not (in ?p ?t)) (at ?p ?l))))
";

const DELIVERY_PROBLEM: &str = "\
(define (problem deliver-1)
  (:domain delivery)
  (:objects t1 - truck p1 p2 - package a b c - location)
  (:init (at t1 a) (at p1 a) (at p2 b))
  (:goal (and (at p1 c) (at p2 a))))
";

fn domain_error(text: &str) -> String {
    parse_domain(text, "domain.pddl").expect_err("the domain should be refused").to_string()
}

fn problem_error(problem: &str) -> String {
    let d = parse_domain(DELIVERY, "domain.pddl").unwrap();
    parse_problem(problem, "problem.pddl", &d).expect_err("the problem should be refused").to_string()
}

// ---------------------------------------------------------------- accepted

#[test]
fn a_variable_glued_to_a_predicate_name_is_a_separate_name() {
    // Zenotravel (IPC 2002) writes `(aircraft?a)`; Fast Downward reads `(aircraft ?a)`.
    let d = parse_domain(
        "(define (domain z) (:predicates (aircraft ?a) (at ?x ?y))
           (:action refuel :parameters (?a ?c) :precondition (and (aircraft?a) (at?a?c)) :effect (not (at ?a ?c))))",
        "domain.pddl",
    )
    .unwrap();
    let pre = &d.actions[0].precondition;
    assert_eq!(pre[0].atom.predicate, "aircraft");
    assert_eq!(pre[0].atom.args, vec![Term::Var("?a".into())]);
    assert_eq!(pre[1].atom.predicate, "at");
    assert_eq!(pre[1].atom.args, vec![Term::Var("?a".into()), Term::Var("?c".into())]);
}

#[test]
fn an_undeclared_supertype_is_a_type_under_object() {
    let d = parse_domain(DELIVERY, "domain.pddl").unwrap();
    assert_eq!(
        d.types,
        vec![
            ("truck".to_string(), "locatable".to_string()),
            ("package".to_string(), "locatable".to_string()),
            ("location".to_string(), "object".to_string()),
            ("locatable".to_string(), "object".to_string()),
        ]
    );
    // Trucks and packages are `locatable`, so `at` takes both. Fast Downward: cost 7.
    let task = planner::load_task_from_text(DELIVERY, "domain.pddl", DELIVERY_PROBLEM, "problem.pddl").unwrap();
    let mut h = planner::heuristics::LmCut::new(&task);
    let r = planner::search::astar(&task, &mut h, planner::search::Limits::default());
    assert_eq!(r.cost, Some(7));
}

#[test]
fn a_type_repeated_with_object_then_a_real_supertype_takes_the_real_one() {
    // Storage (IPC 2006): `area - object` and later `area - surface`.
    let d = parse_domain(
        "(define (domain s) (:requirements :typing)
           (:types hoist surface place area - object container depot - place area crate - surface)
           (:predicates (on ?c - crate ?s - surface)))",
        "domain.pddl",
    )
    .unwrap();
    assert!(d.types.contains(&("area".to_string(), "surface".to_string())));
    assert!(!d.types.contains(&("area".to_string(), "object".to_string())));
}

#[test]
fn negative_initial_facts_restate_the_closed_world() {
    let problem = DELIVERY_PROBLEM.replace("(at p2 b))", "(at p2 b) (not (at p2 c)))");
    let d = parse_domain(DELIVERY, "domain.pddl").unwrap();
    let p = parse_problem(&problem, "problem.pddl", &d).unwrap();
    assert_eq!(p.init.len(), 3);
}

#[test]
fn a_constant_may_be_listed_again_as_an_object_of_the_same_type() {
    let domain = DELIVERY.replace("(:predicates", "(:constants depot - location)\n  (:predicates");
    let problem = DELIVERY_PROBLEM.replace("a b c - location", "a b c depot - location");
    let d = parse_domain(&domain, "domain.pddl").unwrap();
    parse_problem(&problem, "problem.pddl", &d).unwrap();
}

// ---------------------------------------------------------------- refused: the problem

#[test]
fn a_problem_without_its_domain_is_refused() {
    let problem = DELIVERY_PROBLEM.replace("  (:domain delivery)\n", "");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:2:3: the problem does not say which domain it is for: \
         expected `(:domain delivery)` after `(problem deliver-1)`"
    );
}

#[test]
fn a_problem_for_another_domain_is_refused() {
    let problem = DELIVERY_PROBLEM.replace("(:domain delivery)", "(:domain logistics)");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:2:12: the problem is for domain `logistics`, but the domain file defines `delivery`: \
         expected `(:domain delivery)`"
    );
}

#[test]
fn an_initial_atom_with_an_object_of_the_wrong_type_is_refused() {
    // `(at a b)`: `a` is a location, `at` wants a locatable first.
    let problem = DELIVERY_PROBLEM.replace("(at p1 a)", "(at a b)");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:4:24: argument 1 of `at` must be of type `locatable`, found `a` of type `location` \
         in the initial state"
    );
    let problem = DELIVERY_PROBLEM.replace("(at t1 a)", "(in p1 p2)");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:4:17: argument 2 of `in` must be of type `truck`, found `p2` of type `package` \
         in the initial state"
    );
}

#[test]
fn a_goal_atom_with_an_object_of_the_wrong_type_is_refused() {
    let problem = DELIVERY_PROBLEM.replace("(at p2 a)", "(at p2 t1)");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:5:32: argument 2 of `at` must be of type `location`, found `t1` of type `truck` in the goal"
    );
}

#[test]
fn an_object_of_an_undeclared_type_is_refused() {
    let problem = DELIVERY_PROBLEM.replace("t1 - truck", "t1 - lorry");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:3:13: unknown type `lorry` for object `t1`: expected a type declared in the domain's `:types`"
    );
}

#[test]
fn a_constant_redeclared_with_another_type_is_refused() {
    let domain = DELIVERY.replace("(:predicates", "(:constants depot - location)\n  (:predicates");
    let problem = DELIVERY_PROBLEM.replace("p1 p2 - package", "p1 p2 depot - package");
    let d = parse_domain(&domain, "domain.pddl").unwrap();
    assert_eq!(
        parse_problem(&problem, "problem.pddl", &d).unwrap_err().to_string(),
        "problem.pddl:3:30: object `depot` is a constant of type `location` in the domain: \
         expected the same type, found `package`"
    );
}

#[test]
fn an_initial_fact_both_true_and_false_is_refused() {
    let problem = DELIVERY_PROBLEM.replace("(at p2 b))", "(at p2 b) (not (at p1 a)))");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:4:45: `(at p1 a)` is listed both as true and as false in the initial state"
    );
}

#[test]
fn an_unknown_object_is_pointed_at() {
    let problem = DELIVERY_PROBLEM.replace("(at p2 a)", "(at p3 a)");
    assert_eq!(problem_error(&problem), "problem.pddl:5:29: unknown object or constant `p3` in the goal");
}

#[test]
fn text_before_the_definition_is_refused() {
    // IPC 1998's mystery files start with `(in-package "PDDL")`.
    assert_eq!(
        domain_error(&format!("(in-package \"PDDL\")\n\n{DELIVERY}")),
        "domain.pddl:1:1: expected `(define ...)`, found a list starting with `in-package`"
    );
}

// ---------------------------------------------------------------- refused: the domain (once at 0:0)

#[test]
fn a_requirement_without_a_colon_is_pointed_at() {
    let domain = DELIVERY.replace(":strips :typing", ":strips typing");
    assert_eq!(domain_error(&domain), "domain.pddl:2:26: expected a requirement such as `:strips`, found `typing`");
}

#[test]
fn a_type_cycle_is_pointed_at() {
    let domain = DELIVERY.replace("(:types truck package - locatable location)", "(:types a - b b - a)");
    assert_eq!(
        domain_error(&domain),
        "domain.pddl:3:11: the type hierarchy has a cycle through `a`: expected every type to descend from `object`"
    );
}

#[test]
fn a_type_with_two_supertypes_is_refused() {
    let domain =
        DELIVERY.replace("(:types truck package - locatable location)", "(:types truck - vehicle truck - locatable)");
    assert_eq!(
        domain_error(&domain),
        "domain.pddl:3:35: type `truck` already has the supertype `vehicle` (at 3:19): \
         expected one supertype per type, found `locatable`"
    );
}

#[test]
fn a_parameter_of_an_undeclared_type_is_refused() {
    let domain = DELIVERY.replace("(?t - truck ?from", "(?t - lorry ?from");
    assert_eq!(
        domain_error(&domain),
        "domain.pddl:5:31: unknown type `lorry` for `?t`: expected a type declared in `:types`"
    );
}

#[test]
fn either_as_a_supertype_is_refused_by_name() {
    let domain = DELIVERY.replace("- locatable location)", "- (either locatable location))");
    assert_eq!(domain_error(&domain), "domain.pddl:3:27: unsupported construct: `either` as a supertype in `:types`");
}

#[test]
fn a_problem_without_an_initial_state_is_refused() {
    let problem = DELIVERY_PROBLEM.replace("(:init (at t1 a) (at p1 a) (at p2 b))", "");
    assert_eq!(
        problem_error(&problem),
        "problem.pddl:1:1: the problem has no `(:init ...)` section: expected the initial state, even if empty"
    );
}
