//! `hfarm bench scale`: the farm at a full grid's size. In a throwaway
//! database (on the server of `DATABASE_URL`, `HFARM_TEST_DATABASE_URL`
//! wins; dropped afterwards) and a private Redis prefix, it records a grid
//! (default `grids/ijcai24.toml`, 93k jobs) and measures what its users wait
//! for: submitting, resubmitting (which creates nothing), every read of the
//! status API and the dashboard over real HTTP, the scheduler's CPU while
//! nothing happens (PostgreSQL's processes included), and the same reads
//! while a fleet of worker slots claims no-op jobs.
//!
//! Each role has its own connection pool, as its own process would: the
//! server (API and scheduler), each simulated worker process of at most
//! [`SLOTS_PER_WORKER`] slots, and the benchmark's own progress reads.
//!
//! Issue 30's goals, for reading the figures: submit < 30 s, resubmit
//! < 10 s, each call < 300 ms at p95, the idle scheduler < 5% of one core.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::{Job, JobSpec};
use schema::JobStatus;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Calls per endpoint while the farm is idle.
const CALLS: usize = 30;
/// How long the idle scheduler is watched.
const IDLE_WINDOW: Duration = Duration::from_secs(20);
/// Slots per simulated worker process: 500 slots are 4 processes, whose
/// pools (16 connections each) fit PostgreSQL's default 100 connections
/// beside the server's. A real fleet of many small machines needs a
/// connection pooler in front of PostgreSQL.
const SLOTS_PER_WORKER: usize = 128;

pub fn run(grid: &std::path::Path, noop_jobs: u64, slots: usize, json: bool) -> Result<ExitCode> {
    let file = grid.display().to_string();
    let text = std::fs::read_to_string(grid).with_context(|| format!("cannot read {file}"))?;
    let redis_url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let summary = hfarm_cli::commands::farm::runtime()?.block_on(async {
        let db = schema::testing::TestDatabase::try_create("hfarm_bench_scale").await?;
        let pool = db.pool.clone();
        let queue = queue::Queue::connect(&redis_url, &db.name).await.context("connecting to Redis")?;
        let (model, _) = coordinator::submit::cost_model(Some(&pool)).await;

        let t = Instant::now();
        let first = coordinator::submit(Some(&pool), &text, &file, false, &model).await?;
        let submit_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let again = coordinator::submit(Some(&pool), &text, &file, false, &model).await?;
        let resubmit_s = t.elapsed().as_secs_f64();
        let (Some(experiment), Some(created)) = (first.experiment, first.new) else { bail!("the grid was not recorded") };
        if again.new != Some(0) {
            bail!("resubmitting created {:?} jobs, expected none", again.new);
        }
        eprintln!("recorded {created} jobs in {submit_s:.1} s, resubmitted in {resubmit_s:.1} s");

        let server_pool = schema::connect(&db.url).await?;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let state = coordinator::AppState { pool: server_pool.clone(), token: None, queue: Some(queue.clone()) };
        let api = hfarm_cli::commands::farm::serve_api(listener, state, stop.clone());
        let listing = get(addr, &format!("/api/jobs?experiment={experiment}&limit=1")).await?.1;
        let listing: Value = serde_json::from_str(&listing).context("the job listing")?;
        let Some(key) = listing.pointer("/0/key").and_then(Value::as_str).map(str::to_string) else {
            bail!("the job listing has no job: {listing}")
        };
        let paths = endpoints(experiment, &key);

        // The scheduler from the start: its first passes announce the ready
        // jobs; the window is measured once that has settled.
        let sched =
            tokio::spawn(run_scheduler(server_pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));
        tokio::time::sleep(Duration::from_secs(5)).await;

        let mut idle_calls = serde_json::Map::new();
        for (name, path) in &paths {
            let mut ms = vec![];
            for _ in 0..CALLS {
                ms.push(get(addr, path).await.with_context(|| format!("GET {path}"))?.0);
            }
            idle_calls.insert(name.to_string(), percentiles(ms));
        }

        let before = Cpu::now();
        tokio::time::sleep(IDLE_WINDOW).await;
        let after = Cpu::now();
        let window_s = after.at.duration_since(before.at).as_secs_f64();

        // The fleet: the grid's own jobs cancelled so the slots take only
        // no-op jobs, which go through claim, heartbeat and completion as
        // every job does.
        schema::bulk::cancel_experiment(&pool, experiment, &Default::default(), true).await?;
        let noops: Vec<Job> = (0..noop_jobs).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
        let fleet_exp = schema::create_experiment(&pool, "scale-bench-fleet", "", "").await?;
        schema::submit_jobs(&pool, fleet_exp, &noops, false).await?;
        let mut fleet = vec![];
        for (i, n) in split(slots, SLOTS_PER_WORKER).into_iter().enumerate() {
            let wcfg = worker::WorkerConfig {
                concurrency: n,
                lease_s: 60.0,
                ..worker::WorkerConfig::in_process(&format!("scale-{i}"), "cpu")
            };
            fleet.push((schema::connect(&db.url).await?, wcfg));
        }
        let start = Instant::now();
        let mut pools = vec![pool.clone(), server_pool.clone()];
        let work: Vec<_> = fleet
            .into_iter()
            .map(|(p, wcfg)| {
                pools.push(p.clone());
                tokio::spawn(worker::run_worker(p, queue.clone(), wcfg, stop.clone()))
            })
            .collect();
        let mut busy: Vec<Vec<f64>> = vec![vec![]; paths.len()];
        while schema::status_counts(&pool, fleet_exp).await?[JobStatus::Succeeded] < noop_jobs as i64 {
            if start.elapsed() > Duration::from_secs(600) {
                bail!("the fleet did not finish {noop_jobs} no-op jobs in 10 minutes");
            }
            for (i, (_, path)) in paths.iter().enumerate() {
                busy[i].push(get(addr, path).await.with_context(|| format!("GET {path}"))?.0);
            }
        }
        let fleet_s = start.elapsed().as_secs_f64();
        stop_tx.send(true).ok();
        let _ = sched.await;
        for w in work {
            let _ = w.await;
        }
        api.await.context("API task")?.context("API")?;
        let busy_calls: serde_json::Map<String, Value> =
            paths.iter().zip(busy).map(|((name, _), ms)| (name.to_string(), percentiles(ms))).collect();
        for p in pools {
            p.close().await;
        }
        Ok::<_, anyhow::Error>(json!({
            "summary": "scale", "grid": file, "jobs": created,
            "submit_s": submit_s, "resubmit_s": resubmit_s,
            "api_idle_ms": idle_calls,
            "scheduler_idle": {
                "window_s": window_s,
                "hfarm_core_share": (after.own_s - before.own_s) / window_s,
                "postgres_core_share": (after.postgres_s - before.postgres_s) / window_s,
                "postgres_processes": after.postgres_processes,
            },
            "fleet": {"slots": slots, "worker_processes": split(slots, SLOTS_PER_WORKER).len(), "noop_jobs": noop_jobs, "seconds": fleet_s, "jobs_per_s": noop_jobs as f64 / fleet_s},
            "api_under_fleet_ms": busy_calls,
        }))
    })?;
    if json {
        println!("{summary}");
    } else {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    }
    Ok(ExitCode::SUCCESS)
}

/// What the dashboard and a terminal user read, by name.
fn endpoints(experiment: uuid::Uuid, key: &str) -> Vec<(&'static str, String)> {
    let e = experiment;
    vec![
        ("dashboard_page", "/".into()),
        ("experiment_list", "/api/experiments".into()),
        ("experiment_status", format!("/api/experiments/{e}")),
        ("matrix", format!("/api/experiments/{e}/matrix")),
        ("accuracy_table", format!("/api/experiments/{e}/report/accuracy")),
        ("planning_table", format!("/api/experiments/{e}/report/planning")),
        ("curves_svg", format!("/api/experiments/{e}/curves.svg")),
        ("dead_jobs", format!("/api/jobs?experiment={e}&status=dead")),
        ("one_job", format!("/api/jobs/{key}")),
        ("workers", "/api/workers".into()),
        ("metrics", "/metrics".into()),
    ]
}

/// One GET over a fresh connection, as a browser's first request: its
/// milliseconds and its body. Anything but 200 is an error.
async fn get(addr: std::net::SocketAddr, path: &str) -> Result<(f64, String)> {
    let t = Instant::now();
    let mut s = tokio::net::TcpStream::connect(addr).await?;
    s.write_all(format!("GET {path} HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n").as_bytes()).await?;
    let mut body = vec![];
    s.read_to_end(&mut body).await?;
    let ms = t.elapsed().as_secs_f64() * 1e3;
    let text = String::from_utf8_lossy(&body).into_owned();
    if !text.starts_with("HTTP/1.1 200") {
        bail!("answered {}", text.lines().next().unwrap_or(""));
    }
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).to_string();
    Ok((ms, body))
}

/// `total` slots as processes of at most `most` each, as even as can be.
fn split(total: usize, most: usize) -> Vec<usize> {
    let n = total.div_ceil(most).max(1);
    (0..n).map(|i| total / n + usize::from(i < total % n)).collect()
}

fn percentiles(mut ms: Vec<f64>) -> Value {
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| ms.get(((ms.len() as f64 - 1.0) * q).round() as usize).copied().unwrap_or(f64::NAN);
    json!({"calls": ms.len(), "p50": at(0.5), "p95": at(0.95), "max": at(1.0)})
}

/// CPU seconds used so far by this process and by every process named
/// `postgres` on this machine (the server the benchmark talks to is local;
/// another database's work on it is counted too, so run it on a quiet server).
struct Cpu {
    at: Instant,
    own_s: f64,
    postgres_s: f64,
    postgres_processes: usize,
}

impl Cpu {
    fn now() -> Cpu {
        let (postgres_s, postgres_processes) = postgres_cpu_s();
        Cpu {
            at: Instant::now(),
            own_s: hfarm_cli::commands::bench::process_cpu_time(),
            postgres_s,
            postgres_processes,
        }
    }
}

/// User and system seconds of the `postgres` processes alive now (from
/// /proc), and how many there are.
fn postgres_cpu_s() -> (f64, usize) {
    // /proc counts in USER_HZ, which Linux fixes at 100 on every platform it exports to user space.
    let ticks = 100.0;
    let (mut total, mut n) = (0.0, 0);
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let dir = entry.path();
        if !std::fs::read_to_string(dir.join("comm")).is_ok_and(|c| c.trim() == "postgres") {
            continue;
        }
        let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else { continue };
        // Fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let Some(rest) = stat.rsplit_once(')').map(|r| r.1) else { continue };
        let f: Vec<&str> = rest.split_whitespace().collect();
        if let (Some(u), Some(s)) =
            (f.get(11).and_then(|v| v.parse::<f64>().ok()), f.get(12).and_then(|v| v.parse::<f64>().ok()))
        {
            total += (u + s) / ticks;
            n += 1;
        }
    }
    (total, n)
}
