//! `hfarm export`, `hfarm import` and `hfarm artifact` between two real
//! PostgreSQL databases: the hand-made experiment of the report tests
//! (results written straight into the tables, no workers) plus a checkpoint
//! and an instance, and the smoke grid as submitted (real specs and inputs).

use std::process::{Command, Output};

use schema::reports::{Filter, Table};
use schema::testing::TestDatabase;
use schema::{PgPool, Uuid};
use support::fixture;

fn hfarm(args: &[&str], db: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("DATABASE_URL", db).output().expect("run hfarm")
}

fn ok(out: &Output) -> String {
    assert!(out.status.success(), "{}\n{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn failed(out: &Output) -> String {
    assert!(!out.status.success(), "expected a failure: {}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A folder of the test's own, removed when dropped (also when the test fails).
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("{name}-{}-{}", std::process::id(), Uuid::new_v4().simple()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn path(&self, name: &str) -> String {
        self.0.join(name).display().to_string()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml");
const WEIGHTS: &[u8] = b"\x00\x01\x02stacked weights\xff";

/// The fixture, with a checkpoint for one train job and an instance row
/// (with its optimal plan) for one generate job.
async fn source(db: &TestDatabase) -> Uuid {
    let f = fixture::build(&db.pool).await;
    sqlx::query(
        "INSERT INTO checkpoints (job, tag, step, config, weights) VALUES
             ('train-gaussian-1', 'best_mse', 10, '{\"model\": \"nlm\"}', $1),
             ('train-gaussian-1', 'last', 20, '{\"model\": \"nlm\"}', 'x'::bytea)",
    )
    .bind(WEIGHTS)
    .execute(&db.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO instances (job, domain, split, generator, seed, generator_seed, tries, domain_pddl, problem_pddl,
             optimal_cost, plan, expansions, search_time_s)
         VALUES ('inst0', 'gripper', 'test', '{\"balls\": 2}', 1, 18446744073709551615, 1,
                 E'(define (domain g)\\n \"quoted\", comma)', E'(define (problem p))\\n', 2,
                 '[\"pick ball1 rooma left\", \"(move rooma roomb)\"]', 7, 0.25)",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    f.experiment
}

/// Every report table of `experiment`, as text.
async fn reports(pool: &PgPool, experiment: Uuid) -> Vec<String> {
    let mut out = vec![];
    for t in Table::ALL {
        let r = schema::reports::table(pool, experiment, t, &Filter::default()).await.unwrap();
        out.push(format!("{t:?}: {:?} {:?}", r.columns, r.rows));
    }
    out
}

/// Rows of `table` that belong to the jobs of `experiment`, each as JSON text, sorted.
async fn rows(pool: &PgPool, table: &str, experiment: Uuid) -> Vec<String> {
    let column = if table == "jobs" { "key" } else { "job" };
    sqlx::query_scalar(&format!(
        "SELECT to_jsonb(t)::text FROM {table} t
         WHERE {column} IN (SELECT job FROM experiment_jobs WHERE experiment = $1) ORDER BY 1"
    ))
    .bind(experiment)
    .fetch_all(pool)
    .await
    .unwrap()
}

/// The same rows, or the first that differs.
fn assert_same(here: &[String], there: &[String], table: &str) {
    if let Some(i) = (0..here.len().max(there.len())).find(|&i| here.get(i) != there.get(i)) {
        panic!("{table}: row {i} differs:\n  exported {:?}\n  imported {:?}", here.get(i), there.get(i));
    }
}

async fn count(pool: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(&format!("SELECT count(*) FROM {table}")).fetch_one(pool).await.unwrap()
}

#[tokio::test]
async fn an_export_imported_elsewhere_gives_the_same_keys_rows_and_reports_and_a_second_import_changes_nothing() {
    let (a, b) = (TestDatabase::create().await, TestDatabase::create().await);
    let e = source(&a).await;
    let dir = TempDir::new("hfarm-export");
    let out = dir.path("fixture");

    let started = std::time::Instant::now();
    let manifest = ok(&hfarm(&["export", &e.to_string(), "--out", &out, "--artifacts", "--json"], &a.url));
    let export_s = started.elapsed().as_secs_f64();
    let m: serde_json::Value = serde_json::from_str(&manifest).unwrap();
    assert_eq!(m["format"], "hfarm-export/1");
    assert_eq!(m["experiment"]["id"], e.to_string());
    assert_eq!(m["hfarm_version"], env!("CARGO_PKG_VERSION"));
    assert!(m["exported_at"].as_str().unwrap().ends_with('Z'), "{m}");
    let files = m["files"].as_array().unwrap();
    let file = |name: &str| files.iter().find(|f| f["path"] == name).unwrap_or_else(|| panic!("{name} in {m}"));
    assert_eq!(file("experiments.csv")["rows"], 1);
    assert_eq!(file("jobs.csv")["rows"], count(&a.pool, "jobs").await);
    assert_eq!(file("plan_runs.csv")["rows"], 14);
    assert_eq!(file("evaluations.csv")["rows"], 6);
    assert_eq!(file("checkpoints.csv")["rows"], 2);
    assert_eq!(file("instances.csv")["rows"], 1);
    assert!(file("grid.toml")["rows"].is_null());
    let on_disk: Vec<String> =
        std::fs::read_dir(&out).unwrap().map(|f| f.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(on_disk.len(), files.len() + 1, "{on_disk:?}");
    let bytes: u64 = files.iter().map(|f| f["bytes"].as_u64().unwrap()).sum();

    let started = std::time::Instant::now();
    let said = ok(&hfarm(&["import", &out], &b.url));
    let import_s = started.elapsed().as_secs_f64();
    assert!(said.contains("new here"), "{said}");
    eprintln!("export {export_s:.2} s, import {import_s:.2} s, {bytes} bytes in {} files", files.len());

    assert_eq!(reports(&a.pool, e).await, reports(&b.pool, e).await);
    for table in ["jobs", "job_inputs", "plan_runs", "evaluations", "training_curves", "checkpoints", "instances"] {
        let (mut here, mut there) = (rows(&a.pool, table, e).await, rows(&b.pool, table, e).await);
        if table == "jobs" {
            // The fixture's running training arrives waiting: no worker of
            // the first farm holds it in the second.
            let running = |r: &String| r.contains("\"key\": \"train-gaussian-3\"");
            let (was, is) = (here.iter().position(running).unwrap(), there.iter().position(running).unwrap());
            assert!(here.remove(was).contains("\"status\": \"running\""));
            let now = there.remove(is);
            assert!(now.contains("\"status\": \"pending\"") && now.contains("\"started_at\": null"), "{now}");
        }
        assert_same(&here, &there, table);
    }
    let accuracy = |db: &str| ok(&hfarm(&["report", &e.to_string(), "--table", "planning", "--format", "csv"], db));
    assert_eq!(accuracy(&a.url), accuracy(&b.url));
    // The experiment's counts (migration 0019's triggers), the running job waiting.
    let status = |db: &str| -> serde_json::Value {
        serde_json::from_str(&ok(&hfarm(&["status", &e.to_string(), "--json", "--once"], db))).unwrap()
    };
    let (here, there) = (status(&a.url), status(&b.url));
    assert_eq!((here["jobs"]["succeeded"].as_i64(), here["jobs"]["running"].as_i64()), (Some(27), Some(1)), "{here}");
    assert_eq!(
        (there["jobs"]["succeeded"].as_i64(), there["jobs"]["pending"].as_i64()),
        (Some(27), Some(1)),
        "{there}"
    );
    assert_eq!(here["by_kind"]["plan"], there["by_kind"]["plan"]);

    // Twice: nothing new, nothing changed.
    let tables = ["experiments", "jobs", "job_inputs", "experiment_jobs", "plan_runs", "checkpoints", "instances"];
    let mut before = vec![];
    for t in tables {
        before.push(count(&b.pool, t).await);
    }
    let again: serde_json::Value = serde_json::from_str(&ok(&hfarm(&["import", &out, "--json"], &b.url))).unwrap();
    assert_eq!(again["experiment_new"], false);
    assert_eq!(again["jobs_new"], 0);
    assert!(again["tables"].as_array().unwrap().iter().all(|t| t[1] == 0), "{again}");
    for (t, n) in tables.iter().zip(before) {
        assert_eq!(count(&b.pool, t).await, n, "{t}");
    }
    assert_eq!(reports(&a.pool, e).await, reports(&b.pool, e).await);

    // The artifacts, from the importing farm.
    let ckpt = dir.path("ckpt.bin");
    let said = ok(&hfarm(&["artifact", "train-gaussian-1", "--out", &ckpt], &b.url));
    assert!(said.contains("checkpoint best_mse") && said.contains("step 10"), "{said}");
    assert_eq!(std::fs::read(&ckpt).unwrap(), WEIGHTS);
    let config: serde_json::Value =
        serde_json::from_slice(&std::fs::read(format!("{ckpt}.config.json")).unwrap()).unwrap();
    assert_eq!(config["model"], "nlm");
    ok(&hfarm(&["artifact", "train-gaussian-1", "--tag", "last", "--out", &ckpt], &b.url));
    assert_eq!(std::fs::read(&ckpt).unwrap(), b"x");
    let err = failed(&hfarm(&["artifact", "train-gaussian-1", "--tag", "best", "--out", &ckpt], &b.url));
    assert!(err.contains("no checkpoint \"best\"; it has: best_mse, last"), "{err}");
    let plan = dir.path("plan.txt");
    ok(&hfarm(&["artifact", "inst0", "--out", &plan], &b.url));
    assert_eq!(
        std::fs::read_to_string(&plan).unwrap(),
        "(pick ball1 rooma left)\n(move rooma roomb)\n; cost = 2 (unit cost)\n"
    );
    let err = failed(&hfarm(&["artifact", "nosuchkey", "--out", &plan], &b.url));
    assert!(err.contains("no job or artifact nosuchkey"), "{err}");
    let err = failed(&hfarm(&["artifact", "plan-ff-0", "--out", &plan], &b.url));
    assert!(err.contains("plan job plan-ff-0 (succeeded) stores no artifact"), "{err}");

    // Without --artifacts the checkpoints stay home.
    let lean = dir.path("lean");
    let m: serde_json::Value =
        serde_json::from_str(&ok(&hfarm(&["export", "fixture", "--out", &lean, "--json"], &a.url))).unwrap();
    assert!(m["files"].as_array().unwrap().iter().all(|f| f["path"] != "checkpoints.csv"), "{m}");
    let err = failed(&hfarm(&["export", "fixture", "--out", &lean], &a.url));
    assert!(err.contains("exists and is not an empty folder"), "{err}");
}

/// The smoke grid as submitted: real specs, the DAG's inputs, pending jobs.
#[tokio::test]
async fn a_submitted_grid_travels_with_its_specs_and_inputs() {
    let (a, b) = (TestDatabase::create().await, TestDatabase::create().await);
    let v: serde_json::Value = serde_json::from_str(&ok(&hfarm(&["submit", SMOKE, "--json"], &a.url))).unwrap();
    let e: Uuid = v["experiment"].as_str().unwrap().parse().unwrap();
    let dir = TempDir::new("hfarm-export-smoke");
    ok(&hfarm(&["export", "smoke", "--out", &dir.path("x")], &a.url));
    ok(&hfarm(&["import", &dir.path("x")], &b.url));
    for table in ["jobs", "job_inputs"] {
        let (here, there) = (rows(&a.pool, table, e).await, rows(&b.pool, table, e).await);
        assert!(!here.is_empty());
        assert_same(&here, &there, table);
    }
    let grid: String =
        sqlx::query_scalar("SELECT grid_toml FROM experiments WHERE id = $1").bind(e).fetch_one(&b.pool).await.unwrap();
    assert_eq!(grid, std::fs::read_to_string(SMOKE).unwrap());
    assert_eq!(std::fs::read_to_string(dir.0.join("x/grid.toml")).unwrap(), grid);
    // Resubmitting the grid here reuses every imported job.
    let again: serde_json::Value = serde_json::from_str(&ok(&hfarm(&["submit", SMOKE, "--json"], &b.url))).unwrap();
    assert_eq!(again["new"], 0, "{again}");

    // GET /api/jobs/{key}/artifact, over a socket: a checkpoint's bytes, and a 404 that says why.
    let key: String = sqlx::query_scalar("SELECT key FROM jobs WHERE kind = 'generate' ORDER BY key LIMIT 1")
        .fetch_one(&b.pool)
        .await
        .unwrap();
    sqlx::query("INSERT INTO checkpoints (job, tag, step, config, weights) VALUES ($1, 'last', 3, '{}', $2)")
        .bind(&key)
        .bind(WEIGHTS)
        .execute(&b.pool)
        .await
        .unwrap();
    let app = coordinator::api::router(coordinator::AppState { pool: b.pool.clone(), token: None, queue: None });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let get = |path: String| {
        tokio::task::spawn_blocking(move || {
            use std::io::{Read, Write};
            let mut s = std::net::TcpStream::connect(addr).unwrap();
            write!(s, "GET {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n").unwrap();
            let mut answer = vec![];
            s.read_to_end(&mut answer).unwrap();
            answer
        })
    };
    let answer = get(format!("/api/jobs/{key}/artifact")).await.unwrap();
    let split = answer.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let head = String::from_utf8_lossy(&answer[..split]).to_lowercase();
    assert!(head.starts_with("http/1.1 200") && head.contains("application/octet-stream"), "{head}");
    assert!(head.contains(&format!("filename=\"{key}-checkpoint.bin\"")), "{head}");
    assert_eq!(&answer[split + 4..], WEIGHTS);
    let answer =
        String::from_utf8_lossy(&get(format!("/api/jobs/{key}/artifact?tag=best_nll")).await.unwrap()).into_owned();
    assert!(
        answer.starts_with("HTTP/1.1 404") && answer.contains("has no checkpoint best_nll; it has: last"),
        "{answer}"
    );
    let answer = String::from_utf8_lossy(&get("/api/jobs/abcdef0123/artifact".into()).await.unwrap()).into_owned();
    assert!(answer.starts_with("HTTP/1.1 404") && answer.contains("no job or artifact abcdef0123"), "{answer}");
}

#[tokio::test]
async fn a_changed_file_is_refused_by_name_before_anything_is_written() {
    let (a, b) = (TestDatabase::create().await, TestDatabase::create().await);
    source(&a).await;
    let dir = TempDir::new("hfarm-export-corrupt");
    let out = dir.path("x");
    ok(&hfarm(&["export", "fixture", "--out", &out], &a.url));
    let path = dir.0.join("x/plan_runs.csv");
    let text = std::fs::read_to_string(&path).unwrap().replacen(",10000,", ",10001,", 1);
    std::fs::write(&path, text).unwrap();
    let err = failed(&hfarm(&["import", &out], &b.url));
    assert!(err.contains("plan_runs.csv: checksum mismatch"), "{err}");
    assert_eq!(count(&b.pool, "experiments").await, 0);
    assert_eq!(count(&b.pool, "jobs").await, 0);

    // A manifest whose row count disagrees with its (unchanged) file: found
    // only once the rows are in PostgreSQL, after the experiment's row and
    // its jobs went in; the one transaction takes them all back.
    ok(&hfarm(&["export", "fixture", "--out", &dir.path("y")], &a.url));
    let manifest = dir.0.join("y/manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest).unwrap()).unwrap();
    let runs = m["files"].as_array_mut().unwrap().iter_mut().find(|f| f["path"] == "plan_runs.csv").unwrap();
    runs["rows"] = serde_json::json!(15);
    std::fs::write(&manifest, serde_json::to_vec(&m).unwrap()).unwrap();
    let err = failed(&hfarm(&["import", &dir.path("y")], &b.url));
    assert!(err.contains("plan_runs.csv: 14 rows, but the manifest says 15"), "{err}");
    assert_eq!((count(&b.pool, "experiments").await, count(&b.pool, "jobs").await), (0, 0));
    assert_eq!(count(&b.pool, "experiment_jobs").await, 0);

    std::fs::remove_file(dir.0.join("x/manifest.json")).unwrap();
    let err = failed(&hfarm(&["import", &out], &b.url));
    assert!(err.contains("manifest.json: cannot read the export's manifest"), "{err}");
}

#[tokio::test]
async fn a_key_known_here_with_another_spec_is_refused_and_nothing_is_imported() {
    let (a, b) = (TestDatabase::create().await, TestDatabase::create().await);
    source(&a).await;
    sqlx::query(
        "INSERT INTO jobs (key, kind, resource, spec, status) VALUES ('plan-ff-1', 'plan', 'cpu', '{\"other\": 1}', 'succeeded')",
    )
    .execute(&b.pool)
    .await
    .unwrap();
    let dir = TempDir::new("hfarm-export-conflict");
    let out = dir.path("x");
    ok(&hfarm(&["export", "fixture", "--out", &out], &a.url));
    let err = failed(&hfarm(&["import", &out], &b.url));
    assert!(err.contains("job plan-ff-1 exists in this farm with a different spec"), "{err}");
    assert!(err.contains("{\"other\": 1}") && err.contains("nothing imported"), "{err}");
    assert_eq!(count(&b.pool, "experiments").await, 0);
    assert_eq!(count(&b.pool, "jobs").await, 1);
    assert_eq!(count(&b.pool, "plan_runs").await, 0);
}

/// A job this farm has but never finished, which the export brings
/// finished, takes the export's state and results; an experiment id known
/// here with another grid is refused.
#[tokio::test]
async fn an_unfinished_job_here_is_completed_by_the_export_and_a_known_id_with_another_grid_is_refused() {
    let (a, b) = (TestDatabase::create().await, TestDatabase::create().await);
    let e = source(&a).await;
    sqlx::query(
        "INSERT INTO jobs (key, kind, resource, spec, status) VALUES ('plan-ff-0', 'plan', 'cpu', '{}', 'dead')",
    )
    .execute(&b.pool)
    .await
    .unwrap();
    let dir = TempDir::new("hfarm-export-complete");
    let out = dir.path("x");
    ok(&hfarm(&["export", "fixture", "--out", &out], &a.url));
    let said: serde_json::Value = serde_json::from_str(&ok(&hfarm(&["import", &out, "--json"], &b.url))).unwrap();
    assert_eq!((said["jobs_completed"].as_u64(), said["jobs_new"].as_u64()), (Some(1), Some(27)), "{said}");
    let status: String =
        sqlx::query_scalar("SELECT status::text FROM jobs WHERE key = 'plan-ff-0'").fetch_one(&b.pool).await.unwrap();
    assert_eq!(status, "succeeded");
    assert_same(&rows(&a.pool, "plan_runs", e).await, &rows(&b.pool, "plan_runs", e).await, "plan_runs");

    let c = TestDatabase::create().await;
    sqlx::query("INSERT INTO experiments (id, name, grid_toml) VALUES ($1, 'fixture', 'name = \"other\"')")
        .bind(e)
        .execute(&c.pool)
        .await
        .unwrap();
    let err = failed(&hfarm(&["import", &out], &c.url));
    assert!(err.contains(&format!("experiment {e} exists in this farm with a different grid")), "{err}");
    assert_eq!(count(&c.pool, "jobs").await, 0);
}
