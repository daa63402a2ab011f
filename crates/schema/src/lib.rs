//! The farm's PostgreSQL layer: migrations (applied at connect) and the
//! queries the coordinator, workers and status API share.

pub mod lifecycle;

use std::collections::BTreeMap;

use jobs::{Job, JobSpec};
use sqlx::postgres::{PgPool, PgPoolOptions};
use uuid::Uuid;

/// A database problem, with what we were doing.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    #[error("cannot connect to PostgreSQL at {url}: {source}")]
    Connect { url: String, source: sqlx::Error },
    #[error("applying migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error(transparent)]
    Query(#[from] sqlx::Error),
}

/// The embedded migrations of `schema/migrations`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Connects and brings the schema up to date.
pub async fn connect(url: &str) -> Result<PgPool, DbError> {
    let pool = PgPoolOptions::new()
        .max_connections(16)
        .connect(url)
        .await
        .map_err(|source| DbError::Connect { url: redact(url), source })?;
    MIGRATOR.run(&pool).await?;
    Ok(pool)
}

/// Like [`connect`], but creates the database first if the server does not
/// have it yet (a new user's first `hfarm submit`).
pub async fn connect_creating(url: &str) -> Result<PgPool, DbError> {
    match connect(url).await {
        Err(DbError::Connect { source: sqlx::Error::Database(e), .. }) if e.code().as_deref() == Some("3D000") => {
            let (server, name) = split_database(url);
            use sqlx::{Connection, Executor};
            let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres{}", query_part(url)))
                .await
                .map_err(|source| DbError::Connect { url: redact(url), source })?;
            let quoted = format!("\"{}\"", name.replace('"', "\"\""));
            admin.execute(format!("CREATE DATABASE {quoted}").as_str()).await?;
            connect(url).await
        }
        other => other,
    }
}

/// `postgres://u@h:p/db?x` -> (`postgres://u@h:p`, `db`).
fn split_database(url: &str) -> (String, String) {
    let without_query = url.split('?').next().unwrap_or(url);
    let scheme_end = without_query.find("://").map_or(0, |i| i + 3);
    match without_query[scheme_end..].find('/') {
        Some(i) => {
            let at = scheme_end + i;
            (without_query[..at].to_string(), without_query[at + 1..].to_string())
        }
        None => (without_query.to_string(), String::new()),
    }
}

fn query_part(url: &str) -> &str {
    url.find('?').map_or("", |i| &url[i..])
}

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

/// What submitting jobs did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Submitted {
    /// Jobs that did not exist before.
    pub new: usize,
    /// Jobs already known (from this or another experiment): reused.
    pub existing: usize,
}

/// Records an experiment.
pub async fn create_experiment(pool: &PgPool, name: &str, description: &str, grid_toml: &str) -> Result<Uuid, DbError> {
    let id = Uuid::new_v4();
    sqlx::query("INSERT INTO experiments (id, name, description, grid_toml) VALUES ($1, $2, $3, $4)")
        .bind(id)
        .bind(name)
        .bind(description)
        .bind(grid_toml)
        .execute(pool)
        .await?;
    Ok(id)
}

fn axes(spec: &JobSpec) -> [Option<String>; 9] {
    match spec {
        JobSpec::Generate { domain, split, seed, .. } => {
            [Some(domain.clone()), Some(s(split)), Some(seed.to_string()), None, None, None, None, None, None]
        }
        JobSpec::Label { domain, split } => {
            [Some(domain.clone()), Some(s(split)), None, None, None, None, None, None, None]
        }
        JobSpec::Plan { domain, heuristic, .. } => {
            let (h, clip) = match heuristic {
                jobs::spec::PlanHeuristic::Classical { name } => (name.clone(), None),
                jobs::spec::PlanHeuristic::Learned { clip: None } => ("learned".to_string(), None),
                jobs::spec::PlanHeuristic::Learned { clip: Some(b) } => ("learned+clip".to_string(), Some(s(b))),
            };
            [Some(domain.clone()), Some("test".into()), None, Some(h), None, None, None, clip, None]
        }
        JobSpec::Train { domain, model, distribution, sigma, bound, residual, seed, .. } => [
            Some(domain.clone()),
            None,
            Some(seed.to_string()),
            None,
            Some(s(model)),
            Some(s(distribution)),
            Some(s(sigma)),
            bound.as_ref().map(s),
            Some(s(residual)),
        ],
        JobSpec::Evaluate { domain, bound } => {
            [Some(domain.clone()), Some("test".into()), None, None, None, None, None, Some(s(bound)), None]
        }
        JobSpec::Noop { .. } => Default::default(),
    }
}

/// A serde-named enum value as text, for the axis columns.
fn s<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => v.to_string(),
        Err(_) => String::new(),
    }
}

/// Adds jobs (in dependency order) to an experiment. Known keys are reused,
/// not duplicated; `force` sends known jobs back to `pending` to run again.
pub async fn submit_jobs(pool: &PgPool, experiment: Uuid, jobs: &[Job], force: bool) -> Result<Submitted, DbError> {
    let mut tx = pool.begin().await?;
    let mut out = Submitted::default();
    for job in jobs {
        let spec = serde_json::to_value(&job.spec).expect("job specs serialize");
        let kind = job.spec.kind().as_str();
        let resource = match job.spec.resource() {
            jobs::Resource::Cpu => "cpu",
            jobs::Resource::Gpu => "gpu",
        };
        let [domain, split, seed, heuristic, model, distribution, sigma, bound, residual] = axes(&job.spec);
        let seed: Option<i64> = seed.and_then(|s| s.parse().ok());
        let inserted = sqlx::query(
            "INSERT INTO jobs (key, kind, resource, spec, domain, split, seed, heuristic, model, distribution, sigma, bound, residual)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
             ON CONFLICT (key) DO NOTHING",
        )
        .bind(job.key.as_str())
        .bind(kind)
        .bind(resource)
        .bind(&spec)
        .bind(domain)
        .bind(split)
        .bind(seed)
        .bind(heuristic)
        .bind(model)
        .bind(distribution)
        .bind(sigma)
        .bind(bound)
        .bind(residual)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if inserted == 1 {
            out.new += 1;
            for (position, input) in job.inputs.iter().enumerate() {
                sqlx::query("INSERT INTO job_inputs (job, position, input) VALUES ($1, $2, $3)")
                    .bind(job.key.as_str())
                    .bind(position as i32)
                    .bind(input.as_str())
                    .execute(&mut *tx)
                    .await?;
            }
        } else {
            out.existing += 1;
            if force {
                sqlx::query(
                    "UPDATE jobs SET status = 'pending', attempts = 0, worker = NULL, lease_expires_at = NULL,
                     last_error = NULL, queued_at = NULL, started_at = NULL, finished_at = NULL WHERE key = $1",
                )
                .bind(job.key.as_str())
                .execute(&mut *tx)
                .await?;
            }
        }
        sqlx::query("INSERT INTO experiment_jobs (experiment, job) VALUES ($1, $2) ON CONFLICT DO NOTHING")
            .bind(experiment)
            .bind(job.key.as_str())
            .execute(&mut *tx)
            .await?;
    }
    tx.commit().await?;
    Ok(out)
}

/// Number of an experiment's jobs in each status (every status present, 0 if none).
pub async fn status_counts(pool: &PgPool, experiment: Uuid) -> Result<BTreeMap<String, i64>, DbError> {
    let mut counts: BTreeMap<String, i64> =
        ["pending", "queued", "running", "succeeded", "failed", "dead", "cancelled"]
            .iter()
            .map(|s| (s.to_string(), 0))
            .collect();
    let rows: Vec<(String, i64)> = sqlx::query_as(
        "SELECT j.status::text, count(*) FROM jobs j JOIN experiment_jobs e ON e.job = j.key
         WHERE e.experiment = $1 GROUP BY j.status",
    )
    .bind(experiment)
    .fetch_all(pool)
    .await?;
    counts.extend(rows);
    Ok(counts)
}

/// Throwaway databases for tests that need a real PostgreSQL: each test gets
/// its own, created from the admin URL (`HFARM_TEST_DATABASE_URL`, else
/// `DATABASE_URL`, else `postgres://postgres@127.0.0.1:5432/postgres`) and
/// dropped afterwards.
pub mod testing {
    use sqlx::postgres::PgPool;
    use sqlx::{Connection, Executor, PgConnection};

    pub fn admin_url() -> String {
        std::env::var("HFARM_TEST_DATABASE_URL")
            .or_else(|_| std::env::var("DATABASE_URL"))
            .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_string())
    }

    pub struct TestDatabase {
        pub name: String,
        pub url: String,
        pub pool: PgPool,
    }

    impl TestDatabase {
        /// Creates an empty database with the farm's schema.
        pub async fn create() -> TestDatabase {
            let admin = admin_url();
            let name = format!("hfarm_test_{}", uuid::Uuid::new_v4().simple());
            let mut conn = PgConnection::connect(&admin)
                .await
                .unwrap_or_else(|e| panic!("tests need PostgreSQL at {admin} (run ./scripts/services): {e}"));
            conn.execute(format!("CREATE DATABASE {name}").as_str()).await.expect("create test database");
            let url = match admin.rfind('/') {
                Some(i) if admin[..i].contains("://") && i > admin.find("://").unwrap_or(0) + 2 => {
                    format!("{}/{name}", &admin[..i])
                }
                _ => format!("{admin}/{name}"),
            };
            let pool = crate::connect(&url).await.expect("connect to the test database");
            TestDatabase { name, url, pool }
        }
    }

    impl Drop for TestDatabase {
        fn drop(&mut self) {
            // Drop needs async I/O: do it on a private runtime in a thread,
            // so it works from inside the test's own runtime too.
            let (admin, name) = (admin_url(), self.name.clone());
            let _ = std::thread::spawn(move || {
                let Ok(rt) = tokio_runtime() else { return };
                rt.block_on(async {
                    if let Ok(mut c) = PgConnection::connect(&admin).await {
                        let _ = c.execute(format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)").as_str()).await;
                    }
                });
            })
            .join();
        }
    }

    fn tokio_runtime() -> std::io::Result<tokio::runtime::Runtime> {
        tokio::runtime::Builder::new_current_thread().enable_all().build()
    }
}
