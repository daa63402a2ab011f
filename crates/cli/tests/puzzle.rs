//! `hfarm puzzle` as a user meets it: optimal solutions agree across
//! searches and heuristics, random walks replay, bad input is exit code 2
//! with a one-line reason.

use std::process::{Command, Output};

/// PDBs built by these tests go to a folder of their own, removed at the end.
fn pdb_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("hfarm-puzzle-test-{}", std::process::id()))
}

fn hfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("HFARM_PDB_DIR", pdb_dir()).output().expect("run hfarm")
}

fn solve(state: &str, heuristic: &str, search: &str) -> serde_json::Value {
    let out = hfarm(&["puzzle", "solve", "8-puzzle", state, "--heuristic", heuristic, "--search", search, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn walks_are_solved_at_the_same_optimal_cost_by_every_search_and_heuristic() {
    let out = hfarm(&["puzzle", "generate", "8-puzzle", "--walk", "40", "--seed", "7"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let state = text.lines().find(|l| !l.trim().is_empty() && !l.starts_with('#')).expect("a state").trim().to_string();
    let reference = solve(&state, "zero", "astar");
    let cost = reference["cost"].as_u64().expect("a cost");
    assert!(cost <= 40, "a 40-move walk is at most 40 moves from the goal: {cost}");
    for (h, s) in [("manhattan", "idastar"), ("manhattan", "astar"), ("pdb:4-4", "idastar")] {
        let r = solve(&state, h, s);
        assert_eq!(r["cost"].as_u64(), Some(cost), "{h} with {s}: {r}");
        assert_eq!(r["plan_length"].as_u64(), Some(cost));
    }
    let _ = std::fs::remove_dir_all(pdb_dir());
}

#[test]
fn bad_states_and_names_are_refused_with_a_reason() {
    for (args, why) in [
        (vec!["puzzle", "solve", "8-puzzle", "1 2 5 3 4 0 6 7 7"], "twice"),
        (vec!["puzzle", "solve", "8-puzzle", "1 2 3"], ""),
        (vec!["puzzle", "solve", "9-puzzle", "0 1 2 3 4 5 6 7 8"], ""),
        (vec!["puzzle", "solve", "8-puzzle", "0 1 2 3 4 5 6 7 8", "--heuristic", "nonsense"], ""),
    ] {
        let out = hfarm(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error:") && err.contains(why), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
