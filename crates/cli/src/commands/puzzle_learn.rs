//! `hfarm puzzle learn` and `hfarm puzzle test`: Marom & Rosman's
//! LearnHeuristicPrac on one machine (crate `likely`), resumable from a
//! checkpoint file written after every iteration, and the suboptimality
//! table of a learned network on test tasks (the paper's Table 7 columns).
//!
//! Sliding-tile puzzles with the paper's one-hot input (the 15-puzzle's
//! representation); the PDB-feature representations of the 24-puzzle,
//! pancake and blocksworld are in `likely::features` but not offered here
//! yet.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use likely::features::{Features, OneHotTiles};
use likely::prac::Learner;
use likely::settings::{Model, Settings};
use likely::test::{solve_for_alphas, table, TestTask};
use puzzles::pdb::DirStore;
use puzzles::registry::PdbSource;
use puzzles::search::{Limits, SearchKind, Status};
use puzzles::tiles::SlidingTile;
use puzzles::Domain;
use serde::{Deserialize, Serialize};

use super::puzzle::{limits, pdb_dir, PdbPlace};

#[derive(clap::Args)]
pub struct LearnArgs {
    /// A sliding-tile puzzle: 8-puzzle, 15-puzzle, 24-puzzle or WxH-puzzle.
    pub domain: String,
    /// Where the run's state is kept: read to resume when it exists, rewritten after every iteration.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Outer iterations in all (NumIter; the paper: 50). A resumed run goes on to this many.
    #[arg(long, default_value_t = 50)]
    pub iterations: u32,
    /// `quantile` plans with y^alpha (the paper's method); `mean` plans with yhat (the tables' N/A rows).
    #[arg(long, default_value = "quantile")]
    pub model: String,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tiny settings (few tasks, small networks) instead of the paper's: for trying it out.
    #[arg(long)]
    pub tiny: bool,
    /// Seconds of IDA* per training task (the paper: 60).
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Nodes IDA* may generate per training task (instead of a time limit: the run is then deterministic).
    #[arg(long)]
    pub max_generated: Option<u64>,
    /// One JSON object per iteration.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TestArgs {
    pub domain: String,
    /// A checkpoint written by `hfarm puzzle learn`.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Test alphas (a `mean` model ignores them).
    #[arg(long, value_delimiter = ',', default_value = "0.95,0.9,0.75,0.5,0.25,0.1,0.05")]
    pub alphas: Vec<f64>,
    /// A benchmark set with published optimal costs, or some of it: `korf100` (15-puzzle),
    /// `korf-taylor24` (24-puzzle), `korf100:1-10`.
    #[arg(long, conflicts_with = "walks")]
    pub set: Option<String>,
    /// Random walks from the goal as the authors' code makes test tasks; optimal costs by IDA* with the domain's PDBs.
    #[arg(long)]
    pub walks: Option<usize>,
    /// Moves per walk (the authors' code: 1000).
    #[arg(long, default_value_t = 1000)]
    pub walk_length: u32,
    /// Seed of the first walk (then +1, +2, ...).
    #[arg(long, default_value_t = 1)]
    pub walk_seed: u64,
    /// Seconds per test task and rule (the paper: none).
    #[arg(long)]
    pub time_limit: Option<f64>,
    #[arg(long)]
    pub max_generated: Option<u64>,
    #[command(flatten)]
    pub pdbs: PdbPlace,
    /// One JSON object per task and rule, then one per table row.
    #[arg(long)]
    pub json: bool,
}

/// What a checkpoint file holds: enough to resume and to test.
#[derive(Serialize, Deserialize)]
struct Checkpoint {
    domain: String,
    settings: Settings,
    learner: Learner,
}

fn tiles(name: &str) -> Result<SlidingTile> {
    let bad = || anyhow!("{name}: expected a sliding-tile puzzle (8-puzzle, 15-puzzle, 24-puzzle or WxH-puzzle)");
    let size = name.strip_suffix("-puzzle").ok_or_else(bad)?;
    let (w, h) = match size.split_once('x') {
        Some((w, h)) => (w.parse().map_err(|_| bad())?, h.parse().map_err(|_| bad())?),
        None => {
            let cells: usize = size.parse::<usize>().map_err(|_| bad())? + 1;
            let side = (cells as f64).sqrt().round() as usize;
            if side * side != cells {
                return Err(bad());
            }
            (side, side)
        }
    };
    Ok(SlidingTile::new(w, h)?)
}

fn read_checkpoint(path: &Path) -> Result<Option<Checkpoint>> {
    match std::fs::read(path) {
        Ok(bytes) => {
            let c = serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not a checkpoint of `hfarm puzzle learn`", path.display()))?;
            Ok(Some(c))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Writes beside the file, then renames: a run killed mid-write leaves the
/// previous iteration's checkpoint whole.
fn write_checkpoint(path: &Path, c: &Checkpoint) -> Result<()> {
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, serde_json::to_vec(c)?).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot replace {}", path.display()))
}

pub fn learn(a: LearnArgs) -> Result<ExitCode> {
    let d = tiles(&a.domain)?;
    let mut features = OneHotTiles::new(&d);
    let model = match a.model.as_str() {
        "quantile" => Model::Quantile,
        "mean" => Model::Mean,
        other => bail!("--model {other}: expected quantile or mean"),
    };
    if a.time_limit.is_none() && a.max_generated.is_none() && a.tiny {
        eprintln!("note: no --time-limit or --max-generated: each training task may search for 60 s");
    }
    let limits = match (a.time_limit, a.max_generated) {
        (None, None) => Limits { time: Some(Settings::paper_time_limit(false)), generated: None },
        (t, g) => limits(t, g)?,
    };
    let mut c = match read_checkpoint(&a.checkpoint)? {
        Some(c) => {
            if c.domain != a.domain {
                bail!("{}: a checkpoint of {}, not {}", a.checkpoint.display(), c.domain, a.domain);
            }
            eprintln!("resuming after iteration {} from {}", c.learner.iteration, a.checkpoint.display());
            if c.settings.num_iter != a.iterations {
                // NumIter sets beta's decay (gamma): it stays what the run began with.
                eprintln!(
                    "note: the run began with NumIter {} (beta reaches its floor there); going on to {}",
                    c.settings.num_iter, a.iterations
                );
            }
            c
        }
        None => {
            let base = if a.tiny { Settings::tiny(model) } else { Settings::paper(model, false) };
            let settings = Settings { num_iter: a.iterations, ..base };
            settings.validate()?;
            let learner = Learner::new(&settings, features.inputs(), a.seed)?;
            Checkpoint { domain: a.domain.clone(), settings, learner }
        }
    };
    while c.learner.iteration < a.iterations {
        let r = c.learner.iteration(&d, &mut features, &c.settings, &limits)?;
        write_checkpoint(&a.checkpoint, &c)?;
        if a.json {
            println!("{}", serde_json::to_string(&r)?);
        } else {
            println!(
                "iteration {:>3}: solved {}/{}  alpha {:.2}  beta {:.2e}  buffer {}  y^q {}  ffnn {} steps  wunn {} rounds  {:.1} s",
                r.iteration,
                r.solved,
                r.tasks.len(),
                r.alpha,
                r.beta,
                r.buffer_len,
                r.y_q.map_or("-".into(), |q| format!("{q:.1}")),
                r.ffnn_steps,
                r.wunn_rounds,
                r.seconds_tasks + r.seconds_ffnn + r.seconds_wunn,
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A benchmark set, or part of it: `korf100`, `korf-taylor24`, `NAME:A-B`
/// (ids A to B, 1-based).
fn set_tasks(d: &SlidingTile, set: &str) -> Result<Vec<TestTask>> {
    let (name, range) = set.split_once(':').map_or((set, None), |(n, r)| (n, Some(r)));
    let (all, cells) = match name {
        "korf100" => (puzzles::instances::korf100(), 16),
        "korf-taylor24" => (puzzles::instances::korf_taylor24(), 25),
        _ => bail!(
            "--set {set}: the known sets are korf100 (15-puzzle) and korf-taylor24 (24-puzzle), optionally NAME:A-B"
        ),
    };
    if d.size() != cells {
        bail!("--set {name} is a set of {}-puzzle states", cells - 1);
    }
    let (lo, hi) = match range {
        None => (1, u32::MAX),
        Some(r) => {
            let (lo, hi) = r.split_once('-').unwrap_or((r, r));
            let n = |s: &str| s.trim().parse::<u32>().map_err(|_| anyhow!("--set {set}: expected {name}:A-B"));
            (n(lo)?, n(hi)?)
        }
    };
    all.into_iter()
        .filter(|i| (lo..=hi).contains(&i.id))
        .map(|i| Ok(TestTask { start: d.state_from_cells(&i.cells)?, optimal: i.optimal }))
        .collect()
}

fn walk_tasks(a: &TestArgs, d: &SlidingTile, n: usize) -> Result<Vec<TestTask>> {
    let dynd = puzzles::by_name(&a.domain)?;
    let store = DirStore::new(pdb_dir(&a.pdbs)?);
    let mut tasks = vec![];
    for k in 0..n as u64 {
        let start = d.state_from_cells(dynd.random_walk(a.walk_length, a.walk_seed + k).cells())?;
        let src = PdbSource { store: &store, threads: a.pdbs.threads, cache: None };
        let r = dynd.solve(&start, "pdb", SearchKind::IdaStar, &Limits::default(), src)?;
        let optimal = r.cost.ok_or_else(|| anyhow!("walk {}: no optimal cost ({})", k, r.status.as_str()))?;
        tasks.push(TestTask { start, optimal });
    }
    Ok(tasks)
}

pub fn test(a: TestArgs) -> Result<ExitCode> {
    let d = tiles(&a.domain)?;
    let c = read_checkpoint(&a.checkpoint)?.ok_or_else(|| anyhow!("{}: no such checkpoint", a.checkpoint.display()))?;
    if c.domain != a.domain {
        bail!("{}: a checkpoint of {}, not {}", a.checkpoint.display(), c.domain, a.domain);
    }
    if let Some(bad) = a.alphas.iter().find(|x| !(**x > 0.0 && **x < 1.0)) {
        bail!("--alphas: {bad} is not a probability strictly between 0 and 1");
    }
    let tasks = match (&a.set, a.walks) {
        (Some(set), _) => set_tasks(&d, set)?,
        (None, Some(n)) => walk_tasks(&a, &d, n)?,
        (None, None) => bail!("give the test tasks: --set korf100|korf-taylor24 or --walks N"),
    };
    let mut features = OneHotTiles::new(&d);
    let results = solve_for_alphas(
        &d,
        &c.learner.ffnn,
        &mut features,
        &tasks,
        &a.alphas,
        &limits(a.time_limit, a.max_generated)?,
    )?;
    let rows = table(&results);
    if a.json {
        for r in &results {
            println!("{}", serde_json::to_string(r)?);
        }
        for r in &rows {
            println!("{}", serde_json::to_string(r)?);
        }
    } else {
        println!(
            "{} after {} iterations, {} tasks ({} unsolved within the limits)",
            a.checkpoint.display(),
            c.learner.iteration,
            tasks.len(),
            results.iter().filter(|r| r.status != Status::Solved).count()
        );
        println!(
            "{:>6} {:>10} {:>14} {:>8} {:>8} {:>7}",
            "alpha", "time (s)", "generated", "subopt", "optimal", "solved"
        );
        for r in &rows {
            println!(
                "{:>6} {:>10.3} {:>14.0} {:>8} {:>7.1}% {:>7}",
                r.alpha.map_or("N/A".into(), |x| format!("{x}")),
                r.time,
                r.generated,
                r.suboptimality.map_or("-".into(), |s| format!("{:.2}%", 100.0 * s)),
                r.optimal_pct,
                format!("{}/{}", r.solved, r.tasks),
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
