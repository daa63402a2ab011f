//! The worker loop: `concurrency` slots fed by one dispatcher, which pops
//! as many keys as there are free slots in one Redis round trip and claims
//! them in one statement; one heartbeat renews every held lease in one
//! statement; short jobs' completions share a commit ([`crate::job::Commits`]).
//!
//! Routing: the worker advertises whether its network runs on CUDA, and
//! pops the lanes `jobs::spec::Lane::served` gives for its class (a worker
//! without CUDA takes GPU-preferring jobs while no live worker has CUDA).
//!
//! Faults: a lost PostgreSQL or Redis is waited out with backoff
//! ([`outage::Outage`]: one line when it goes, one when it is back); a job
//! whose attempt failed because the database went away is handed back
//! without counting the attempt, since the job did nothing wrong; a job
//! that panics fails, and the slot goes on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use jobs::grid::Model;
use jobs::spec::Lane;
use jobs::{JobKind, Resource};
use outage::Outage;
use queue::Queue;
use schema::lifecycle::{self, Claimed, Together};
use schema::{workers, PgPool};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::Instrument;

use crate::isolate::{panic_message, Isolation};
use crate::job::{Commits, JobError};
use crate::joblog;
use crate::kinds::execute;

#[derive(Debug, Clone)]
pub struct WorkerConfig {
    /// Unique name of this worker (host, pid, random suffix).
    pub id: String,
    /// Resource class to serve: `cpu` or `gpu`.
    pub class: String,
    pub concurrency: usize,
    /// Lease length in seconds; heartbeats renew it every third of it.
    pub lease_s: f64,
    /// After a stop request, how long running jobs may finish before they are handed back.
    pub grace_s: f64,
    /// Where searches run: in child processes under real memory and time
    /// limits, or on this process's threads.
    pub isolation: Isolation,
    /// Most train jobs trained together as one stacked group, per model
    /// (1: alone).
    pub train_group: TrainGroups,
    /// Most learned plan jobs of one model searched at once, their
    /// evaluations sharing forward passes (1: one at a time).
    pub plan_group: usize,
    /// Threads a job may use to build a pattern database the farm does not
    /// have yet (once per farm and pattern: the 24-puzzle's 6-6-6-6 takes
    /// minutes on one thread, its breadth-first layers split well).
    pub pdb_threads: usize,
}

impl WorkerConfig {
    /// A worker that runs its jobs on this process's threads (tests, the
    /// queue benchmark): `id`, serving `class`, two slots, a 30 s lease,
    /// 5 s of grace, each training and search alone. Adjust with struct update syntax.
    pub fn in_process(id: &str, class: &str) -> WorkerConfig {
        WorkerConfig {
            id: id.to_string(),
            class: class.to_string(),
            concurrency: 2,
            lease_s: 30.0,
            grace_s: 5.0,
            isolation: Isolation::InProcess,
            train_group: TrainGroups::all(1),
            plan_group: 1,
            pdb_threads: 2,
        }
    }
}

/// Group sizes of trainings, per model. A model whose batches cannot stack
/// runs (`jobs::model::ModelInfo::stacks`: the HGN) always trains alone.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainGroups {
    /// The same size for every model that stacks.
    All(usize),
    /// Each model's CPU default (`ModelInfo::cpu_train_group`): they differ
    /// because the models do. On a CPU the NLM is compute-bound, and a
    /// stacked group is no faster than its runs in turn, while the linear
    /// model is bound by per-operation overhead, which a group shares.
    CpuDefaults,
}

impl TrainGroups {
    /// The same size for every model.
    pub fn all(size: usize) -> TrainGroups {
        TrainGroups::All(size)
    }

    /// Most trainings of `model` one group takes (1: alone).
    pub fn size(self, model: Model) -> usize {
        let info = model.info();
        if !info.stacks {
            return 1;
        }
        match self {
            TrainGroups::All(n) => n.max(1),
            TrainGroups::CpuDefaults => info.cpu_train_group,
        }
    }
}

/// How often a worker says it is alive (and reads whether a CUDA worker is).
const PRESENCE: Duration = Duration::from_secs(5);
/// Most slots one dispatcher feeds: one claim statement serves up to this
/// many slots, and the dispatchers of a worker with more overlap their
/// round trips (groups of 4 made claims of a job or two each: the
/// database's statements, not the jobs, were the queue's work).
const DISPATCH_GROUP: usize = 8;
/// Most dispatchers of one worker. Each keeps a pooled connection for its
/// claims (`lifecycle::Claimer`), so a worker with more would hold every
/// connection of its pool and starve its own heartbeats and commits: a
/// worker of 128 slots (16 dispatchers, 16 kept connections) timed out on
/// its pool and handed every job back. A larger worker gets larger groups.
const MAX_DISPATCHERS: usize = schema::POOL_CONNECTIONS as usize / 2;
/// How long a dispatcher with free slots waits for its other running jobs
/// to end before it pops keys for them all (see `dispatch`).
const GATHER: Duration = Duration::from_millis(1);
/// A worker not seen for this long is not counted as a live CUDA worker.
const LIVE_AFTER_S: f64 = 15.0;

/// Runs until `stop` turns true, then lets running jobs finish for
/// `grace_s` and hands back the rest. A GPU-class worker whose network
/// runs on CUDA (`learner::device`) advertises it.
pub async fn run_worker(pool: PgPool, queue: Queue, cfg: WorkerConfig, stop: watch::Receiver<bool>) {
    let cuda = cfg.class == Resource::Gpu.as_str() && learner::device().is_ok_and(|d| d.is_cuda());
    run_worker_advertising(pool, queue, cfg, cuda, stop).await
}

/// [`run_worker`] advertising `cuda` as given (tests make CUDA workers on
/// machines without one; only a GPU-class worker's counts).
pub async fn run_worker_advertising(
    pool: PgPool,
    queue: Queue,
    cfg: WorkerConfig,
    cuda: bool,
    stop: watch::Receiver<bool>,
) {
    let class = if cfg.class == Resource::Gpu.as_str() { Resource::Gpu } else { Resource::Cpu };
    let cuda = cuda && class == Resource::Gpu;
    let shared = Arc::new(Shared {
        commits: Commits::new(pool.clone()),
        pool,
        queue,
        cfg,
        class,
        cuda,
        machine: crate::machine::describe(cuda),
        cuda_alive: AtomicBool::new(true),
        held: Mutex::default(),
        committing: Mutex::default(),
    });
    // Until a presence says otherwise (the database may be away), the
    // worker keeps off GPU-preferring jobs.
    announce(&shared, &mut Outage::new(format!("worker {}: postgres", shared.cfg.id))).await;
    let presence = tokio::spawn(presence(shared.clone(), stop.clone()));
    let heartbeat = tokio::spawn(heartbeat(shared.clone()));
    // Slots in groups of a few (more for a large worker: at most
    // MAX_DISPATCHERS groups), each group with a dispatcher of its own:
    // one claim round trip serves a group's free slots, and the groups'
    // round trips overlap.
    let n = shared.cfg.concurrency.max(1);
    let group = DISPATCH_GROUP.max(n.div_ceil(MAX_DISPATCHERS));
    let mut groups = JoinSet::new();
    for first in (0..n).step_by(group) {
        groups.spawn(dispatch(shared.clone(), first..n.min(first + group), stop.clone()));
    }
    while groups.join_next().await.is_some() {}
    presence.abort();
    heartbeat.abort();
    let _ = workers::stopped(&shared.pool, &shared.cfg.id).await;
}

/// What the dispatcher, the heartbeat and the slots share.
struct Shared {
    pool: PgPool,
    queue: Queue,
    cfg: WorkerConfig,
    class: Resource,
    cuda: bool,
    /// What this worker runs on ([`crate::machine`]), sent with its presence.
    machine: serde_json::Value,
    /// Whether a live worker advertises CUDA (ours included).
    cuda_alive: AtomicBool,
    /// Jobs whose leases this worker holds: key -> (slot, cancel flag).
    held: Mutex<HashMap<String, (String, Arc<AtomicBool>)>>,
    /// Group commit of short jobs' completions.
    commits: Commits,
    /// Jobs waiting for their completion's commit after their slot went on.
    committing: Mutex<JoinSet<()>>,
}

impl Shared {
    fn hold(&self, key: &str, slot: &str, cancel: Arc<AtomicBool>) {
        self.held.lock().unwrap().insert(key.to_string(), (slot.to_string(), cancel));
    }

    fn release(&self, key: &str) {
        self.held.lock().unwrap().remove(key);
    }

    /// The lanes to pop now, in order of preference.
    fn lanes(&self) -> Vec<&'static str> {
        let alive = self.cuda_alive.load(Ordering::Relaxed);
        Lane::served(self.class, self.cuda, alive).into_iter().map(Lane::as_str).collect()
    }
}

/// Announces the worker every few seconds, with whether it has CUDA, and
/// learns whether any live worker does (the first time before the worker
/// pops anything, so that it starts on the right lanes).
async fn presence(shared: Arc<Shared>, mut stop: watch::Receiver<bool>) {
    let mut db = Outage::new(format!("worker {}: postgres", shared.cfg.id));
    loop {
        tokio::select! {
            _ = tokio::time::sleep(PRESENCE) => {}
            _ = stop.wait_for(|s| *s) => break,
        }
        announce(&shared, &mut db).await;
    }
}

async fn announce(shared: &Shared, db: &mut Outage) {
    let cfg = &shared.cfg;
    let seen = async {
        workers::seen(&shared.pool, &cfg.id, &cfg.class, cfg.concurrency as i32, &shared.machine).await?;
        lifecycle::advertise_cuda(&shared.pool, &cfg.id, shared.cuda, LIVE_AFTER_S).await
    };
    match seen.await {
        Ok(alive) => {
            shared.cuda_alive.store(alive, Ordering::Relaxed);
            db.ok()
        }
        Err(e) => _ = db.failed(&e),
    }
}

/// Renews every held lease each third of it, in one statement; a job no
/// longer ours (cancelled, reassigned) gets its cancel flag set and is
/// dropped from the renewals.
async fn heartbeat(shared: Arc<Shared>) {
    let lease = shared.cfg.lease_s;
    let mut db = Outage::new(format!("worker {}: heartbeat: postgres", shared.cfg.id));
    loop {
        tokio::time::sleep(Duration::from_secs_f64(lease / 3.0)).await;
        let held: Vec<(String, String)> =
            shared.held.lock().unwrap().iter().map(|(k, (w, _))| (k.clone(), w.clone())).collect();
        match lifecycle::heartbeat_many(&shared.pool, &held, lease).await {
            Ok(lost) => {
                db.ok();
                let mut held = shared.held.lock().unwrap();
                for key in lost {
                    // No longer ours: finishing will be refused, so stop searching.
                    if let Some((_, cancel)) = held.remove(&key) {
                        cancel.store(true, Ordering::Relaxed);
                    }
                }
            }
            Err(e) => _ = db.failed(&e),
        }
    }
}

/// Pops keys for the free slots, claims them in one statement and starts
/// each claimed job on a slot of its own; on stop, waits for the slots.
async fn dispatch(shared: Arc<Shared>, slots: std::ops::Range<usize>, mut stop: watch::Receiver<bool>) {
    let mut free: Vec<Slot> = slots.rev().map(|i| Slot::new(i, shared.clone())).collect();
    let mut running: JoinSet<(Slot, bool)> = JoinSet::new();
    let mut on_slot: HashMap<tokio::task::Id, usize> = HashMap::new();
    let mut redis = Outage::new(format!("worker {}: redis", shared.cfg.id));
    let mut db = Outage::new(format!("worker {}: postgres", shared.cfg.id));
    // A slot's task ended: the slot is free again (made anew if its task panicked).
    let settle = |r: Result<(tokio::task::Id, (Slot, bool)), tokio::task::JoinError>,
                  free: &mut Vec<Slot>,
                  on_slot: &mut HashMap<tokio::task::Id, usize>| match r {
        Ok((id, (slot, _))) => {
            on_slot.remove(&id);
            free.push(slot);
        }
        Err(e) => {
            if let Some(i) = on_slot.remove(&e.id()) {
                tracing::error!("worker {}/{i}: slot ended: {e}", shared.cfg.id);
                free.push(Slot::new(i, shared.clone()));
            }
        }
    };
    let mut claimer = lifecycle::Claimer::new(&shared.pool);
    let mut popper = loop {
        match shared.queue.popper(Lane::Cpu.as_str()).await {
            Ok(p) => break p,
            Err(e) if !*stop.borrow() => redis.wait_after(&e).await,
            Err(_) => return,
        }
    };
    redis.ok();
    while !*stop.borrow() {
        while let Some(r) = running.try_join_next_with_id() {
            settle(r, &mut free, &mut on_slot);
        }
        while shared.committing.lock().unwrap().try_join_next().is_some() {}
        if free.is_empty() {
            tokio::select! {
                Some(r) = running.join_next_with_id() => settle(r, &mut free, &mut on_slot),
                // (A stop sender gone without a word never stops the worker.)
                Ok(()) = stop.changed() => {}
            }
            continue;
        }
        // Short jobs end within moments of each other: wait a little for
        // the slots still running, so that one pop and one claim serve them
        // together instead of a round trip each (a slot freed by a long
        // job loses at most this wait).
        if !running.is_empty() {
            let deadline = tokio::time::sleep(GATHER);
            tokio::pin!(deadline);
            while !running.is_empty() {
                tokio::select! {
                    Some(r) = running.join_next_with_id() => settle(r, &mut free, &mut on_slot),
                    _ = &mut deadline => break,
                }
            }
        }
        let mut keys = match popper.pop_many(&shared.lanes(), free.len(), 1.0).await {
            Ok(k) => {
                redis.ok();
                k
            }
            Err(e) => {
                redis.wait_after(&e).await;
                continue;
            }
        };
        keys.sort();
        keys.dedup();
        if keys.is_empty() {
            continue;
        }
        let wanted: Vec<(String, String)> = keys.into_iter().zip(&free).map(|(k, s)| (k, s.me.clone())).collect();
        let claimed = match claimer.claim(&wanted, shared.cfg.lease_s).await {
            Ok(c) => {
                db.ok();
                c
            }
            Err(e) => {
                // The keys are gone from Redis but the jobs are still queued:
                // the scheduler announces them again (`stale_queued`).
                db.wait_after(&e).await;
                continue;
            }
        };
        for (me, job) in claimed {
            let Some(i) = free.iter().position(|s| s.me == me) else { continue };
            let slot = free.swap_remove(i);
            let index = slot.index;
            let id = running.spawn(slot.run(job, stop.clone())).id();
            on_slot.insert(id, index);
        }
    }
    while let Some(r) = running.join_next_with_id().await {
        settle(r, &mut free, &mut on_slot);
    }
    // Jobs whose slots went on while their completions committed.
    let committing = std::mem::take(&mut *shared.committing.lock().unwrap());
    committing.join_all().await;
}

/// One job (or group) at a time, with this slot's view of the database.
struct Slot {
    index: usize,
    me: String,
    shared: Arc<Shared>,
    db: Outage,
}

impl Slot {
    fn new(index: usize, shared: Arc<Shared>) -> Slot {
        let me = format!("{}/{index}", shared.cfg.id);
        let db = Outage::new(format!("worker {me}: postgres"));
        Slot { index, me, shared, db }
    }

    /// Runs a job this slot claimed, with the companions it may run with;
    /// false if the worker is stopping and they were handed back.
    async fn run(mut self, claimed: Claimed, stop: watch::Receiver<bool>) -> (Slot, bool) {
        let (together, group) = self.companions(&claimed).await;
        let carried_on = if group.is_empty() {
            self.run_job(claimed, stop).await
        } else {
            let mut jobs = vec![claimed];
            jobs.extend(group);
            self.run_group(together, jobs, stop).await
        };
        (self, carried_on)
    }

    /// Jobs to run together with `claimed` (claimed for this slot): train
    /// jobs of a model that stacks, or learned plan jobs of one model, as
    /// far as the worker's group sizes allow.
    async fn companions(&mut self, claimed: &Claimed) -> (Together, Vec<Claimed>) {
        let cfg = &self.shared.cfg;
        let field = |name: &str| spec_field(&claimed.spec, name);
        // The kind by the vocabulary's names; one this build does not know runs alone.
        let kind = field("kind").and_then(|k| k.parse::<JobKind>().ok());
        let (together, size) = match kind {
            // A model the registry does not know fails when its job runs, alone.
            Some(JobKind::Train) => {
                (Together::Training, field("model").and_then(Model::by_name).map_or(1, |m| cfg.train_group.size(m)))
            }
            Some(JobKind::Plan)
                if claimed.spec.pointer("/heuristic/source").and_then(|v| v.as_str()) == Some("learned") =>
            {
                (Together::Planning, cfg.plan_group)
            }
            _ => (Together::Training, 1),
        };
        if size <= 1 {
            return (together, vec![]);
        }
        let limit = size as i64 - 1;
        match lifecycle::claim_companions(&self.shared.pool, together, &claimed.key, &self.me, cfg.lease_s, limit).await
        {
            Ok(c) => (together, c),
            Err(e) => {
                // It runs alone; the others stay queued for someone else.
                tracing::warn!(job = %claimed.key, "worker {}: looking for jobs to run with it: {e}", self.me);
                (together, vec![])
            }
        }
    }

    /// Runs claimed jobs as one group (a stacked training, or searches
    /// sharing forward passes), each job heartbeating and ending on its own;
    /// false if the worker is stopping and they were handed back.
    async fn run_group(&mut self, together: Together, jobs: Vec<Claimed>, mut stop: watch::Receiver<bool>) -> bool {
        let keys: Vec<String> = jobs.iter().map(|j| j.key.clone()).collect();
        let what = match together {
            Together::Training => "training runs as one stacked group",
            Together::Planning => "searches with shared forward passes",
        };
        // Every line of the group's work goes to each of its jobs' logs.
        let span = tracing::info_span!("group", job = keys.join(" "));
        span.in_scope(|| tracing::info!("worker {}: {} {what}", self.me, keys.len()));
        // Groups run the planner and libtorch, which do not look at a cancel flag.
        for k in &keys {
            joblog::open(k);
            self.shared.hold(k, &self.me, Arc::default());
        }
        let mut group = {
            let (pool, me) = (self.shared.pool.clone(), self.me.clone());
            tokio::spawn(
                async move {
                    match together {
                        Together::Training => crate::kinds::train::run_group(&pool, &me, &jobs).await,
                        Together::Planning => crate::kinds::plan::run_group(&pool, &me, &jobs).await,
                    }
                }
                .instrument(span),
            )
        };
        let grace = Duration::from_secs_f64(self.shared.cfg.grace_s);
        let outcome = tokio::select! {
            r = &mut group => Some(r),
            _ = async {
                let _ = stop.wait_for(|s| *s).await;
                tokio::time::sleep(grace).await;
            } => None,
        };
        for k in &keys {
            self.shared.release(k);
        }
        match outcome {
            Some(Ok(results)) => {
                for (key, r) in keys.iter().zip(results) {
                    self.settle(key, Ok(r)).await;
                }
                true
            }
            Some(Err(join)) => {
                let why = join.to_string();
                for key in &keys {
                    self.record_failure(key, &format!("group ended: {why}")).await;
                }
                true
            }
            None => {
                group.abort();
                for key in &keys {
                    self.hand_back(key).await;
                }
                false
            }
        }
    }

    /// Records how a job's attempt ended, and its log.
    async fn settle(&mut self, key: &str, outcome: Result<Result<bool, JobError>, tokio::task::JoinError>) {
        match outcome {
            Ok(Ok(_)) => {
                self.db.ok();
                self.keep_log(key).await;
            }
            Ok(Err(JobError::Db(e))) if e.is_outage() => {
                // Not the job's fault: give it back without counting the attempt.
                tracing::warn!(job = key, "worker {}: lost its database ({e}); handing it back", self.me);
                // Not stored: the database is away, and storing would wait out the
                // pool's timeout before the hand-back; the worker's own log has it.
                joblog::take(key);
                self.hand_back_until_lease_ends(key).await;
            }
            Ok(Err(e)) => self.record_failure(key, &e.to_string()).await,
            Err(join) => {
                let why = match join.try_into_panic() {
                    Ok(p) => format!("job panicked: {}", panic_message(&p)),
                    Err(e) => format!("job task ended: {e}"),
                };
                self.record_failure(key, &why).await;
            }
        }
    }

    /// Gives a job back for another worker (this one is stopping).
    async fn hand_back(&self, key: &str) {
        tracing::info!(job = key, "worker {}: stopping: handing it back", self.me);
        self.keep_log(key).await;
        match lifecycle::hand_back(&self.shared.pool, key, &self.me).await {
            Ok(Some(r)) => {
                let _ = self.shared.queue.push(r.lane.as_str(), &[r.key]).await;
            }
            Ok(None) => {}
            Err(e) => tracing::warn!(job = key, "worker {}: handing it back: {e}", self.me),
        }
    }

    /// Stores the lines logged for `key`'s attempt (none: nothing to store).
    /// Before the attempt is recorded as ended: a job that fails is queued
    /// again at once, and its next attempt's number must not take this log.
    async fn keep_log(&self, key: &str) {
        let tail = joblog::take(key);
        if tail.is_empty() {
            return;
        }
        if let Err(e) = schema::joblogs::keep(&self.shared.pool, key, &self.me, &tail.text()).await {
            tracing::warn!("worker {}: keeping the log of {key}: {e}", self.me);
        }
    }

    /// Runs a claimed job to its recorded outcome; false if the worker is
    /// stopping and the job was handed back. A job that completed into the
    /// group commit frees the slot at once: its outcome is recorded when
    /// the commit is done, while the slot runs the next job.
    async fn run_job(&mut self, claimed: Claimed, mut stop: watch::Receiver<bool>) -> bool {
        let key = claimed.key.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        joblog::open(&key);
        let span = tracing::info_span!(
            "job",
            job = key.as_str(),
            kind = spec_field(&claimed.spec, "kind").unwrap_or_default()
        );
        self.shared.hold(&key, &self.me, cancel.clone());
        let handed = Arc::new(tokio::sync::Notify::new());
        // Its own task, so that a panic anywhere in the job (not only on its
        // blocking thread) fails the job and leaves the slot running.
        let mut job = {
            let (pool, me, isolation) = (self.shared.pool.clone(), self.me.clone(), self.shared.cfg.isolation.clone());
            let (pdb_threads, cancel) = (self.shared.cfg.pdb_threads.max(1), cancel.clone());
            let job = async move { execute(&pool, &claimed, &me, &isolation, pdb_threads, cancel).await };
            tokio::spawn(self.shared.commits.scope(handed.clone(), job).instrument(span))
        };
        let grace = Duration::from_secs_f64(self.shared.cfg.grace_s);
        let outcome = tokio::select! {
            r = &mut job => Some(Some(r)),
            _ = handed.notified() => Some(None),
            _ = async {
                let _ = stop.wait_for(|s| *s).await;
                tokio::time::sleep(grace).await;
            } => None,
        };
        match outcome {
            Some(Some(r)) => {
                self.shared.release(&key);
                self.settle(&key, r).await;
                true
            }
            Some(None) => {
                // Only the commit is left: record the outcome once it is
                // done (the lease is renewed until then), on a settler of
                // the same slot name.
                let mut settler = Slot::new(self.index, self.shared.clone());
                self.shared.committing.lock().unwrap().spawn(async move {
                    let r = job.await;
                    settler.shared.release(&key);
                    settler.settle(&key, r).await;
                });
                true
            }
            None => {
                // Stopping and out of grace: give the job back for another
                // worker, and end its searches (an abort does not reach a
                // blocking thread, which would keep the process alive).
                self.shared.release(&key);
                cancel.store(true, Ordering::Relaxed);
                job.abort();
                self.hand_back(&key).await;
                false
            }
        }
    }

    async fn record_failure(&mut self, key: &str, error: &str) {
        tracing::warn!(job = key, "worker {}: attempt failed: {error}", self.me);
        self.keep_log(key).await;
        match lifecycle::fail(&self.shared.pool, key, &self.me, error).await {
            Ok(_) => self.db.ok(),
            // The lease runs out and the scheduler queues the job again.
            Err(db) => tracing::warn!(job = key, "worker {}: recording its failure: {db}", self.me),
        }
    }

    /// Hands `key` back, retrying while the database is away; once the
    /// lease would have run out anyway, the scheduler takes over.
    async fn hand_back_until_lease_ends(&mut self, key: &str) {
        let deadline = Instant::now() + Duration::from_secs_f64(self.shared.cfg.lease_s);
        loop {
            match lifecycle::hand_back(&self.shared.pool, key, &self.me).await {
                Ok(Some(r)) => {
                    self.db.ok();
                    if let Err(e) = self.shared.queue.push(r.lane.as_str(), &[r.key]).await {
                        // Still queued in PostgreSQL: the scheduler announces it again.
                        tracing::warn!(job = key, "worker {}: announcing it again: {e}", self.me);
                    }
                    return;
                }
                Ok(None) => return, // it committed after all, or is someone else's now
                Err(e) if Instant::now() < deadline => self.db.wait_after(&e).await,
                Err(_) => return,
            }
        }
    }
}

/// A string field of a job's spec, read before the spec is decoded.
fn spec_field<'a>(spec: &'a serde_json::Value, name: &str) -> Option<&'a str> {
    spec.get(name).and_then(|v| v.as_str())
}
