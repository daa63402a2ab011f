//! `hfarm plan`: parse, ground, search, print the result.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::builder::{PossibleValue, PossibleValuesParser};
use planner::heuristics;
use planner::search::{astar, gbfs, gbfs_pddlsl, Limits, SearchResult};

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum SearchKind {
    /// A*: optimal with an admissible heuristic (ties to lower h, then first in).
    Astar,
    /// Eager greedy best-first search (first in first out among equal h).
    Gbfs,
    /// GBFS counted as the IJCAI 2024 authors' code counts it (goal test on
    /// generation, every successor evaluated, reopening).
    GbfsPddlsl,
}

/// The registered classical heuristics, with their descriptions for `--help`.
fn heuristic_names() -> PossibleValuesParser {
    PossibleValuesParser::new(heuristics::registered().map(|h| PossibleValue::new(h.name).help(h.description)))
}

#[derive(clap::Args)]
pub struct Args {
    /// The PDDL domain file.
    pub domain: PathBuf,
    /// The PDDL problem file.
    pub problem: PathBuf,
    /// The search.
    #[arg(long, value_enum, default_value = "astar")]
    pub search: SearchKind,
    /// The classical heuristic.
    #[arg(long, default_value = "lmcut", value_parser = heuristic_names())]
    pub heuristic: String,
    /// Give up after this many heuristic evaluations (the paper's budget: 10000).
    #[arg(long)]
    pub max_evaluations: Option<u64>,
    /// Wall-clock limit for the search, in seconds.
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Limit on the search's data structures, in MiB.
    #[arg(long)]
    pub memory_limit: Option<u64>,
    /// Write the plan here in IPC format.
    #[arg(long)]
    pub plan_file: Option<PathBuf>,
    /// One JSON object: status, cost, plan, expansions, evaluations, search_time_s, ...
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
struct Output<'a> {
    status: &'a str,
    cost: Option<u64>,
    plan: Vec<&'a str>,
    expansions: u64,
    expansions_until_last_jump: u64,
    evaluations: u64,
    generated: u64,
    search_time_s: f64,
    total_time_s: f64,
    parse_and_ground_time_s: f64,
    facts: usize,
    operators: usize,
    memory_bytes: usize,
    search: &'a str,
    heuristic: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    unsolvable_reason: Option<&'a str>,
}

pub fn limits(max_evaluations: Option<u64>, time_limit: Option<f64>, memory_limit: Option<u64>) -> Result<Limits> {
    if let Some(t) = time_limit {
        if !(t.is_finite() && t > 0.0) {
            bail!("--time-limit must be a positive number of seconds, got {t}");
        }
    }
    Ok(Limits::new(max_evaluations, time_limit, memory_limit))
}

pub fn run(args: Args) -> Result<ExitCode> {
    let start = Instant::now();
    let mut limits = limits(args.max_evaluations, args.time_limit, args.memory_limit)?;
    let task = planner::load_task(&args.domain, &args.problem)?;
    let ground_time = start.elapsed();
    let Some(mut h) = heuristics::by_name(&args.heuristic, &task) else {
        let names: Vec<&str> = heuristics::registered().map(|h| h.name).collect();
        bail!("unknown heuristic `{}`; expected one of {}", args.heuristic, names.join(", "));
    };
    if let Some(t) = limits.time_limit {
        limits.time_limit = Some(t.saturating_sub(ground_time));
    }
    let (search_name, result): (&str, SearchResult) = match args.search {
        SearchKind::Astar => ("astar", astar(&task, h.as_mut(), limits)),
        SearchKind::Gbfs => ("gbfs", gbfs(&task, h.as_mut(), limits)),
        SearchKind::GbfsPddlsl => ("gbfs-pddlsl", gbfs_pddlsl(&task, h.as_mut(), limits)),
    };
    if let Some(path) = &args.plan_file {
        if result.status == planner::search::SearchStatus::Solved {
            std::fs::write(path, planner::plan::format_plan(&task, &result.plan))
                .with_context(|| format!("writing the plan to {}", path.display()))?;
        }
    }
    let total = start.elapsed();
    let out = Output {
        status: result.status.as_str(),
        cost: result.cost,
        plan: result.plan.iter().map(|&o| task.operators[o as usize].name.as_str()).collect(),
        expansions: result.expansions,
        expansions_until_last_jump: result.expansions_until_last_jump,
        evaluations: result.evaluations,
        generated: result.generated,
        search_time_s: result.search_time.as_secs_f64(),
        total_time_s: total.as_secs_f64(),
        parse_and_ground_time_s: ground_time.as_secs_f64(),
        facts: task.num_facts(),
        operators: task.operators.len(),
        memory_bytes: result.memory_bytes,
        search: search_name,
        heuristic: &args.heuristic,
        unsolvable_reason: task.unsolvable.as_deref(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&out)?);
    } else {
        for step in &out.plan {
            println!("{step}");
        }
        match out.cost {
            Some(c) => println!("; cost = {c}"),
            None => println!("; no plan"),
        }
        if let Some(reason) = out.unsolvable_reason {
            println!("; {reason}");
        }
        println!(
            "; status {}, {} expansions, {} evaluations, {} generated, search {:.3}s, total {:.3}s",
            out.status, out.expansions, out.evaluations, out.generated, out.search_time_s, out.total_time_s
        );
    }
    Ok(ExitCode::SUCCESS)
}
