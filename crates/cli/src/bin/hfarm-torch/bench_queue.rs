//! `hfarm bench queue`: the farm's own overhead, with no-op jobs through the
//! real Redis and PostgreSQL on this machine, beside redis-benchmark's raw
//! rate measured right after on the same servers (`jobs_per_lpush`: the
//! farm's rate as a share of Redis's LPUSH alone). Uses a throwaway
//! database on the server of `DATABASE_URL` (`HFARM_TEST_DATABASE_URL`
//! wins), dropped afterwards.

use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::{Job, JobSpec};
use schema::JobStatus;

fn redis_benchmark_rate() -> Option<(f64, f64)> {
    let out = Command::new("redis-benchmark")
        .args(["-h", "127.0.0.1", "-p", "6379", "-t", "lpush,rpop", "-n", "100000", "-q"])
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let rate = |name: &str| {
        text.lines()
            .flat_map(|l| l.split('\r'))
            .filter(|l| l.starts_with(name))
            .filter_map(|l| l.split_whitespace().nth(1)?.parse::<f64>().ok())
            .next_back()
    };
    Some((rate("LPUSH:")?, rate("RPOP:")?))
}

pub fn run(n: u64, slots: usize, json: bool) -> Result<ExitCode> {
    let rt = hfarm_cli::commands::farm::runtime()?;
    let redis_url = std::env::var("REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into());
    let summary = rt.block_on(async {
        // A throwaway database (dropped with `db`) and a private key prefix.
        let db = schema::testing::TestDatabase::try_create("hfarm_bench").await?;
        let pool = db.pool.clone();
        let queue = queue::Queue::connect(&redis_url, &db.name).await.context("connecting to Redis")?;
        let jobs: Vec<Job> = (0..n).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
        let e = schema::create_experiment(&pool, "queue-bench", "", "").await?;
        schema::submit_jobs(&pool, e, &jobs, false).await?;

        let (stop_tx, stop) = tokio::sync::watch::channel(false);
        let start = Instant::now();
        // The scheduler as `hfarm serve` runs it: a tenth of its tick made
        // its idle passes (a few statements each) a large share of the
        // database's work, which no farm does.
        let cfg = SchedulerConfig::default();
        let sched = tokio::spawn(run_scheduler(pool.clone(), queue.clone(), cfg, stop.clone()));
        let wcfg = worker::WorkerConfig {
            concurrency: slots,
            lease_s: 60.0,
            ..worker::WorkerConfig::in_process("bench", "cpu")
        };
        let work = tokio::spawn(worker::run_worker(pool.clone(), queue.clone(), wcfg, stop.clone()));
        while schema::status_counts(&pool, e).await?[JobStatus::Succeeded] < n as i64 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let elapsed = start.elapsed().as_secs_f64();
        stop_tx.send(true).ok();
        let _ = tokio::join!(sched, work);
        let (p50, p99) = schema::metrics::enqueue_to_start_ms(&pool).await?;
        // A stall shows as a long stretch with no job starting.
        let (gap_s, gap_after) = schema::metrics::longest_start_gap(&pool).await?;
        pool.close().await;
        Ok::<_, anyhow::Error>(serde_json::json!({
            "summary": "queue", "jobs": n, "slots": slots, "seconds": elapsed, "jobs_per_s": n as f64 / elapsed,
            "enqueue_to_start_ms_p50": p50, "enqueue_to_start_ms_p99": p99,
            "longest_start_gap_s": gap_s, "longest_start_gap_after_jobs": gap_after,
        }))
    });
    let mut summary = summary?;
    if let Some((lpush, rpop)) = redis_benchmark_rate() {
        summary["redis_benchmark_lpush_per_s"] = lpush.into();
        summary["redis_benchmark_rpop_per_s"] = rpop.into();
        if let Some(rate) = summary["jobs_per_s"].as_f64() {
            summary["jobs_per_lpush"] = (rate / lpush).into();
        }
    } else {
        eprintln!("redis-benchmark not found: no raw Redis rate to compare with");
    }
    if json {
        println!("{summary}");
    } else {
        println!("{}", serde_json::to_string_pretty(&summary)?);
    }
    Ok(ExitCode::SUCCESS)
}
