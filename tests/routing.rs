//! Routing through the real Redis and PostgreSQL: jobs that prefer a GPU
//! (`jobs::spec::Lane::GpuPreferred`, the relational models' learned plan
//! jobs) run on whatever slot is free while no worker has CUDA, and stay
//! with the GPU while one does. (A CPU-only farm running the quick grid with
//! no slot idle while a job it may take is queued: tests/quick_grid.rs.)

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
use worker::WorkerConfig;

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
