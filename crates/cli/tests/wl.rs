//! `hfarm wl` as a user meets it: train on a few official blocksworld
//! training problems, plan an easy test problem with the model (the plan is
//! validated on the lifted PDDL by the command), run the benchmark loop on
//! two test problems, and bad input is exit code 2 with the file named.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BENCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benchmarks/ipc2023-learning");

fn hfarm(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).output().expect("run hfarm")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hfarm-wl-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn trains_plans_and_runs_the_track() {
    let set = wl::benchmark::load(Path::new(BENCH), "blocksworld").unwrap();
    let dir = scratch("cli");
    let domain = dir.join("domain.pddl");
    std::fs::write(&domain, set.domain_pddl().unwrap()).unwrap();
    let mut problems = vec![];
    for p in set.training().into_iter().take(12) {
        let f = dir.join(p.path.replace('/', "_"));
        std::fs::write(&f, p.text).unwrap();
        problems.push(f.display().to_string());
    }
    let model = dir.join("model.json");
    let mut args = vec!["wl", "train", "--domain", domain.to_str().unwrap(), "--iterations", "2"];
    args.extend(["-o", model.to_str().unwrap(), "--problems"]);
    args.extend(problems.iter().map(String::as_str));
    let out = hfarm(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("12/12 problems solved optimally"), "{err}");
    let m = wl::Model::from_json(&std::fs::read_to_string(&model).unwrap(), "model.json").unwrap();
    assert_eq!((m.iterations(), m.domain.as_str()), (2, "blocksworld"));

    let test = set.testing("easy")[0];
    let problem = dir.join("test.pddl");
    std::fs::write(&problem, test.text).unwrap();
    let plan = dir.join("plan");
    let out = hfarm(&[
        "wl",
        "plan",
        "--model",
        model.to_str().unwrap(),
        domain.to_str().unwrap(),
        problem.to_str().unwrap(),
        "--time-limit",
        "20",
        "--plan-file",
        plan.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("solved cost"));
    let v = hfarm(&["validate", domain.to_str().unwrap(), problem.to_str().unwrap(), plan.to_str().unwrap()]);
    assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stdout));

    let out = hfarm(&[
        "wl",
        "run",
        "--benchmark",
        BENCH,
        "--domain",
        "blocksworld",
        "--max-train",
        "8",
        "--max-test",
        "2",
        "--time-limit",
        "10",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let row = text.lines().find(|l| l.starts_with("blocksworld")).expect("a result row");
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[..3], ["blocksworld", "easy", "2"], "{text}");
    let solved: usize = cols[3].parse().unwrap();
    assert!(solved <= 2, "{text}");

    // A model file that is not one, and a domain the track lacks: exit 2, named.
    std::fs::write(dir.join("bad.json"), "{}").unwrap();
    let out = hfarm(&["wl", "plan", "--model", dir.join("bad.json").to_str().unwrap(), "x", "y"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad.json"));
    let out = hfarm(&["wl", "run", "--benchmark", BENCH, "--domain", "nosuch"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nosuch.tar.gz"));
    std::fs::remove_dir_all(&dir).ok();
}
