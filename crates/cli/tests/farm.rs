//! `hfarm submit` and `hfarm status` against a real PostgreSQL.

use std::process::Command;

use schema::testing::TestDatabase;

fn hfarm(args: &[&str], db: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("DATABASE_URL", db).output().expect("run hfarm")
}

const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml");

#[tokio::test]
async fn submit_then_status_then_resubmit_reuses_everything() {
    let db = TestDatabase::create().await;
    let out = hfarm(&["submit", SMOKE, "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["experiment"].as_str().unwrap().to_string();
    assert_eq!(v["jobs"]["generate"], 26);
    assert_eq!(v["new"], 72);
    let st = hfarm(&["status", &id, "--json"], &db.url);
    let s: serde_json::Value = serde_json::from_slice(&st.stdout).unwrap();
    for state in ["pending", "queued", "running", "succeeded", "failed", "dead", "cancelled"] {
        assert!(s["jobs"][state].is_i64(), "{state} missing in {s}");
    }
    assert_eq!(s["jobs"]["pending"], 72);
    let again = hfarm(&["submit", SMOKE, "--json"], &db.url);
    let v2: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v2["new"], 0);
    assert_eq!(v2["reused"], 72);
    assert_ne!(v2["experiment"], v["experiment"]);
}

#[test]
fn dry_run_needs_no_database_and_malformed_grids_name_the_key() {
    let out = hfarm(&["submit", SMOKE, "--dry-run", "--json"], "postgres://nobody@127.0.0.1:1/none");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["experiment"].is_null());
    assert_eq!(v["jobs"]["plan"], 20);
    let dir = std::env::temp_dir().join(format!("hfarm-grid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(SMOKE).unwrap().replace("balls = [6]", "balls = [6]\nbals = 1"))
        .unwrap();
    let out = hfarm(&["submit", bad.to_str().unwrap(), "--dry-run"], "postgres://nobody@127.0.0.1:1/none");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("domains.gripper.test.bals"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A grid with one generate job that takes seconds (blocksworld 10, train
/// seed 3: A*+LM-cut needs ~3 s) and a few quick ones.
const SLOW_GRID: &str = r#"
name = "slow"
seeds = [1]
[domains.blocksworld.train]
seeds = "3..3"
blocks = [10]
[domains.blocksworld.validation]
seeds = "1..1"
blocks = [4]
[domains.blocksworld.test]
seeds = "1..1"
blocks = [4]
planning = 0
"#;

struct Proc(std::process::Child);

impl Drop for Proc {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(args: &[&str], db: &str, prefix: &str) -> Proc {
    Proc(
        Command::new(env!("CARGO_BIN_EXE_hfarm"))
            .args(args)
            .env("DATABASE_URL", db)
            .env("HFARM_REDIS_PREFIX", prefix)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("spawn hfarm"),
    )
}

async fn wait_for(what: &str, secs: u64, mut check: impl AsyncFnMut() -> bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    while !check().await {
        assert!(std::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Writes `text` as a grid into a folder of the test's own (removed by the
/// caller) and submits it; returns the folder and the number of new jobs.
fn submit_grid(db: &TestDatabase, name: &str, text: &str) -> (std::path::PathBuf, i64) {
    let dir = std::env::temp_dir().join(format!("hfarm-{name}-{}", db.name));
    std::fs::create_dir_all(&dir).unwrap();
    let grid = dir.join(format!("{name}.toml"));
    std::fs::write(&grid, text).unwrap();
    let out = hfarm(&["submit", grid.to_str().unwrap(), "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let total = serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["new"].as_i64().unwrap();
    (dir, total)
}

/// Waits until some job's `last` checkpoint reached `step`.
async fn wait_for_checkpoint(db: &TestDatabase, what: &str, step: i64, secs: u64) {
    let pool = db.pool.clone();
    wait_for(what, secs, async || {
        let n: Option<(i64,)> = sqlx::query_as("SELECT step FROM checkpoints WHERE tag = 'last' AND step >= $1")
            .bind(step)
            .fetch_optional(&pool)
            .await
            .unwrap();
        n.is_some()
    })
    .await;
}

#[tokio::test]
async fn a_worker_killed_mid_job_loses_nothing_and_the_job_completes_once() {
    let db = TestDatabase::create().await;
    let prefix = format!("hfarm-test-{}", db.name);
    let dir = std::env::temp_dir().join(format!("hfarm-kill-{}", db.name));
    std::fs::create_dir_all(&dir).unwrap();
    let grid = dir.join("slow.toml");
    std::fs::write(&grid, SLOW_GRID).unwrap();
    let out = hfarm(&["submit", grid.to_str().unwrap(), "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--lease", "1.5"], &db.url, &prefix);
    let slow = "SELECT key FROM jobs WHERE kind = 'generate' AND split = 'train'";
    let (slow_key,): (String,) = sqlx::query_as(slow).fetch_one(&db.pool).await.unwrap();
    let pool = db.pool.clone();
    let key = slow_key.clone();
    wait_for("the slow job to run", 60, async || {
        let (st,): (String,) =
            sqlx::query_as("SELECT status::text FROM jobs WHERE key = $1").bind(&key).fetch_one(&pool).await.unwrap();
        st == "running"
    })
    .await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let _rescuer = spawn(&["worker", "--lease", "5"], &db.url, &prefix);
    wait_for("every job to succeed", 120, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == 6
    })
    .await;
    let (attempts,): (i32,) =
        sqlx::query_as("SELECT attempts FROM jobs WHERE key = $1").bind(&slow_key).fetch_one(&db.pool).await.unwrap();
    assert_eq!(attempts, 2, "killed once, then completed");
    let (rows,): (i64,) = sqlx::query_as("SELECT count(*) FROM instances WHERE job = $1")
        .bind(&slow_key)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(rows, 1);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Labels for a small NLM training of enough steps to be killed midway.
const TRAIN_GRID: &str = r#"
name = "train-kill"
seeds = [1]
[domains.gripper.train]
seeds = "1..3"
balls = [2, 3]
[domains.gripper.validation]
seeds = "1..1"
balls = [2]
[domains.gripper.test]
seeds = "1..1"
balls = [4]
planning = 0
[[learning]]
models = ["nlm"]
distributions = ["truncated"]
sigma = ["learn"]
bounds = ["lmcut"]
residuals = ["ff"]
steps = 320
"#;

#[tokio::test]
async fn a_training_job_whose_worker_dies_resumes_from_its_last_checkpoint() {
    let db = TestDatabase::create().await;
    let prefix = format!("hfarm-test-{}", db.name);
    let (dir, total) = submit_grid(&db, "train-kill", TRAIN_GRID);

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let _cpu = spawn(&["worker", "--class", "cpu", "--concurrency", "2"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--class", "gpu", "--lease", "1.5"], &db.url, &prefix);
    let pool = db.pool.clone();
    // Killed once a resumable checkpoint exists and training went on past it.
    // Generous deadlines: a shared 2-core machine may train at 1-2 steps/s.
    wait_for_checkpoint(&db, "a last checkpoint", 80, 600).await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let (killed_at,): (i64,) =
        sqlx::query_as("SELECT step FROM checkpoints WHERE tag = 'last'").fetch_one(&db.pool).await.unwrap();
    let _rescuer = spawn(&["worker", "--class", "gpu", "--lease", "5"], &db.url, &prefix);
    wait_for("every job to succeed", 900, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == total
    })
    .await;
    let (attempts, resumed_from, steps): (i32, i64, i64) = sqlx::query_as(
        "SELECT j.attempts, m.resumed_from, m.steps FROM jobs j JOIN models m ON m.job = j.key WHERE j.kind = 'train'",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(attempts, 2, "killed once, then completed");
    assert!(resumed_from >= killed_at && resumed_from > 0, "resumed from {resumed_from}, killed at {killed_at}");
    assert_eq!(steps, 320);
    // One curve point per validation step, none twice, none missing: 320 / 40 = every 8 steps.
    let (points, distinct, last): (i64, i64, i64) =
        sqlx::query_as("SELECT count(*), count(DISTINCT step), max(step) FROM training_curves")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!((points, distinct, last), (40, 40, 320));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A LearnHeuristicPrac run long enough to be killed midway (tiny
/// settings, node limits: deterministic).
const LIKELY_GRID: &str = r#"
name = "likely-kill"
[[likely]]
domain = "8-puzzle"
settings = "tiny"
iterations = 80
seeds = [1]
train_limits = { max_generated = 200000 }
alphas = [0.5]
test = { walks = 1, length = 100 }
"#;

#[tokio::test]
async fn a_puzzle_learner_whose_worker_dies_resumes_at_its_last_iteration_as_if_never_killed() {
    let db = TestDatabase::create().await;
    let prefix = format!("hfarm-test-{}", db.name);
    let (dir, _) = submit_grid(&db, "likely-kill", LIKELY_GRID);

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--lease", "1.5"], &db.url, &prefix);
    let pool = db.pool.clone();
    wait_for_checkpoint(&db, "a few iterations", 3, 300).await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let (killed_at,): (i64,) =
        sqlx::query_as("SELECT step FROM checkpoints WHERE tag = 'last'").fetch_one(&db.pool).await.unwrap();
    assert!(killed_at < 80, "killed before the end");
    let _rescuer = spawn(&["worker", "--lease", "5"], &db.url, &prefix);
    wait_for("every job to succeed", 600, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == 3
    })
    .await;
    let (attempts, resumed_from): (i32, i32) =
        sqlx::query_as("SELECT j.attempts, l.resumed_from FROM jobs j JOIN puzzle_learners l ON l.job = j.key")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(attempts, 2, "killed once, then completed");
    assert!(resumed_from as i64 >= killed_at, "resumed after {resumed_from}, killed at {killed_at}");
    let (rows, distinct, last): (i64, i64, i32) =
        sqlx::query_as("SELECT count(*), count(DISTINCT iteration), max(iteration) FROM puzzle_iterations")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!((rows, distinct, last), (80, 80, 80));
    // The same learner as one uninterrupted run with the same settings (`hfarm puzzle learn`).
    let ck = dir.join("uninterrupted.json");
    let args = [
        "puzzle",
        "learn",
        "8-puzzle",
        "--checkpoint",
        ck.to_str().unwrap(),
        "--iterations",
        "80",
        "--tiny",
        "--max-generated",
        "200000",
        "--seed",
        "1",
    ];
    std::fs::remove_file(&ck).ok();
    let out = hfarm(&args, &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let alone: serde_json::Value = serde_json::from_slice(&std::fs::read(&ck).unwrap()).unwrap();
    let (weights,): (Vec<u8>,) =
        sqlx::query_as("SELECT weights FROM checkpoints WHERE tag = 'last'").fetch_one(&db.pool).await.unwrap();
    let farmed: serde_json::Value = serde_json::from_slice(&weights).unwrap();
    assert!(farmed == alone["learner"], "the resumed learner differs from an uninterrupted one");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bootstrap of several slow rounds (growing sampling searches and
/// trainings on generated blocksworld problems).
const BOOTSTRAP_GRID: &str = r#"
name = "bootstrap-kill"
[[graphlearn]]
domain = "blocksworld"
problems = { seeds = [1, 2], blocks = [8, 9] }
alphas = [2]
losses = ["mse"]
ff_input = [false]
seeds = [1]
baselines = []
bootstrap = { rounds = 5, unit_expansions = 1500, enough_samples = 1000000 }
network = { hidden = [32], patience = 1000, max_epochs = 40 }
search = { time_s = 30, max_evaluations = 20000 }
"#;

#[tokio::test]
async fn a_bootstrap_whose_worker_dies_resumes_at_its_last_round() {
    let db = TestDatabase::create().await;
    let prefix = format!("hfarm-test-{}", db.name);
    let (dir, total) = submit_grid(&db, "bootstrap-kill", BOOTSTRAP_GRID);

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--lease", "1.5"], &db.url, &prefix);
    let pool = db.pool.clone();
    wait_for_checkpoint(&db, "a round", 1, 300).await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let (killed_at, done): (i64, bool) = sqlx::query_as(
        "SELECT c.step, j.status = 'succeeded' FROM checkpoints c JOIN jobs j ON j.key = c.job WHERE c.tag = 'last'",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert!(!done, "the bootstrap finished before it could be killed: make its rounds slower");
    let _rescuer = spawn(&["worker", "--lease", "5"], &db.url, &prefix);
    wait_for("every job to succeed", 900, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == total
    })
    .await;
    let (attempts, resumed_from, rounds, history): (i32, i32, i32, serde_json::Value) = sqlx::query_as(
        "SELECT j.attempts, b.resumed_from, b.rounds, b.history FROM jobs j JOIN graph_bootstraps b ON b.job = j.key",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(attempts, 2, "killed once, then completed");
    assert!(
        resumed_from as i64 >= killed_at && resumed_from > 0,
        "resumed after {resumed_from}, killed at {killed_at}"
    );
    // Every round once, in order, whichever attempt ran it.
    let numbers: Vec<i64> = history.as_array().unwrap().iter().map(|r| r["round"].as_i64().unwrap()).collect();
    assert_eq!(numbers, (1..=rounds as i64).collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
}
