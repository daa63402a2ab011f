//! A* with LM-cut over benchmark suites, ours only: the planner's side of
//! `hfarm bench astar-lmcut` without the command line's dependencies, for
//! profiling (`perf record`) and quick before/after timings.
//!
//! ```text
//! cargo run --release -p planner --example astar_lmcut_suite -- SUITE... [--only SUBSTRING]
//! ```
//!
//! A suite is a folder of `<domain>/domain.pddl` plus problem files (as the
//! bench reads it). One line per instance: cost, expansions, evaluations and
//! the search's CPU time; then the totals.

use std::path::{Path, PathBuf};

use planner::heuristics::LmCut;
use planner::search::{astar, thread_cpu_time, Limits};

fn instances(suite: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut out = vec![];
    let mut domains: Vec<PathBuf> = std::fs::read_dir(suite)
        .unwrap_or_else(|e| panic!("{}: {e}", suite.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    domains.sort();
    for d in domains {
        let domain_file = d.join("domain.pddl");
        if !domain_file.exists() {
            continue;
        }
        let mut problems: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pddl") && p.file_name().is_some_and(|n| n != "domain.pddl"))
            .collect();
        problems.sort();
        out.extend(problems.into_iter().map(|p| (domain_file.clone(), p)));
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut suites = vec![];
    let mut only: Option<String> = None;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--only" {
            only = args.get(i + 1).cloned();
            i += 2;
        } else {
            suites.push(PathBuf::from(&args[i]));
            i += 1;
        }
    }
    let (mut total_s, mut total_exp, mut total_eval) = (0.0, 0u64, 0u64);
    for suite in &suites {
        for (domain, problem) in instances(suite) {
            let name = problem.strip_prefix(suite).unwrap_or(&problem).display().to_string();
            if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
                continue;
            }
            let task = planner::load_task(&domain, &problem).unwrap_or_else(|e| panic!("{name}: {e}"));
            let mut h = LmCut::new(&task);
            let cpu = thread_cpu_time();
            let r = astar(&task, &mut h, Limits::default());
            let s = (thread_cpu_time() - cpu).as_secs_f64();
            println!(
                "{name:45} {:>10} cost {:>4} exp {:>9} eval {:>9} search(cpu) {s:>8.3}s",
                r.status.as_str(),
                r.cost.map_or("-".into(), |c| c.to_string()),
                r.expansions,
                r.evaluations,
            );
            total_s += s;
            total_exp += r.expansions;
            total_eval += r.evaluations;
        }
    }
    println!("total search(cpu) {total_s:.3}s expansions {total_exp} evaluations {total_eval}");
}
