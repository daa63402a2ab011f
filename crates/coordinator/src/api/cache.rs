//! Answers that take a pass over an experiment's jobs (the dashboard's
//! matrix, the work left for the ETA), reused for a while in proportion to
//! their cost, so that the dashboard's polling (every 5 s) keeps PostgreSQL
//! busy for at most a tenth of the time at any experiment size.
//!
//! An answer that took `t` to compute is fresh for `10 t` (at most a
//! minute). A stale answer that was cheap (under [`INLINE`]) is computed
//! again on the spot, so small experiments stay live; an expensive one is
//! answered as it was while one task computes it again in the background,
//! so no poll but the first waits for it.

use std::collections::HashMap;
use std::future::Future;
use std::hash::Hash;
use std::sync::{Arc, LazyLock, Mutex};
use std::time::{Duration, Instant};

use super::error::ApiError;

/// A stale answer that took less than this is computed again while the
/// request waits.
pub const INLINE: Duration = Duration::from_millis(100);

/// The longest an answer is reused.
pub const MAX_AGE: Duration = Duration::from_secs(60);

/// How long an answer that took `cost` stays fresh.
pub fn fresh_for(cost: Duration) -> Duration {
    (cost * 10).min(MAX_AGE)
}

struct Entry<T> {
    at: Instant,
    cost: Duration,
    value: Arc<T>,
    refreshing: bool,
}

/// Answers by key (an experiment's id: random UUIDs, so one cache serves
/// any number of databases, as tests have).
pub struct Cache<K, T> {
    map: LazyLock<Mutex<HashMap<K, Entry<T>>>>,
}

impl<K: Eq + Hash + Copy + Send + 'static, T: Send + Sync + 'static> Cache<K, T> {
    pub const fn new() -> Self {
        Cache { map: LazyLock::new(Default::default) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<K, Entry<T>>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn store(&self, key: K, value: T, cost: Duration) -> Arc<T> {
        let value = Arc::new(value);
        let mut map = self.lock();
        // Keys nobody asked about for a while are forgotten.
        map.retain(|_, e| e.at.elapsed() < 10 * MAX_AGE);
        map.insert(key, Entry { at: Instant::now(), cost, value: value.clone(), refreshing: false });
        value
    }

    /// The answer for `key`: reused while fresh, else as described in the
    /// module's documentation. `compute` is run at most once per call.
    pub async fn get<F, Fut>(&'static self, key: K, compute: F) -> Result<Arc<T>, ApiError>
    where
        F: FnOnce() -> Fut + Send + 'static,
        Fut: Future<Output = Result<T, ApiError>> + Send + 'static,
    {
        {
            let mut map = self.lock();
            if let Some(e) = map.get_mut(&key) {
                let age = e.at.elapsed();
                if age < fresh_for(e.cost) {
                    return Ok(e.value.clone());
                }
                if e.cost >= INLINE {
                    if !std::mem::replace(&mut e.refreshing, true) {
                        tokio::spawn(async move {
                            let t = Instant::now();
                            match compute().await {
                                Ok(v) => {
                                    self.store(key, v, t.elapsed());
                                }
                                Err(_) => {
                                    if let Some(e) = self.lock().get_mut(&key) {
                                        e.refreshing = false;
                                    }
                                }
                            }
                        });
                    }
                    return Ok(e.value.clone());
                }
            }
        }
        let t = Instant::now();
        let value = compute().await?;
        Ok(self.store(key, value, t.elapsed()))
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn cost_sets_the_age() {
        assert_eq!(fresh_for(Duration::from_millis(5)), Duration::from_millis(50));
        assert_eq!(fresh_for(Duration::from_secs(3)), Duration::from_secs(30));
        assert_eq!(fresh_for(Duration::from_secs(30)), MAX_AGE);
    }

    static CHEAP: Cache<u32, usize> = Cache::new();
    static DEAR: Cache<u32, usize> = Cache::new();

    #[tokio::test]
    async fn cheap_answers_stay_live_and_dear_ones_are_refreshed_behind() {
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        let count = || async { Ok(RUNS.fetch_add(1, Ordering::SeqCst)) };
        assert_eq!(*CHEAP.get(1, count).await.ok().unwrap(), 0);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(*CHEAP.get(1, count).await.ok().unwrap(), 1, "stale and cheap: computed again");

        static SLOW: AtomicUsize = AtomicUsize::new(0);
        let slow = || async {
            tokio::time::sleep(INLINE).await;
            Ok(SLOW.fetch_add(1, Ordering::SeqCst))
        };
        assert_eq!(*DEAR.get(1, slow).await.ok().unwrap(), 0);
        assert_eq!(*DEAR.get(1, slow).await.ok().unwrap(), 0, "fresh");
        // Age it past its freshness: the old answer comes back at once, a new one is computed behind.
        DEAR.lock().get_mut(&1).unwrap().at -= Duration::from_secs(5);
        let t = Instant::now();
        assert_eq!(*DEAR.get(1, slow).await.ok().unwrap(), 0, "stale: answered as it was");
        assert!(t.elapsed() < INLINE, "without waiting");
        tokio::time::sleep(3 * INLINE).await;
        assert_eq!(*DEAR.get(1, slow).await.ok().unwrap(), 1, "refreshed");
    }
}
