//! A worker with many more slots than its pool has connections, through the
//! real Redis and PostgreSQL: its dispatchers keep a connection each for
//! their claims, and a worker of 128 slots once kept all 16 of its pool's,
//! timed out on its own commits and heartbeats, and handed every job back.

use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::{Job, JobSpec};
use queue::Queue;
use schema::testing::TestDatabase;
use schema::JobStatus;
use support::servers::{redis_url, TestKeys};
use worker::WorkerConfig;

const SLOTS: usize = 200;
const JOBS: u64 = 3_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_with_more_slots_than_connections_runs_every_job_once() {
    let db = TestDatabase::create().await;
    let prefix = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &prefix).await.expect("tests need Redis");
    // The worker's own pool, as `hfarm worker` opens it: the scheduler and
    // this test's reads use the database's other pool.
    let worker_pool = schema::connect(&db.url).await.expect("the worker's pool");
    assert!(SLOTS > schema::POOL_CONNECTIONS as usize * 8, "more dispatch groups of 8 than connections");
    let jobs: Vec<Job> = (0..JOBS).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
    let e = schema::create_experiment(&db.pool, "large-worker", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));
    let cfg = WorkerConfig { concurrency: SLOTS, lease_s: 60.0, ..WorkerConfig::in_process("large", "cpu") };
    let work = tokio::spawn(worker::run_worker(worker_pool.clone(), queue.clone(), cfg, stop.clone()));
    // Well under the pool's 30 s acquire timeout, which the starved worker hit.
    let deadline = Instant::now() + Duration::from_secs(25);
    loop {
        let st = schema::status_counts(&db.pool, e).await.unwrap();
        if st[JobStatus::Succeeded] == JOBS as i64 {
            break;
        }
        assert!(Instant::now() < deadline, "not done in 25 s: {st:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, work);
    let again: i64 =
        sqlx::query_scalar("SELECT count(*) FILTER (WHERE attempts <> 1) FROM jobs").fetch_one(&db.pool).await.unwrap();
    assert_eq!(again, 0, "every job claimed once: none handed back");
    worker_pool.close().await;
}
