//! `hfarm features` as a user meets it: the initial state's subgraph counts
//! as JSON, consistent across alpha, and bad input is exit code 2.

use std::process::{Command, Output};

const IPC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../planner/tests/ipc/blocks");

fn hfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).output().expect("run hfarm")
}

fn features(problem: &str, alpha: &str) -> serde_json::Map<String, serde_json::Value> {
    let (domain, problem) = (format!("{IPC}/domain.pddl"), format!("{IPC}/{problem}"));
    let out = hfarm(&["features", &domain, &problem, "--alpha", alpha, "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["alpha"].as_u64(), alpha.parse().ok());
    v["features"].as_object().unwrap().clone()
}

#[test]
fn counts_are_json_and_each_alpha_extends_the_smaller() {
    let problem = std::fs::read_dir(IPC)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .find(|n| n != "domain.pddl" && n.ends_with(".pddl"))
        .expect("an IPC blocks problem");
    let text = std::fs::read_to_string(format!("{IPC}/{problem}")).unwrap().to_lowercase();
    let objects = text.split("(:objects").nth(1).unwrap().split(')').next().unwrap().split_whitespace().count();
    let one = features(&problem, "1");
    // Label 0 is a constant: one single-vertex graph per object.
    assert_eq!(one["L0|"].as_u64(), Some(objects as u64), "{one:?}");
    assert!(one.keys().all(|k| k.ends_with('|')), "alpha 1 has only single vertices: {one:?}");
    let three = features(&problem, "3");
    // F_1 is the part of F_3 made of one-vertex graphs, count for count.
    for (k, v) in &one {
        assert_eq!(three.get(k), Some(v), "{k}");
    }
    assert!(
        three.keys().any(|k| k.split('|').next().unwrap().matches(',').count() == 2),
        "graphs of three vertices occur: {three:?}"
    );
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let domain = format!("{IPC}/domain.pddl");
    let out = hfarm(&["features", &domain, "/nonexistent.pddl", "--alpha", "2"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent.pddl"));
    let out = hfarm(&["features", &domain, &domain, "--alpha", "9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("alpha"));
}
