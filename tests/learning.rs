//! The learning pipeline end to end through the real Redis and PostgreSQL:
//! generate, label, train (on a "gpu"-class worker, CPU here), evaluate and
//! plan with the learned heuristics, on gripper.

use std::time::{Duration, Instant};

use coordinator::scheduler::{run_scheduler, SchedulerConfig};
use queue::Queue;
use schema::testing::TestDatabase;
use schema::JobStatus;
use worker::{run_worker, WorkerConfig};

const GRID: &str = r#"
name = "learning"
seeds = [1]
[limits.plan]
max_evaluations = 10000
time_s = 60
memory_mib = 1024
[baselines]
heuristics = ["ff"]
[domains.gripper.train]
seeds = "1..4"
balls = [2, 3]
[domains.gripper.validation]
seeds = "1..2"
balls = [2, 3]
[domains.gripper.test]
seeds = "1..2"
balls = [5]
planning = 2
[[learning]]
models = ["nlm"]
distributions = ["gaussian", "truncated"]
sigma = ["learn"]
bounds = ["lmcut"]
residuals = ["ff"]
steps = 200
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn gripper_is_generated_labelled_trained_evaluated_and_planned_with() {
    let db = TestDatabase::create().await;
    let redis = support::servers::redis_url();
    let keys = support::servers::TestKeys::new(&db.name);
    let queue = Queue::connect(&redis, &keys).await.expect("tests need Redis");
    let report =
        coordinator::submit(Some(&db.pool), GRID, "learning.toml", false, &coordinator::cost::CostModel::defaults())
            .await
            .unwrap();
    let experiment = report.experiment.unwrap();
    let total: i64 = report.jobs.values().map(|&n| n as i64).sum();
    // 2 trainings; plans: 2 instances x (ff + TN + N + N+clip).
    assert_eq!(report.jobs[&jobs::JobKind::Train], 2);
    assert_eq!(report.jobs[&jobs::JobKind::Plan], 8);

    let (stop_tx, stop) = tokio::sync::watch::channel(false);
    let sched = tokio::spawn(run_scheduler(db.pool.clone(), queue.clone(), SchedulerConfig::default(), stop.clone()));
    let cpu = WorkerConfig::in_process("cpu", "cpu");
    let gpu = WorkerConfig { concurrency: 1, ..WorkerConfig::in_process("gpu", "gpu") };
    let w1 = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), cpu, stop.clone()));
    let w2 = tokio::spawn(run_worker(db.pool.clone(), queue.clone(), gpu, stop.clone()));
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        let st = coordinator::status(&db.pool, experiment).await.unwrap();
        if st.jobs[JobStatus::Succeeded] == total {
            break;
        }
        assert_eq!(st.jobs[JobStatus::Dead] + st.jobs[JobStatus::Failed], 0, "{st:?}");
        assert!(Instant::now() < deadline, "not done in time: {st:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop_tx.send(true).unwrap();
    let _ = tokio::join!(sched, w1, w2);

    let count = |sql: &'static str| {
        let pool = db.pool.clone();
        async move { sqlx::query_as::<_, (i64,)>(sql).fetch_one(&pool).await.unwrap().0 }
    };
    assert_eq!(count("SELECT count(*) FROM models WHERE steps = 200 AND train_samples > 0").await, 2);
    assert_eq!(count("SELECT count(*) FROM checkpoints").await, 6, "best_mse, best_nll, last per model");
    assert_eq!(count("SELECT count(*) FROM checkpoints WHERE tag = 'last' AND step = 200").await, 2);
    // Validation every 5 steps (steps / 40): 40 points per model.
    assert_eq!(count("SELECT count(*) FROM training_curves").await, 80);
    // One evaluation per model and checkpoint (best-MSE and best-NLL).
    assert_eq!(count("SELECT count(*) FROM evaluations WHERE samples > 0 AND mse >= 0 AND lmcut_mse > 0").await, 4);
    assert_eq!(count("SELECT count(DISTINCT checkpoint) FROM evaluations").await, 2);
    // Clipping a Gaussian's estimate into [l, inf) can only bring it closer to h* >= l.
    assert_eq!(
        count(
            "SELECT count(*) FROM evaluations e JOIN jobs j ON j.key = e.model
             WHERE j.distribution = 'gaussian' AND e.mse_clip <= e.mse + 1e-9"
        )
        .await,
        2
    );
    assert_eq!(count("SELECT count(*) FROM evaluations WHERE nll = 'NaN' OR mse = 'NaN'").await, 0);
    assert_eq!(count("SELECT count(*) FROM plan_runs WHERE model IS NOT NULL").await, 6);
    assert_eq!(
        count("SELECT count(*) FROM plan_runs WHERE model IS NOT NULL AND forward_passes = expansions + 1").await,
        6
    );
    assert_eq!(count("SELECT count(*) FROM plan_runs WHERE heuristic = 'learned+clip'").await, 2);
    assert_eq!(count("SELECT count(*) FROM plan_runs WHERE heuristic = 'ff'").await, 2);
    // Gripper with 5 balls is solved by every learned heuristic well within 10^4 evaluations.
    assert_eq!(count("SELECT count(*) FROM plan_runs WHERE NOT solved").await, 0);
    assert_eq!(count("SELECT count(*) FROM jobs WHERE attempts <> 1").await, 0);
}
