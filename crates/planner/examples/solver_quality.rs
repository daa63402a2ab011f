//! How close the domain solvers (`planner::solvers`) come to optimal: per
//! problem, the solver's plan cost and time against A* with LM-cut's optimal
//! cost and time (within a time limit), and the mean ratio solver/optimal
//! per solver over the problems both solved. Every solver plan is replayed
//! by the lifted validator first.
//!
//! ```text
//! cargo run --release -p planner --example solver_quality -- [--time-limit S] [--seed N] [--seeds K] [DIR ...]
//! ```
//!
//! With `--seeds K`, each solver also runs with seeds N+1..N+K-1; the last
//! column shows the best and the worst of the K costs (the solve time is the
//! first seed's).
//!
//! Each DIR holds `domain.pddl` and problem files (`*.pddl`); without DIRs,
//! the IPC blocksworld and zenotravel problems of `tests/ipc/`. Each problem
//! goes to the first registered solver that does not refuse it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use planner::heuristics::LmCut;
use planner::search::{astar, Limits, SearchStatus};
use planner::solvers::{self, SolverError};

fn main() {
    if let Err(e) = run() {
        eprintln!("solver_quality: {e}");
        std::process::exit(2);
    }
}

fn run() -> Result<(), String> {
    let mut time_limit = 30.0;
    let mut seed = 1u64;
    let mut seeds = 1u64;
    let mut dirs: Vec<PathBuf> = vec![];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value"));
        match a.as_str() {
            "--time-limit" => time_limit = value(&a)?.parse().map_err(|e| format!("--time-limit: {e}"))?,
            "--seed" => seed = value(&a)?.parse().map_err(|e| format!("--seed: {e}"))?,
            "--seeds" => seeds = value(&a)?.parse::<u64>().map_err(|e| format!("--seeds: {e}"))?.max(1),
            _ if a.starts_with("--") => return Err(format!("unknown option {a}")),
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        let ipc = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/ipc");
        dirs = ["blocks", "zenotravel", "ipc2002-zenotravel-strips-automatic"].iter().map(|d| ipc.join(d)).collect();
    }
    println!(
        "{:<48} {:<22} {:>6} {:>9} {:>7} {:>9} {:>6} {:>10}",
        "problem", "solver", "cost", "solve_ms", "optimal", "astar_s", "ratio", "best/worst"
    );
    let mut ratios: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for dir in &dirs {
        let domain_file = dir.join("domain.pddl");
        let domain_text = planner::read_text(&domain_file).map_err(|e| e.to_string())?;
        let domain =
            planner::pddl::parse_domain(&domain_text, &domain_file.display().to_string()).map_err(|e| e.to_string())?;
        let mut problems: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pddl") && !p.ends_with("domain.pddl"))
            .collect();
        problems.sort_by_key(|p| natural_key(&p.display().to_string()));
        for path in problems {
            let text = planner::read_text(&path).map_err(|e| e.to_string())?;
            let name = format!(
                "{}/{}",
                dir.file_name().unwrap_or_default().to_string_lossy(),
                path.file_name().unwrap_or_default().to_string_lossy()
            );
            let problem = planner::pddl::parse_problem(&text, &name, &domain).map_err(|e| e.to_string())?;
            // The first solver that does not refuse the problem.
            let t = Instant::now();
            let mut solved = None;
            for s in solvers::SOLVERS {
                match solvers::solve_problem(s.name, &domain, &problem, seed) {
                    Err(SolverError::Unsupported(_)) => continue,
                    r => {
                        solved = Some((s.name, r));
                        break;
                    }
                }
            }
            let solve_ms = t.elapsed().as_secs_f64() * 1e3;
            let Some((solver, result)) = solved else {
                println!("{name:<48} no solver handles it");
                continue;
            };
            let plan = result.map_err(|e| format!("{name}: {e}"))?;
            let mut costs = vec![];
            for s in seed..seed + seeds {
                let p = if s == seed {
                    plan.clone()
                } else {
                    solvers::solve_problem(solver, &domain, &problem, s).map_err(|e| format!("{name}: {e}"))?
                };
                let steps = planner::plan::parse_plan(&p.to_text(), "plan").map_err(|e| e.to_string())?;
                planner::validate::validate(&domain, &problem, &steps)
                    .map_err(|e| format!("{name}: {solver}'s plan (seed {s}) is invalid: {e}"))?;
                costs.push(p.cost());
            }
            let best = costs.iter().copied().min().unwrap_or(0);
            let spread = format!("{best}/{}", costs.iter().copied().max().unwrap_or(0));
            let task = planner::ground(&domain, &problem).map_err(|e| format!("{name}: {e}"))?;
            let t = Instant::now();
            let mut h = LmCut::new(&task);
            let r = astar(&task, &mut h, Limits::new(None, Some(time_limit), Some(4096)));
            let astar_s = t.elapsed().as_secs_f64();
            let optimal = r.cost.filter(|_| r.status == SearchStatus::Solved);
            let (opt, ratio) = match optimal {
                Some(o) => {
                    if best < o {
                        return Err(format!("{name}: {solver}'s cost {best} is below the optimum {o}"));
                    }
                    let ratio = if o == 0 { 1.0 } else { plan.cost() as f64 / o as f64 };
                    ratios.entry(solver).or_default().push(ratio);
                    (o.to_string(), format!("{ratio:.3}"))
                }
                None => (r.status.as_str().to_string(), "-".to_string()),
            };
            println!(
                "{name:<48} {solver:<22} {:>6} {solve_ms:>9.2} {opt:>7} {astar_s:>9.2} {ratio:>6} {spread:>10}",
                plan.cost()
            );
        }
    }
    for (solver, r) in &ratios {
        let mean = r.iter().sum::<f64>() / r.len() as f64;
        let max = r.iter().cloned().fold(1.0, f64::max);
        let optimal = r.iter().filter(|&&x| x == 1.0).count();
        println!("{solver}: mean ratio {mean:.4}, max {max:.3}, optimal on {optimal} of {} problems", r.len());
    }
    Ok(())
}

/// Sorts `p2` before `p10`.
fn natural_key(s: &str) -> Vec<(String, u64)> {
    let mut out = vec![];
    let mut word = String::new();
    let mut num = String::new();
    for c in s.chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                out.push((std::mem::take(&mut word), num.parse().unwrap_or(u64::MAX)));
                num.clear();
            }
            word.push(c);
        }
    }
    out.push((word, num.parse().unwrap_or(0)));
    out
}
