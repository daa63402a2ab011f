//! Routing through the real Redis and PostgreSQL: jobs that prefer a GPU
//! (`jobs::spec::Lane::GpuPreferred`, the relational models' learned plan
//! jobs) run on whatever slot is free while no worker has CUDA, and stay
//! with the GPU while one does; on a CPU-only farm the quick grid runs with
//! no slot idle while a job it may take is queued.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::spec::Lane;
use jobs::{Job, JobSpec, Resource};
use queue::Queue;
use schema::testing::TestDatabase;
use schema::JobStatus;
use support::servers::{redis_url, TestKeys};
use worker::run::run_worker_advertising;
use worker::{TrainGroups, WorkerConfig};

/// Submits `n` no-op jobs from `first` on, placed on the GPU class: a CPU
/// kind placed on the GPU is exactly what a GPU-preferring job is (its lane
/// is computed from kind and class, as for learned plan jobs), without a
/// model to train first.
async fn gpu_preferring(db: &TestDatabase, first: u64, n: u64) -> uuid::Uuid {
    let jobs: Vec<Job> = (first..first + n).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
    let e = schema::create_experiment(&db.pool, "routing", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    let keys: Vec<String> = jobs.iter().map(|j| j.key.to_string()).collect();
    sqlx::query("UPDATE jobs SET resource = 'gpu' WHERE key = ANY($1)").bind(&keys).execute(&db.pool).await.unwrap();
    assert_eq!(Lane::of(jobs::JobKind::Noop, Resource::Gpu), Lane::GpuPreferred);
    e
}

async fn wait_succeeded(db: &TestDatabase, experiment: uuid::Uuid, n: i64, within: Duration) {
    let deadline = Instant::now() + within;
    loop {
        let st = schema::status_counts(&db.pool, experiment).await.unwrap();
        if st[JobStatus::Succeeded] == n {
            return;
        }
        assert!(Instant::now() < deadline, "not done in time: {st:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Which worker (the part of the slot's name before `/`) ran each job of `experiment`.
async fn ran_on(db: &TestDatabase, experiment: uuid::Uuid) -> HashMap<String, i64> {
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT split_part(j.worker, '/', 1), count(*) FROM jobs j JOIN experiment_jobs x ON x.job = j.key
         WHERE x.experiment = $1 GROUP BY 1",
    )
    .bind(experiment)
    .fetch_all(&db.pool)
    .await
    .unwrap();
    rows.into_iter().collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn gpu_preferring_jobs_run_on_cpu_slots_without_cuda_and_on_the_gpu_with_it() {
    let db = TestDatabase::create().await;
    let prefix = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &prefix).await.expect("tests need Redis");
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));

    // A farm with a CUDA worker: it runs the GPU-preferring jobs, the CPU
    // worker the CPU ones, and neither the other's.
    let (cuda_stop_tx, cuda_stop) = tokio::sync::watch::channel(false);
    let cuda_cfg = WorkerConfig { concurrency: 1, ..WorkerConfig::in_process("cuda", "gpu") };
    let cuda = tokio::spawn(run_worker_advertising(db.pool.clone(), queue.clone(), cuda_cfg, true, cuda_stop));
    let deadline = Instant::now() + Duration::from_secs(30);
    while sqlx::query_as::<_, (bool,)>("SELECT cuda FROM workers WHERE id = 'cuda'")
        .fetch_optional(&db.pool)
        .await
        .unwrap()
        .is_none_or(|(c,)| !c)
    {
        assert!(Instant::now() < deadline, "the CUDA worker never advertised");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let cpu_cfg = WorkerConfig { concurrency: 4, ..WorkerConfig::in_process("cpu", "cpu") };
    let cpu = tokio::spawn(run_worker_advertising(db.pool.clone(), queue.clone(), cpu_cfg, false, stop.clone()));
    tokio::time::sleep(Duration::from_millis(300)).await; // its first presence
    let on_gpu = gpu_preferring(&db, 0, 60).await;
    let cpu_jobs: Vec<Job> = (1000..1060).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
    let on_cpu = schema::create_experiment(&db.pool, "routing-cpu", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, on_cpu, &cpu_jobs, false).await.unwrap();
    wait_succeeded(&db, on_gpu, 60, Duration::from_secs(120)).await;
    wait_succeeded(&db, on_cpu, 60, Duration::from_secs(120)).await;
    assert_eq!(ran_on(&db, on_gpu).await, HashMap::from([("cuda".to_string(), 60)]), "with CUDA alive");
    assert_eq!(ran_on(&db, on_cpu).await, HashMap::from([("cpu".to_string(), 60)]), "a CUDA worker keeps to GPU work");

    // The CUDA worker leaves: the CPU worker takes GPU-preferring jobs
    // (from its next presence on, within seconds).
    cuda_stop_tx.send(true).unwrap();
    cuda.await.unwrap();
    let alone = gpu_preferring(&db, 2000, 60).await;
    wait_succeeded(&db, alone, 60, Duration::from_secs(120)).await;
    assert_eq!(ran_on(&db, alone).await, HashMap::from([("cpu".to_string(), 60)]), "without CUDA");
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, cpu);
    let (leases, attempts): (i64, i64) =
        sqlx::query_as("SELECT count(lease_expires_at), count(*) FILTER (WHERE attempts <> 1) FROM jobs")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!((leases, attempts), (0, 0), "each job claimed once, no lease left");
}

/// Per sample: slots with no running job while a job of a lane their
/// worker serves is queued. Slots are `{worker}/{i}` for i < slots.
async fn idle_with_work(db: &TestDatabase, workers: &[(&str, Resource, usize)]) -> Vec<String> {
    let busy: Vec<(String,)> =
        sqlx::query_as("SELECT DISTINCT worker FROM jobs WHERE status = 'running'").fetch_all(&db.pool).await.unwrap();
    let queued = schema::lifecycle::queued_by_lane(&db.pool).await.unwrap();
    let mut out = vec![];
    for &(name, class, slots) in workers {
        let served = Lane::served(class, false, false);
        let waiting = queued.iter().any(|(lane, n)| *n > 0 && served.contains(lane));
        for i in 0..slots {
            let slot = format!("{name}/{i}");
            if waiting && !busy.iter().any(|(w,)| *w == slot) {
                out.push(slot);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cpu_only_farm_runs_the_quick_grid_with_no_slot_idle_while_a_job_it_may_take_is_queued() {
    let db = TestDatabase::create().await;
    let prefix = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &prefix).await.expect("tests need Redis");
    let text = support::repo_file("grids/quick.toml");
    let submitted =
        coordinator::submit(Some(&db.pool), &text, "quick.toml", false, &coordinator::cost::CostModel::defaults())
            .await
            .unwrap();
    let experiment = submitted.experiment.unwrap();
    let total: i64 = submitted.jobs.values().map(|&n| n as i64).sum();

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));
    // As tests/quick_grid.rs, but neither worker has CUDA, whatever this machine has.
    let cpu = WorkerConfig { lease_s: 60.0, ..WorkerConfig::in_process("cpu", "cpu") };
    let gpu = WorkerConfig {
        lease_s: 60.0,
        train_group: TrainGroups::all(8),
        plan_group: 16,
        ..WorkerConfig::in_process("gpu", "gpu")
    };
    let workers = [("cpu", Resource::Cpu, cpu.concurrency), ("gpu", Resource::Gpu, gpu.concurrency)];
    let w1 = tokio::spawn(run_worker_advertising(db.pool.clone(), queue.clone(), cpu, false, stop.clone()));
    let w2 = tokio::spawn(run_worker_advertising(db.pool.clone(), queue.clone(), gpu, false, stop.clone()));
    let started = Instant::now();
    // A slot counts as idle with work when it stays so for a whole second
    // (a slot between two jobs, or a job just announced, is not).
    const SAMPLE: Duration = Duration::from_millis(100);
    let mut idle_since: HashMap<String, Instant> = HashMap::new();
    let mut worst: Vec<(String, f64)> = vec![];
    loop {
        let st = coordinator::status(&db.pool, experiment).await.unwrap();
        if st.jobs[JobStatus::Succeeded] == total {
            break;
        }
        assert_eq!(st.jobs[JobStatus::Dead], 0, "{st:?}");
        assert!(started.elapsed() < Duration::from_secs(1800), "not done in 30 minutes: {st:?}");
        let now = Instant::now();
        let idle = idle_with_work(&db, &workers).await;
        idle_since.retain(|slot, _| idle.contains(slot));
        for slot in idle {
            let since = *idle_since.entry(slot.clone()).or_insert(now);
            if now.duration_since(since) >= Duration::from_secs(1) {
                worst.push((slot, now.duration_since(since).as_secs_f64()));
            }
        }
        tokio::time::sleep(SAMPLE).await;
    }
    println!("quick grid on a CPU-only farm: {total} jobs in {:.0} s", started.elapsed().as_secs_f64());
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, w1, w2);
    assert!(worst.is_empty(), "slots idle for a second or more while a job they may take was queued: {worst:?}");

    // The relational models' learned plan jobs (GPU-preferring) ran on both
    // workers' slots, the CPU worker's included.
    let by_worker: Vec<(String, i64)> = sqlx::query_as(
        "SELECT split_part(worker, '/', 1), count(*) FROM jobs WHERE kind = 'plan' AND resource = 'gpu' GROUP BY 1",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert!(
        by_worker.iter().any(|(w, n)| w == "cpu" && *n > 0),
        "no learned plan job ran on a CPU slot: {by_worker:?}"
    );
    // Training stayed with the GPU-class worker.
    let (trained_on_cpu,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM jobs WHERE kind = 'train' AND worker NOT LIKE 'gpu/%'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(trained_on_cpu, 0);
}
