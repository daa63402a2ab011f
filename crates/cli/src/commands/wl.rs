//! `hfarm wl`: Weisfeiler-Leman features with a linear model (crate `wl`),
//! the IPC 2023 learning track's learned baseline. `train` fits a model on
//! training problems' optimal plans (`--model ridge`, h* regression, or
//! `--model rank`, GOOSE's pairwise ranking), `plan` runs GBFS with it, `run`
//! does both on a domain of `benchmarks/ipc2023-learning` for one or more
//! model kinds (one labelling pass feeds all) beside hFF GBFS on the same
//! test problems, and `bench` times both heuristics on the same states.
//!
//! Pure Rust: nothing here reaches libtorch, so it runs in the lean `hfarm`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use planner::heuristics::{Ff, Heuristic};
use planner::search::{gbfs, Limits, SearchResult, SearchStatus};
use planner::Task;
use wl::benchmark::{self, BANDS};
use wl::model::Kind;
use wl::train::{load, load_for_model, TrainOptions, TrainingProblem};
use wl::{Model, WlHeuristic};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(clap::Subcommand)]
pub enum Command {
    /// Train a model on the optimal plans (A*+LM-cut) of training problems.
    Train(TrainArgs),
    /// Solve a problem with GBFS and a trained model.
    Plan(PlanArgs),
    /// Train on a benchmark domain's training problems, then GBFS with the
    /// model and with hFF on its test problems: coverage per band.
    Run(RunArgs),
    /// Evaluations per second of a model and of hFF on the same states
    /// (random walks from test problems' initial states; best of three rounds).
    Bench(BenchArgs),
}

#[derive(clap::Args, Clone)]
pub struct TrainOpts {
    /// WL iterations (the paper's default is 4; 2 is cheaper).
    #[arg(long, default_value_t = 2)]
    pub iterations: usize,
    /// The regulariser's weight: ridge regression's penalty, or the ranker's
    /// (1 is GOOSE's rank-SVM C = 1).
    #[arg(long, default_value_t = 1.0)]
    pub lambda: f64,
    /// A*+LM-cut's wall-clock limit per training problem, in seconds.
    #[arg(long, default_value_t = 10.0)]
    pub train_time: f64,
    /// A*+LM-cut's memory limit per training problem, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub train_memory: u64,
}

impl TrainOpts {
    fn options(&self, kind: Kind) -> TrainOptions {
        TrainOptions {
            kind,
            iterations: self.iterations,
            lambda: self.lambda,
            limits: Limits::new(None, Some(self.train_time), Some(self.train_memory)),
        }
    }
}

#[derive(clap::Args)]
pub struct TrainArgs {
    /// The PDDL domain file of the training problems.
    #[arg(long)]
    pub domain: PathBuf,
    /// Training problem files.
    #[arg(long, num_args = 1.., required = true)]
    pub problems: Vec<PathBuf>,
    /// The linear model: ridge (regression of h*) or rank (pairwise ranking
    /// of each plan step's successor below its parent and siblings).
    #[arg(long, default_value = "ridge")]
    pub model: String,
    #[command(flatten)]
    pub train: TrainOpts,
    /// Where to write the model (JSON).
    #[arg(short = 'o', long)]
    pub output: PathBuf,
}

#[derive(clap::Args)]
pub struct PlanArgs {
    /// A model written by `hfarm wl train` (JSON).
    #[arg(long)]
    pub model: PathBuf,
    /// The PDDL domain file.
    pub domain: PathBuf,
    /// The PDDL problem file.
    pub problem: PathBuf,
    /// Wall-clock limit of the search, in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub time_limit: f64,
    /// Limit on the search's data structures, in MiB.
    #[arg(long, default_value_t = 4096)]
    pub memory_limit: u64,
    /// Write the plan here in IPC format.
    #[arg(long)]
    pub plan_file: Option<PathBuf>,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The folder of the track's archives.
    #[arg(long, default_value = "benchmarks/ipc2023-learning")]
    pub benchmark: PathBuf,
    /// A track domain (blocksworld, childsnack, ferry, ...).
    #[arg(long)]
    pub domain: String,
    /// Test bands to run.
    #[arg(long, num_args = 1.., default_values_t = vec!["easy".to_string()])]
    pub bands: Vec<String>,
    /// Use only the first N training problems (by name).
    #[arg(long)]
    pub max_train: Option<usize>,
    /// Run only the first N test problems of each band.
    #[arg(long)]
    pub max_test: Option<usize>,
    /// The model kinds to train and search with (ridge, rank); all are fitted
    /// on one labelling pass.
    #[arg(long, num_args = 1.., default_values_t = vec!["ridge".to_string()])]
    pub models: Vec<String>,
    #[command(flatten)]
    pub train: TrainOpts,
    /// Wall-clock limit of each test search, in seconds.
    #[arg(long, default_value_t = 60.0)]
    pub time_limit: f64,
    /// Limit on each test search's data structures, in MiB.
    #[arg(long, default_value_t = 2048)]
    pub memory_limit: u64,
    /// Also write the trained model here (with several kinds, each file
    /// gets the kind before its extension: m.json -> m.rank.json).
    #[arg(long)]
    pub model_out: Option<PathBuf>,
    /// Skip the hFF searches.
    #[arg(long)]
    pub no_ff: bool,
}

#[derive(clap::Args)]
pub struct BenchArgs {
    /// A model written by `hfarm wl train` or `wl run --model-out` (JSON).
    #[arg(long)]
    pub model: PathBuf,
    /// The folder of the track's archives.
    #[arg(long, default_value = "benchmarks/ipc2023-learning")]
    pub benchmark: PathBuf,
    /// A track domain (blocksworld, childsnack, ferry, ...).
    #[arg(long)]
    pub domain: String,
    /// The test band whose problems give the states: easy, medium or hard.
    #[arg(long, default_value = "easy")]
    pub band: String,
    /// States per test problem (a seeded random walk from its initial state).
    #[arg(long, default_value_t = 200)]
    pub states: usize,
    /// Use only the first N test problems of the band.
    #[arg(long, default_value_t = 10)]
    pub max_test: usize,
}

pub fn run(args: Args) -> Result<ExitCode> {
    match args.command {
        Command::Train(a) => train(a),
        Command::Plan(a) => plan(a),
        Command::Run(a) => run_benchmark(a),
        Command::Bench(a) => bench(a),
    }
}

fn read(path: &Path) -> Result<String> {
    planner::read_text(path).map_err(|e| anyhow!("{e}"))
}

fn read_model(path: &Path) -> Result<Arc<Model>> {
    let text = read(path)?;
    Ok(Arc::new(Model::from_json(&text, &path.display().to_string()).map_err(|e| anyhow!(e))?))
}

fn parse_kind(name: &str) -> Result<Kind> {
    Kind::parse(name).map_err(|e| anyhow!(e))
}

fn print_summary(m: &Model) {
    let s = &m.summary;
    let fit = match m.kind {
        Kind::Ridge => {
            format!("{} CG iterations, training MSE {:.4}", s.cg_iterations, s.train_mse.unwrap_or(f64::NAN))
        }
        Kind::Rank => format!(
            "{} Newton steps; {} pairs asked; of the distinct ones {} of equal features, {} ordered wrongly or tied after the fit",
            s.newton_iterations, s.pairs, s.tied_pairs, s.violated_pairs
        ),
    };
    eprintln!(
        "trained {}: {}/{} problems solved optimally, {} states, {} colours ({} iterations); \
         planning {:.1} s, features {:.2} s, fit {:.2} s ({fit})",
        m.kind.as_str(),
        s.solved,
        s.problems,
        s.states,
        s.colours,
        m.iterations(),
        s.plan_seconds,
        s.feature_seconds,
        s.fit_seconds,
    );
}

fn train(a: TrainArgs) -> Result<ExitCode> {
    let domain = read(&a.domain)?;
    let texts: Vec<(String, String)> =
        a.problems.iter().map(|p| Ok((p.display().to_string(), read(p)?))).collect::<Result<_>>()?;
    let problems: Vec<TrainingProblem<'_>> = texts.iter().map(|(f, t)| TrainingProblem { file: f, text: t }).collect();
    let kind = parse_kind(&a.model)?;
    let model = wl::train::train(&domain, &problems, a.train.options(kind), &mut |l| eprintln!("{l}"))
        .map_err(|e| anyhow!(e))?;
    print_summary(&model);
    std::fs::write(&a.output, model.to_json()).with_context(|| format!("cannot write {}", a.output.display()))?;
    Ok(ExitCode::SUCCESS)
}

/// GBFS with the model on the unpruned grounding (the one it was trained on).
fn search_wl(model: &Arc<Model>, full: &Task, limits: Limits) -> Result<SearchResult> {
    let mut h = WlHeuristic::new(model.clone(), full).map_err(|e| anyhow!(e))?;
    Ok(gbfs(full, &mut h, limits))
}

/// Checks a plan on the lifted PDDL (the validator shares no code with grounding).
fn validate(domain: &str, problem: &str, file: &str, task: &Task, r: &SearchResult) -> Result<u64> {
    let d = planner::pddl::parse_domain(domain, "domain.pddl")?;
    let p = planner::pddl::parse_problem(problem, file, &d)?;
    let text = planner::plan::format_plan(task, &r.plan);
    let steps = planner::plan::parse_plan(&text, "plan")?;
    planner::validate::validate(&d, &p, &steps).map_err(|e| anyhow!("{file}: the plan found is invalid: {e}"))
}

fn plan(a: PlanArgs) -> Result<ExitCode> {
    let model = read_model(&a.model)?;
    let domain = read(&a.domain)?;
    let problem = read(&a.problem)?;
    let file = a.problem.display().to_string();
    let full = load_for_model(&domain, &problem, &file).map_err(|e| anyhow!(e))?;
    let r = search_wl(&model, &full, Limits::new(None, Some(a.time_limit), Some(a.memory_limit)))?;
    println!(
        "{}: {} cost {} expansions {} evaluations {} time {:.3} s ({:.0} evaluations/s)",
        file,
        r.status.as_str(),
        r.cost.map_or("-".into(), |c| c.to_string()),
        r.expansions,
        r.evaluations,
        r.search_time.as_secs_f64(),
        rate(&r)
    );
    if r.status != SearchStatus::Solved {
        return Ok(ExitCode::from(1));
    }
    validate(&domain, &problem, &file, &full, &r)?;
    if let Some(p) = &a.plan_file {
        std::fs::write(p, planner::plan::format_plan(&full, &r.plan))
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn rate(r: &SearchResult) -> f64 {
    r.evaluations as f64 / r.search_time.as_secs_f64().max(1e-9)
}

#[derive(Default)]
struct Tally {
    solved: usize,
    /// Per problem in order: the plan's cost when solved.
    costs: Vec<Option<u64>>,
    evaluations: u64,
    time: Duration,
}

impl Tally {
    fn add(&mut self, r: &SearchResult) {
        self.evaluations += r.evaluations;
        self.time += r.search_time;
        let solved = r.status == SearchStatus::Solved;
        self.solved += usize::from(solved);
        self.costs.push(if solved { Some(r.cost.unwrap_or(0)) } else { None });
    }
}

fn run_benchmark(a: RunArgs) -> Result<ExitCode> {
    for b in &a.bands {
        if !BANDS.contains(&b.as_str()) {
            bail!("unknown band {b:?}: expected one of {}", BANDS.join(", "));
        }
    }
    let set = benchmark::load(&a.benchmark, &a.domain).map_err(|e| anyhow!(e))?;
    let domain = set.domain_pddl().map_err(|e| anyhow!(e))?.to_string();
    let mut training = set.training();
    training.truncate(a.max_train.unwrap_or(usize::MAX));
    let problems: Vec<TrainingProblem<'_>> =
        training.iter().map(|p| TrainingProblem { file: p.path, text: p.text }).collect();
    let mut kinds: Vec<Kind> = vec![];
    for m in &a.models {
        let k = parse_kind(m)?;
        if kinds.contains(&k) {
            bail!("model kind {m:?} is named twice");
        }
        kinds.push(k);
    }
    let t0 = Instant::now();
    let siblings = kinds.contains(&Kind::Rank);
    let o = a.train.options(kinds[0]);
    let data = wl::train::collect(&domain, &problems, o.iterations, o.limits, siblings, &mut |l| eprintln!("{l}"))
        .map_err(|e| anyhow!(e))?;
    let collect_seconds = t0.elapsed().as_secs_f64();
    let mut models = vec![];
    for &k in &kinds {
        let m = wl::train::fit(&data, k, o.lambda).map_err(|e| anyhow!(e))?;
        print_summary(&m);
        if let Some(p) = &a.model_out {
            let p = if kinds.len() == 1 { p.clone() } else { with_kind(p, k) };
            std::fs::write(&p, m.to_json()).with_context(|| format!("cannot write {}", p.display()))?;
        }
        models.push(Arc::new(m));
    }
    drop(data);
    let limits = Limits::new(None, Some(a.time_limit), Some(a.memory_limit));
    let mut header = format!("{:<12} {:<6} {:>5}", "domain", "band", "n");
    for k in &kinds {
        header += &format!(" {:>10}", format!("wl-{}", k.as_str()));
    }
    header += &format!(" {:>8}", "ff");
    for k in &kinds {
        header += &format!(" {:>16}", format!("wl-{} eval/s", k.as_str()));
    }
    header += &format!(" {:>12}", "ff eval/s");
    println!("{header}");
    for band in &a.bands {
        let mut test = set.testing(band);
        test.truncate(a.max_test.unwrap_or(usize::MAX));
        let mut w: Vec<Tally> = kinds.iter().map(|_| Tally::default()).collect();
        let mut f = Tally::default();
        for p in &test {
            let full = load_for_model(&domain, p.text, p.path).map_err(|e| anyhow!(e))?;
            let mut line = format!("{}:", p.path);
            for ((k, model), tally) in kinds.iter().zip(&models).zip(&mut w) {
                let r = search_wl(model, &full, limits)?;
                if r.status == SearchStatus::Solved {
                    validate(&domain, p.text, p.path, &full, &r)?;
                }
                tally.add(&r);
                line += &format!(" wl-{} {};", k.as_str(), outcome(&r));
            }
            if !a.no_ff {
                let pruned = load(&domain, p.text, p.path, true).map_err(|e| anyhow!(e))?;
                let r = gbfs(&pruned, &mut Ff::new(&pruned), limits);
                if r.status == SearchStatus::Solved {
                    validate(&domain, p.text, p.path, &pruned, &r)?;
                }
                f.add(&r);
                line += &format!(" ff {}", outcome(&r));
            }
            eprintln!("{line}");
        }
        let r = |t: &Tally| t.evaluations as f64 / t.time.as_secs_f64().max(1e-9);
        let mut row = format!("{:<12} {:<6} {:>5}", a.domain, band, test.len());
        for t in &w {
            row += &format!(" {:>10}", t.solved);
        }
        row += &format!(" {:>8}", if a.no_ff { "-".into() } else { f.solved.to_string() });
        for t in &w {
            row += &format!(" {:>16.0}", r(t));
        }
        row += &format!(" {:>12}", if a.no_ff { "-".into() } else { format!("{:.0}", r(&f)) });
        println!("{row}");
        // Plan cost summed over the problems every searcher solved, so the
        // sums compare like with like.
        println!("{}", cost_line(&kinds, &w, &f, a.no_ff));
    }
    println!("training: {collect_seconds:.1} s wall (labelling and features, shared by the kinds)");
    Ok(ExitCode::SUCCESS)
}

/// m.json -> m.rank.json (a name without an extension gets .rank).
fn with_kind(p: &Path, k: Kind) -> PathBuf {
    match p.extension() {
        Some(ext) => p.with_extension(format!("{}.{}", k.as_str(), ext.to_string_lossy())),
        None => p.with_extension(k.as_str()),
    }
}

fn outcome(r: &SearchResult) -> String {
    format!(
        "{} cost {} evals {} {:.2} s",
        r.status.as_str(),
        r.cost.map_or("-".into(), |c| c.to_string()),
        r.evaluations,
        r.search_time.as_secs_f64()
    )
}

fn cost_line(kinds: &[Kind], w: &[Tally], f: &Tally, no_ff: bool) -> String {
    let mut all: Vec<(&str, &Tally)> = kinds.iter().map(|k| k.as_str()).zip(w).collect();
    if !no_ff {
        all.push(("ff", f));
    }
    let n = all.first().map_or(0, |(_, t)| t.costs.len());
    let common: Vec<usize> = (0..n).filter(|&i| all.iter().all(|(_, t)| t.costs[i].is_some())).collect();
    let mut line = format!("plan cost on the {} problems all solved:", common.len());
    for (name, t) in &all {
        line += &format!(" {name} {}", common.iter().map(|&i| t.costs[i].unwrap_or(0)).sum::<u64>());
    }
    line
}

/// Up to `n` states along a random walk from the initial state (seeded,
/// restarting from the initial state at dead ends).
fn walk(task: &Task, n: usize, seed: u64) -> Vec<Vec<u64>> {
    // splitmix64 as the generator: stable across platforms and versions.
    let mut rng = seed;
    let mut pick = |n: usize| {
        rng = rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        (wl::refine::mix(rng) % n as u64) as usize
    };
    let gen = planner::successors::SuccessorGenerator::new(task);
    let init = planner::state::initial_state(task);
    let mut s = init.clone();
    let mut next = s.clone();
    let mut ops = vec![];
    let mut out = vec![s.clone()];
    while out.len() < n {
        gen.applicable(task, &s, &mut ops);
        if ops.is_empty() {
            s = init.clone();
            continue;
        }
        planner::successors::apply(task, &s, ops[pick(ops.len())], &mut next);
        std::mem::swap(&mut s, &mut next);
        out.push(s.clone());
    }
    out
}

fn bench(a: BenchArgs) -> Result<ExitCode> {
    let model = read_model(&a.model)?;
    let set = benchmark::load(&a.benchmark, &a.domain).map_err(|e| anyhow!(e))?;
    let domain = set.domain_pddl().map_err(|e| anyhow!(e))?.to_string();
    let mut test = set.testing(&a.band);
    if test.is_empty() {
        bail!("{} has no test problems in band {:?}", a.domain, a.band);
    }
    test.truncate(a.max_test);
    let (mut n, mut t_wl, mut t_ff, mut dead_ends) = (0usize, Duration::ZERO, Duration::ZERO, 0usize);
    for (i, p) in test.iter().enumerate() {
        // One task for both, so both see exactly the same states: the
        // unpruned grounding the model reads (hFF's exploration is over the
        // same operators).
        let full = load_for_model(&domain, p.text, p.path).map_err(|e| anyhow!(e))?;
        let states = walk(&full, a.states, i as u64);
        let mut wl = WlHeuristic::new(model.clone(), &full).map_err(|e| anyhow!(e))?;
        let mut ff = Ff::new(&full);
        let (mut sw, mut sf) = (0.0, 0.0);
        // The best of three alternating rounds per heuristic: on a shared
        // machine a slow round says more about the neighbours than about
        // the heuristic.
        let (mut best_wl, mut best_ff) = (Duration::MAX, Duration::MAX);
        for _ in 0..3 {
            let t = Instant::now();
            sw = states.iter().map(|s| wl.evaluate(s)).sum::<f64>();
            best_wl = best_wl.min(t.elapsed());
            let t = Instant::now();
            sf = states.iter().map(|s| ff.evaluate(s).min(1e9)).sum::<f64>();
            best_ff = best_ff.min(t.elapsed());
        }
        t_wl += best_wl;
        t_ff += best_ff;
        dead_ends += states.iter().filter(|s| ff.evaluate(s).is_infinite()).count();
        n += states.len();
        eprintln!(
            "{}: {} states, {} facts, {} operators; mean wl {:.1}, mean ff {:.1}",
            p.path,
            states.len(),
            full.facts.len(),
            full.operators.len(),
            sw / states.len() as f64,
            sf / states.len() as f64
        );
    }
    let rw = n as f64 / t_wl.as_secs_f64().max(1e-9);
    let rf = n as f64 / t_ff.as_secs_f64().max(1e-9);
    println!(
        "{} {}: {} states ({} hFF dead ends); wl ({} iterations, {} colours) {:.0} evaluations/s, ff {:.0} evaluations/s (wl/ff {:.2})",
        a.domain,
        a.band,
        n,
        dead_ends,
        model.iterations(),
        model.dictionary.len(),
        rw,
        rf,
        rw / rf
    );
    Ok(ExitCode::SUCCESS)
}
