//! Each job's own log through the real Redis and PostgreSQL: a worker keeps
//! the lines logged for a job (`worker::joblog`) and stores them with the
//! attempt, so that `schema::detail::job` (`hfarm job`, `GET /api/jobs/{key}`)
//! shows why each attempt of a dead job failed; jobs that logged nothing
//! store nothing.

use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::{Job, JobSpec};
use queue::Queue;
use schema::detail::Found;
use schema::testing::TestDatabase;
use schema::JobStatus;
use support::servers::{redis_url, TestKeys};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use worker::run::run_worker;
use worker::WorkerConfig;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn each_attempt_of_a_failing_job_keeps_its_log_and_quiet_jobs_store_none() {
    // The worker's threads log through this process's subscriber, as `hfarm worker`'s do.
    tracing_subscriber::registry().with(worker::joblog::layer()).init();
    let db = TestDatabase::create().await;
    let prefix = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &prefix).await.expect("tests need Redis");

    let jobs: Vec<Job> = (0..3).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
    let e = schema::create_experiment(&db.pool, "job-logs", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    // One job a worker cannot decode: each attempt fails.
    let broken = jobs[0].key.to_string();
    sqlx::query("UPDATE jobs SET spec = '{\"kind\": \"noop\", \"id\": \"not a number\"}' WHERE key = $1")
        .bind(&broken)
        .execute(&db.pool)
        .await
        .unwrap();

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = SchedulerConfig { requeue_after_s: 1.0, ..SchedulerConfig::default() };
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), sched, stop.clone()));
    let cfg = WorkerConfig { concurrency: 1, ..WorkerConfig::in_process("logs", "cpu") };
    let worker = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), cfg, stop));

    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let st = schema::status_counts(&db.pool, e).await.unwrap();
        if st[JobStatus::Succeeded] == 2 && st[JobStatus::Dead] == 1 {
            break;
        }
        assert!(Instant::now() < deadline, "not done in time: {st:?}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = stop_tx.send(true);
    let _ = tokio::join!(sched, worker);

    let Found::Job(d) = schema::detail::job(&db.pool, &broken).await.unwrap() else { panic!("the broken job") };
    let attempts: Vec<i32> = d.logs.iter().map(|l| l.attempt).collect();
    assert_eq!(attempts, (1..=d.job.max_attempts).collect::<Vec<_>>(), "one log per attempt, oldest first");
    for l in &d.logs {
        assert_eq!(l.worker, "logs/0");
        let lines: Vec<&str> = l.lines.lines().collect();
        assert_eq!(lines.len(), 1, "{}", l.lines);
        assert!(lines[0].contains(" WARN  worker logs/0: attempt failed: bad job spec: "), "{}", l.lines);
    }
    for quiet in &jobs[1..] {
        let Found::Job(d) = schema::detail::job(&db.pool, quiet.key.as_str()).await.unwrap() else { panic!("found") };
        assert_eq!(d.job.status, JobStatus::Succeeded);
        assert!(d.logs.is_empty(), "{:?}", d.logs);
    }
}
