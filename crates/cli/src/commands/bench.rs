//! `hfarm bench`: the planner's speed beside Fast Downward's on a fixed suite.
//!
//! A suite is a folder of `<domain>/domain.pddl` plus problem files. For each
//! instance we time our planner in this process (parse, ground, search) and,
//! when Fast Downward is found, its driver as a subprocess, reading its own
//! "Search time" and counters from the log. Ratios are taken in the same run,
//! on the same machine, so machine noise affects both sides alike.
//!
//! Fast Downward is found through `FD_DRIVER` (path to `fast-downward.py`),
//! else in the site-packages of `FD_PYTHON` (default `python3`) where
//! `pip install up-fast-downward` put it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

use anyhow::{bail, Context, Result};
use planner::heuristics;
use planner::search::{astar, gbfs, Limits, SearchStatus};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Which {
    /// Optimal search: A* with LM-cut.
    AstarLmcut,
    /// Greedy search: eager GBFS with hFF, evaluations per second.
    GbfsFf,
    /// The farm's queue: no-op jobs through Redis and PostgreSQL (needs both).
    Queue,
    /// The farm at a grid's size (--grid, default the paper's 93k jobs): submit, resubmit, API and dashboard
    /// calls idle and beside a fleet of --slots claiming --jobs no-op jobs, the idle scheduler's CPU.
    Scale,
    /// NLM training steps per second on a fixed random batch (--device cpu|cuda).
    Nlm,
    /// GBFS guided by briefly trained models: evaluations per second on CPU.
    LearnedGbfs,
    /// Real training runs (each model, gripper and blocksworld): steps per second (--device cpu|cuda).
    Train,
    /// R runs trained as one stacked group vs one after another: run-steps per second (--model, --runs, --device).
    TrainGroup,
    /// The training loss alone, forward and backward, Gaussian vs truncated Gaussian (--batch, --steps, --device).
    Loss,
    /// S learned GBFS searches with shared forward passes vs one after another (--model, --searches, --budget, --device).
    PlanMany,
}

impl Which {
    /// Whether this benchmark trains or runs models, or runs a worker (which
    /// may): these run in `hfarm-torch` (see the crate's lib.rs).
    pub fn needs_models(self) -> bool {
        !matches!(self, Which::AstarLmcut | Which::GbfsFf)
    }
}

/// The planner benchmarks run over a suite of PDDL instances.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Suite {
    AstarLmcut,
    GbfsFf,
}

impl Suite {
    fn folder(self) -> &'static str {
        match self {
            Suite::AstarLmcut => "benchmarks/astar-lmcut",
            Suite::GbfsFf => "benchmarks/gbfs-ff",
        }
    }
}

#[derive(clap::Args)]
pub struct Args {
    /// What to measure (each value's help says how and against what).
    #[arg(value_enum)]
    pub which: Which,
    /// Suite folder (default: benchmarks/astar-lmcut or benchmarks/gbfs-ff).
    #[arg(long)]
    pub suite: Option<PathBuf>,
    /// Do not run Fast Downward even if it is installed.
    #[arg(long)]
    pub no_fd: bool,
    /// Print one JSON object per instance and a summary object.
    #[arg(long)]
    pub json: bool,
    /// queue, scale: number of no-op jobs.
    #[arg(long, default_value_t = 20_000)]
    pub jobs: u64,
    /// queue, scale: worker slots pulling at once.
    #[arg(long, default_value_t = 8)]
    pub slots: usize,
    /// scale: the grid recorded.
    #[arg(long, default_value = "grids/ijcai24.toml")]
    pub grid: PathBuf,
    /// nlm: objects per instance.
    #[arg(long, default_value_t = 12)]
    pub objects: i64,
    /// nlm, loss: batch size.
    #[arg(long, default_value_t = 256)]
    pub batch: i64,
    /// nlm, loss: timed training steps.
    #[arg(long, default_value_t = 30)]
    pub steps: u64,
    /// nlm, train, train-group, loss: cpu or cuda.
    #[arg(long, default_value = "cpu")]
    pub device: String,
    /// train-group: the model (nlm or linear; the HGN trains alone).
    #[arg(long, default_value = "nlm")]
    pub model: String,
    /// train-group: runs in the group.
    #[arg(long, default_value_t = 8)]
    pub runs: usize,
    /// plan-many: searches run at once.
    #[arg(long, default_value_t = 32)]
    pub searches: usize,
    /// plan-many: evaluations per search.
    #[arg(long, default_value_t = 300)]
    pub budget: u64,
    /// plan-many: gripper balls of the test instances (the paper's test sizes are 20..60).
    #[arg(long, default_value_t = 20)]
    pub balls: u32,
}

struct Fd {
    python: String,
    driver: PathBuf,
}

/// A path given relative to where the bench started (`FD_PYTHON=.venv-ref/bin/python`)
/// made absolute: Fast Downward runs in a folder of its own, where it would
/// name nothing. A bare command name (`python3`) is left for PATH to find.
fn absolute(path: String) -> String {
    match std::env::current_dir() {
        Ok(cwd) if path.contains('/') && !path.starts_with('/') => cwd.join(&path).display().to_string(),
        _ => path,
    }
}

fn find_fd() -> Option<Fd> {
    let python = absolute(std::env::var("FD_PYTHON").unwrap_or_else(|_| "python3".to_string()));
    if let Ok(d) = std::env::var("FD_DRIVER") {
        return Some(Fd { python, driver: absolute(d).into() });
    }
    let probe = "import importlib.util, os; s = importlib.util.find_spec('up_fast_downward'); \
                 print(os.path.join(os.path.dirname(s.origin), 'downward', 'fast-downward.py') if s else '')";
    let out = Command::new(&python).args(["-c", probe]).output().ok()?;
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (!path.is_empty() && Path::new(&path).exists()).then(|| Fd { python, driver: path.into() })
}

/// CPU time of this process: Fast Downward reports CPU time, so we compare like with like.
pub fn process_cpu_time() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes into the timespec we own; the clock id is a constant.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

#[derive(Default, serde::Serialize)]
struct FdRun {
    status: String,
    cost: Option<u64>,
    expansions: Option<u64>,
    evaluations: Option<u64>,
    search_time_s: Option<f64>,
    driver_wall_s: f64,
}

fn last_number(log: &str, prefix: &str) -> Option<f64> {
    log.lines().rev().find_map(|l| {
        let at = l.find(prefix)?;
        let rest = &l[at + prefix.len()..];
        let num: String =
            rest.trim_start().chars().take_while(|c| c.is_ascii_digit() || *c == '.' || *c == 'e').collect();
        num.parse().ok()
    })
}

fn run_fd(fd: &Fd, domain: &Path, problem: &Path, search: &str) -> Result<FdRun> {
    let dir = std::env::temp_dir().join(format!("hfarm-bench-fd-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let start = Instant::now();
    let out = Command::new(&fd.python)
        .current_dir(&dir)
        .arg(&fd.driver)
        .arg(std::fs::canonicalize(domain)?)
        .arg(std::fs::canonicalize(problem)?)
        .args(["--search", search])
        .output()
        .with_context(|| format!("running {} {}", fd.python, fd.driver.display()))?;
    let wall = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    let log = String::from_utf8_lossy(&out.stdout);
    let status = match out.status.code() {
        Some(0) => "solved",
        Some(11) | Some(12) => "unsolvable",
        Some(23) => "time_limit",
        Some(22) => "memory_limit",
        _ => "error",
    };
    Ok(FdRun {
        status: status.to_string(),
        cost: last_number(&log, "Plan cost:").map(|c| c as u64),
        expansions: last_number(&log, "Expanded ").map(|c| c as u64),
        evaluations: last_number(&log, "Evaluated ").map(|c| c as u64),
        search_time_s: last_number(&log, "Search time:"),
        driver_wall_s: wall,
    })
}

#[derive(serde::Serialize)]
struct Row {
    instance: String,
    status: &'static str,
    cost: Option<u64>,
    expansions: u64,
    evaluations: u64,
    search_time_s: f64,
    search_cpu_s: f64,
    end_to_end_s: f64,
    evaluations_per_s: f64,
    fd: Option<FdRun>,
}

fn suite_instances(suite: &Path) -> Result<Vec<(PathBuf, PathBuf)>> {
    let mut out = vec![];
    let mut domains: Vec<PathBuf> = std::fs::read_dir(suite)
        .with_context(|| format!("reading suite {}", suite.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    domains.sort();
    for d in domains {
        let domain_file = d.join("domain.pddl");
        if !domain_file.exists() {
            continue;
        }
        let mut problems: Vec<PathBuf> = std::fs::read_dir(&d)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "pddl") && p.file_name().is_some_and(|n| n != "domain.pddl"))
            .collect();
        problems.sort();
        out.extend(problems.into_iter().map(|p| (domain_file.clone(), p)));
    }
    if out.is_empty() {
        bail!("no instances in {} (expected <domain>/domain.pddl and problem files)", suite.display());
    }
    Ok(out)
}

/// The planner suites (no model: the lean `hfarm` runs these).
pub fn run(a: Args) -> Result<ExitCode> {
    let suite = match a.which {
        Which::AstarLmcut => Suite::AstarLmcut,
        Which::GbfsFf => Suite::GbfsFf,
        _ => bail!("internal: `bench {:?}` runs models and belongs to hfarm-torch", a.which),
    };
    let folder = a.suite.clone().unwrap_or_else(|| PathBuf::from(suite.folder()));
    let fd = if a.no_fd { None } else { find_fd() };
    if fd.is_none() && !a.no_fd && !a.json {
        println!("Fast Downward not found (set FD_PYTHON or FD_DRIVER; pip install up-fast-downward): ours only.");
    }
    let (fd_search, heuristic) = match suite {
        Suite::AstarLmcut => ("astar(lmcut())", "lmcut"),
        Suite::GbfsFf => ("eager_greedy([ff()])", "ff"),
    };
    let mut rows = vec![];
    for (domain, problem) in suite_instances(&folder)? {
        let start = Instant::now();
        let task = planner::load_task(&domain, &problem)?;
        let mut h = heuristics::by_name(heuristic, &task).ok_or_else(|| anyhow::anyhow!("no heuristic {heuristic}"))?;
        let cpu = process_cpu_time();
        let r = match suite {
            Suite::AstarLmcut => astar(&task, h.as_mut(), Limits::default()),
            Suite::GbfsFf => gbfs(&task, h.as_mut(), Limits::default()),
        };
        let search_cpu = process_cpu_time() - cpu;
        let end_to_end = start.elapsed().as_secs_f64();
        let fd_run = fd.as_ref().map(|fd| run_fd(fd, &domain, &problem, fd_search)).transpose()?;
        let search = r.search_time.as_secs_f64();
        let name = problem.strip_prefix(&folder).unwrap_or(&problem).display().to_string();
        let row = Row {
            instance: name,
            status: r.status.as_str(),
            cost: r.cost,
            expansions: r.expansions,
            evaluations: r.evaluations,
            search_time_s: search,
            search_cpu_s: search_cpu,
            end_to_end_s: end_to_end,
            evaluations_per_s: r.evaluations as f64 / search_cpu.max(1e-9),
            fd: fd_run,
        };
        if let (Some(f), SearchStatus::Solved, Suite::AstarLmcut) = (&row.fd, r.status, suite) {
            if f.cost.is_some() && f.cost != row.cost {
                bail!("{}: optimal cost {:?} differs from Fast Downward's {:?}", row.instance, row.cost, f.cost);
            }
        }
        if a.json {
            println!("{}", serde_json::to_string(&row)?);
        } else {
            print_row(&row, suite);
        }
        rows.push(row);
    }
    summarize(&rows, suite, a.json)?;
    Ok(ExitCode::SUCCESS)
}

fn print_row(r: &Row, suite: Suite) {
    let fd = r.fd.as_ref();
    match suite {
        Suite::AstarLmcut => println!(
            "{:40} {:>10} cost {:>4} exp {:>9} search(cpu) {:>8.3}s fd {:>8}s ratio {:>6} | e2e {:>7.3}s fd-driver {:>7}s speedup {:>6}",
            r.instance,
            r.status,
            r.cost.map_or("-".into(), |c| c.to_string()),
            r.expansions,
            r.search_cpu_s,
            fd.and_then(|f| f.search_time_s).map_or("-".into(), |t| format!("{t:.3}")),
            fd.and_then(|f| f.search_time_s).map_or("-".into(), |t| format!("{:.2}", r.search_cpu_s / t.max(1e-9))),
            r.end_to_end_s,
            fd.map_or("-".into(), |f| format!("{:.3}", f.driver_wall_s)),
            fd.map_or("-".into(), |f| format!("{:.1}x", f.driver_wall_s / r.end_to_end_s.max(1e-9))),
        ),
        Suite::GbfsFf => println!(
            "{:40} {:>10} evals {:>8} {:>10.0}/s  fd evals {:>8} {:>10}/s",
            r.instance,
            r.status,
            r.evaluations,
            r.evaluations_per_s,
            fd.and_then(|f| f.evaluations).map_or("-".into(), |e| e.to_string()),
            fd.and_then(|f| Some(f.evaluations? as f64 / f.search_time_s?.max(1e-9)))
                .map_or("-".into(), |e| format!("{e:.0}")),
        ),
    }
}

fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    (!v.is_empty()).then(|| v[v.len() / 2])
}

fn summarize(rows: &[Row], suite: Suite, json: bool) -> Result<()> {
    let ours_search: f64 = rows.iter().map(|r| r.search_cpu_s).sum();
    let ours_e2e: f64 = rows.iter().map(|r| r.end_to_end_s).sum();
    let ours_evals: u64 = rows.iter().map(|r| r.evaluations).sum();
    let with_fd: Vec<&Row> = rows.iter().filter(|r| r.fd.as_ref().is_some_and(|f| f.search_time_s.is_some())).collect();
    let fd_search: f64 = with_fd.iter().filter_map(|r| r.fd.as_ref()?.search_time_s).sum();
    let ours_search_matched: f64 = with_fd.iter().map(|r| r.search_cpu_s).sum();
    let fd_evals: u64 = with_fd.iter().filter_map(|r| r.fd.as_ref()?.evaluations).sum();
    let ours_evals_matched: u64 = with_fd.iter().map(|r| r.evaluations).sum();
    let speedups: Vec<f64> =
        with_fd.iter().map(|r| r.fd.as_ref().map_or(0.0, |f| f.driver_wall_s) / r.end_to_end_s.max(1e-9)).collect();
    let geo = if speedups.is_empty() {
        None
    } else {
        Some((speedups.iter().map(|s| s.ln()).sum::<f64>() / speedups.len() as f64).exp())
    };
    let summary = serde_json::json!({
        "summary": suite.folder().trim_start_matches("benchmarks/"),
        "instances": rows.len(),
        "ours_search_cpu_s": ours_search,
        "ours_end_to_end_s": ours_e2e,
        "ours_evaluations_per_s": ours_evals as f64 / ours_search.max(1e-9),
        "fd_instances": with_fd.len(),
        "fd_search_cpu_s": fd_search,
        "search_time_ratio": (fd_search > 0.0).then(|| ours_search_matched / fd_search),
        "fd_evaluations_per_s": (fd_search > 0.0).then(|| fd_evals as f64 / fd_search),
        "evaluations_per_s_ratio": (fd_search > 0.0 && ours_search_matched > 0.0)
            .then(|| (ours_evals_matched as f64 / ours_search_matched) / (fd_evals as f64 / fd_search)),
        "end_to_end_speedup_geomean": geo,
        "end_to_end_speedup_min": speedups.iter().cloned().reduce(f64::min),
        "end_to_end_speedup_median": median(&speedups),
        "end_to_end_at_least_10x": speedups.iter().filter(|&&s| s >= 10.0).count(),
    });
    if json {
        println!("{summary}");
    } else {
        println!("---");
        println!("{}", serde_json::to_string_pretty(&summary)?);
    }
    Ok(())
}
