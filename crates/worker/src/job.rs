//! What every job kind shares: the claimed job's context, its error type,
//! the transaction that holds its results and completion, and running CPU
//! work off the async threads.

use std::collections::HashSet;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use schema::lifecycle::{self, Claimed};
use schema::{DbError, PgPool};
use tokio::sync::{oneshot, Mutex, Notify, OwnedMutexGuard};

/// Why a job attempt failed (recorded as the job's `last_error`).
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{0}")]
    Failed(String),
    #[error("database: {0}")]
    Db(#[from] DbError),
}

impl From<crate::isolate::IsolationError> for JobError {
    fn from(e: crate::isolate::IsolationError) -> JobError {
        JobError::Failed(e.0)
    }
}

pub fn failed(e: impl std::fmt::Display) -> JobError {
    JobError::Failed(e.to_string())
}

/// A claimed job as its kind's module sees it.
pub struct Ctx<'a> {
    pub pool: &'a PgPool,
    pub job: &'a Claimed,
    /// The worker slot that holds the job's lease.
    pub worker: &'a str,
    /// Where the job's heavy computation runs.
    pub isolation: &'a crate::isolate::Isolation,
    /// Threads for building a pattern database the farm lacks.
    pub pdb_threads: usize,
    /// Set when the job stops being this slot's (its lease lost: cancelled
    /// or reassigned) or the worker gives it back on stopping: a search on
    /// a blocking thread, which no abort reaches, looks at it and ends.
    pub cancel: Arc<AtomicBool>,
}

impl Ctx<'_> {
    pub fn key(&self) -> &str {
        &self.job.key
    }

    /// The job's `i`-th input key (the order is the job kind's contract).
    pub fn input(&self, i: usize, what: &str) -> Result<&str, JobError> {
        self.job.inputs.get(i).map(String::as_str).ok_or_else(|| failed(format!("job without its {what}")))
    }

    /// Starts the transaction that will hold the job's results and its
    /// completion: under a worker's group commit ([`Commits::scope`]), a
    /// part of the transaction it shares with other jobs.
    pub async fn begin(&self) -> Result<JobTx, JobError> {
        match COMMITS.try_with(|s| s.clone()) {
            Ok(scope) => Ok(scope.commits.enter(scope.handed).await?),
            Err(_) => Ok(JobTx { own: Some(lifecycle::begin(self.pool).await?), part: None }),
        }
    }

    /// Marks the job succeeded in `tx` (which holds its results) and commits;
    /// Ok(false) if the job stopped being ours (lease lost, cancelled) and
    /// everything was rolled back.
    pub async fn complete(&self, mut tx: JobTx) -> Result<bool, JobError> {
        if let Some(own) = tx.own.take() {
            return Ok(lifecycle::complete(own, self.key(), self.worker).await?);
        }
        let mut part = tx.part.take().expect("a job's transaction is its own or a part");
        let (key, worker) = (self.key().to_string(), self.worker.to_string());
        if !part.wrote {
            // Nothing written: finished with the others at the commit.
            return Ok(part.join(Some((key, worker)), true).await?);
        }
        let open = part.open();
        let finished = match lifecycle::finish(&mut open.tx, &key, &worker).await {
            Ok(finished) => finished,
            Err(e) => {
                open.dirty = true;
                return Err(e.into());
            }
        };
        if let Err(e) = lifecycle::part_close(&mut open.tx, finished).await {
            open.dirty = true;
            return Err(e.into());
        }
        if !finished {
            return Ok(false);
        }
        Ok(part.join(None, true).await?)
    }

    /// Marks succeeded a job that stores nothing (a no-op); Ok(false) if it
    /// stopped being ours. Under a worker's group commit no transaction is
    /// entered for it: its completion waits for the next commit, where one
    /// statement finishes every such job (in the group transaction if one
    /// is being committed, else in a transaction of its own), so it costs
    /// no round trip of its own and never waits for a transaction to open.
    pub async fn complete_empty(&self) -> Result<bool, JobError> {
        match COMMITS.try_with(|s| s.clone()) {
            Ok(scope) => Ok(scope.commits.finish_empty(self.key(), self.worker, &scope.handed).await?),
            Err(_) => self.complete(self.begin().await?).await,
        }
    }
}

/// The transaction in which a job writes its results (through `&mut tx`,
/// a `PgConnection`) and then completes ([`Ctx::complete`]): its own, or
/// its part of a group commit, which it holds alone until it completes or
/// is dropped (an error, a panic: its writes are rolled back, the other
/// parts stay).
pub struct JobTx {
    own: Option<schema::Transaction>,
    part: Option<Part>,
}

impl JobTx {
    /// Commits what was written without completing the job (a step of an
    /// iterative job: its row and checkpoint together); returns once the
    /// writes are durable.
    pub async fn commit(mut self) -> Result<(), CommitError> {
        if let Some(own) = self.own.take() {
            return lifecycle::commit(own).await.map_err(CommitError);
        }
        let mut part = self.part.take().expect("a job's transaction is its own or a part");
        if !part.wrote {
            return Ok(());
        }
        if let Err(e) = lifecycle::part_close(&mut part.open().tx, true).await {
            part.open().dirty = true;
            return Err(CommitError(e));
        }
        part.join(None, false).await.map(|_| ()).map_err(CommitError)
    }
}

/// Why [`JobTx::commit`] failed: a database error (`DbError::from` it).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct CommitError(DbError);

impl From<CommitError> for DbError {
    fn from(e: CommitError) -> DbError {
        e.0
    }
}

type Connection = <schema::Transaction as Deref>::Target;

impl Deref for JobTx {
    type Target = Connection;
    fn deref(&self) -> &Connection {
        match (&self.own, &self.part) {
            (Some(own), _) => own,
            (None, Some(part)) => &part.guard.as_ref().expect("an entered part has its transaction").tx,
            (None, None) => unreachable!("a job's transaction is used after it completed"),
        }
    }
}

impl DerefMut for JobTx {
    fn deref_mut(&mut self) -> &mut Connection {
        match (&mut self.own, &mut self.part) {
            (Some(own), _) => own,
            (None, Some(part)) => {
                part.wrote = true;
                &mut part.open().tx
            }
            (None, None) => unreachable!("a job's transaction is used after it completed"),
        }
    }
}

/// A job's part of the shared transaction, held alone.
struct Part {
    guard: OwnedMutexGuard<Option<Open>>,
    /// Whether the job used the connection (wrote, or may have).
    wrote: bool,
    wake: Arc<Notify>,
    /// Told once the job has handed its completion over and waits only
    /// for the commit: its slot may take the next job meanwhile.
    handed: Arc<Notify>,
}

impl Part {
    fn open(&mut self) -> &mut Open {
        self.guard.as_mut().expect("an entered part has its transaction")
    }

    /// Leaves the transaction to the next part and waits for its commit:
    /// true once committed (and, for `finish`, marked succeeded), false if
    /// the job to finish was no longer its slot's. `completing`: the job
    /// has nothing left to do but this (its slot is told).
    async fn join(mut self, finish: Option<(String, String)>, completing: bool) -> Result<bool, DbError> {
        let (done, committed) = oneshot::channel();
        self.open().members.push(Member { finish, done });
        self.wrote = false;
        let (wake, handed) = (self.wake.clone(), self.handed.clone());
        drop(self);
        wake.notify_one();
        if completing {
            handed.notify_one();
        }
        // No answer: the committer ended with the worker, as if the server had.
        committed.await.unwrap_or_else(|_| Err(lifecycle::group_commit_lost()))
    }
}

impl Drop for Part {
    fn drop(&mut self) {
        // Left without completing after writing: the next user rolls it back.
        if self.wrote {
            if let Some(open) = self.guard.as_mut() {
                open.dirty = true;
            }
        }
    }
}

tokio::task_local! {
    /// The group commit of the worker whose job runs in this task, and
    /// whom to tell when the job waits only for it.
    static COMMITS: Scope;
}

#[derive(Clone)]
struct Scope {
    commits: Commits,
    handed: Arc<Notify>,
}

/// Group commit of a worker's jobs: their results and completions go into
/// one shared transaction, each job's part in a savepoint of it
/// (`lifecycle::group_begin`), and one commit (one WAL flush) ends many
/// short jobs. A job that writes nothing (a no-op) costs no round trip of
/// its own: its completion joins one statement for all of them at the
/// commit (`lifecycle::finish_many`); a job that stores nothing by kind
/// ([`Ctx::complete_empty`]) does not even enter the transaction, and when
/// no job wrote, that one statement is the whole commit (a transaction of
/// its own on a kept connection, `lifecycle::Finisher`). Each job's results
/// and completion still commit together or not at all, and a job learns its
/// outcome only once the commit did: a failed commit fails (or, for an
/// outage, hands back) every job in it. A committer task commits whenever
/// jobs have completed; while it commits, the next jobs fill a new batch.
/// Parts that write are serialised on the one connection.
#[derive(Clone)]
pub struct Commits {
    inner: Arc<CommitsInner>,
}

struct CommitsInner {
    pool: PgPool,
    open: Arc<Mutex<Option<Open>>>,
    /// Completions of jobs that stored nothing, outside the transaction
    /// (a plain mutex: held only to push or take, never across an await).
    empty: Arc<std::sync::Mutex<Vec<Member>>>,
    wake: Arc<Notify>,
    committer: tokio::task::JoinHandle<()>,
}

impl Drop for CommitsInner {
    fn drop(&mut self) {
        self.committer.abort();
    }
}

/// The shared transaction being filled.
struct Open {
    tx: schema::Transaction,
    /// The savepoint holds an abandoned part's writes (or an error): roll
    /// back to it before anything else.
    dirty: bool,
    members: Vec<Member>,
}

/// A job (or a step of one) waiting for the commit.
struct Member {
    /// (key, slot) of a job to mark succeeded at the commit.
    finish: Option<(String, String)>,
    done: oneshot::Sender<Result<bool, DbError>>,
}

impl Commits {
    /// Starts the committer (on the current runtime).
    pub fn new(pool: PgPool) -> Commits {
        let open: Arc<Mutex<Option<Open>>> = Arc::default();
        let empty: Arc<std::sync::Mutex<Vec<Member>>> = Arc::default();
        let wake = Arc::new(Notify::new());
        let finisher = lifecycle::Finisher::new(&pool);
        let committer = tokio::spawn(commit_loop(open.clone(), empty.clone(), finisher, wake.clone()));
        Commits { inner: Arc::new(CommitsInner { pool, open, empty, wake, committer }) }
    }

    /// Hands the completion of job `key` of slot `worker`, which stored
    /// nothing, to the next commit and waits for it: true once committed
    /// and marked succeeded, false if the job was no longer the slot's.
    /// `handed` is told at once: the job has nothing left to do but wait.
    async fn finish_empty(&self, key: &str, worker: &str, handed: &Notify) -> Result<bool, DbError> {
        let (done, committed) = oneshot::channel();
        let member = Member { finish: Some((key.to_string(), worker.to_string())), done };
        self.inner.empty.lock().unwrap_or_else(|p| p.into_inner()).push(member);
        self.inner.wake.notify_one();
        handed.notify_one();
        // No answer: the committer ended with the worker, as if the server had.
        committed.await.unwrap_or_else(|_| Err(lifecycle::group_commit_lost()))
    }

    /// Runs `job` with its transactions under this group commit; `handed`
    /// is told when the job has completed into the shared transaction and
    /// waits only for its commit (its outcome is the future's).
    pub fn scope<F: std::future::Future>(
        &self,
        handed: Arc<Notify>,
        job: F,
    ) -> impl std::future::Future<Output = F::Output> {
        COMMITS.scope(Scope { commits: self.clone(), handed }, job)
    }

    /// Takes the shared transaction for a part (opening one if none is
    /// being filled; rolling back an abandoned part).
    async fn enter(&self, handed: Arc<Notify>) -> Result<JobTx, DbError> {
        let mut guard = self.inner.open.clone().lock_owned().await;
        if guard.is_none() {
            let tx = lifecycle::group_begin(&self.inner.pool).await?;
            *guard = Some(Open { tx, dirty: false, members: vec![] });
        }
        let open = guard.as_mut().expect("opened above");
        if open.dirty {
            if let Err(e) = lifecycle::part_close(&mut open.tx, false).await {
                // The shared transaction is broken (its connection lost, say):
                // the jobs waiting for its commit fail with it.
                if let Some(broken) = guard.take() {
                    for m in broken.members {
                        let _ = m.done.send(Err(lifecycle::group_commit_failed(&e)));
                    }
                }
                return Err(e);
            }
            open.dirty = false;
        }
        let wake = self.inner.wake.clone();
        Ok(JobTx { own: None, part: Some(Part { guard, wrote: false, wake, handed }) })
    }
}

/// Commits whenever jobs have completed (into the open transaction, or
/// without one: jobs that stored nothing), then tells each how it went.
/// Completions without results join the group transaction's statement if
/// one is committed; else they are finished by one statement of their own.
async fn commit_loop(
    open: Arc<Mutex<Option<Open>>>,
    empty: Arc<std::sync::Mutex<Vec<Member>>>,
    mut finisher: lifecycle::Finisher,
    wake: Arc<Notify>,
) {
    loop {
        wake.notified().await;
        let batch = {
            let mut guard = open.lock().await;
            match guard.as_ref() {
                Some(o) if !o.members.is_empty() => guard.take(),
                _ => None,
            }
        };
        // Taken after the transaction: a job that completes meanwhile waits
        // for the next commit (its wake-up is kept for it).
        let loose = std::mem::take(&mut *empty.lock().unwrap_or_else(|p| p.into_inner()));
        let (outcome, members) = match batch {
            Some(Open { mut tx, dirty, mut members }) => {
                members.extend(loose);
                let done: Vec<(String, String)> = members.iter().filter_map(|m| m.finish.clone()).collect();
                let outcome = async {
                    if dirty {
                        lifecycle::part_close(&mut tx, false).await?;
                    }
                    let finished = lifecycle::finish_many(&mut tx, &done).await?;
                    lifecycle::commit(tx).await?;
                    Ok::<_, DbError>(finished)
                }
                .await;
                (outcome, members)
            }
            None if loose.is_empty() => continue,
            None => {
                let done: Vec<(String, String)> = loose.iter().filter_map(|m| m.finish.clone()).collect();
                (finisher.finish(&done).await, loose)
            }
        };
        let finished: Result<HashSet<String>, DbError> = outcome.map(|f| f.into_iter().collect());
        for m in members {
            let r = match (&finished, &m.finish) {
                (Ok(finished), Some((key, _))) => Ok(finished.contains(key)),
                (Ok(_), None) => Ok(true),
                (Err(e), _) => Err(lifecycle::group_commit_failed(e)),
            };
            let _ = m.done.send(r);
        }
    }
}

/// Runs CPU-bound work on a blocking thread; a panic there fails the job,
/// not the worker.
pub async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, JobError> {
    tokio::task::spawn_blocking(f).await.map_err(|e| failed(format!("job panicked: {e}")))?.map_err(JobError::Failed)
}

/// The instance a generate job produced.
pub async fn instance(pool: &PgPool, generate_job: &str) -> Result<schema::results::Instance, JobError> {
    schema::results::instance(pool, generate_job)
        .await?
        .ok_or_else(|| failed(format!("input {generate_job} has no instance")))
}
