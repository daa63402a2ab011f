//! A grid runs to completion through the real Redis and PostgreSQL, with a
//! scheduler and two worker slots in this process.

use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use queue::Queue;
use schema::testing::TestDatabase;
use schema::JobStatus;
use support::servers::{redis_url, PrivateRedis, TestKeys};
use worker::{run_worker, WorkerConfig};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn smoke_grid_runs_to_completion_with_the_right_rows() {
    let db = TestDatabase::create().await;
    let prefix = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &prefix).await.expect("tests need Redis (run ./scripts/services)");
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml")).unwrap();
    let report =
        coordinator::submit(Some(&db.pool), &text, "smoke.toml", false, &coordinator::cost::CostModel::defaults())
            .await
            .unwrap();
    let experiment = report.experiment.unwrap();

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched_cfg = SchedulerConfig { requeue_after_s: 2.0, ..SchedulerConfig::default() };
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), sched_cfg, stop.clone()));
    let cfg = WorkerConfig::in_process("test-worker", "cpu");
    let work = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), cfg, stop.clone()));

    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let st = coordinator::status(&db.pool, experiment).await.unwrap();
        // 26 slots, their labels, 6 draws and 20 plan runs (2 of 3 test slots
        // drawn per domain); the 10 plan jobs of the slots not drawn are skipped.
        if st.jobs.active() == 0 {
            assert_eq!((st.jobs[JobStatus::Succeeded], st.jobs[JobStatus::Skipped]), (78, 10), "{st:?}");
            break;
        }
        assert_eq!(st.jobs[JobStatus::Dead], 0, "{st:?}");
        assert!(Instant::now() < deadline, "not done in time: {st:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, work);

    let count = |sql: &'static str| {
        let pool = db.pool.clone();
        async move { sqlx::query_as::<_, (i64,)>(sql).fetch_one(&pool).await.unwrap().0 }
    };
    assert_eq!(count("SELECT count(*) FROM instances").await, 26);
    assert_eq!(count("SELECT count(*) FROM instances WHERE optimal_cost > 0").await, 26);
    assert_eq!(count("SELECT count(*) FROM plan_runs").await, 20);
    // One labelled state per plan step plus the initial state, for every instance.
    assert_eq!(
        count("SELECT count(*) FROM labelled_states").await,
        count("SELECT sum(optimal_cost + 1) FROM instances").await
    );
    // Heuristic values by name: hmax <= LM-cut <= h* on every state of an optimal plan.
    assert_eq!(count("SELECT count(*) FROM labelled_states WHERE heuristics->'lmcut' IS NULL").await, 0);
    let unsound = "SELECT count(*) FROM labelled_states WHERE (heuristics->>'lmcut')::float8 > h_star
                   OR (heuristics->>'hmax')::float8 > (heuristics->>'lmcut')::float8";
    assert_eq!(count(unsound).await, 0);
    let once = "SELECT count(*) FROM jobs WHERE attempts <> CASE WHEN status = 'skipped' THEN 0 ELSE 1 END";
    assert_eq!(count(once).await, 0, "every job ran exactly once, but the skipped ones");
    assert_eq!(queue.len("cpu").await.unwrap(), 0);
    let (workers, stopped): (i64, i64) =
        sqlx::query_as("SELECT count(*), count(stopped_at) FROM workers").fetch_one(&db.pool).await.unwrap();
    assert_eq!((workers, stopped), (1, 1), "the worker announced itself and its stop");
}

/// Runs a scheduler and a two-slot worker until `finished(status)` holds,
/// calling `during(succeeded)` between polls.
async fn run_until(
    db: &TestDatabase,
    queue: &Queue,
    experiment: uuid::Uuid,
    sched_cfg: SchedulerConfig,
    finished: impl Fn(&coordinator::StatusReport) -> bool,
    mut during: impl AsyncFnMut(i64),
) {
    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), sched_cfg, stop.clone()));
    let cfg = WorkerConfig::in_process("w", "cpu");
    let work = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), cfg, stop.clone()));
    let deadline = Instant::now() + Duration::from_secs(240);
    loop {
        let st = coordinator::status(&db.pool, experiment).await.unwrap();
        if finished(&st) {
            break;
        }
        assert!(Instant::now() < deadline, "not done in time: {st:?}");
        during(st.jobs[JobStatus::Succeeded]).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, work);
}

async fn run_until_done(
    db: &TestDatabase,
    queue: &Queue,
    experiment: uuid::Uuid,
    total: i64,
    sched_cfg: SchedulerConfig,
    during: impl AsyncFnMut(i64),
) {
    run_until(db, queue, experiment, sched_cfg, |st| st.jobs[JobStatus::Succeeded] == total, during).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn flushing_redis_mid_run_loses_nothing() {
    let db = TestDatabase::create().await;
    // A server of our own: flushing the shared one would wipe other farms' queues.
    let redis = PrivateRedis::start();
    let queue = Queue::connect(&redis.url, &format!("hfarm-test-{}", db.name)).await.unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml")).unwrap();
    let e = coordinator::submit(Some(&db.pool), &text, "smoke.toml", false, &coordinator::cost::CostModel::defaults())
        .await
        .unwrap()
        .experiment
        .unwrap();
    let client = redis::Client::open(redis.url.as_str()).unwrap();
    let mut flushed = false;
    let cfg = SchedulerConfig { requeue_after_s: 1.0, ..SchedulerConfig::default() };
    run_until_done(&db, &queue, e, 78, cfg, async |done| {
        if !flushed && done >= 10 {
            let mut c = client.get_multiplexed_async_connection().await.unwrap();
            let _: () = redis::cmd("FLUSHALL").query_async(&mut c).await.unwrap();
            flushed = true;
        }
    })
    .await;
    assert!(flushed);
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM instances").fetch_one(&db.pool).await.unwrap();
    assert_eq!(n, 26);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn duplicate_deliveries_leave_one_result_per_job() {
    let db = TestDatabase::create().await;
    let keys = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &keys).await.unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml")).unwrap();
    let e = coordinator::submit(Some(&db.pool), &text, "smoke.toml", false, &coordinator::cost::CostModel::defaults())
        .await
        .unwrap()
        .experiment
        .unwrap();
    let mut pushed: std::collections::HashSet<String> = std::collections::HashSet::new();
    let cfg = SchedulerConfig { requeue_after_s: 2.0, ..SchedulerConfig::default() };
    run_until_done(&db, &queue, e, 78, cfg, async |_| {
        // Announce every queued, running or finished job a second (and third) time:
        // duplicates that arrive early, during the run, or late. (Finished jobs are
        // included so the test does not depend on catching jobs while they are queued:
        // on a fast machine most are done between two polls.)
        let keys: Vec<(String,)> =
            sqlx::query_as("SELECT key FROM jobs WHERE status IN ('queued', 'running', 'succeeded')")
                .fetch_all(&db.pool)
                .await
                .unwrap();
        let keys: Vec<String> = keys.into_iter().map(|(k,)| k).filter(|k| pushed.insert(k.clone())).collect();
        queue.push("cpu", &keys).await.unwrap();
        queue.push("cpu", &keys).await.unwrap();
    })
    .await;
    let (retried,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM jobs WHERE attempts > 1").fetch_one(&db.pool).await.unwrap();
    assert_eq!(retried, 0, "a duplicate delivery must not run a job again");
    let (runs,): (i64,) = sqlx::query_as("SELECT count(*) FROM plan_runs").fetch_one(&db.pool).await.unwrap();
    assert_eq!(runs, 20);
    assert!(pushed.len() > 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_poison_job_goes_dead_after_three_attempts_through_the_real_queue() {
    let db = TestDatabase::create().await;
    let keys = TestKeys::new(&db.name);
    let queue = Queue::connect(&redis_url(), &keys).await.unwrap();
    let grid = r#"
name = "poison"
seeds = [1]
[domains.blocksworld.train]
seeds = "1..1"
blocks = [4]
[domains.blocksworld.validation]
seeds = "1..1"
blocks = [3]
[domains.blocksworld.test]
seeds = "1..1"
blocks = [3]
planning = 0
"#;
    let e = coordinator::submit(Some(&db.pool), grid, "poison.toml", false, &coordinator::cost::CostModel::defaults())
        .await
        .unwrap()
        .experiment
        .unwrap();
    // Poison one job: a spec no worker can run (a slot that cannot be solved
    // is not poison: it ends "no instance", see tests/unfilled_slots.rs).
    sqlx::query(
        "UPDATE jobs SET spec = jsonb_set(spec, '{domain}', '\"nowhere\"') WHERE split = 'train' AND kind = 'generate'",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let cfg = SchedulerConfig { requeue_after_s: 2.0, ..SchedulerConfig::default() };
    // Done when the poisoned generate job is dead and the other four jobs
    // succeeded; its label job can never run.
    let finished = |st: &coordinator::StatusReport| st.jobs[JobStatus::Dead] == 1 && st.jobs[JobStatus::Succeeded] == 4;
    run_until(&db, &queue, e, cfg, finished, async |_| {}).await;
    let (attempts, error): (i32, String) =
        sqlx::query_as("SELECT attempts, last_error FROM jobs WHERE status = 'dead'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(attempts, 3);
    assert!(error.contains("unknown domain nowhere"), "{error}");
    let (pending,): (i64,) = sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'pending' AND kind = 'label'")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(pending, 1, "the dead job's consumer waits");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_waiting_backlog_is_announced_once_and_a_lost_one_again() {
    let db = TestDatabase::create().await;
    let redis = PrivateRedis::start();
    let queue = Queue::connect(&redis.url, "backlog").await.unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml")).unwrap();
    coordinator::submit(Some(&db.pool), &text, "smoke.toml", false, &coordinator::cost::CostModel::defaults())
        .await
        .unwrap();
    let cfg = SchedulerConfig { requeue_after_s: 0.2, ..SchedulerConfig::default() };
    // The generate jobs without an easier slot to wait for are ready.
    let first = coordinator::scheduler::pass(&db.pool, &queue, &cfg).await.unwrap() as u64;
    assert!(first > 0);
    // Nobody pops: the keys wait in Redis, past the re-announcement delay.
    for _ in 0..3 {
        tokio::time::sleep(Duration::from_millis(300)).await;
        coordinator::scheduler::pass(&db.pool, &queue, &cfg).await.unwrap();
    }
    assert_eq!(queue.len("cpu").await.unwrap(), first, "a backlog waiting for workers is not pushed again");
    let client = redis::Client::open(redis.url.as_str()).unwrap();
    let mut c = client.get_multiplexed_async_connection().await.unwrap();
    let _: () = redis::cmd("FLUSHALL").query_async(&mut c).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let again = coordinator::scheduler::pass(&db.pool, &queue, &cfg).await.unwrap() as u64;
    assert_eq!((again, queue.len("cpu").await.unwrap()), (first, first), "lost keys are announced again");
}
