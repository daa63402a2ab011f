//! Throwaway databases for tests that need a real PostgreSQL: each test gets
//! its own, created from the admin URL (`HFARM_TEST_DATABASE_URL`, else the
//! local server's `postgres://postgres@127.0.0.1:5432/postgres`) and dropped
//! afterwards. Never from `DATABASE_URL`: that names a farm's own database,
//! whose server must not receive throwaway databases unless told to (set
//! `HFARM_TEST_DATABASE_URL` to it).
//!
//! A database is named `{prefix}_{unix seconds}_{pid}_{random}`, so that
//! `scripts/test` can sweep those that a killed test process left behind
//! (older than a day) by their name alone.
//!
//! `hfarm bench queue` uses them too, for its measurements.

use sqlx::postgres::PgPool;
use sqlx::{Connection, Executor, PgConnection};

/// The server where test databases are made: `HFARM_TEST_DATABASE_URL`,
/// else the local server's `postgres` database (never `DATABASE_URL`).
pub fn admin_url() -> String {
    std::env::var("HFARM_TEST_DATABASE_URL")
        .ok()
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| LOCAL_ADMIN_URL.to_string())
}

/// The local server's admin database, as `scripts/services` sets it up.
pub const LOCAL_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// A fresh database name under `prefix`: `{prefix}_{unix seconds}_{pid}_{16 hex}`
/// (at most 63 bytes for a prefix of up to 20), which says when and by which
/// process it was made.
pub fn database_name(prefix: &str) -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!("{prefix}_{secs}_{}_{}", std::process::id(), &random[..16])
}

pub struct TestDatabase {
    pub name: String,
    pub url: String,
    pub pool: PgPool,
}

impl TestDatabase {
    /// Creates an empty database with the farm's schema (panics if it
    /// cannot: for tests).
    pub async fn create() -> TestDatabase {
        TestDatabase::try_create("hfarm_test").await.unwrap_or_else(|e| {
            panic!("tests need PostgreSQL at {} (run ./scripts/services): {e}", crate::redact(&admin_url()))
        })
    }

    /// Creates an empty database named by [`database_name`] with the farm's schema.
    pub async fn try_create(prefix: &str) -> Result<TestDatabase, crate::DbError> {
        let db = TestDatabase::create_bare(prefix).await?;
        crate::MIGRATOR.run(&db.pool).await?;
        Ok(db)
    }

    /// Creates an empty database with the migrations up to `version` only,
    /// for tests of what a later migration does to stored data; `migrate`
    /// then brings it up to date (panics if it cannot: for tests).
    pub async fn create_at_migration(version: i64) -> TestDatabase {
        let db = TestDatabase::create_bare("hfarm_test").await.expect("a test database");
        // The embedded migrations up to `version`: `migrate!` builds a
        // `Migrator` from these same fields.
        let older = sqlx::migrate::Migrator {
            migrations: crate::MIGRATOR.iter().filter(|m| m.version <= version).cloned().collect(),
            ..sqlx::migrate::Migrator::DEFAULT
        };
        older.run(&db.pool).await.expect("the older migrations");
        db
    }

    /// Applies every migration not applied yet.
    pub async fn migrate(&self) -> Result<(), crate::DbError> {
        Ok(crate::MIGRATOR.run(&self.pool).await?)
    }

    /// A new empty database without any migration.
    async fn create_bare(prefix: &str) -> Result<TestDatabase, crate::DbError> {
        let admin = admin_url();
        let name = database_name(prefix);
        let mut conn = PgConnection::connect(&admin)
            .await
            .map_err(|cause| crate::DbError::Connect { url: crate::redact(&admin), cause })?;
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await?;
        let url = match admin.rfind('/') {
            Some(i) if admin[..i].contains("://") && i > admin.find("://").unwrap_or(0) + 2 => {
                format!("{}/{name}", &admin[..i])
            }
            _ => format!("{admin}/{name}"),
        };
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(crate::POOL_CONNECTIONS)
            .connect(&url)
            .await
            .map_err(|cause| crate::DbError::Connect { url: crate::redact(&url), cause })?;
        Ok(TestDatabase { name, url, pool })
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

/// Gives an experiment's jobs a mixture of states like a large grid's
/// midway (by a hash of the key, so the same every time): about half
/// succeeded, some queued and running (with a worker and a lease), a few
/// failed and dead (with an error), the rest pending. For measurements of
/// what reads progress (`hfarm bench`, the status API's timing tests).
pub async fn scatter_statuses(pool: &PgPool, experiment: uuid::Uuid) -> Result<u64, crate::DbError> {
    Ok(sqlx::query(
        "UPDATE jobs j SET
             status = CASE WHEN h < 500 THEN 'succeeded' WHEN h < 520 THEN 'dead' WHEN h < 530 THEN 'failed'
                           WHEN h < 540 THEN 'running' WHEN h < 600 THEN 'queued' ELSE 'pending' END::job_status,
             attempts = CASE WHEN h < 540 THEN 1 + (h % 3) ELSE 0 END,
             worker = CASE WHEN h BETWEEN 530 AND 539 THEN 'scale-w' || (h % 7) ELSE NULL END,
             lease_expires_at = CASE WHEN h BETWEEN 530 AND 539 THEN now() + interval '1 hour' END,
             last_error = CASE WHEN h BETWEEN 500 AND 529 THEN 'synthetic failure ' || h END,
             queued_at = CASE WHEN h < 600 THEN now() - interval '2 hours' END,
             started_at = CASE WHEN h < 540 THEN now() - interval '1 hour' END,
             finished_at = CASE WHEN h < 530 THEN now() - interval '30 minutes' END
         FROM (SELECT e.job, abs(hashtext(e.job)) % 1000 AS h FROM experiment_jobs e WHERE e.experiment = $1) x
         WHERE j.key = x.job",
    )
    .bind(experiment)
    .execute(pool)
    .await?
    .rows_affected())
}

fn tokio_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}

#[cfg(test)]
mod tests {
    #[test]
    fn database_names_say_when_and_by_whom_and_fit_postgres() {
        let before = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
        let name = super::database_name("hfarm_test");
        let parts: Vec<&str> = name.strip_prefix("hfarm_test_").expect("the prefix").split('_').collect();
        assert_eq!(parts.len(), 3, "{name}");
        let secs: u64 = parts[0].parse().unwrap();
        assert!(secs >= before && secs <= before + 60, "{name}");
        assert_eq!(parts[1], std::process::id().to_string());
        assert!(parts[2].len() == 16 && parts[2].bytes().all(|b| b.is_ascii_hexdigit()), "{name}");
        assert!(super::database_name("hfarm_bench_queue_xy").len() <= 63, "PostgreSQL cuts names at 63 bytes");
        assert_ne!(super::database_name("p"), super::database_name("p"));
    }
}
