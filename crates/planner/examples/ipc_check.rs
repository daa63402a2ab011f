//! Reads, grounds and optionally solves PDDL tasks, one JSON line per task:
//! the driver of `tools/reference/ipc_sweep.py`, which compares the results
//! with Fast Downward's.
//!
//! ```text
//! cargo run --release -p planner --example ipc_check -- [--parse-only | --search] [--time-limit S] [--memory-limit MIB] < pairs
//! ```
//!
//! Each input line is `DOMAIN<TAB>PROBLEM`. Each output line is a JSON object
//! with `domain`, `problem` and `stage` (`read`, `parse_domain`,
//! `parse_problem`, `ground`, `search` or `done`: where it stopped), plus
//! `error` when a stage failed, the grounded sizes (`facts`, `operators`),
//! and with `--search` the A* + LM-cut `status`, `cost`, `expansions`,
//! `search_s` and `plan_valid` (the plan replayed by the lifted validator).

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Instant;

use planner::heuristics::LmCut;
use planner::search::{astar, Limits, SearchStatus};
use serde_json::{json, Map, Value};

struct Options {
    ground: bool,
    search: bool,
    time_limit: Option<f64>,
    memory_mib: Option<u64>,
}

fn check(domain: &Path, problem: &Path, opts: &Options, out: &mut Map<String, Value>) {
    let stage = |s: &str, out: &mut Map<String, Value>| {
        out.insert("stage".into(), json!(s));
    };
    stage("read", out);
    let (dt, pt) = match (planner::read_text(domain), planner::read_text(problem)) {
        (Ok(d), Ok(p)) => (d, p),
        (Err(e), _) | (_, Err(e)) => {
            out.insert("error".into(), json!(e.to_string()));
            return;
        }
    };
    let dname = domain.display().to_string();
    let pname = problem.display().to_string();
    stage("parse_domain", out);
    let d = match planner::pddl::parse_domain(&dt, &dname) {
        Ok(d) => d,
        Err(e) => {
            out.insert("error".into(), json!(e.to_string()));
            return;
        }
    };
    stage("parse_problem", out);
    let p = match planner::pddl::parse_problem(&pt, &pname, &d) {
        Ok(p) => p,
        Err(e) => {
            out.insert("error".into(), json!(e.to_string()));
            return;
        }
    };
    if !opts.ground {
        stage("done", out);
        return;
    }
    stage("ground", out);
    let start = Instant::now();
    let task = match planner::ground(&d, &p) {
        Ok(t) => t,
        Err(e) => {
            out.insert("error".into(), json!(e.to_string()));
            return;
        }
    };
    out.insert("ground_s".into(), json!(start.elapsed().as_secs_f64()));
    out.insert("facts".into(), json!(task.num_facts()));
    out.insert("operators".into(), json!(task.operators.len()));
    out.insert("relaxed_unsolvable".into(), json!(task.unsolvable));
    if !opts.search {
        stage("done", out);
        return;
    }
    stage("search", out);
    let mut h = LmCut::new(&task);
    let limits = Limits::new(None, opts.time_limit, opts.memory_mib);
    let r = astar(&task, &mut h, limits);
    out.insert("status".into(), json!(r.status.as_str()));
    out.insert("cost".into(), json!(r.cost));
    out.insert("expansions".into(), json!(r.expansions));
    out.insert("search_s".into(), json!(r.search_time.as_secs_f64()));
    if r.status == SearchStatus::Solved {
        let text = planner::plan::format_plan(&task, &r.plan);
        let valid = planner::plan::parse_plan(&text, "plan")
            .map_err(|e| e.to_string())
            .and_then(|steps| planner::validate::validate(&d, &p, &steps).map_err(|e| e.to_string()));
        out.insert("plan_valid".into(), json!(valid.as_ref().ok() == r.cost.as_ref()));
        if let Err(e) = valid {
            out.insert("plan_error".into(), json!(e));
        }
    }
    stage("done", out);
}

fn main() -> std::process::ExitCode {
    match run() {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("ipc_check: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

const USAGE: &str = "usage: ipc_check [--parse-only | --search] [--time-limit S] [--memory-limit MIB]";

fn run() -> Result<(), String> {
    let mut opts = Options { ground: true, search: false, time_limit: None, memory_mib: None };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| -> Result<f64, String> {
            args.next().and_then(|v| v.parse().ok()).ok_or_else(|| format!("{name} needs a number; {USAGE}"))
        };
        match a.as_str() {
            "--search" => opts.search = true,
            "--parse-only" => opts.ground = false,
            "--time-limit" => opts.time_limit = Some(value("--time-limit")?),
            "--memory-limit" => opts.memory_mib = Some(value("--memory-limit")? as u64),
            other => return Err(format!("unknown argument {other}; {USAGE}")),
        }
    }
    let stdin = std::io::stdin();
    let mut stdout = std::io::stdout().lock();
    for line in stdin.lock().lines() {
        let line = line.map_err(|e| format!("reading stdin: {e}"))?;
        let Some((domain, problem)) = line.split_once('\t') else { continue };
        let mut out = Map::new();
        out.insert("domain".into(), json!(domain));
        out.insert("problem".into(), json!(problem));
        // A panic on one task is a finding to report, not the end of the sweep.
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check(Path::new(domain), Path::new(problem), &opts, &mut out);
        }));
        if let Err(e) = result {
            let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            out.insert("panic".into(), json!(msg.unwrap_or_default()));
        }
        writeln!(stdout, "{}", Value::Object(out))
            .and_then(|_| stdout.flush())
            .map_err(|e| format!("writing stdout: {e}"))?;
    }
    Ok(())
}
