//! The farm's PostgreSQL layer: migrations (applied at connect) and every
//! query the coordinator, workers, status API, reports and tests run.
//!
//! Invariant: this is the only crate that holds SQL. Other crates call the
//! typed, named operations below and read their row structs; a job status
//! is a [`JobStatus`], never a string. Map:
//! [`experiments`] (submit, progress) · [`lifecycle`] (a job's transitions)
//! · [`bulk`] (an experiment's jobs at once: retry, cancel, priority) ·
//! [`detail`] (one job, fully) · [`joblogs`] (each attempt's own log) · [`workers`] · [`results`] (what each job
//! kind stores, in the finishing transaction) · [`likely`] and [`graphlearn`] (what the other seeds'
//! experiment kinds store) · [`slots`] (slots left without an instance) · [`training`] (curves and checkpoints, written while a
//! train job runs) · [`listing`] (the API's job list) · [`matrix`] (the
//! dashboard's grid) · [`metrics`] · [`reports`] (the paper's tables from
//! the `report_*` views) · [`export`] (an experiment's rows out and into
//! another farm; one job's artifact) · [`testing`] (throwaway databases).

pub mod artifacts;
pub mod bulk;
pub mod detail;
pub mod experiments;
pub mod export;
pub mod graphlearn;
pub mod joblogs;
pub mod lifecycle;
pub mod likely;
pub mod listing;
pub mod matrix;
pub mod metrics;
pub mod reports;
pub mod results;
pub mod slots;
pub mod status;
pub mod testing;
pub mod training;
pub mod workers;

pub use experiments::{create_experiment, status_counts, submit_jobs, Submitted};
pub use sqlx::postgres::PgPool;
pub use status::{JobStatus, StatusCounts};
pub use uuid::Uuid;

use sqlx::postgres::PgPoolOptions;

/// A transaction in which a job's results and its completion are written
/// together (`lifecycle::finish`).
pub type Transaction = sqlx::Transaction<'static, sqlx::Postgres>;

/// A database problem, with what we were doing.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// Says why in its own message; `cause` is not the error's source, so
    /// that a chain printed whole (`{:#}`) does not say it twice.
    #[error("cannot connect to PostgreSQL at {url}: {cause}")]
    Connect { url: String, cause: sqlx::Error },
    #[error("applying migrations: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    /// The database holds migrations this build does not know: a newer
    /// hfarm migrated it (a farm mid-upgrade, or an old binary).
    #[error(
        "this database was migrated by a newer hfarm (its migration {0} is unknown to this build, which knows up to \
         {1}): run the same or a newer hfarm version against it"
    )]
    NewerSchema(i64, i64),
    #[error(transparent)]
    Query(#[from] sqlx::Error),
    /// A stored value that does not decode (a JSON column, a kind name).
    #[error("stored data: {0}")]
    Decode(String),
}

impl DbError {
    /// Whether the server was unreachable or went away (refused, reset,
    /// shutting down, restarting, no free connection in time) rather than
    /// refusing what was asked: an outage to wait out, not a job's fault.
    pub fn is_outage(&self) -> bool {
        match self {
            // Refused, reset, timed out: wait; a wrong password or database name: say so.
            DbError::Connect { cause, .. } => sqlx_outage(cause),
            DbError::Query(e) => sqlx_outage(e),
            DbError::Migrate(sqlx::migrate::MigrateError::Execute(e)) => sqlx_outage(e),
            _ => false,
        }
    }
}

/// Whether an error in a chain says the server was unreachable ([`DbError::is_outage`]):
/// a [`DbError`], or the `sqlx::Error` under a wrapper that forwards its source.
pub fn is_outage_cause(e: &(dyn std::error::Error + 'static)) -> bool {
    e.downcast_ref::<DbError>().is_some_and(DbError::is_outage)
        || e.downcast_ref::<sqlx::Error>().is_some_and(sqlx_outage)
}

fn sqlx_outage(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Protocol(_) | sqlx::Error::Tls(_) => true,
        // Class 08: connection exception; 57P01-57P03: the server is
        // shutting down, crashed, or not accepting connections yet.
        sqlx::Error::Database(d) => d.code().is_some_and(|c| c.starts_with("08") || c.starts_with("57P")),
        _ => false,
    }
}

/// Connections in the pool of a farm process ([`connect`]). A worker keeps
/// some of them between uses (its claimers, its finisher); it must leave
/// the others for everything else it does (`worker::run` sizes its
/// dispatchers by this).
pub const POOL_CONNECTIONS: u32 = 16;

/// The embedded migrations of `schema/migrations`.
pub static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

/// Connects and brings the schema up to date. A server that refuses the
/// connection is an error at once: the pool alone would retry a refused
/// connection until its 30 s acquire timeout (sqlx reads it as a server
/// starting up), and say only that it timed out. Who must wait for a
/// server to come up (`hfarm serve`, `hfarm worker`) retries this with
/// backoff (`outage::until_connected`).
pub async fn connect(url: &str) -> Result<PgPool, DbError> {
    use sqlx::Connection;
    let probe = sqlx::PgConnection::connect(url).await.map_err(|cause| DbError::Connect { url: redact(url), cause })?;
    // Closed politely (a dropped one is an "unexpected EOF" in the server's log).
    let _ = probe.close().await;
    let pool = PgPoolOptions::new()
        .max_connections(POOL_CONNECTIONS)
        .connect(url)
        .await
        .map_err(|cause| DbError::Connect { url: redact(url), cause })?;
    MIGRATOR.run(&pool).await.map_err(|e| match e {
        sqlx::migrate::MigrateError::VersionMissing(v) => {
            DbError::NewerSchema(v, MIGRATOR.iter().map(|m| m.version).max().unwrap_or(0))
        }
        e => DbError::Migrate(e),
    })?;
    Ok(pool)
}

/// Connects without touching the schema, waiting at most `timeout_s` (for
/// read-only uses that can do without, such as a dry run's calibration).
pub async fn connect_read_only(url: &str, timeout_s: f64) -> Result<PgPool, DbError> {
    PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(std::time::Duration::from_secs_f64(timeout_s))
        .connect(url)
        .await
        .map_err(|cause| DbError::Connect { url: redact(url), cause })
}

/// Like [`connect`], but creates the database first if the server does not
/// have it yet (a new user's first `hfarm submit`).
pub async fn connect_creating(url: &str) -> Result<PgPool, DbError> {
    match connect(url).await {
        Err(DbError::Connect { cause: sqlx::Error::Database(e), .. }) if e.code().as_deref() == Some("3D000") => {
            let (server, name) = split_database(url);
            use sqlx::{Connection, Executor};
            let mut admin = sqlx::PgConnection::connect(&format!("{server}/postgres{}", query_part(url)))
                .await
                .map_err(|cause| DbError::Connect { url: redact(url), cause })?;
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
pub fn redact(url: &str) -> String {
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
