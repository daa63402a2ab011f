//! Real competition files (`tests/ipc/`, sources in its README): each is
//! read, grounded and solved by A* with LM-cut at Fast Downward's optimal
//! cost (`tests/ipc/fd.json`), and the plan replays on the lifted PDDL.
//! Damaged copies of them are refused with a real position, never `0:0`.

mod seeded;

use std::path::{Path, PathBuf};

use planner::heuristics::LmCut;
use planner::pddl::{parse_domain, parse_problem, Term};
use planner::search::{astar, Limits, SearchStatus};
use proptest::prelude::*;
use serde_json::Value;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ipc")
}

fn read(rel: &str) -> String {
    std::fs::read_to_string(dir().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// `(domain file, problem file, Fast Downward's optimal cost)`.
fn cases() -> Vec<(String, String, u64)> {
    let manifest: Value = serde_json::from_str(&read("fd.json")).expect("fd.json");
    manifest
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["domain"].as_str().unwrap().to_string(),
                c["problem"].as_str().unwrap().to_string(),
                c["fd_optimal_cost"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn ipc_problems_are_solved_at_fast_downwards_optimal_cost() {
    let cases = cases();
    assert!(cases.len() >= 25, "only {} cases", cases.len());
    let mut domains = std::collections::BTreeSet::new();
    for (domain_file, problem_file, fd_cost) in &cases {
        let d = parse_domain(&read(domain_file), domain_file).unwrap_or_else(|e| panic!("{e}"));
        let p = parse_problem(&read(problem_file), problem_file, &d).unwrap_or_else(|e| panic!("{e}"));
        let task = planner::ground(&d, &p).unwrap_or_else(|e| panic!("{problem_file}: {e}"));
        let mut h = LmCut::new(&task);
        let r = astar(&task, &mut h, Limits::new(None, Some(120.0), Some(2048)));
        assert_eq!(r.status, SearchStatus::Solved, "{problem_file}");
        assert_eq!(r.cost, Some(*fd_cost), "{problem_file}: optimal cost differs from Fast Downward's");
        let steps = planner::plan::parse_plan(&planner::plan::format_plan(&task, &r.plan), "plan").unwrap();
        assert_eq!(planner::validate::validate(&d, &p, &steps), Ok(*fd_cost), "{problem_file}: plan invalid");
        domains.insert(domain_file.split('/').next().unwrap().to_string());
    }
    assert!(domains.len() >= 20, "{domains:?}");
}

#[test]
fn zenotravel_reads_aircraft_glued_to_its_variable() {
    // `refuel` writes `(aircraft?a)` (IPC 2002); Fast Downward reads `(aircraft ?a)`.
    let d = parse_domain(&read("zenotravel/domain.pddl"), "domain.pddl").unwrap();
    let refuel = d.actions.iter().find(|a| a.name == "refuel").unwrap();
    let first = &refuel.precondition[0].atom;
    assert_eq!(first.predicate, "aircraft");
    assert_eq!(first.args, vec![Term::Var("?a".into())]);
}

#[test]
fn storage_reads_a_type_declared_under_object_and_then_under_surface() {
    // `hoist surface place area - object ... area crate - surface`: Fast Downward
    // gives `area` both supertypes; `object` adds nothing, so `area` is a surface.
    for file in ["storage/domain.pddl", "ipc2006-storage-propositional/domain.pddl"] {
        let d = parse_domain(&read(file), file).unwrap();
        let parent = |t: &str| d.types.iter().find(|(c, _)| c == t).map(|(_, p)| p.as_str());
        assert_eq!(parent("area"), Some("surface"), "{file}");
        assert_eq!(parent("storearea"), Some("area"), "{file}");
    }
}

#[test]
fn tetris_reads_its_undeclared_supertype_and_refuses_action_costs_by_name() {
    // `(:types one_square two_straight right_l - pieces position)`: `pieces` is
    // declared nowhere else. The types are read (no error before line 19); the
    // first thing refused is `:functions`, by name.
    let file = "ipc2014-tetris-sequential-optimal/domain.pddl";
    let err = parse_domain(&read(file), file).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("{file}:19:1: unsupported construct: numeric fluents / action costs (`:functions`)")
    );
}

/// Every case's domain text, problem text and problem name, read once.
fn fixture_texts() -> &'static [(String, String, String)] {
    static TEXTS: std::sync::OnceLock<Vec<(String, String, String)>> = std::sync::OnceLock::new();
    TEXTS.get_or_init(|| cases().into_iter().map(|(d, p, _)| (read(&d), read(&p), p)).collect())
}

fn damage(text: &str, edits: &[(usize, u8, u8)]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &(at, kind, byte) in edits {
        if bytes.is_empty() {
            break;
        }
        let i = at % bytes.len();
        const ALPHABET: &[u8] = b"()?-: ;\nab=";
        let b = ALPHABET[byte as usize % ALPHABET.len()];
        match kind % 3 {
            0 => {
                bytes.remove(i);
            }
            1 => bytes.insert(i, b),
            _ => bytes[i] = b,
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The error's position lies in the file: line and column from 1, the line
/// at most one past the last.
fn assert_located(e: &planner::pddl::ParseError, text: &str) {
    let lines = text.lines().count() as u32 + 1;
    assert!(e.pos.line >= 1 && e.pos.col >= 1 && e.pos.line <= lines, "{e}");
}

proptest! {
    #![proptest_config(seeded::config(300))]

    #[test]
    fn damaged_ipc_files_are_refused_with_a_position(
        which in 0usize..64,
        domain_side in any::<bool>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 1..4),
    ) {
        let texts = fixture_texts();
        let (domain, problem, name) = &texts[which % texts.len()];
        let (d, p) = if domain_side {
            (damage(domain, &edits), problem.clone())
        } else {
            (domain.clone(), damage(problem, &edits))
        };
        match parse_domain(&d, "domain.pddl") {
            Err(e) => assert_located(&e, &d),
            Ok(d_ast) => {
                if let Err(e) = parse_problem(&p, name, &d_ast) {
                    assert_located(&e, &p);
                }
            }
        }
    }
}
