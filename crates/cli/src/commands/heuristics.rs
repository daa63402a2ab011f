//! `hfarm heuristics`: the initial state's value of every registered classical
//! heuristic, ours and pyperplan's (`ff-pyperplan`, `lmcut-pyperplan`).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use planner::heuristics::{self, RelaxedPlanFeatures};
use planner::state::initial_state;

#[derive(clap::Args)]
pub struct Args {
    /// The PDDL domain file.
    pub domain: PathBuf,
    /// The PDDL problem file.
    pub problem: PathBuf,
    /// One JSON object: every registered heuristic's value by name (null at a dead end) and the
    /// linear model's relaxed-plan features.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<ExitCode> {
    let task = planner::load_task(&args.domain, &args.problem)?;
    let init = initial_state(&task);
    let mut values = serde_json::Map::new();
    for info in heuristics::registered() {
        // A task grounding found unsolvable is a dead end for every heuristic that detects them.
        let v = if task.unsolvable.is_some() && info.detects_dead_ends {
            f64::INFINITY
        } else {
            (info.build)(&task).evaluate(&init)
        };
        // JSON has no infinity: a dead end is null.
        values.insert(
            info.name.to_string(),
            if v.is_finite() { serde_json::json!(v as u64) } else { serde_json::Value::Null },
        );
    }
    let features = RelaxedPlanFeatures::new(&task).features(&init);
    if args.json {
        values.insert("features".into(), serde_json::to_value(features)?);
        println!("{}", serde_json::Value::Object(values));
    } else {
        for (k, v) in &values {
            println!("{k:16} {}", if v.is_null() { "infinity".to_string() } else { v.to_string() });
        }
        if let Some(f) = features {
            println!(
                "features   goal_count {} ff {} deletes_ignored {} mean_deletes_ignored {:.3}",
                f.goal_count, f.ff, f.deletes_ignored, f.mean_deletes_ignored
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
