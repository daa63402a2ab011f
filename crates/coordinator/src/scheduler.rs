//! The scheduler loop run by `hfarm serve`: announce ready jobs, recover
//! jobs of lost workers, re-announce jobs Redis lost. All decisions are
//! conditional updates in PostgreSQL (`schema::lifecycle`); Redis only
//! receives keys. It searches the pending jobs for ready ones only when a
//! change could have made one ready (`lifecycle::take_wakeups`), so an idle
//! farm with a large grid recorded costs PostgreSQL next to nothing.

use std::collections::BTreeMap;
use std::time::Duration;

use jobs::spec::Lane;
use queue::Queue;
use schema::lifecycle::{self, Ready};
use schema::PgPool;
use tokio::sync::watch;

#[derive(Debug, Clone)]
pub struct SchedulerConfig {
    /// Time between passes.
    pub tick: Duration,
    /// Queued jobs unclaimed for this long are announced again.
    pub requeue_after_s: f64,
    /// Most jobs announced per pass.
    pub batch: i64,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig { tick: Duration::from_millis(200), requeue_after_s: 15.0, batch: 10_000 }
    }
}

async fn announce(queue: &Queue, ready: Vec<Ready>) -> Result<usize, String> {
    let n = ready.len();
    let mut by_lane: BTreeMap<Lane, Vec<String>> = BTreeMap::new();
    for r in ready {
        by_lane.entry(r.lane).or_default().push(r.key);
    }
    for (lane, keys) in by_lane {
        queue.push(lane.as_str(), &keys).await.map_err(redis)?;
    }
    Ok(n)
}

/// Lanes whose Redis list holds fewer keys than they have queued jobs:
/// Redis lost some (flushed, restarted). Only those are re-announced; a
/// list as long as the backlog is just waiting for workers, and pushing it
/// again would only grow it (and mislead autoscalers reading its length).
async fn lanes_missing_keys(pool: &PgPool, queue: &Queue) -> Result<Vec<&'static str>, String> {
    let mut out = vec![];
    for (lane, queued) in lifecycle::queued_by_lane(pool).await.map_err(postgres)? {
        let listed = queue.len(lane.as_str()).await.map_err(redis)?;
        if (listed as i64) < queued {
            out.push(lane.as_str());
        }
    }
    Ok(out)
}

/// A pass's error names the server that failed, as the log line of an
/// outage should ("scheduler: lost (postgres: ...)").
fn postgres(e: impl std::fmt::Display) -> String {
    format!("postgres: {e}")
}

fn redis(e: impl std::fmt::Display) -> String {
    format!("redis: {e}")
}

/// Longest time between two searches for ready jobs while nothing wakes
/// the scheduler (`lifecycle::take_wakeups`): a safety net only, as every
/// change that can make a job ready leaves a wakeup.
const SEARCH_AT_LEAST_EVERY: Duration = Duration::from_secs(60);

/// What a pass does besides recovering expired leases.
#[derive(Clone, Copy)]
struct Look {
    /// Look for keys Redis lost: counting the queued jobs of every lane
    /// reads the whole backlog, and a job is announced again only after
    /// `requeue_after_s` anyway.
    lost: bool,
    /// Search the pending jobs for ready ones: a semi-join per pending job,
    /// the pass's whole cost with a large grid recorded.
    ready: bool,
}

/// One pass, every search done; returns how many jobs were announced.
pub async fn pass(pool: &PgPool, queue: &Queue, cfg: &SchedulerConfig) -> Result<usize, String> {
    pass_looking(pool, queue, cfg, Look { lost: true, ready: true }).await.map(|(n, _)| n)
}

/// A pass that searches what `look` says; returns how many jobs were
/// announced, and whether the search for ready ones stopped at the batch
/// limit (more may be ready).
async fn pass_looking(
    pool: &PgPool,
    queue: &Queue,
    cfg: &SchedulerConfig,
    look: Look,
) -> Result<(usize, bool), String> {
    let mut n = 0;
    n += announce(queue, lifecycle::requeue_expired(pool).await.map_err(postgres)?).await?;
    let lost = if look.lost { lanes_missing_keys(pool, queue).await? } else { vec![] };
    if !lost.is_empty() {
        let stale = lifecycle::stale_queued(pool, cfg.requeue_after_s, &lost).await.map_err(postgres)?;
        n += announce(queue, stale).await?;
    }
    if !look.ready {
        return Ok((n, false));
    }
    let ready = lifecycle::promote_ready(pool, cfg.batch).await.map_err(postgres)?;
    let full = ready.len() as i64 >= cfg.batch;
    n += announce(queue, ready).await?;
    Ok((n, full))
}

/// Runs passes until `stop` turns true. A failed pass is retried with
/// backoff: a restarting Redis or PostgreSQL must not end the scheduler,
/// and its log says once that it lost one and once that it is back.
pub async fn run_scheduler(pool: PgPool, queue: Queue, cfg: SchedulerConfig, mut stop: watch::Receiver<bool>) {
    let mut outage = outage::Outage::new("scheduler");
    // Lost keys are looked for a few times per re-announcement delay.
    let check_every = Duration::from_secs_f64((cfg.requeue_after_s / 4.0).clamp(0.0, 5.0));
    let mut checked: Option<tokio::time::Instant> = None;
    let mut searched: Option<tokio::time::Instant> = None;
    // Whether the last search stopped at the batch limit, or failed.
    let mut more = true;
    while !*stop.borrow() {
        let lost = checked.is_none_or(|t| t.elapsed() >= check_every);
        let pass = async {
            // Taken first, whatever else is due: what commits after this is
            // woken for again.
            let woken = lifecycle::take_wakeups(&pool).await.map_err(postgres)?;
            let ready = woken || more || searched.is_none_or(|t| t.elapsed() >= SEARCH_AT_LEAST_EVERY);
            pass_looking(&pool, &queue, &cfg, Look { lost, ready }).await.map(|(_, full)| (ready, full))
        };
        let wait = match pass.await {
            Ok((ready, full)) => {
                let now = tokio::time::Instant::now();
                if lost {
                    checked = Some(now);
                }
                if ready {
                    searched = Some(now);
                    more = full;
                }
                outage.ok();
                cfg.tick
            }
            Err(e) => {
                more = true;
                outage.failed(&e).max(cfg.tick)
            }
        };
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = stop.changed() => {}
        }
    }
}
