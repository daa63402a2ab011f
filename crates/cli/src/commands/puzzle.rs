//! `hfarm puzzle`: the permutation puzzles of `crates/puzzles` (sliding
//! tiles, pancakes, blocksworld): solve a state, generate random walks,
//! build pattern databases, run a benchmark set.
//!
//! Domains, heuristics and pattern sets come from the puzzles' registry
//! (`puzzles::FAMILIES`, `puzzles::pdb::sets::SETS`). PDBs are kept in a
//! directory by content key (`--pdb-dir`, `HFARM_PDB_DIR`, by default
//! `~/.cache/hfarm/pdb`): built once, loaded afterwards.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Result};
use puzzles::pdb::{load_or_build, sets, DirStore, Provenance};
use puzzles::registry::{PdbCache, PdbSource, SolveReport};
use puzzles::search::{Limits, SearchKind, Status};
use puzzles::{by_name, DynDomain, FAMILIES};

/// `hfarm puzzle learn` and `hfarm puzzle test`: Marom & Rosman's learner.
mod learn;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// Solve a state (optimal with an admissible heuristic); exit 1 when a limit stops the search.
    Solve(SolveArgs),
    /// Print states reached by random walks from the goal (no move straight back), as the paper makes test tasks.
    Generate(GenerateArgs),
    /// Build (or load) pattern databases and print their keys and statistics.
    Pdb(PdbArgs),
    /// Solve a benchmark set (Korf's 100 15-puzzle instances, or Korf & Felner's 24-puzzle fifty) and check the
    /// optimal costs.
    Bench(BenchArgs),
    /// List the puzzle families, their heuristics and pattern sets.
    Domains,
    /// Learn a likely-admissible heuristic (Marom & Rosman's LearnHeuristicPrac), resumable from its checkpoint file.
    Learn(learn::LearnArgs),
    /// Solve test tasks with a learned heuristic for each alpha: the paper's suboptimality table.
    Test(learn::TestArgs),
}

#[derive(clap::Args)]
pub struct PdbPlace {
    /// Where PDBs are kept, by content key (built once, loaded afterwards).
    #[arg(long, env = "HFARM_PDB_DIR")]
    pub pdb_dir: Option<PathBuf>,
    /// Threads for building PDBs.
    #[arg(long, default_value_t = default_threads())]
    pub threads: usize,
}

#[derive(clap::Args)]
pub struct SolveArgs {
    /// The domain: 8-puzzle, 15-puzzle, 24-puzzle, WxH-puzzle, N-pancake, N-blocksworld.
    pub domain: String,
    /// The state: the cells separated by spaces or commas (sliding tiles: tile per position, 0 the blank).
    pub state: String,
    /// manhattan, gap, misplaced, zero, pdb (the domain's default pattern set), pdb:SET or pdb:1,2,3/4,5,6.
    #[arg(long, default_value = "pdb")]
    pub heuristic: String,
    /// idastar (the paper's search) or astar.
    #[arg(long, default_value = "idastar")]
    pub search: String,
    /// Give up after this many seconds of search.
    #[arg(long)]
    pub time_limit: Option<f64>,
    /// Give up after generating this many nodes.
    #[arg(long)]
    pub max_generated: Option<u64>,
    #[command(flatten)]
    pub pdbs: PdbPlace,
    /// One JSON object: cost, plan, plan_length, generated, expanded, time_s, ...
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// The domain: 8-puzzle, 15-puzzle, 24-puzzle, WxH-puzzle, N-pancake, N-blocksworld.
    pub domain: String,
    /// Moves in each walk.
    #[arg(long)]
    pub walk: u32,
    /// The walk's seed (ChaCha8): the same seed always gives the same state.
    #[arg(long)]
    pub seed: u64,
    /// How many states, from seeds SEED, SEED + 1, ...
    #[arg(long, default_value_t = 1)]
    pub count: u64,
    /// One JSON object per line.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct PdbArgs {
    /// The domain: 8-puzzle, 15-puzzle, 24-puzzle, WxH-puzzle, N-pancake, N-blocksworld.
    pub domain: String,
    /// A pattern: items separated by commas, ranges allowed (1,2,3 or 1-7). Repeat for several.
    #[arg(long)]
    pub pattern: Vec<String>,
    /// A named pattern set of the domain (every PDB in it), e.g. korf-felner-7-8, marom-rosman.
    #[arg(long)]
    pub set: Option<String>,
    #[command(flatten)]
    pub pdbs: PdbPlace,
    /// One JSON object per PDB.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// The heuristic, as for `solve` (Korf's 100 with Manhattan distance takes hours; pdb takes seconds).
    #[arg(long, default_value = "pdb")]
    pub heuristic: String,
    /// idastar (the paper's search) or astar.
    #[arg(long, default_value = "idastar")]
    pub search: String,
    /// The set: korf100 (15-puzzle), korf-felner24 or korf-taylor24 (24-puzzle); NAME:A-B for some of it.
    #[arg(long, default_value = "korf100")]
    pub set: String,
    /// Instance numbers within the set, comma-separated; all by default.
    #[arg(long, value_delimiter = ',')]
    pub ids: Vec<u32>,
    #[command(flatten)]
    pub pdbs: PdbPlace,
    /// One JSON object per instance, then one for the totals.
    #[arg(long)]
    pub json: bool,
}

fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

pub(crate) fn pdb_dir(place: &PdbPlace) -> Result<PathBuf> {
    if let Some(d) = &place.pdb_dir {
        return Ok(d.clone());
    }
    let home =
        std::env::var_os("HOME").ok_or_else(|| anyhow!("no --pdb-dir and no HOME to put ~/.cache/hfarm/pdb in"))?;
    Ok(PathBuf::from(home).join(".cache/hfarm/pdb"))
}

fn domain(name: &str) -> Result<Box<dyn DynDomain>> {
    Ok(by_name(name)?)
}

pub(crate) fn limits(time_limit: Option<f64>, max_generated: Option<u64>) -> Result<Limits> {
    let time = match time_limit {
        Some(t) if !(t.is_finite() && t >= 0.0) => bail!("--time-limit must be a number of seconds, not {t}"),
        Some(t) => Some(Duration::from_secs_f64(t)),
        None => None,
    };
    Ok(Limits { time, generated: max_generated, cancel: None })
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        Command::Solve(a) => solve(a),
        Command::Generate(a) => generate(a),
        Command::Pdb(a) => pdb(a),
        Command::Bench(a) => bench(a),
        Command::Domains => domains(),
        Command::Learn(a) => learn::learn(a),
        Command::Test(a) => learn::test(a),
    }
}

fn print_report(r: &SolveReport) {
    match r.cost {
        Some(c) => println!("{}: cost {c} ({} moves)", r.domain, r.plan_length),
        None => println!("{}: no plan ({})", r.domain, r.status.as_str()),
    }
    if !r.plan.is_empty() {
        println!("plan: {}", r.plan.join(" "));
    }
    println!(
        "h(start) {}  generated {}  expanded {}  iterations {}  time {:.3} s  ({:.1} M nodes/s)",
        r.initial_h,
        r.generated,
        r.expanded,
        r.iterations,
        r.time_s,
        r.nodes_per_second / 1e6
    );
    for p in &r.pdbs {
        let how = if p.built { "built" } else { "loaded" };
        println!("pdb {:?}: {how} in {:.2} s ({} entries, key {})", p.pattern, p.seconds, p.entries, p.key);
    }
}

fn solve(a: SolveArgs) -> Result<ExitCode> {
    let d = domain(&a.domain)?;
    let start = d.parse_state(&a.state)?;
    let search: SearchKind = a.search.parse()?;
    let store = DirStore::new(pdb_dir(&a.pdbs)?);
    let src = PdbSource { store: &store, threads: a.pdbs.threads, cache: None };
    let r = d.solve(&start, &a.heuristic, search, &limits(a.time_limit, a.max_generated)?, src)?;
    if a.json {
        println!("{}", serde_json::to_string(&r)?);
    } else {
        print_report(&r);
    }
    Ok(if r.status == Status::Solved || r.status == Status::Unsolvable { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn generate(a: GenerateArgs) -> Result<ExitCode> {
    let d = domain(&a.domain)?;
    if a.count > 0 && a.seed.checked_add(a.count - 1).is_none() {
        bail!("--seed {} with --count {} runs past the largest seed", a.seed, a.count);
    }
    for i in 0..a.count {
        let seed = a.seed + i;
        let s = d.random_walk(a.walk, seed);
        if a.json {
            let line = serde_json::json!({"domain": d.name(), "walk": a.walk, "seed": seed, "state": s.to_string()});
            println!("{line}");
        } else {
            println!("{s}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn pdb(a: PdbArgs) -> Result<ExitCode> {
    let d = domain(&a.domain)?;
    let mut patterns: Vec<Vec<u8>> = a.pattern.iter().map(|p| sets::parse_pattern(p)).collect::<Result<_, _>>()?;
    if let Some(name) = &a.set {
        patterns.extend(sets::by_name(d.name(), name)?.patterns().into_iter().map(|p| p.to_vec()));
    }
    if patterns.is_empty() {
        let known: Vec<&str> = sets::for_domain(d.name()).map(|s| s.name).collect();
        bail!(
            "give --pattern (e.g. --pattern 1-7) or --set ({})",
            if known.is_empty() { "the domain has no named sets".to_string() } else { known.join(", ") }
        );
    }
    let store = DirStore::new(pdb_dir(&a.pdbs)?);
    for pattern in patterns {
        let spec = d.pdb_spec(&pattern)?;
        let t0 = Instant::now();
        let (pdb, provenance) = load_or_build(&store, &spec, || d.build_pdb(&pattern, a.pdbs.threads))?;
        let seconds = t0.elapsed().as_secs_f64();
        let how = match &provenance {
            Provenance::Loaded => "loaded".to_string(),
            Provenance::Built => "built".to_string(),
            Provenance::Rebuilt(why) => format!("rebuilt ({why})"),
        };
        if a.json {
            let line = serde_json::json!({
                "key": spec.key(),
                "domain": spec.domain,
                "abstraction": spec.abstraction.as_str(),
                "pattern": spec.pattern,
                "entries": pdb.entries(),
                "bytes": pdb.table_bytes(),
                "max": pdb.max_value(),
                "mean": pdb.mean(),
                "histogram": pdb.histogram(),
                "provenance": how,
                "seconds": seconds,
                "path": store.path(&spec.key()),
            });
            println!("{line}");
        } else {
            println!("{} ({how} in {seconds:.2} s)", spec.describe());
            println!("  key {}", spec.key());
            println!("  file {}", store.path(&spec.key()).display());
            println!(
                "  {} entries, {} bytes, max {}, mean {:.3}",
                pdb.entries(),
                pdb.table_bytes(),
                pdb.max_value(),
                pdb.mean()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn bench(a: BenchArgs) -> Result<ExitCode> {
    let d = domain(puzzles::instances::set_domain(&a.set).map_err(|e| anyhow!("--set: {e}"))?)?;
    let search: SearchKind = a.search.parse()?;
    let all = puzzles::instances::set(&a.set, d.size()).map_err(|e| anyhow!("--set: {e}"))?;
    if let Some(bad) = a.ids.iter().find(|&&i| !all.iter().any(|x| x.id == i)) {
        let last = all.last().map_or(0, |x| x.id);
        bail!("--ids: the instances of {} are numbered {} to {last}, not {bad}", a.set, all[0].id);
    }
    let chosen: Vec<_> = all.into_iter().filter(|x| a.ids.is_empty() || a.ids.contains(&x.id)).collect();
    let store = DirStore::new(pdb_dir(&a.pdbs)?);
    let cache = PdbCache::default();
    let src = PdbSource { store: &store, threads: a.pdbs.threads, cache: Some(&cache) };
    let totals = puzzles::bench::run_set(d.as_ref(), &chosen, &a.heuristic, search, src, |line| {
        if a.json {
            println!("{}", serde_json::to_string(line).unwrap_or_default());
        } else {
            println!(
                "#{:<3} cost {:>2} {} h0 {:>2} generated {:>13} expanded {:>13} {:>8.3} s",
                line.instance,
                line.cost.map_or("-".into(), |c| c.to_string()),
                if line.optimal_found() { "ok " } else { "BAD" },
                line.initial_h,
                line.generated,
                line.expanded,
                line.time_s
            );
        }
    })?;
    if a.json {
        println!("{}", serde_json::to_string(&totals)?);
    } else {
        println!(
            "{} instances, {}: generated {}, expanded {}, {:.2} s search, {:.1} M nodes/s; {}",
            totals.instances,
            totals.heuristic,
            totals.generated,
            totals.expanded,
            totals.time_s,
            totals.nodes_per_second / 1e6,
            if totals.not_optimal.is_empty() {
                "every cost the published optimum".to_string()
            } else {
                format!("NOT optimal: {:?}", totals.not_optimal)
            }
        );
    }
    Ok(if totals.not_optimal.is_empty() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn domains() -> Result<ExitCode> {
    for f in FAMILIES {
        println!("{}: {}", f.family, f.names);
        println!("  {}", f.description);
        for (name, help) in f.heuristics {
            println!("  --heuristic {name:10} {help}");
        }
        for e in f.examples {
            for s in sets::for_domain(e) {
                println!("  {e}: --heuristic pdb:{} ({})", s.name, s.description);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
