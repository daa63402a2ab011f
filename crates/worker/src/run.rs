//! The worker loop: `concurrency` slots, each popping a key, claiming the
//! job, running it with a heartbeat, and recording the outcome.
//!
//! Faults: a lost PostgreSQL or Redis is waited out with backoff
//! ([`outage::Outage`]: one line when it goes, one when it is back); a job
//! whose attempt failed because the database went away is handed back
//! without counting the attempt, since the job did nothing wrong; a job
//! that panics fails, and the slot goes on.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use outage::Outage;
use queue::Queue;
use schema::lifecycle::{self, Claimed, Together};
use schema::{workers, PgPool};
use tokio::sync::watch;

use crate::isolate::Isolation;
use crate::job::JobError;
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

/// Group sizes of the models that stack (the HGN trains alone): they
/// differ because the models do. On a CPU the NLM is compute-bound, and a
/// stacked group is no faster than its runs in turn, while the linear model
/// is bound by per-operation overhead, which a group shares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrainGroups {
    pub nlm: usize,
    pub linear: usize,
}

impl TrainGroups {
    /// The same size for every model.
    pub fn all(size: usize) -> TrainGroups {
        TrainGroups { nlm: size, linear: size }
    }
}

/// Runs until `stop` turns true, then lets running jobs finish for
/// `grace_s` and hands back the rest.
pub async fn run_worker(pool: PgPool, queue: Queue, cfg: WorkerConfig, stop: watch::Receiver<bool>) {
    let cfg = Arc::new(cfg);
    let presence = {
        let (pool, cfg, mut stop) = (pool.clone(), cfg.clone(), stop.clone());
        tokio::spawn(async move {
            let mut db = Outage::new(format!("worker {}: postgres", cfg.id));
            loop {
                match workers::seen(&pool, &cfg.id, &cfg.class, cfg.concurrency as i32).await {
                    Ok(()) => db.ok(),
                    Err(e) => _ = db.failed(&e),
                }
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_secs(5)) => {}
                    _ = stop.wait_for(|s| *s) => break,
                }
            }
        })
    };
    let mut slots = tokio::task::JoinSet::new();
    for slot in 0..cfg.concurrency.max(1) {
        let (pool, queue, cfg, stop) = (pool.clone(), queue.clone(), cfg.clone(), stop.clone());
        slots.spawn(async move { Slot::new(slot, pool, queue, cfg).run(stop).await });
    }
    while slots.join_next().await.is_some() {}
    presence.abort();
    let _ = workers::stopped(&pool, &cfg.id).await;
}

/// One job at a time, with this slot's view of the two servers.
struct Slot {
    me: String,
    pool: PgPool,
    queue: Queue,
    cfg: Arc<WorkerConfig>,
    db: Outage,
    redis: Outage,
}

impl Slot {
    fn new(slot: usize, pool: PgPool, queue: Queue, cfg: Arc<WorkerConfig>) -> Slot {
        let me = format!("{}/{slot}", cfg.id);
        let db = Outage::new(format!("worker {me}: postgres"));
        let redis = Outage::new(format!("worker {me}: redis"));
        Slot { me, pool, queue, cfg, db, redis }
    }

    async fn run(mut self, stop: watch::Receiver<bool>) {
        let mut popper = loop {
            match self.queue.popper(&self.cfg.class).await {
                Ok(p) => break p,
                Err(e) if !*stop.borrow() => self.redis.wait_after(&e).await,
                Err(_) => return,
            }
        };
        self.redis.ok();
        while !*stop.borrow() {
            let key = match popper.pop(1.0).await {
                Ok(Some(k)) => k,
                Ok(None) => {
                    self.redis.ok();
                    continue;
                }
                Err(e) => {
                    self.redis.wait_after(&e).await;
                    continue;
                }
            };
            self.redis.ok();
            let claimed = match lifecycle::claim(&self.pool, &key, &self.me, self.cfg.lease_s).await {
                Ok(Some(c)) => c,
                Ok(None) => continue, // duplicate or stale announcement
                Err(e) => {
                    // The key is gone from Redis but the job is still queued:
                    // the scheduler announces it again (`stale_queued`).
                    self.db.wait_after(&e).await;
                    continue;
                }
            };
            self.db.ok();
            let (together, group) = self.companions(&claimed).await;
            let carried_on = if group.is_empty() {
                self.run_job(claimed, stop.clone()).await
            } else {
                let mut jobs = vec![claimed];
                jobs.extend(group);
                self.run_group(together, jobs, stop.clone()).await
            };
            if !carried_on {
                return;
            }
        }
    }

    /// Jobs to run together with `claimed` (claimed for this slot): train
    /// jobs of a model that stacks, or learned plan jobs of one model, as
    /// far as the worker's group sizes allow.
    async fn companions(&mut self, claimed: &Claimed) -> (Together, Vec<Claimed>) {
        let field = |name: &str| claimed.spec.get(name).and_then(|v| v.as_str());
        let (together, size) = match field("kind") {
            Some("train") if field("model") == Some("nlm") => (Together::Training, self.cfg.train_group.nlm),
            Some("train") if field("model") == Some("linear") => (Together::Training, self.cfg.train_group.linear),
            Some("plan") if claimed.spec.pointer("/heuristic/source").and_then(|v| v.as_str()) == Some("learned") => {
                (Together::Planning, self.cfg.plan_group)
            }
            _ => (Together::Training, 1),
        };
        if size <= 1 {
            return (together, vec![]);
        }
        let limit = size as i64 - 1;
        match lifecycle::claim_companions(&self.pool, together, &claimed.key, &self.me, self.cfg.lease_s, limit).await {
            Ok(c) => (together, c),
            Err(e) => {
                // It runs alone; the others stay queued for someone else.
                eprintln!("worker {}: looking for jobs to run with {}: {e}", self.me, claimed.key);
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
        eprintln!("worker {}: {} {what}", self.me, keys.len());
        // Groups run the planner and libtorch, which do not look at a cancel flag.
        let heartbeats: Vec<_> = keys.iter().map(|k| self.heartbeat(k, Arc::default())).collect();
        let mut group = {
            let (pool, me) = (self.pool.clone(), self.me.clone());
            tokio::spawn(async move {
                match together {
                    Together::Training => crate::kinds::train::run_group(&pool, &me, &jobs).await,
                    Together::Planning => crate::kinds::plan::run_group(&pool, &me, &jobs).await,
                }
            })
        };
        let grace = Duration::from_secs_f64(self.cfg.grace_s);
        let outcome = tokio::select! {
            r = &mut group => Some(r),
            _ = async {
                let _ = stop.wait_for(|s| *s).await;
                tokio::time::sleep(grace).await;
            } => None,
        };
        for h in heartbeats {
            h.abort();
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

    /// Renews the job's lease every third of it; when the job is no longer
    /// ours (cancelled, reassigned) it sets `cancel` and stops.
    fn heartbeat(&self, key: &str, cancel: Arc<AtomicBool>) -> tokio::task::JoinHandle<()> {
        let (pool, key, me, lease) = (self.pool.clone(), key.to_string(), self.me.clone(), self.cfg.lease_s);
        tokio::spawn(async move {
            let mut db = Outage::new(format!("worker {me}: heartbeat for {key}: postgres"));
            loop {
                tokio::time::sleep(Duration::from_secs_f64(lease / 3.0)).await;
                match lifecycle::heartbeat(&pool, &key, &me, lease).await {
                    Ok(true) => db.ok(),
                    Ok(false) => {
                        // No longer ours: finishing will be refused, so stop searching.
                        cancel.store(true, Ordering::Relaxed);
                        break;
                    }
                    Err(e) => _ = db.failed(&e),
                }
            }
        })
    }

    /// Records how a job's attempt ended.
    async fn settle(&mut self, key: &str, outcome: Result<Result<bool, JobError>, tokio::task::JoinError>) {
        match outcome {
            Ok(Ok(_)) => self.db.ok(),
            Ok(Err(JobError::Db(e))) if e.is_outage() => {
                // Not the job's fault: give it back without counting the attempt.
                eprintln!("worker {}: {key} lost its database ({e}); handing it back", self.me);
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
        match lifecycle::hand_back(&self.pool, key, &self.me).await {
            Ok(Some(r)) => {
                let _ = self.queue.push(&r.resource, &[r.key]).await;
            }
            Ok(None) => {}
            Err(e) => eprintln!("worker {}: handing back {key}: {e}", self.me),
        }
    }

    /// Runs a claimed job to its recorded outcome; false if the worker is
    /// stopping and the job was handed back.
    async fn run_job(&mut self, claimed: Claimed, mut stop: watch::Receiver<bool>) -> bool {
        let key = claimed.key.clone();
        let cancel = Arc::new(AtomicBool::new(false));
        let heartbeat = self.heartbeat(&key, cancel.clone());
        // Its own task, so that a panic anywhere in the job (not only on its
        // blocking thread) fails the job and leaves the slot running.
        let mut job = {
            let (pool, me, isolation) = (self.pool.clone(), self.me.clone(), self.cfg.isolation.clone());
            let (pdb_threads, cancel) = (self.cfg.pdb_threads.max(1), cancel.clone());
            tokio::spawn(async move { execute(&pool, &claimed, &me, &isolation, pdb_threads, cancel).await })
        };
        let grace = Duration::from_secs_f64(self.cfg.grace_s);
        let outcome = tokio::select! {
            r = &mut job => Some(r),
            _ = async {
                let _ = stop.wait_for(|s| *s).await;
                tokio::time::sleep(grace).await;
            } => None,
        };
        heartbeat.abort();
        match outcome {
            Some(r) => {
                self.settle(&key, r).await;
                true
            }
            None => {
                // Stopping and out of grace: give the job back for another
                // worker, and end its searches (an abort does not reach a
                // blocking thread, which would keep the process alive).
                cancel.store(true, Ordering::Relaxed);
                job.abort();
                self.hand_back(&key).await;
                false
            }
        }
    }

    async fn record_failure(&mut self, key: &str, error: &str) {
        match lifecycle::fail(&self.pool, key, &self.me, error).await {
            Ok(_) => self.db.ok(),
            // The lease runs out and the scheduler queues the job again.
            Err(db) => eprintln!("worker {}: recording failure of {key}: {db}", self.me),
        }
    }

    /// Hands `key` back, retrying while the database is away; once the
    /// lease would have run out anyway, the scheduler takes over.
    async fn hand_back_until_lease_ends(&mut self, key: &str) {
        let deadline = Instant::now() + Duration::from_secs_f64(self.cfg.lease_s);
        loop {
            match lifecycle::hand_back(&self.pool, key, &self.me).await {
                Ok(Some(r)) => {
                    self.db.ok();
                    if let Err(e) = self.queue.push(&r.resource, &[r.key]).await {
                        // Still queued in PostgreSQL: the scheduler announces it again.
                        eprintln!("worker {}: announcing {key} again: {e}", self.me);
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

pub(crate) fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".into())
}
