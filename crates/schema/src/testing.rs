//! Throwaway databases for tests that need a real PostgreSQL: each test gets
//! its own, created from the admin URL (`HFARM_TEST_DATABASE_URL`, else
//! `DATABASE_URL`, else `postgres://postgres@127.0.0.1:5432/postgres`) and
//! dropped afterwards.
//!
//! `hfarm bench queue` uses them too, for its measurements.

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
    /// Creates an empty database with the farm's schema (panics if it
    /// cannot: for tests).
    pub async fn create() -> TestDatabase {
        TestDatabase::try_create("hfarm_test").await.unwrap_or_else(|e| {
            panic!("tests need PostgreSQL at {} (run ./scripts/services): {e}", crate::redact(&admin_url()))
        })
    }

    /// Creates an empty database named `{prefix}_{random}` with the farm's schema.
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
        let name = format!("{prefix}_{}", uuid::Uuid::new_v4().simple());
        let mut conn = PgConnection::connect(&admin)
            .await
            .map_err(|source| crate::DbError::Connect { url: crate::redact(&admin), source })?;
        conn.execute(format!("CREATE DATABASE {name}").as_str()).await?;
        let url = match admin.rfind('/') {
            Some(i) if admin[..i].contains("://") && i > admin.find("://").unwrap_or(0) + 2 => {
                format!("{}/{name}", &admin[..i])
            }
            _ => format!("{admin}/{name}"),
        };
        let pool = sqlx::postgres::PgPoolOptions::new()
            .max_connections(16)
            .connect(&url)
            .await
            .map_err(|source| crate::DbError::Connect { url: crate::redact(&url), source })?;
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

fn tokio_runtime() -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().enable_all().build()
}
