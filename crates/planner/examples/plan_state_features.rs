//! The linear model's inputs on every optimal-plan state of the authors'
//! `test`-split instances, for `tools/reference/linear_floor.py`, which
//! asks how low any linear model's test MSE can go on them (the least-squares
//! floor) and compares it with the authors' per-run sheet.
//!
//! `cargo run --release -p planner --example plan_state_features -- DOMAIN MAX_SEED OUT_DIR`
//! writes, for try i of seed s (generator seed s*1000+i, the first try with
//! a non-empty optimal plan, as `generate_datum.py:386-400`) of every
//! parameter setting of `generate_data.sh:5-36`, `OUT_DIR/NAME.pddl` and
//! one line per plan state in `OUT_DIR/DOMAIN.tsv`: name, seed, step, h*,
//! goal count, pyperplan's hFF (pinned to our fact order), its relaxed
//! plan's deletes and their mean, Fast Downward's hFF, hLMcut, hmax, the
//! state's atoms, and pyperplan's LM-cut (pinned to our order; the label's
//! `lmcut-pyperplan`, one heuristic object per instance evaluated in plan
//! order, as `tools/reference/pyperplan_values.py` runs theirs; for
//! `tools/reference/tn_lower_bound.py`). With `OUT_DIR/fd/NAME.plan` present (Fast Downward's
//! plans), those plans are labelled instead of ours.

use std::io::Write;

use planner::generate::{domain_pddl_like, generate_with, Generator, Params};
use planner::heuristics::Definitions;
use planner::label::label_with;
use planner::search::{astar, Limits, SearchStatus};

fn settings(domain: &str) -> Result<Vec<Params>, String> {
    Ok(match domain {
        "visitall" => {
            (3..=5).flat_map(|size| [0.5, 1.0].map(|ratio| Params::Visitall { size, ratio, height: None })).collect()
        }
        "gripper" => [2, 4, 6, 8, 10].map(|balls| Params::Gripper { balls }).to_vec(),
        "ferry" => (2..=6).flat_map(|locations| (2..=6).map(move |cars| Params::Ferry { locations, cars })).collect(),
        other => return Err(format!("no settings for {other}: visitall, gripper or ferry")),
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, domain_name, max_seed, out] = &args[..] else {
        return Err("usage: plan_state_features DOMAIN MAX_SEED OUT_DIR".into());
    };
    let max_seed: u64 = max_seed.parse().map_err(|e| format!("MAX_SEED {max_seed}: {e}"))?;
    let domain = domain_pddl_like(domain_name, Generator::PddlGenerators)
        .ok_or_else(|| format!("{domain_name}: not a pddl-generators domain"))?;
    std::fs::write(format!("{out}/{domain_name}-domain.pddl"), domain)?;
    let mut tsv = std::io::BufWriter::new(std::fs::File::create(format!("{out}/{domain_name}.tsv"))?);
    for p in settings(domain_name)? {
        for seed in 1..=max_seed {
            for i in 0..20u64 {
                let problem = generate_with(&p, seed * 1000 + i, Generator::PddlGenerators)?;
                let task = planner::load_task_from_text(domain, "domain.pddl", &problem, "problem.pddl")?;
                let r = astar(&task, &mut planner::heuristics::LmCut::new(&task), Limits::default());
                if r.status != SearchStatus::Solved || r.plan.is_empty() {
                    continue;
                }
                let name = format!("{p:?}-{seed}-{i}").replace([' ', '{', '}', ':', ','], "");
                let mut plan: Vec<String> = r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect();
                if let Ok(fd) = std::fs::read_to_string(format!("{out}/fd/{name}.plan")) {
                    let fd: Vec<String> = fd.lines().filter(|l| l.starts_with('(')).map(str::to_string).collect();
                    if fd.len() != plan.len() {
                        return Err(format!("{name}: Fast Downward's plan is not optimal").into());
                    }
                    plan = fd;
                }
                std::fs::write(format!("{out}/{name}.pddl"), &problem)?;
                for s in label_with(domain, &problem, &plan, Definitions::Pyperplan)? {
                    let h = |k: &str| s.heuristics.get(k).copied().flatten().map_or("inf".into(), |v| v.to_string());
                    writeln!(
                        tsv,
                        "{name}\t{seed}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                        s.step,
                        s.h_star,
                        h("goalcount"),
                        s.feature_ff.unwrap_or(f64::NAN),
                        s.deletes_ignored.unwrap_or(f64::NAN),
                        s.mean_deletes_ignored.unwrap_or(f64::NAN),
                        h("ff"),
                        h("lmcut"),
                        h("hmax"),
                        s.atoms.join(";"),
                        h("lmcut-pyperplan")
                    )?;
                }
                break;
            }
        }
    }
    Ok(())
}
