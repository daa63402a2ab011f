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

/// Test runs without limits: every one solved, none cheaper than optimal.
fn assert_solved_no_cheaper_than_optimal(runs: &[&serde_json::Value]) {
    assert!(!runs.is_empty());
    for r in runs {
        assert_eq!(r["status"], "solved", "{r}");
        let (cost, optimal) = (r["cost"].as_u64(), r["optimal"].as_u64());
        assert!(cost.is_some() && optimal.is_some() && cost >= optimal, "{r}");
    }
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
        (vec!["puzzle", "solve", "8-puzzle", "1 2 3"], "expected 9 numbers, got 3"),
        (vec!["puzzle", "solve", "9-puzzle", "0 1 2 3 4 5 6 7 8"], "N-puzzle needs N + 1 to be a square"),
        (
            vec!["puzzle", "solve", "8-puzzle", "0 1 2 3 4 5 6 7 8", "--heuristic", "nonsense"],
            "unknown heuristic \"nonsense\"",
        ),
        (vec!["puzzle", "bench", "--set", "korf-felner24:51-60"], "no instance"),
        (vec!["puzzle", "bench", "--set", "felner"], "korf-felner24 (24-puzzle)"),
        (vec!["puzzle", "bench", "--ids", "101"], "numbered 1 to 100"),
    ] {
        let out = hfarm(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.starts_with("error:") && err.contains(why), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// A benchmark set solved and checked against its published optima: the
/// exit code says whether every cost was optimal.
#[test]
fn bench_checks_a_set_against_its_published_costs() {
    let out = hfarm(&["puzzle", "bench", "--set", "korf100", "--ids", "12,55", "--heuristic", "manhattan", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3, "two instances and the totals: {lines:?}");
    // Korf's published optima.
    assert_eq!((lines[0]["instance"].as_u64(), lines[0]["cost"].as_u64()), (Some(12), Some(45)));
    assert_eq!((lines[1]["instance"].as_u64(), lines[1]["cost"].as_u64()), (Some(55), Some(41)));
    assert_eq!(lines[2]["not_optimal"].as_array().map(Vec::len), Some(0), "{}", lines[2]);
}

#[test]
fn learning_resumes_from_its_checkpoint_and_tests_report_every_alpha() {
    // A folder of its own: the other tests remove theirs when they end.
    let dir = std::env::temp_dir().join(format!("hfarm-learn-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdbs = dir.to_str().unwrap().to_string();
    let checkpoint = dir.join("run.json");
    let cp = checkpoint.to_str().unwrap();
    let learn = |iterations: &str| {
        let args = ["puzzle", "learn", "8-puzzle", "--checkpoint", cp, "--tiny", "--max-generated", "20000"];
        let out = hfarm(&[&args[..], &["--iterations", iterations, "--json"]].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        out
    };
    let first = learn("2");
    let reports: Vec<serde_json::Value> =
        String::from_utf8(first.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(reports.iter().map(|r| r["iteration"].as_u64().unwrap()).collect::<Vec<_>>(), [1, 2]);
    // A second call goes on from iteration 2, not from the start.
    let more = learn("3");
    assert!(String::from_utf8_lossy(&more.stderr).contains("resuming after iteration 2"));
    let lines: Vec<serde_json::Value> =
        String::from_utf8(more.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["iteration"].as_u64(), Some(3));

    let args =
        ["puzzle", "test", "8-puzzle", "--checkpoint", cp, "--walks", "3", "--walk-length", "30", "--pdb-dir", &pdbs];
    let out = hfarm(&[&args[..], &["--alphas", "0.9,0.5", "--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    // 3 tasks x 2 alphas, then one table row per alpha; no plan is cheaper than optimal.
    let runs: Vec<&serde_json::Value> = rows.iter().filter(|r| r.get("task").is_some()).collect();
    assert_eq!(runs.len(), 6);
    // No limits: every task is solved (the check below runs on all six).
    assert_solved_no_cheaper_than_optimal(&runs);
    let table: Vec<&serde_json::Value> = rows.iter().filter(|r| r.get("optimal_pct").is_some()).collect();
    assert_eq!(table.len(), 2);
    assert!(table.iter().all(|r| r["tasks"] == 3 && r["solved"] == 3), "{table:?}");

    // A checkpoint of another puzzle, and an alpha that is no probability, are refused.
    let out = hfarm(&["puzzle", "test", "15-puzzle", "--checkpoint", cp, "--set", "korf100:1-2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a checkpoint of 8-puzzle"));
    let out = hfarm(&["puzzle", "test", "8-puzzle", "--checkpoint", cp, "--walks", "1", "--alphas", "1.5"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--alphas: 1.5 is not a probability strictly between 0 and 1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// PDB inputs (the paper's representation beyond the 15-puzzle): learned
/// and tested on the pattern set's values; the checkpoint remembers them,
/// and resuming it with other inputs is refused.
#[test]
fn learning_with_pdb_inputs_tests_on_the_same_inputs() {
    let dir = std::env::temp_dir().join(format!("hfarm-learn-pdb-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pdbs = dir.to_str().unwrap().to_string();
    let checkpoint = dir.join("run.json");
    let cp = checkpoint.to_str().unwrap();
    let args = ["puzzle", "learn", "8-puzzle", "--checkpoint", cp, "--tiny", "--max-generated", "20000"];
    let pdb = ["--inputs", "pdb", "--patterns", "4-4", "--pdb-dir", &pdbs, "--iterations", "2"];
    let out = hfarm(&[&args[..], &pdb[..]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&checkpoint).unwrap()).unwrap();
    assert_eq!(saved["pdb_inputs"], "4-4");
    // Resuming with one-hot inputs is refused, with the reason.
    let out = hfarm(&[&args[..], &["--iterations", "3", "--pdb-dir", &pdbs]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("a run with PDB inputs (4-4), not one-hot inputs"));
    let test = ["puzzle", "test", "8-puzzle", "--checkpoint", cp, "--walks", "2", "--walk-length", "30"];
    let out = hfarm(&[&test[..], &["--pdb-dir", &pdbs, "--alphas", "0.5", "--json"]].concat());
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rows: Vec<serde_json::Value> =
        String::from_utf8(out.stdout).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let runs: Vec<&serde_json::Value> = rows.iter().filter(|r| r.get("task").is_some()).collect();
    assert_eq!(runs.len(), 2);
    assert_solved_no_cheaper_than_optimal(&runs);
    // A pattern set the domain lacks, and one-hot inputs on pancakes, are refused.
    let out = hfarm(&[&args[..], &["--inputs", "pdb", "--patterns", "nope"]].concat());
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no pattern set `nope`"));
    let other = dir.join("pancake.json");
    let out = hfarm(&["puzzle", "learn", "8-pancake", "--checkpoint", other.to_str().unwrap(), "--tiny"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("one-hot inputs need a sliding-tile puzzle"));
    let _ = std::fs::remove_dir_all(&dir);
}
