//! A grid with slots that cannot be filled within their limits finishes:
//! those slots end with "no instance" (each try's outcome and CPU time
//! recorded), the jobs that need them are skipped, and the evaluation runs
//! over the test labels that exist.

use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use jobs::JobKind;
use queue::Queue;
use schema::testing::TestDatabase;
use schema::JobStatus;
use worker::{run_worker, WorkerConfig};

/// Test gripper with 4 balls is solved in milliseconds; with 60 balls,
/// A*+LM-cut runs out of its half second on each of its 2 tries; 80 balls
/// are not even tried once 60 failed for the same seed (the stop rule).
const GRID: &str = r#"
name = "unfilled"
seeds = [1]
[baselines]
heuristics = ["ff"]
[domains.gripper.train]
seeds = "1..3"
balls = [2, 3]
[domains.gripper.validation]
seeds = "1..1"
balls = [2]
[domains.gripper.test]
seeds = "1..2"
balls = [4, 60, 80]
limits = { time_s = 0.5, tries = 2 }
[[learning]]
models = ["linear"]
distributions = ["truncated"]
sigma = ["learn"]
bounds = ["lmcut"]
residuals = ["none"]
steps = 40
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn slots_without_an_instance_skip_their_dependents_and_the_grid_finishes() {
    let db = TestDatabase::create().await;
    let queue = Queue::connect(&support::servers::redis_url(), &format!("hfarm-test-{}", db.name)).await.unwrap();
    let report =
        coordinator::submit(Some(&db.pool), GRID, "unfilled.toml", false, &coordinator::cost::CostModel::defaults())
            .await
            .unwrap();
    let experiment = report.experiment.unwrap();
    let total: i64 = report.jobs.values().map(|&n| n as i64).sum();

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));
    let cpu = WorkerConfig::in_process("cpu", "cpu");
    let gpu = WorkerConfig { concurrency: 1, ..WorkerConfig::in_process("gpu", "gpu") };
    let w1 = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), cpu, stop.clone()));
    let w2 = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), gpu, stop.clone()));
    let deadline = Instant::now() + Duration::from_secs(900);
    let st = loop {
        let st = coordinator::status(&db.pool, experiment).await.unwrap();
        if st.jobs.active() == 0 {
            break st;
        }
        assert!(Instant::now() < deadline, "not finished in time: {st:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, w1, w2);

    // Every job ended, none failed: the experiment is finished.
    assert_eq!(st.jobs.finished(), total);
    assert_eq!((st.jobs[JobStatus::Dead], st.jobs[JobStatus::Failed]), (0, 0), "{st:?}");
    // The two 60-ball slots: no instance, their label and plan jobs skipped.
    let unfilled = schema::slots::unfilled(&db.pool, experiment).await.unwrap();
    assert_eq!(unfilled.len(), 2, "{unfilled:?}");
    assert!(unfilled.iter().all(|u| u.2 == "test" && u.3["balls"] == 60 && u.4 > 0.0), "{unfilled:?}");
    // The 80-ball slots are skipped after them, with the reason.
    let skipped = |k: JobKind| st.by_kind[&k][JobStatus::Skipped];
    assert_eq!((skipped(JobKind::Generate), skipped(JobKind::Train), skipped(JobKind::Evaluate)), (2, 0, 0));
    let reasons: Vec<(String,)> =
        sqlx::query_as("SELECT last_error FROM jobs WHERE kind = 'generate' AND status = 'skipped'")
            .fetch_all(&db.pool)
            .await
            .unwrap();
    assert!(reasons.iter().all(|(r,)| r.contains("has no instance")), "{reasons:?}");
    // Label and plan jobs (the ff baseline and the learned TN) of the 4 empty slots.
    assert_eq!((skipped(JobKind::Label), skipped(JobKind::Plan)), (4, 8), "{st:?}");
    let (tries, outcomes): (i64, i64) = sqlx::query_as(
        "SELECT count(*), count(*) FILTER (WHERE t->>'outcome' = 'time_limit')
         FROM unfilled_slots, jsonb_array_elements(tries) t",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!((tries, outcomes), (4, 4), "each try ran out of time");
    // The evaluation stands on the two test instances that exist.
    let (evaluated, samples): (i64, i64) =
        sqlx::query_as("SELECT count(*), sum(samples)::bigint FROM evaluations").fetch_one(&db.pool).await.unwrap();
    let (states,): (i64,) = sqlx::query_as("SELECT count(*)::bigint FROM labelled_states WHERE split = 'test'")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!((evaluated, samples), (1, states));
}
