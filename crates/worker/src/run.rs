//! The worker loop: `concurrency` slots, each popping a key, claiming the
//! job, running it with a heartbeat, and recording the outcome.

use std::sync::Arc;
use std::time::Duration;

use queue::Queue;
use schema::{lifecycle, workers, PgPool};
use tokio::sync::watch;

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
}

/// Runs until `stop` turns true, then lets running jobs finish for
/// `grace_s` and hands back the rest.
pub async fn run_worker(pool: PgPool, queue: Queue, cfg: WorkerConfig, stop: watch::Receiver<bool>) {
    let cfg = Arc::new(cfg);
    let presence = {
        let (pool, cfg, mut stop) = (pool.clone(), cfg.clone(), stop.clone());
        tokio::spawn(async move {
            loop {
                if let Err(e) = workers::seen(&pool, &cfg.id, &cfg.class, cfg.concurrency as i32).await {
                    eprintln!("worker {}: {e}", cfg.id);
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
        slots.spawn(async move { slot_loop(slot, pool, queue, cfg, stop).await });
    }
    while slots.join_next().await.is_some() {}
    presence.abort();
    let _ = workers::stopped(&pool, &cfg.id).await;
}

async fn slot_loop(slot: usize, pool: PgPool, queue: Queue, cfg: Arc<WorkerConfig>, stop: watch::Receiver<bool>) {
    let me = format!("{}/{slot}", cfg.id);
    let mut popper = loop {
        match queue.popper(&cfg.class).await {
            Ok(p) => break p,
            Err(e) => {
                eprintln!("worker {me}: redis: {e}; retrying");
                if *stop.borrow() {
                    return;
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    };
    while !*stop.borrow() {
        let key = match popper.pop(1.0).await {
            Ok(Some(k)) => k,
            Ok(None) => continue,
            Err(e) => {
                eprintln!("worker {me}: redis: {e}; retrying");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let claimed = match lifecycle::claim(&pool, &key, &me, cfg.lease_s).await {
            Ok(Some(c)) => c,
            Ok(None) => continue, // duplicate or stale announcement
            Err(e) => {
                eprintln!("worker {me}: claiming {key}: {e}");
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        let heartbeat = {
            let (pool, key, me, lease) = (pool.clone(), key.clone(), me.clone(), cfg.lease_s);
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs_f64(lease / 3.0)).await;
                    match lifecycle::heartbeat(&pool, &key, &me, lease).await {
                        Ok(true) => {}
                        Ok(false) => break, // no longer ours; finishing will be refused
                        Err(e) => eprintln!("worker {me}: heartbeat for {key}: {e}"),
                    }
                }
            })
        };
        let mut stop_wait = stop.clone();
        let outcome = tokio::select! {
            r = execute(&pool, &claimed, &me) => Some(r),
            _ = async {
                let _ = stop_wait.wait_for(|s| *s).await;
                tokio::time::sleep(Duration::from_secs_f64(cfg.grace_s)).await;
            } => None,
        };
        heartbeat.abort();
        match outcome {
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                if let Err(db) = lifecycle::fail(&pool, &key, &me, &e.to_string()).await {
                    eprintln!("worker {me}: recording failure of {key}: {db}");
                }
            }
            None => {
                // Stopping and out of grace: give the job back for another worker.
                match lifecycle::hand_back(&pool, &key, &me).await {
                    Ok(Some(r)) => {
                        let _ = queue.push(&r.resource, &[r.key]).await;
                    }
                    Ok(None) => {}
                    Err(e) => eprintln!("worker {me}: handing back {key}: {e}"),
                }
                return;
            }
        }
    }
}
