//! `hfarm submit` and `hfarm status` against a real PostgreSQL.

use std::process::Command;

use schema::testing::TestDatabase;

fn hfarm(args: &[&str], db: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("DATABASE_URL", db).output().expect("run hfarm")
}

/// A folder of the test's own, removed when dropped (also when the test fails).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
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
    assert_eq!(v["new"], 88);
    let st = hfarm(&["status", &id, "--json"], &db.url);
    let s: serde_json::Value = serde_json::from_slice(&st.stdout).unwrap();
    for state in ["pending", "queued", "running", "succeeded", "failed", "dead", "cancelled"] {
        assert!(s["jobs"][state].is_i64(), "{state} missing in {s}");
    }
    assert_eq!(s["jobs"]["pending"], 88);
    let again = hfarm(&["submit", SMOKE, "--json"], &db.url);
    let v2: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v2["new"], 0);
    assert_eq!(v2["reused"], 88);
    assert_ne!(v2["experiment"], v["experiment"]);
}

/// `hfarm status --wait`: returns when nothing is left to run, with exit
/// status 3 when a job died, 4 when its --timeout ran out first, 0 otherwise
/// (1 and 2 are clap's and anyhow's: an error, a usage error).
#[tokio::test]
async fn status_wait_says_by_its_exit_status_whether_jobs_died_or_time_ran_out() {
    let db = TestDatabase::create().await;
    let out = hfarm(&["submit", SMOKE, "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let id =
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["experiment"].as_str().unwrap().to_string();

    // 88 pending jobs and no worker: the wait gives up.
    let started = std::time::Instant::now();
    let out = hfarm(&["status", "smoke", "--wait", "--timeout", "1"], &db.url);
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    assert!(String::from_utf8_lossy(&out.stdout).contains("pending    88"), "{}", String::from_utf8_lossy(&out.stdout));
    // Without --wait, the counts and 0.
    assert_eq!(hfarm(&["status", &id, "--once"], &db.url).status.code(), Some(0));

    // Everything cancelled but one job dead: nothing left to run, one died.
    let (dead,): (String,) = sqlx::query_as(
        "UPDATE jobs SET status = 'dead' WHERE key = (SELECT job FROM experiment_jobs WHERE experiment = $1::uuid
         ORDER BY job LIMIT 1) RETURNING key",
    )
    .bind(&id)
    .fetch_one(&db.pool)
    .await
    .unwrap();
    let out = hfarm(&["cancel", &id, "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = hfarm(&["status", "smoke", "--wait", "--json"], &db.url);
    assert_eq!(out.status.code(), Some(1), "a dead job: {}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["jobs"]["dead"].as_i64(), v["jobs"]["cancelled"].as_i64()), (Some(1), Some(87)), "{v}");

    // Retried and cancelled again: nothing died, exit 0.
    sqlx::query("UPDATE jobs SET status = 'cancelled' WHERE key = $1").bind(&dead).execute(&db.pool).await.unwrap();
    assert_eq!(hfarm(&["status", &id, "--wait"], &db.url).status.code(), Some(0));
    // --timeout needs --wait, and a positive number.
    let out = hfarm(&["status", &id, "--timeout", "5"], &db.url);
    assert_eq!(out.status.code(), Some(2), "clap's usage error");
    let out = hfarm(&["status", &id, "--wait", "--timeout", "0"], &db.url);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("expected a positive number of seconds, got `0`"), "{err}");
}

#[test]
fn dry_run_needs_no_database_and_malformed_grids_name_the_key() {
    let out = hfarm(&["submit", SMOKE, "--dry-run", "--json"], "postgres://nobody@127.0.0.1:1/none");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["experiment"].is_null());
    assert_eq!(v["jobs"]["plan"], 30);
    let dir = TempDir::new(&format!("hfarm-grid-{}", std::process::id()));
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(SMOKE).unwrap().replace("balls = [6]", "balls = [6]\nbals = 1"))
        .unwrap();
    let out = hfarm(&["submit", bad.to_str().unwrap(), "--dry-run"], "postgres://nobody@127.0.0.1:1/none");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("domains.gripper.test.bals"), "{err}");
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

/// Leases of the kill tests. The victim's is what a killed worker's job
/// waits before it runs again, so every kill test waits it out once (at
/// 20 s, 80 s of every CI run). A heartbeat (every third of the lease) late
/// by more than two thirds of it requeues a job that still runs (5.3 s late
/// for the victim, 40 s for the rescuer): one more attempt, which the tests
/// allow, since they assert what holds whatever the leases: at least one
/// retry, exactly one result per job, and the resumed step.
/// The kill tests run one at a time: each starts a coordinator and two
/// workers, and two such farms on a 2-core machine starve each other's
/// heartbeats and children (the other tests of this file start none).
static ONE_FARM: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

const VICTIM_LEASE: &str = "8";
const RESCUER_LEASE: &str = "60";

/// Fails unless every job succeeded and the killed one (`key`) was retried:
/// attempts counts the claims, so at least 2 (a late heartbeat may add one).
async fn assert_retried(db: &TestDatabase, key: &str) {
    let (attempts,): (i32,) =
        sqlx::query_as("SELECT attempts FROM jobs WHERE key = $1").bind(key).fetch_one(&db.pool).await.unwrap();
    assert!(attempts >= 2, "killed once, so claimed at least twice: {attempts} attempts");
    let (not_succeeded,): (i64,) =
        sqlx::query_as("SELECT count(*) FROM jobs WHERE status <> 'succeeded'").fetch_one(&db.pool).await.unwrap();
    assert_eq!(not_succeeded, 0);
}

/// Rows of `table` per job of `kind`: the jobs without exactly one.
async fn jobs_without_one_row(db: &TestDatabase, kind: &str, table: &str) -> Vec<(String, i64)> {
    let sql = format!(
        "SELECT j.key, (SELECT count(*) FROM {table} t WHERE t.job = j.key) AS n FROM jobs j
         WHERE j.kind::text = $1 AND (SELECT count(*) FROM {table} t WHERE t.job = j.key) <> 1"
    );
    sqlx::query_as(&sql).bind(kind).fetch_all(&db.pool).await.unwrap()
}

/// The job `key`'s status, right after its worker was killed: it must not
/// have finished before, or the test would prove nothing.
async fn assert_unfinished(db: &TestDatabase, key: &str, why: &str) {
    let (status,): (String,) =
        sqlx::query_as("SELECT status::text FROM jobs WHERE key = $1").bind(key).fetch_one(&db.pool).await.unwrap();
    assert_ne!(status, "succeeded", "{key} finished before its worker was killed: {why}");
}

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

/// Waits until `check` holds. Fails when the farm has made no progress (a
/// job succeeded, a checkpoint advanced) for `stall_secs`, not after a fixed
/// time: a loaded machine slows a farm down (a soak run beside busy loops
/// trained the NLM here for over 15 minutes), a broken one stops it. On
/// failure it says where every unfinished job stands.
async fn wait_for(db: &TestDatabase, what: &str, stall_secs: u64, mut check: impl AsyncFnMut() -> bool) {
    let stall = std::time::Duration::from_secs(stall_secs);
    let mut last = (-1, std::time::Instant::now());
    while !check().await {
        let (progress,): (i64,) = sqlx::query_as(
            "SELECT (SELECT count(*) FROM jobs WHERE status = 'succeeded')
                  + (SELECT coalesce(sum(step), 0) FROM checkpoints)::int8",
        )
        .fetch_one(&db.pool)
        .await
        .unwrap();
        if progress != last.0 {
            last = (progress, std::time::Instant::now());
        }
        if last.1.elapsed() > stall {
            let jobs: Vec<(String, String, i32, Option<String>)> = sqlx::query_as(
                "SELECT kind, status::text, attempts, last_error FROM jobs WHERE status <> 'succeeded' ORDER BY kind",
            )
            .fetch_all(&db.pool)
            .await
            .unwrap();
            panic!("waiting for {what}: no progress for {stall_secs} s; unfinished jobs: {jobs:?}");
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

/// Writes `text` as a grid into a folder of the test's own (removed when
/// dropped) and submits it; returns the folder and the number of new jobs.
fn submit_grid(db: &TestDatabase, name: &str, text: &str) -> (TempDir, i64) {
    let dir = TempDir::new(&format!("hfarm-{name}-{}", db.name));
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
    wait_for(db, what, secs, async || {
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
    let _one_farm = ONE_FARM.lock().await;
    let db = TestDatabase::create().await;
    let prefix = support::servers::TestKeys::new(&db.name);
    let dir = TempDir::new(&format!("hfarm-kill-{}", db.name));
    let grid = dir.join("slow.toml");
    std::fs::write(&grid, SLOW_GRID).unwrap();
    let out = hfarm(&["submit", grid.to_str().unwrap(), "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--lease", VICTIM_LEASE], &db.url, &prefix);
    let slow = "SELECT key FROM jobs WHERE kind = 'generate' AND split = 'train'";
    let (slow_key,): (String,) = sqlx::query_as(slow).fetch_one(&db.pool).await.unwrap();
    let pool = db.pool.clone();
    let key = slow_key.clone();
    wait_for(&db, "the slow job to run", 300, async || {
        let (st,): (String,) =
            sqlx::query_as("SELECT status::text FROM jobs WHERE key = $1").bind(&key).fetch_one(&pool).await.unwrap();
        st == "running"
    })
    .await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    assert_unfinished(&db, &slow_key, "make it slower").await;
    let _rescuer = spawn(&["worker", "--lease", RESCUER_LEASE], &db.url, &prefix);
    // The killed job's lease runs out (VICTIM_LEASE) before it runs again.
    wait_for(&db, "every job to succeed", 600, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == 6
    })
    .await;
    assert_retried(&db, &slow_key).await;
    // Exactly one instance per generate job, the killed one's included.
    assert_eq!(jobs_without_one_row(&db, "generate", "instances").await, vec![]);
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
steps = 160
"#;

#[tokio::test]
async fn a_training_job_whose_worker_dies_resumes_from_its_last_checkpoint() {
    let _one_farm = ONE_FARM.lock().await;
    let db = TestDatabase::create().await;
    let prefix = support::servers::TestKeys::new(&db.name);
    let (_dir, total) = submit_grid(&db, "train-kill", TRAIN_GRID);

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let _cpu = spawn(&["worker", "--class", "cpu", "--concurrency", "2"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--class", "gpu", "--lease", VICTIM_LEASE], &db.url, &prefix);
    let pool = db.pool.clone();
    // Killed once a resumable checkpoint exists and training went on past it.
    // Generous deadlines: a shared 2-core machine may train at 1-2 steps/s.
    wait_for_checkpoint(&db, "a last checkpoint", 40, 600).await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let (train_key, killed_at): (String, i64) =
        sqlx::query_as("SELECT job, step FROM checkpoints WHERE tag = 'last'").fetch_one(&db.pool).await.unwrap();
    assert_unfinished(&db, &train_key, "give it more steps").await;
    assert!(killed_at < 160, "killed at step {killed_at} of 160");
    let _rescuer = spawn(&["worker", "--class", "gpu", "--lease", RESCUER_LEASE], &db.url, &prefix);
    wait_for(&db, "every job to succeed", 900, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == total
    })
    .await;
    assert_retried(&db, &train_key).await;
    assert_eq!(jobs_without_one_row(&db, "train", "models").await, vec![], "one model per train job");
    let (resumed_from, steps): (i64, i64) = sqlx::query_as("SELECT resumed_from, steps FROM models WHERE job = $1")
        .bind(&train_key)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    // The last attempt went on from the checkpoint the killed one left (or a later one).
    assert!(resumed_from >= killed_at && resumed_from > 0, "resumed from {resumed_from}, killed at {killed_at}");
    assert_eq!(steps, 160);
    // One curve point per validation step, none twice, none missing: 160 / 40 = every 4 steps.
    let (points, distinct, last): (i64, i64, i64) =
        sqlx::query_as("SELECT count(*), count(DISTINCT step), max(step) FROM training_curves")
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!((points, distinct, last), (40, 40, 160));
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
    let _one_farm = ONE_FARM.lock().await;
    let db = TestDatabase::create().await;
    let prefix = support::servers::TestKeys::new(&db.name);
    let (dir, _) = submit_grid(&db, "likely-kill", LIKELY_GRID);

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--lease", VICTIM_LEASE], &db.url, &prefix);
    let pool = db.pool.clone();
    wait_for_checkpoint(&db, "a few iterations", 3, 300).await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let (learner_key, killed_at): (String, i64) =
        sqlx::query_as("SELECT job, step FROM checkpoints WHERE tag = 'last'").fetch_one(&db.pool).await.unwrap();
    assert_unfinished(&db, &learner_key, "give it more iterations").await;
    assert!(killed_at < 80, "killed before the end");
    let _rescuer = spawn(&["worker", "--lease", RESCUER_LEASE], &db.url, &prefix);
    wait_for(&db, "every job to succeed", 600, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == 3
    })
    .await;
    assert_retried(&db, &learner_key).await;
    let learners: Vec<(String, i32)> =
        sqlx::query_as("SELECT job, resumed_from FROM puzzle_learners").fetch_all(&db.pool).await.unwrap();
    assert_eq!(learners.len(), 1, "one learner: {learners:?}");
    let (job, resumed_from) = learners[0].clone();
    assert_eq!(job, learner_key);
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
    let _one_farm = ONE_FARM.lock().await;
    let db = TestDatabase::create().await;
    let prefix = support::servers::TestKeys::new(&db.name);
    let (_dir, total) = submit_grid(&db, "bootstrap-kill", BOOTSTRAP_GRID);

    let _serve = spawn(&["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"], &db.url, &prefix);
    let mut victim = spawn(&["worker", "--lease", VICTIM_LEASE], &db.url, &prefix);
    let pool = db.pool.clone();
    wait_for_checkpoint(&db, "a round", 1, 300).await;
    victim.0.kill().unwrap(); // SIGKILL
    victim.0.wait().unwrap();
    let (bootstrap_key, killed_at): (String, i64) =
        sqlx::query_as("SELECT job, step FROM checkpoints WHERE tag = 'last'").fetch_one(&db.pool).await.unwrap();
    assert_unfinished(&db, &bootstrap_key, "make its rounds slower").await;
    let _rescuer = spawn(&["worker", "--lease", RESCUER_LEASE], &db.url, &prefix);
    wait_for(&db, "every job to succeed", 900, async || {
        let (n,): (i64,) =
            sqlx::query_as("SELECT count(*) FROM jobs WHERE status = 'succeeded'").fetch_one(&pool).await.unwrap();
        n == total
    })
    .await;
    assert_retried(&db, &bootstrap_key).await;
    let bootstraps: Vec<(String, i32, i32, serde_json::Value)> =
        sqlx::query_as("SELECT job, resumed_from, rounds, history FROM graph_bootstraps")
            .fetch_all(&db.pool)
            .await
            .unwrap();
    assert_eq!(bootstraps.len(), 1, "one bootstrap");
    let (job, resumed_from, rounds, history) = bootstraps[0].clone();
    assert_eq!(job, bootstrap_key);
    assert!(
        resumed_from as i64 >= killed_at && resumed_from > 0,
        "resumed after {resumed_from}, killed at {killed_at}"
    );
    // Every round once, in order, whichever attempt ran it.
    let numbers: Vec<i64> = history.as_array().unwrap().iter().map(|r| r["round"].as_i64().unwrap()).collect();
    assert_eq!(numbers, (1..=rounds as i64).collect::<Vec<_>>());
}
