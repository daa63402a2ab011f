//! The command contract, through the real binary.

use std::path::PathBuf;
use std::process::{Command, Output};

fn hfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).output().expect("run hfarm")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

struct Dir(PathBuf);

impl Dir {
    fn new(name: &str) -> Dir {
        let d = std::env::temp_dir().join(format!("hfarm-cli-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        Dir(d)
    }
    fn write(&self, name: &str, text: &str) -> String {
        let p = self.0.join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn instance(dir: &Dir, domain: &str, gen_args: &[&str]) -> (String, String) {
    let d = stdout(&hfarm(&["domain", domain]));
    let mut args = vec!["generate", domain];
    args.extend_from_slice(gen_args);
    let g = hfarm(&args);
    assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
    (dir.write("domain.pddl", &d), dir.write("problem.pddl", &stdout(&g)))
}

#[test]
fn plan_json_has_the_contract_fields_and_the_plan_validates() {
    let dir = Dir::new("plan");
    let (d, p) = instance(&dir, "gripper", &["--seed", "3", "--balls", "4"]);
    let plan_file = dir.0.join("plan.txt").display().to_string();
    let o = hfarm(&["plan", &d, &p, "--search", "astar", "--heuristic", "lmcut", "--plan-file", &plan_file, "--json"]);
    assert!(o.status.success());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for key in ["status", "cost", "plan", "expansions", "evaluations", "generated", "search_time_s", "total_time_s"] {
        assert!(v.get(key).is_some(), "missing {key} in {v}");
    }
    assert_eq!(v["status"], "solved");
    let cost = v["cost"].as_u64().unwrap();
    assert_eq!(v["plan"].as_array().unwrap().len() as u64, cost);
    let val = hfarm(&["validate", &d, &p, &plan_file]);
    assert!(val.status.success());
    assert_eq!(stdout(&val).trim(), cost.to_string());
}

#[test]
fn gbfs_respects_max_evaluations() {
    let dir = Dir::new("gbfs");
    let (d, p) = instance(&dir, "blocksworld", &["--seed", "1", "--blocks", "25"]);
    let o = hfarm(&["plan", &d, &p, "--search", "gbfs", "--heuristic", "blind", "--max-evaluations", "100", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["status"], "evaluation_limit");
    assert_eq!(v["evaluations"], 100);
}

#[test]
fn invalid_plan_names_the_failing_step() {
    let dir = Dir::new("invalid");
    let (d, p) = instance(&dir, "blocksworld", &["--seed", "1", "--blocks", "3"]);
    let plan = dir.write("bad.plan", "; a comment\n(pick-up b1)\n(pick-up b2)\n");
    let o = hfarm(&["validate", &d, &p, &plan]);
    assert_eq!(o.status.code(), Some(1));
    let out = stdout(&o);
    assert!(out.contains("step"), "{out}");
    assert!(out.contains("is false"), "{out}");
}

#[test]
fn heuristics_json_has_every_heuristic() {
    let dir = Dir::new("heur");
    let (d, p) = instance(&dir, "visitall", &["--seed", "2", "--size", "3", "--ratio", "1.0"]);
    let o = hfarm(&["heuristics", &d, &p, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for key in ["blind", "goalcount", "hmax", "hadd", "ff", "lmcut", "ff-pyperplan", "lmcut-pyperplan"] {
        assert!(v[key].is_u64(), "{key} in {v}");
    }
    assert!(v["hmax"].as_u64() <= v["lmcut"].as_u64());
}

#[test]
fn generate_is_deterministic_and_checks_its_flags() {
    let a = hfarm(&["generate", "ferry", "--seed", "9", "--locations", "3", "--cars", "2"]);
    let b = hfarm(&["generate", "ferry", "--seed", "9", "--locations", "3", "--cars", "2"]);
    assert!(a.status.success());
    assert_eq!(a.stdout, b.stdout);
    let missing = hfarm(&["generate", "ferry", "--seed", "9", "--locations", "3"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--cars"));
    let wrong = hfarm(&["generate", "gripper", "--seed", "9", "--balls", "3", "--blocks", "2"]);
    assert_eq!(wrong.status.code(), Some(2));
}

#[test]
fn malformed_pddl_is_reported_with_its_position() {
    let dir = Dir::new("bad");
    let d = dir.write("domain.pddl", "(define (domain x)\n  (:predicates (p))\n  (:action a :parameters () :precondition (p) :effect (and (p) (q))))\n");
    let p = dir.write("problem.pddl", "(define (problem y) (:domain x) (:init) (:goal (p)))");
    let o = hfarm(&["plan", &d, &p, "--json"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("domain.pddl:3:"), "{err}");
    assert!(err.contains("undeclared predicate `q`"), "{err}");
}

/// `hfarm` hands the commands that run models to `hfarm-torch` beside it
/// (src/lib.rs): the same answer through either binary, and a clear error
/// where `hfarm-torch` is missing.
#[test]
fn model_commands_are_handed_to_hfarm_torch_and_its_absence_is_named() {
    let torch = PathBuf::from(env!("CARGO_BIN_EXE_hfarm-torch"));
    let via_torch = Command::new(&torch).args(["bench", "train-group", "--help"]).output().unwrap();
    assert!(via_torch.status.success());
    // A bad argument of a forwarded command is refused the same way by both.
    let lean = hfarm(&["bench", "train-group", "--model", "hgn", "--steps", "1"]);
    let full = Command::new(&torch).args(["bench", "train-group", "--model", "hgn", "--steps", "1"]).output().unwrap();
    assert_eq!(lean.status.code(), Some(2));
    assert_eq!(full.status.code(), Some(2));
    let why = String::from_utf8_lossy(&lean.stderr);
    assert!(why.contains("the HGN trains one run at a time"), "{why}");
    assert_eq!(lean.stderr, full.stderr);
    // The scale benchmark names the grid it cannot read, before touching any server.
    let scale = hfarm(&["bench", "scale", "--grid", "no/such/grid.toml"]);
    assert_eq!(scale.status.code(), Some(2));
    let why = String::from_utf8_lossy(&scale.stderr);
    assert!(why.contains("cannot read no/such/grid.toml"), "{why}");

    // hfarm alone in a folder (a hard link: current_exe() is the link's path).
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("lean-alone-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let alone = dir.join("hfarm");
    let _ = std::fs::remove_file(&alone);
    std::fs::hard_link(env!("CARGO_BIN_EXE_hfarm"), &alone).unwrap();
    let out = Command::new(&alone).args(["worker", "--concurrency", "1"]).output().unwrap();
    // What runs no model needs nothing beside it.
    let version = Command::new(&alone).arg("--version").output().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(version.status.success() && stdout(&version).starts_with("hfarm "), "{version:?}");
    assert_eq!(out.status.code(), Some(2));
    let why = String::from_utf8_lossy(&out.stderr);
    assert!(why.contains("needs") && why.contains("hfarm-torch"), "{why}");
}
