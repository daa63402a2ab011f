//! A job's life as conditional updates on its row (see ARCHITECTURE.md,
//! "Dispatch design"). Every transition names the state it comes from, so a
//! duplicate delivery, a late worker or a racing scheduler changes nothing.

use jobs::spec::Lane;
use jobs::{JobKind, Resource};
use sqlx::{PgConnection, PgPool};

use crate::{DbError, JobStatus, Transaction};

/// A job handed to a worker by [`claim`].
#[derive(Debug, Clone)]
pub struct Claimed {
    pub key: String,
    pub spec: serde_json::Value,
    pub attempts: i32,
    /// Input keys in order.
    pub inputs: Vec<String>,
}

/// A job to (re)announce on its Redis queue: its lane's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    pub key: String,
    /// Its resource class, as stored.
    pub resource: String,
    pub lane: Lane,
}

/// The lane of a stored job (`jobs::spec::Lane::of`); a kind this build
/// does not know goes by its class.
fn lane_of(kind: &str, resource: &str) -> Lane {
    match (kind.parse::<JobKind>(), resource.parse::<Resource>()) {
        (Ok(k), Ok(r)) => Lane::of(k, r),
        _ if resource == "gpu" => Lane::Gpu,
        _ => Lane::Cpu,
    }
}

/// Rows of (key, resource, kind) as jobs to announce.
fn ready(rows: Vec<(String, String, String)>) -> Vec<Ready> {
    rows.into_iter().map(|(key, resource, kind)| Ready { lane: lane_of(&kind, &resource), key, resource }).collect()
}

/// The (resource, kind) pairs whose jobs wait on `lanes`, as two arrays
/// for SQL: lanes are computed from the vocabulary, not stored.
fn lane_pairs(lanes: &[&str]) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut out = (vec![], vec![]);
    for kind in JobKind::ALL {
        for resource in Resource::ALL {
            if lanes.contains(&Lane::of(kind, resource).as_str()) {
                out.0.push(resource.as_str());
                out.1.push(kind.as_str());
            }
        }
    }
    out
}

/// A required input without a result: skipped, a slot left without an
/// instance (`unfilled_slots`), or a slot not drawn into the planning
/// sample (`planning_draws`). SQL over `i` (job_inputs) and `d` (the input's job).
const MISSING_REQUIRED: &str = "i.required AND (d.status = 'skipped'
    OR EXISTS (SELECT 1 FROM unfilled_slots u WHERE u.job = d.key)
    OR EXISTS (SELECT 1 FROM planning_draws w WHERE w.job = d.key AND NOT w.drawn))";

/// Skips pending jobs that cannot run: one of their required inputs has no
/// result. Repeats until nothing changes (a skipped job skips its own
/// dependents); returns how many were skipped.
pub async fn skip_unrunnable(pool: &PgPool) -> Result<u64, DbError> {
    let mut total = 0;
    loop {
        let n = sqlx::query(&format!(
            "UPDATE jobs j SET status = 'skipped', finished_at = now(),
                    last_error = 'skipped: input ' || (
                        SELECT d.key || CASE WHEN d.status = 'skipped' THEN ' was skipped'
                                             WHEN d.kind = $1 THEN ' did not draw its slot into the planning sample'
                                             ELSE ' has no instance' END
                        FROM job_inputs i JOIN jobs d ON d.key = i.input
                        WHERE i.job = j.key AND {MISSING_REQUIRED} ORDER BY i.position LIMIT 1)
             WHERE j.status = 'pending'
               AND EXISTS (SELECT 1 FROM job_inputs i JOIN jobs d ON d.key = i.input
                           WHERE i.job = j.key AND {MISSING_REQUIRED})"
        ))
        // The kind's name from the vocabulary, not a second spelling of it in SQL.
        .bind(JobKind::Draw.as_str())
        .execute(pool)
        .await?
        .rows_affected();
        if n == 0 {
            return Ok(total);
        }
        total += n;
    }
}

/// Whether any job ended, failed, returned to pending or was added since
/// the last call (migration 0031): takes the wakeups that committed
/// transactions left, so that only a later change wakes the next call.
/// Taken before [`promote_ready`] looks, a change that commits in between
/// is both seen there and woken for again, never missed.
pub async fn take_wakeups(pool: &PgPool) -> Result<bool, DbError> {
    Ok(sqlx::query("DELETE FROM scheduler_wakeups").execute(pool).await?.rows_affected() > 0)
}

/// Moves up to `limit` jobs to `queued`: pending jobs whose inputs have all
/// ended (succeeded, or skipped where the job can do without them) and
/// whose required inputs have results, and failed jobs with attempts left.
/// Returns them for pushing.
pub async fn promote_ready(pool: &PgPool, limit: i64) -> Result<Vec<Ready>, DbError> {
    skip_unrunnable(pool).await?;
    Ok(sqlx::query_as(&format!(
        "UPDATE jobs SET status = 'queued', queued_at = now(), worker = NULL, lease_expires_at = NULL
         WHERE key IN (
             SELECT j.key FROM jobs j
             WHERE (j.status = 'pending'
                    AND NOT EXISTS (SELECT 1 FROM job_inputs i JOIN jobs d ON d.key = i.input
                                    WHERE i.job = j.key
                                      AND (d.status NOT IN ('succeeded', 'skipped') OR {MISSING_REQUIRED})))
                OR j.status = 'failed'
             ORDER BY j.priority DESC, j.created_at
             LIMIT $1
             FOR UPDATE SKIP LOCKED)
         RETURNING key, resource, kind"
    ))
    .bind(limit)
    .fetch_all(pool)
    .await
    .map(ready)?)
}

/// Takes a queued job for `worker` with a lease; None if it is not queued
/// (already taken, finished, cancelled: a duplicate or stale message).
pub async fn claim(pool: &PgPool, key: &str, worker: &str, lease_s: f64) -> Result<Option<Claimed>, DbError> {
    let row: Option<(serde_json::Value, i32)> = sqlx::query_as(
        "UPDATE jobs SET status = 'running', worker = $2, attempts = attempts + 1, started_at = now(),
                lease_expires_at = now() + make_interval(secs => $3)
         WHERE key = $1 AND status = 'queued'
         RETURNING spec, attempts",
    )
    .bind(key)
    .bind(worker)
    .bind(lease_s)
    .fetch_optional(pool)
    .await?;
    let Some((spec, attempts)) = row else { return Ok(None) };
    let inputs: Vec<(String,)> = sqlx::query_as("SELECT input FROM job_inputs WHERE job = $1 ORDER BY position")
        .bind(key)
        .fetch_all(pool)
        .await?;
    Ok(Some(Claimed { key: key.to_string(), spec, attempts, inputs: inputs.into_iter().map(|(k,)| k).collect() }))
}

/// Takes the queued jobs among `wanted` (key, worker slot) for their slots,
/// with a lease, in one statement: a worker with several free slots claims
/// what it popped in one round trip. Returns the jobs claimed, each with
/// its slot; the others were not queued (taken, finished, cancelled: stale
/// hints). Rows are locked in key order, so claims that overlap never deadlock.
///
/// Each key is looked up by the primary key, one row at a time (a lateral
/// subquery that locks is never flattened into a join), and its status is
/// compared as text, which no index serves: the planner cannot choose to
/// walk the `(status, resource)` index instead. It did, with statistics
/// taken while a fresh grid's jobs were all pending (autovacuum analyses a
/// new table within a minute): it then estimated one queued job, and every
/// claim read and sorted the whole backlog (85 ms for 8 keys among 20,000
/// queued jobs, against under 1 ms by key).
pub async fn claim_many(
    conn: &mut PgConnection,
    wanted: &[(String, String)],
    lease_s: f64,
) -> Result<Vec<(String, Claimed)>, DbError> {
    if wanted.is_empty() {
        return Ok(vec![]);
    }
    let (keys, workers): (Vec<&str>, Vec<&str>) = wanted.iter().map(|(k, w)| (k.as_str(), w.as_str())).unzip();
    let rows: Vec<(String, String, serde_json::Value, i32, Vec<String>)> = sqlx::query_as(
        "WITH w AS (SELECT DISTINCT ON (key) key, worker FROM unnest($1::text[], $2::text[]) AS w(key, worker)
                    ORDER BY key),
              c AS (SELECT j.key, w.worker FROM w CROSS JOIN LATERAL (
                        SELECT key FROM jobs WHERE jobs.key = w.key AND jobs.status::text = 'queued' FOR UPDATE) j)
         UPDATE jobs SET status = 'running', worker = c.worker, attempts = jobs.attempts + 1, started_at = now(),
                lease_expires_at = now() + make_interval(secs => $3)
         FROM c WHERE jobs.key = c.key
         RETURNING jobs.key, c.worker, jobs.spec, jobs.attempts,
                   ARRAY(SELECT i.input FROM job_inputs i WHERE i.job = jobs.key ORDER BY i.position)",
    )
    .bind(keys)
    .bind(workers)
    .bind(lease_s)
    .fetch_all(&mut *conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|(key, worker, spec, attempts, inputs)| (worker, Claimed { key, spec, attempts, inputs }))
        .collect())
}

/// A worker's connection for [`claim_many`], kept between claims (no
/// pool round trip per claim) and committing asynchronously: a claim lost
/// in a server crash only puts its job back to `queued`, and the worker's
/// completion of it is then refused (`finish` needs it `running` and the
/// slot's), so the job runs again and keeps one result. Completions, which
/// carry results, stay synchronous.
pub struct Claimer {
    conn: Kept,
}

/// A pooled connection kept between uses ([`Claimer`], [`Finisher`]):
/// taken from the pool on first use, `setup` run once on it, and dropped
/// after an error so that the next use starts on a fresh one.
struct Kept {
    pool: PgPool,
    conn: Option<sqlx::pool::PoolConnection<sqlx::Postgres>>,
    setup: Option<&'static str>,
}

impl Kept {
    fn new(pool: &PgPool, setup: Option<&'static str>) -> Kept {
        Kept { pool: pool.clone(), conn: None, setup }
    }

    async fn get(&mut self) -> Result<&mut sqlx::pool::PoolConnection<sqlx::Postgres>, DbError> {
        let conn = match self.conn.take() {
            Some(conn) => conn,
            None => {
                let mut conn = self.pool.acquire().await?;
                if let Some(setup) = self.setup {
                    sqlx::Executor::execute(&mut *conn, setup).await?;
                }
                conn
            }
        };
        Ok(self.conn.insert(conn))
    }

    /// Passes `r` on, forgetting the connection if it failed.
    fn check<T>(&mut self, r: Result<T, DbError>) -> Result<T, DbError> {
        if r.is_err() {
            self.conn = None;
        }
        r
    }
}

impl Claimer {
    pub fn new(pool: &PgPool) -> Claimer {
        Claimer { conn: Kept::new(pool, Some("SET synchronous_commit TO off")) }
    }

    /// [`claim_many`] on the kept connection (made anew after an error).
    pub async fn claim(
        &mut self,
        wanted: &[(String, String)],
        lease_s: f64,
    ) -> Result<Vec<(String, Claimed)>, DbError> {
        if wanted.is_empty() {
            return Ok(vec![]);
        }
        let r = claim_many(self.conn.get().await?, wanted, lease_s).await;
        self.conn.check(r)
    }
}

/// Which queued jobs may run together with one a worker has claimed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Together {
    /// Train jobs trained as one stacked group (`learner::train`): the same
    /// spec but for the seed, distribution, bound and residual (so the same
    /// domain, model, sigma mode, steps and training-set size), the same
    /// inputs (the same labelled data), and, like the first, no checkpoint
    /// yet: a group moves in step, so a resumed run trains alone.
    Training,
    /// Learned plan jobs searched at once with shared forward passes
    /// (`learner::many`): the same spec (domain, heuristic, limits) and the
    /// same model (first input), on other instances.
    Planning,
}

/// How [`Together`] reads in SQL: the jobs' kind, the part of the spec
/// that must be equal, what the first job must satisfy, and what a
/// companion `j` must satisfy against the first job's row `f`
/// (`f.inputs`: its inputs in order).
struct Rule {
    kind: JobKind,
    shared: &'static str,
    first: &'static str,
    companion: &'static str,
}

impl Together {
    fn rule(self) -> Rule {
        match self {
            Together::Training => Rule {
                kind: JobKind::Train,
                shared: "spec - 'seed' - 'distribution' - 'bound' - 'residual'",
                first: "NOT EXISTS (SELECT 1 FROM checkpoints WHERE job = $1)",
                companion: "(SELECT array_agg(input ORDER BY position) FROM job_inputs WHERE job = j.key) = f.inputs
                            AND NOT EXISTS (SELECT 1 FROM checkpoints k WHERE k.job = j.key)",
            },
            Together::Planning => Rule {
                kind: JobKind::Plan,
                shared: "spec",
                first: "TRUE",
                companion: "(SELECT input FROM job_inputs WHERE job = j.key AND position = 0) = f.inputs[1]",
            },
        }
    }
}

/// Queued jobs that can run together with `first` (which `worker` has
/// claimed), by the rule `together`, claimed for `worker` too, at most
/// `limit`. Others' keys stay in Redis as stale hints, dropped when popped.
pub async fn claim_companions(
    pool: &PgPool,
    together: Together,
    first: &str,
    worker: &str,
    lease_s: f64,
    limit: i64,
) -> Result<Vec<Claimed>, DbError> {
    let Rule { kind, shared, first: first_rule, companion } = together.rule();
    let rows: Vec<(String, serde_json::Value, i32)> = sqlx::query_as(&format!(
        "WITH f AS (
             SELECT key, {shared} AS shared,
                    (SELECT array_agg(input ORDER BY position) FROM job_inputs WHERE job = jobs.key) AS inputs
             FROM jobs WHERE key = $1 AND kind = $5 AND worker = $2 AND status = 'running'
               AND {first_rule}),
         c AS (
             SELECT j.key FROM jobs j, f
             WHERE j.status = 'queued' AND j.kind = $5 AND j.key <> f.key
               AND j.{shared} = f.shared
               AND {companion}
             ORDER BY j.key LIMIT $4
             FOR UPDATE OF j SKIP LOCKED)
         UPDATE jobs SET status = 'running', worker = $2, attempts = attempts + 1, started_at = now(),
                lease_expires_at = now() + make_interval(secs => $3)
         FROM c WHERE jobs.key = c.key
         RETURNING jobs.key, jobs.spec, jobs.attempts"
    ))
    .bind(first)
    .bind(worker)
    .bind(lease_s)
    .bind(limit)
    .bind(kind.as_str())
    .fetch_all(pool)
    .await?;
    let mut out = vec![];
    for (key, spec, attempts) in rows {
        let inputs: Vec<(String,)> = sqlx::query_as("SELECT input FROM job_inputs WHERE job = $1 ORDER BY position")
            .bind(&key)
            .fetch_all(pool)
            .await?;
        out.push(Claimed { key, spec, attempts, inputs: inputs.into_iter().map(|(k,)| k).collect() });
    }
    Ok(out)
}

/// Extends the lease; false if the job is no longer ours (lease lost).
pub async fn heartbeat(pool: &PgPool, key: &str, worker: &str, lease_s: f64) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3)
         WHERE key = $1 AND worker = $2 AND status = 'running'",
    )
    .bind(key)
    .bind(worker)
    .bind(lease_s)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Extends the leases of all of a worker's jobs, `held` (key, worker slot),
/// in one statement. Returns the keys no longer held (cancelled,
/// reassigned, finished): their work should stop. A row another
/// transaction holds locked (a completion about to commit) is skipped this
/// time, neither renewed nor reported.
pub async fn heartbeat_many(pool: &PgPool, held: &[(String, String)], lease_s: f64) -> Result<Vec<String>, DbError> {
    if held.is_empty() {
        return Ok(vec![]);
    }
    let (keys, workers): (Vec<&str>, Vec<&str>) = held.iter().map(|(k, w)| (k.as_str(), w.as_str())).unzip();
    let lost: Vec<(String,)> = sqlx::query_as(
        "WITH h AS (SELECT * FROM unnest($1::text[], $2::text[]) AS h(key, worker)),
              mine AS (SELECT j.key FROM jobs j JOIN h ON h.key = j.key AND h.worker = j.worker
                       WHERE j.status = 'running' ORDER BY j.key FOR UPDATE OF j SKIP LOCKED),
              renewed AS (UPDATE jobs SET lease_expires_at = now() + make_interval(secs => $3)
                          FROM mine WHERE jobs.key = mine.key RETURNING jobs.key)
         SELECT h.key FROM h
         WHERE NOT EXISTS (SELECT 1 FROM jobs j WHERE j.key = h.key AND j.worker = h.worker AND j.status = 'running')",
    )
    .bind(keys)
    .bind(workers)
    .bind(lease_s)
    .fetch_all(pool)
    .await?;
    Ok(lost.into_iter().map(|(k,)| k).collect())
}

/// Marks the job succeeded inside the caller's transaction (which also wrote
/// its results). False if the job is no longer ours: roll the results back.
pub async fn finish(tx: &mut PgConnection, key: &str, worker: &str) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'succeeded', finished_at = now(), lease_expires_at = NULL, last_error = NULL
         WHERE key = $1 AND worker = $2 AND status = 'running'",
    )
    .bind(key)
    .bind(worker)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Starts the transaction in which a job's results are written
/// (`results::insert_*`) and then completed ([`complete`]).
pub async fn begin(pool: &PgPool) -> Result<Transaction, DbError> {
    Ok(pool.begin().await?)
}

/// Marks the job succeeded in the transaction that wrote its results and
/// commits both; if the job is no longer `worker`'s (lease lost, cancelled)
/// rolls everything back and returns false.
pub async fn complete(mut tx: Transaction, key: &str, worker: &str) -> Result<bool, DbError> {
    if finish(&mut tx, key, worker).await? {
        tx.commit().await?;
        Ok(true)
    } else {
        tx.rollback().await?;
        Ok(false)
    }
}

/// Group commit: the results and completions of several jobs in one
/// transaction (one commit, one WAL flush, for many short jobs), each
/// job's part in the savepoint `job`, so that a job whose writes fail or
/// that is no longer its worker's is undone alone. Between parts the
/// savepoint is open and empty: a part that writes nothing costs no round
/// trip (its completion joins [`finish_many`] at the commit).
///
/// Starts a group transaction: a connection, `BEGIN` and the first
/// savepoint, in one round trip.
pub async fn group_begin(pool: &PgPool) -> Result<Transaction, DbError> {
    Ok(pool.begin_with("BEGIN; SAVEPOINT job").await?)
}

/// Ends the part of a group transaction that wrote, keeping its writes
/// (`keep`) or rolling them back (also after an error), and leaves an
/// empty savepoint for the next part: one round trip.
pub async fn part_close(tx: &mut PgConnection, keep: bool) -> Result<(), DbError> {
    let sql = if keep { "RELEASE SAVEPOINT job; SAVEPOINT job" } else { "ROLLBACK TO SAVEPOINT job" };
    sqlx::Executor::execute(&mut *tx, sql).await?;
    Ok(())
}

/// Marks succeeded, in a group transaction, those of `done` (key, worker
/// slot) still held by their slots (jobs that wrote no results: a no-op),
/// in one statement; returns the keys it marked.
pub async fn finish_many(tx: &mut PgConnection, done: &[(String, String)]) -> Result<Vec<String>, DbError> {
    if done.is_empty() {
        return Ok(vec![]);
    }
    let (keys, workers): (Vec<&str>, Vec<&str>) = done.iter().map(|(k, w)| (k.as_str(), w.as_str())).unzip();
    let rows: Vec<(String,)> = sqlx::query_as(
        "UPDATE jobs SET status = 'succeeded', finished_at = now(), lease_expires_at = NULL, last_error = NULL
         FROM unnest($1::text[], $2::text[]) AS d(key, worker)
         WHERE jobs.key = d.key AND jobs.worker = d.worker AND jobs.status = 'running'
         RETURNING jobs.key",
    )
    .bind(keys)
    .bind(workers)
    .fetch_all(&mut *tx)
    .await?;
    Ok(rows.into_iter().map(|(k,)| k).collect())
}

/// A worker's connection for completing, with [`finish_many`], jobs that
/// wrote nothing (a no-op) outside any group transaction, kept between
/// uses (a pool connection is pinged before each use: a round trip). Such
/// jobs have no results to commit with, so the one statement that marks
/// them all succeeded is its own transaction, and it commits synchronously:
/// no `BEGIN`, no savepoint, no separate `COMMIT`.
pub struct Finisher {
    conn: Kept,
}

impl Finisher {
    pub fn new(pool: &PgPool) -> Finisher {
        Finisher { conn: Kept::new(pool, None) }
    }

    /// [`finish_many`] in a transaction of its own on the kept connection
    /// (made anew after an error); returns the keys it marked.
    pub async fn finish(&mut self, done: &[(String, String)]) -> Result<Vec<String>, DbError> {
        if done.is_empty() {
            return Ok(vec![]);
        }
        let r = finish_many(self.conn.get().await?, done).await;
        self.conn.check(r)
    }
}

/// What each job of a group transaction whose commit failed with `e`
/// gets: an error of the same kind (an outage stays an outage, so that
/// its worker hands the job back instead of failing it).
pub fn group_commit_failed(e: &DbError) -> DbError {
    let what = format!("group commit: {e}");
    DbError::Query(if e.is_outage() {
        sqlx::Error::Io(std::io::Error::new(std::io::ErrorKind::ConnectionAborted, what))
    } else {
        sqlx::Error::InvalidArgument(what)
    })
}

/// Commits a group transaction.
pub async fn commit(tx: Transaction) -> Result<(), DbError> {
    Ok(tx.commit().await?)
}

/// The error of a job whose group commit never reported (its committer
/// ended with the worker): an outage, so that the job is handed back.
pub fn group_commit_lost() -> DbError {
    DbError::Query(sqlx::Error::Io(std::io::Error::new(
        std::io::ErrorKind::ConnectionAborted,
        "group commit: the committer ended before the commit",
    )))
}

/// Records whether worker `id` (already announced: `workers::seen`) runs
/// its network on CUDA, and returns whether any live worker does (seen
/// within `live_after_s`, not stopped). Workers without CUDA take
/// GPU-preferring jobs only while none does (`jobs::spec::Lane::served`).
pub async fn advertise_cuda(pool: &PgPool, id: &str, cuda: bool, live_after_s: f64) -> Result<bool, DbError> {
    let (alive,): (bool,) = sqlx::query_as(
        "WITH me AS (UPDATE workers SET cuda = $2 WHERE id = $1 AND cuda IS DISTINCT FROM $2)
         SELECT $2 OR EXISTS (SELECT 1 FROM workers
                              WHERE cuda AND id <> $1 AND stopped_at IS NULL
                                AND last_seen > now() - make_interval(secs => $3))",
    )
    .bind(id)
    .bind(cuda)
    .bind(live_after_s)
    .fetch_one(pool)
    .await?;
    Ok(alive)
}

/// What became of a failed attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Will be queued again.
    Retry,
    /// Out of attempts: `dead`, with its error, until someone retries it.
    Dead,
    /// The job was not ours any more; nothing changed.
    NotOurs,
}

/// Records a failed attempt with its error: `failed` (queued again by the
/// scheduler) or, out of attempts, `dead`.
pub async fn fail(pool: &PgPool, key: &str, worker: &str, error: &str) -> Result<Failure, DbError> {
    let row: Option<(JobStatus,)> = sqlx::query_as(
        "UPDATE jobs SET status = CASE WHEN attempts >= max_attempts THEN 'dead'::job_status ELSE 'failed'::job_status END,
                last_error = $3, finished_at = now(), lease_expires_at = NULL
         WHERE key = $1 AND worker = $2 AND status = 'running'
         RETURNING status",
    )
    .bind(key)
    .bind(worker)
    .bind(error)
    .fetch_optional(pool)
    .await?;
    Ok(match row.map(|(s,)| s) {
        Some(JobStatus::Dead) => Failure::Dead,
        Some(_) => Failure::Retry,
        None => Failure::NotOurs,
    })
}

/// Gives a running job back (a worker stopping with SIGTERM): queued again,
/// this attempt not counted.
pub async fn hand_back(pool: &PgPool, key: &str, worker: &str) -> Result<Option<Ready>, DbError> {
    Ok(sqlx::query_as(
        "UPDATE jobs SET status = 'queued', queued_at = now(), worker = NULL, lease_expires_at = NULL,
                attempts = greatest(attempts - 1, 0)
         WHERE key = $1 AND worker = $2 AND status = 'running'
         RETURNING key, resource, kind",
    )
    .bind(key)
    .bind(worker)
    .fetch_optional(pool)
    .await?
    .and_then(|row| ready(vec![row]).pop()))
}

/// Running jobs whose lease ran out (their worker died): queued again, or
/// dead when out of attempts, in one statement (the scheduler runs it every
/// pass). Rows another transaction holds (a completion committing) are
/// skipped this time: waiting on them while holding others could deadlock
/// with a worker's statement that locks several. Returns those to push.
pub async fn requeue_expired(pool: &PgPool) -> Result<Vec<Ready>, DbError> {
    // SET's right-hand sides read the row as it was, so `out` (out of
    // attempts) is the same test in every column.
    let rows: Vec<(String, String, String, JobStatus)> = sqlx::query_as(
        "UPDATE jobs SET
                status = CASE WHEN attempts >= max_attempts THEN 'dead'::job_status ELSE 'queued'::job_status END,
                finished_at = CASE WHEN attempts >= max_attempts THEN now() ELSE finished_at END,
                last_error = CASE WHEN attempts >= max_attempts
                                  THEN coalesce(last_error || '; ', '') || 'lease expired (worker ' || coalesce(worker, '?') || ' lost)'
                                  ELSE last_error END,
                queued_at = CASE WHEN attempts >= max_attempts THEN queued_at ELSE now() END,
                worker = CASE WHEN attempts >= max_attempts THEN worker END,
                lease_expires_at = NULL
         WHERE key = ANY (ARRAY(SELECT key FROM jobs WHERE status = 'running' AND lease_expires_at < now()
                                FOR UPDATE SKIP LOCKED))
         RETURNING key, resource, kind, status",
    )
    .fetch_all(pool)
    .await?;
    Ok(ready(
        rows.into_iter()
            .filter(|(.., status)| *status == JobStatus::Queued)
            .map(|(key, resource, kind, _)| (key, resource, kind))
            .collect(),
    ))
}

/// Queued jobs of `lanes` (`jobs::spec::Lane` names) nobody claimed for
/// `older_than_s` (Redis lost them: flushed or restarted): returned to be
/// pushed again. Duplicates in Redis are harmless to correctness; the
/// scheduler asks only for lanes whose list is shorter than their queued
/// jobs, so that a backlog waiting on busy workers is not pushed again and again.
/// Rows being claimed right now are skipped, not waited for: claims lock
/// their rows in key order, this statement in whatever order it finds
/// them, and waiting on each other's rows they deadlocked (seen in `hfarm
/// bench queue` on a loaded machine, once jobs waited past `older_than_s`).
pub async fn stale_queued(pool: &PgPool, older_than_s: f64, lanes: &[&str]) -> Result<Vec<Ready>, DbError> {
    let (resources, kinds) = lane_pairs(lanes);
    Ok(sqlx::query_as(
        "UPDATE jobs SET queued_at = now()
         WHERE key = ANY (ARRAY(SELECT key FROM jobs
                                WHERE status = 'queued' AND queued_at < now() - make_interval(secs => $1)
                                  AND (resource, kind) IN (SELECT * FROM unnest($2::text[], $3::text[]))
                                FOR UPDATE SKIP LOCKED))
         RETURNING key, resource, kind",
    )
    .bind(older_than_s)
    .bind(resources)
    .bind(kinds)
    .fetch_all(pool)
    .await
    .map(ready)?)
}

/// Number of queued jobs per lane (those with none left out).
pub async fn queued_by_lane(pool: &PgPool) -> Result<Vec<(Lane, i64)>, DbError> {
    let rows: Vec<(String, String, i64)> =
        sqlx::query_as("SELECT resource, kind, count(*) FROM jobs WHERE status = 'queued' GROUP BY resource, kind")
            .fetch_all(pool)
            .await?;
    let mut out: Vec<(Lane, i64)> = vec![];
    for (resource, kind, n) in rows {
        let lane = lane_of(&kind, &resource);
        match out.iter_mut().find(|(l, _)| *l == lane) {
            Some((_, total)) => *total += n,
            None => out.push((lane, n)),
        }
    }
    out.sort();
    Ok(out)
}

/// Sends a dead, failed or cancelled job back to pending with fresh attempts.
pub async fn retry(pool: &PgPool, key: &str) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'pending', attempts = 0, last_error = NULL, worker = NULL
         WHERE key = $1 AND status IN ('dead', 'failed', 'cancelled', 'skipped')",
    )
    .bind(key)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}

/// Cancels a job that has not finished.
pub async fn cancel(pool: &PgPool, key: &str) -> Result<bool, DbError> {
    let n = sqlx::query(
        "UPDATE jobs SET status = 'cancelled', finished_at = now(), lease_expires_at = NULL
         WHERE key = $1 AND status IN ('pending', 'queued', 'running', 'failed')",
    )
    .bind(key)
    .execute(pool)
    .await?
    .rows_affected();
    Ok(n == 1)
}
