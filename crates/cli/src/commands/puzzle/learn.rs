//! `hfarm puzzle learn` and `hfarm puzzle test`: Marom & Rosman's
//! LearnHeuristicPrac on one machine (crate `likely`), resumable from a
//! checkpoint file written after every iteration, and the suboptimality
//! table of a learned network on test tasks (the paper's Table 7 columns).
//!
//! Inputs as the farm's `[[likely]]` blocks take them
//! (`likely::inputs`): one-hot tiles (the 15-puzzle's representation) or a
//! pattern set's PDB values (`--inputs pdb [--patterns NAME]`: the
//! 24-puzzle's, 24-pancake's and 15-blocksworld's), the PDBs from
//! `--pdb-dir`. The checkpoint remembers which.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use likely::features::Features;
use likely::inputs::{pattern_set, with_features, Width, WithFeatures};
use likely::prac::{IterationReport, Learner};
use likely::settings::{Model, Settings};
use likely::test::{solve_for_alphas, table, TestResult, TestTask};
use puzzles::pdb::DirStore;
use puzzles::registry::{PdbCache, PdbSource};
use puzzles::search::{Limits, SearchKind, Status};
use puzzles::Domain;
use serde::{Deserialize, Serialize};

use super::{limits, pdb_dir, PdbPlace};

#[derive(clap::Args)]
pub struct LearnArgs {
    /// A puzzle: 8-puzzle, 15-puzzle, 24-puzzle or WxH-puzzle; with PDB inputs also N-pancake or N-blocksworld.
    pub domain: String,
    /// `one_hot` (sliding tiles) or `pdb`: a pattern set's PDB values as the network's inputs.
    #[arg(long, default_value = "one_hot", value_parser = ["one_hot", "pdb"])]
    pub inputs: String,
    /// The pattern set of PDB inputs (default: the paper's where the domain has it, else its first).
    #[arg(long, requires = "inputs")]
    pub patterns: Option<String>,
    /// Where the run's state is kept: read to resume when it exists, rewritten after every iteration.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Outer iterations in all (NumIter; the paper: 50). A resumed run goes on to this many.
    #[arg(long, default_value_t = 50)]
    pub iterations: u32,
    /// `quantile` plans with y^alpha (the paper's method); `mean` plans with yhat (the tables' N/A rows).
    #[arg(long, default_value = "quantile")]
    pub model: String,
    /// The run's seed (networks' initial weights, task walks, batches).
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
    #[command(flatten)]
    pub pdbs: PdbPlace,
    /// One JSON object per iteration.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct TestArgs {
    /// The puzzle the checkpoint was trained on.
    pub domain: String,
    /// A checkpoint written by `hfarm puzzle learn`.
    #[arg(long)]
    pub checkpoint: PathBuf,
    /// Test alphas (a `mean` model ignores them).
    #[arg(long, value_delimiter = ',', default_value = "0.95,0.9,0.75,0.5,0.25,0.1,0.05")]
    pub alphas: Vec<f64>,
    /// A benchmark set with published optimal costs, or some of it: `korf100` (15-puzzle),
    /// `korf-felner24` or `korf-taylor24` (24-puzzle), `korf100:1-10`.
    #[arg(long, conflicts_with = "walks")]
    pub set: Option<String>,
    /// Random walks from the goal as the authors' code makes test tasks; optimal costs by IDA* with the family's optimal heuristic (PDBs; gap for pancakes).
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
    /// Nodes IDA* may generate per test task and rule.
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
    /// The pattern set of PDB inputs; None: one-hot (checkpoints written
    /// before PDB inputs were offered have none).
    #[serde(default)]
    pdb_inputs: Option<String>,
    settings: Settings,
    learner: Learner,
}

/// One outer iteration.
struct Iterate<'a> {
    learner: &'a mut Learner,
    settings: &'a Settings,
    limits: &'a Limits,
}

impl WithFeatures for Iterate<'_> {
    type Out = IterationReport;
    fn run<D: Domain, F: Features>(self, d: &D, features: &mut F) -> Result<IterationReport, String> {
        self.learner.iteration(d, features, self.settings, self.limits).map_err(|e| e.to_string())
    }
}

/// The test tasks under every alpha.
struct Tests<'a> {
    learner: &'a Learner,
    tasks: &'a [Vec<u8>],
    optimal: &'a [u32],
    alphas: &'a [f64],
    limits: Limits,
}

impl WithFeatures for Tests<'_> {
    type Out = Vec<TestResult>;
    fn run<D: Domain, F: Features>(self, d: &D, features: &mut F) -> Result<Vec<TestResult>, String> {
        let tasks = self
            .tasks
            .iter()
            .zip(self.optimal)
            .map(|(cells, &optimal)| {
                Ok(TestTask { start: d.state_from_cells(cells).map_err(|e| e.to_string())?, optimal })
            })
            .collect::<Result<Vec<_>, String>>()?;
        solve_for_alphas(d, &self.learner.ffnn, features, &tasks, self.alphas, &self.limits).map_err(|e| e.to_string())
    }
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
    let pdb_inputs = match a.inputs.as_str() {
        "pdb" => Some(pattern_set(&a.domain, a.patterns.as_deref()).map_err(|e| anyhow!("--patterns: {e}"))?),
        _ if a.patterns.is_some() => bail!("--patterns: only PDB inputs (--inputs pdb) read a pattern set"),
        _ => None,
    };
    let store = DirStore::new(pdb_dir(&a.pdbs)?);
    let cache = PdbCache::default();
    let src = PdbSource { store: &store, threads: a.pdbs.threads, cache: Some(&cache) };
    let model = match a.model.as_str() {
        "quantile" => Model::Quantile,
        "mean" => Model::Mean,
        other => bail!("--model {other}: expected quantile or mean"),
    };
    if a.time_limit.is_none() && a.max_generated.is_none() && a.tiny {
        eprintln!("note: no --time-limit or --max-generated: each training task may search for 60 s");
    }
    let limits = match (a.time_limit, a.max_generated) {
        (None, None) => {
            Limits { time: Some(Settings::paper_time_limit(pdb_inputs.is_some())), generated: None, cancel: None }
        }
        (t, g) => limits(t, g)?,
    };
    let mut c = match read_checkpoint(&a.checkpoint)? {
        Some(c) => {
            if c.domain != a.domain {
                bail!("{}: a checkpoint of {}, not {}", a.checkpoint.display(), c.domain, a.domain);
            }
            if c.pdb_inputs.as_deref() != pdb_inputs {
                let name = |p: Option<&str>| p.map_or("one-hot inputs".to_string(), |s| format!("PDB inputs ({s})"));
                bail!(
                    "{}: a run with {}, not {}",
                    a.checkpoint.display(),
                    name(c.pdb_inputs.as_deref()),
                    name(pdb_inputs)
                );
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
            let base = if a.tiny { Settings::tiny(model) } else { Settings::paper(model, pdb_inputs.is_some()) };
            let settings = Settings { num_iter: a.iterations, ..base };
            settings.validate()?;
            let inputs = with_features(&a.domain, pdb_inputs, src, Width).map_err(anyhow::Error::msg)?;
            let learner = Learner::new(&settings, inputs, a.seed)?;
            Checkpoint { domain: a.domain.clone(), pdb_inputs: pdb_inputs.map(str::to_string), settings, learner }
        }
    };
    while c.learner.iteration < a.iterations {
        let step = Iterate { learner: &mut c.learner, settings: &c.settings, limits: &limits };
        let r = with_features(&a.domain, pdb_inputs, src, step).map_err(anyhow::Error::msg)?;
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

/// Random walks from the goal, their optimal costs by IDA* with the
/// family's optimal heuristic: (cells, optimal cost) each.
fn walk_tasks(a: &TestArgs, n: usize, src: PdbSource) -> Result<Vec<(Vec<u8>, u32)>> {
    let dynd = puzzles::by_name(&a.domain)?;
    let mut tasks = vec![];
    for k in 0..n as u64 {
        let start = dynd.random_walk(a.walk_length, a.walk_seed + k);
        let r = dynd.solve(&start, dynd.family().optimal_heuristic, SearchKind::IdaStar, &Limits::default(), src)?;
        let optimal = r.cost.ok_or_else(|| anyhow!("walk {}: no optimal cost ({})", k, r.status.as_str()))?;
        tasks.push((start.cells().to_vec(), optimal));
    }
    Ok(tasks)
}

pub fn test(a: TestArgs) -> Result<ExitCode> {
    let c = read_checkpoint(&a.checkpoint)?.ok_or_else(|| anyhow!("{}: no such checkpoint", a.checkpoint.display()))?;
    if c.domain != a.domain {
        bail!("{}: a checkpoint of {}, not {}", a.checkpoint.display(), c.domain, a.domain);
    }
    if let Some(bad) = a.alphas.iter().find(|x| !(**x > 0.0 && **x < 1.0)) {
        bail!("--alphas: {bad} is not a probability strictly between 0 and 1");
    }
    let store = DirStore::new(pdb_dir(&a.pdbs)?);
    let cache = PdbCache::default();
    let src = PdbSource { store: &store, threads: a.pdbs.threads, cache: Some(&cache) };
    let tasks: Vec<(Vec<u8>, u32)> = match (&a.set, a.walks) {
        (Some(set), _) => {
            let cells = puzzles::by_name(&a.domain)?.size();
            let chosen = puzzles::instances::set(set, cells).map_err(|e| anyhow!("--set: {e}"))?;
            chosen.into_iter().map(|i| (i.cells, i.optimal)).collect()
        }
        (None, Some(n)) => walk_tasks(&a, n, src)?,
        (None, None) => bail!("give the test tasks: --set korf100|korf-felner24|korf-taylor24 or --walks N"),
    };
    let (cells, optimal): (Vec<Vec<u8>>, Vec<u32>) = tasks.into_iter().unzip();
    let tests = Tests {
        learner: &c.learner,
        tasks: &cells,
        optimal: &optimal,
        alphas: &a.alphas,
        limits: limits(a.time_limit, a.max_generated)?,
    };
    let results = with_features(&a.domain, c.pdb_inputs.as_deref(), src, tests).map_err(anyhow::Error::msg)?;
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
            cells.len(),
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
