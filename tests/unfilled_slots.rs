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

/// Submits `grid` and runs a scheduler and a CPU and a GPU worker, in
/// process, until every job has ended; asserts that none failed (the
/// experiment is finished).
async fn run_to_the_end(db: &TestDatabase, grid: &str) -> (uuid::Uuid, coordinator::StatusReport) {
    let keys = support::servers::TestKeys::new(&db.name);
    let queue = Queue::connect(&support::servers::redis_url(), &keys).await.unwrap();
    let report =
        coordinator::submit(Some(&db.pool), grid, "unfilled.toml", false, &coordinator::cost::CostModel::defaults())
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
    assert_eq!(st.jobs.finished(), total);
    assert_eq!((st.jobs[JobStatus::Dead], st.jobs[JobStatus::Failed]), (0, 0), "{st:?}");
    (experiment, st)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn slots_without_an_instance_skip_their_dependents_and_the_grid_finishes() {
    let db = TestDatabase::create().await;
    let (experiment, st) = run_to_the_end(&db, GRID).await;

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
    let reasons: Vec<(String,)> =
        sqlx::query_as("SELECT DISTINCT reason FROM unfilled_slots").fetch_all(&db.pool).await.unwrap();
    assert_eq!(reasons, [("tries".to_string(),)], "both tries were used");
    // The evaluation stands on the two test instances that exist.
    let (evaluated, samples): (i64, i64) =
        sqlx::query_as("SELECT count(*), sum(samples)::bigint FROM evaluations WHERE checkpoint = 'best_mse'")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    let (states,): (i64,) = sqlx::query_as("SELECT count(*)::bigint FROM labelled_states WHERE split = 'test'")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!((evaluated, samples), (1, states));
}

/// The stop rules. The extrapolation rule, with a bound so small that any
/// prediction exceeds it: in each seed's chain of train slots (2, 3, 4, 5
/// balls) the first two are tried (no growth to extrapolate before), the
/// third is predicted past the bound and not tried, the fourth skipped
/// after it. The validation split has no rule: every slot is tried. The
/// cross-seed rule on the test split: 60 balls fail in half a second for
/// seeds 1 and 2, so seeds 3 and 4 are not tried at 60 (4 balls, the
/// split's first size, always is).
const STOP_RULES: &str = r#"
name = "stop-rules"
seeds = [1]
[domains.gripper.train]
seeds = "1..2"
balls = [2, 3, 4, 5]
limits = { time_s = 10, tries = 2, skip_predicted_over = 1e-9 }
[domains.gripper.validation]
seeds = "1..1"
balls = [2, 3, 4]
[domains.gripper.test]
seeds = "1..4"
balls = [4, 60]
limits = { time_s = 0.5, tries = 2, skip_after_failed_seeds = 2 }
"#;

/// split, seed, balls, reason, CPU seconds, tries, predicted CPU seconds.
type UnfilledRow = (String, i64, i64, String, f64, i64, Option<f64>);

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn stop_rules_end_slots_without_trying_and_say_why() {
    let db = TestDatabase::create().await;
    let (_, st) = run_to_the_end(&db, STOP_RULES).await;

    let slots: Vec<UnfilledRow> = sqlx::query_as(
        "SELECT split, seed, (generator->>'balls')::bigint, reason, cpu_s, jsonb_array_length(tries)::bigint,
                predicted_cpu_s
         FROM unfilled_slots ORDER BY split DESC, seed",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    let ends: Vec<(&str, i64, i64, &str, i64)> = slots
        .iter()
        .map(|(sp, seed, balls, r, _, tries, _)| (sp.as_str(), *seed, *balls, r.as_str(), *tries))
        .collect();
    assert_eq!(
        ends,
        [
            ("train", 1, 4, "predicted", 0),
            ("train", 2, 4, "predicted", 0),
            ("test", 1, 60, "tries", 2),
            ("test", 2, 60, "tries", 2),
            ("test", 3, 60, "seeds", 0),
            ("test", 4, 60, "seeds", 0),
        ]
    );
    for (split, _, _, reason, cpu_s, _, predicted) in &slots {
        assert_eq!(*cpu_s > 0.0, reason == "tries", "{slots:?}");
        // Predicted wherever two easier slots of its chain were solved.
        assert_eq!(predicted.is_some_and(|p| p > 0.0), split == "train", "{slots:?}");
    }
    assert_eq!(st.by_kind[&JobKind::Generate][JobStatus::Skipped], 2, "the 5-ball train slots after them");

    // Every instance records its CPU: all tries, the accepted one, and a
    // prediction only where two easier slots of its chain were solved.
    let instances: Vec<(String, i64, f64, f64, Option<f64>)> = sqlx::query_as(
        "SELECT split, (generator->>'balls')::bigint, cpu_s, solve_cpu_s, predicted_cpu_s FROM instances",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(instances.len(), 2 * 2 + 3 + 4, "{instances:?}");
    for (split, balls, cpu_s, solve_cpu_s, predicted) in &instances {
        assert!(*solve_cpu_s > 0.0 && cpu_s >= solve_cpu_s, "{instances:?}");
        assert_eq!(predicted.is_some(), *balls == 4 && split == "validation", "{split} {balls}: {predicted:?}");
    }
}

/// The planning sample is drawn from solved slots (as the authors' 100
/// planning instances were from their solved test instances): 3 of the 6
/// test slots are solved (4 balls) and 3 are not (60 balls in half a
/// second), and a sample of 3 plans exactly the solved ones, whichever
/// order the draws walk; a sample of 2 takes the first 2 solved in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_planning_sample_is_drawn_from_solved_slots() {
    for n in [3, 2] {
        let grid = format!(
            r#"
name = "draws-{n}"
seeds = [1]
[baselines]
heuristics = ["ff"]
[domains.gripper.train]
seeds = "1..1"
balls = [2]
[domains.gripper.validation]
seeds = "1..1"
balls = [2]
[domains.gripper.test]
seeds = "1..3"
balls = [4, 60]
planning = {n}
limits = {{ time_s = 0.5, tries = 1, skip_after_easier_failed = false }}
"#
        );
        let db = TestDatabase::create().await;
        let (_, st) = run_to_the_end(&db, &grid).await;
        assert_eq!(st.by_kind[&JobKind::Draw][JobStatus::Succeeded], 6, "{st:?}");
        // In the draws' order: rank, whether the slot has an instance, drawn before, drawn.
        let draws: Vec<(i32, bool, i32, bool)> = sqlx::query_as(
            "SELECT w.rank, EXISTS (SELECT 1 FROM instances i WHERE i.job = w.slot), w.drawn_before, w.drawn
             FROM planning_draws w ORDER BY w.rank",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        assert_eq!(draws.len(), 6);
        assert_eq!(draws.iter().filter(|d| d.1).count(), 3, "the 4-ball slots: {draws:?}");
        let mut before = 0;
        for &(rank, solved, drawn_before, drawn) in &draws {
            assert_eq!(drawn_before, before, "rank {rank}: {draws:?}");
            assert_eq!(drawn, solved && before < n, "rank {rank}: {draws:?}");
            before += i32::from(drawn);
        }
        assert_eq!(before, n);
        // Plan runs on the drawn slots' instances only; the other plan jobs skipped, saying why.
        let (runs, on_drawn): (i64, i64) = sqlx::query_as(
            "SELECT count(*), count(*) FILTER (WHERE EXISTS (
                 SELECT 1 FROM planning_draws w WHERE w.drawn AND w.slot = p.instance))
             FROM plan_runs p",
        )
        .fetch_one(&db.pool)
        .await
        .unwrap();
        assert_eq!((runs, on_drawn), (i64::from(n), i64::from(n)));
        // Each skipped plan job's reason, and whether its slot (the last input) has an instance.
        let reasons: Vec<(String, bool)> = sqlx::query_as(
            "SELECT j.last_error, EXISTS (SELECT 1 FROM instances i WHERE i.job = (
                 SELECT x.input FROM job_inputs x WHERE x.job = j.key ORDER BY x.position DESC LIMIT 1))
             FROM jobs j WHERE j.kind = 'plan' AND j.status = 'skipped'",
        )
        .fetch_all(&db.pool)
        .await
        .unwrap();
        assert_eq!(reasons.len(), 6 - n as usize);
        let not_drawn = |r: &str| r.contains("did not draw its slot into the planning sample");
        // A solved slot left out of the sample is skipped for its draw alone.
        let solved: Vec<&(String, bool)> = reasons.iter().filter(|r| r.1).collect();
        assert_eq!(solved.len(), 3 - n as usize, "{reasons:?}");
        assert!(solved.iter().all(|(r, _)| not_drawn(r)), "{reasons:?}");
        // An unsolved slot's plan job lacks both inputs once its draw has ended: which one
        // its reason names depends on whether the scheduler skipped it before the draw ran.
        assert!(
            reasons.iter().filter(|r| !r.1).all(|(r, _)| not_drawn(r) || r.contains("has no instance")),
            "{reasons:?}"
        );
    }
}
