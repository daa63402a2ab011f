//! Riding out a lost dependency (PostgreSQL, Redis) in the farm's
//! long-running processes: workers and the scheduler keep trying with
//! exponential backoff and jitter, and say once when the dependency went
//! away and once when it came back (with how long it was gone and how many
//! tries failed), instead of a line per failed try.
//!
//! Invariant: an [`Outage`] only counts and waits; what to do while the
//! dependency is gone (hand a job back, skip a pass) is the caller's call.

use std::fmt::Display;
use std::time::{Duration, Instant};

/// The availability of one dependency as one loop sees it.
#[derive(Debug)]
pub struct Outage {
    /// Who is speaking and about what: `worker w1/0: postgres`.
    what: String,
    since: Option<Instant>,
    failures: u32,
    first: Duration,
    max: Duration,
}

impl Outage {
    /// Backoff from 100 ms, doubling up to 5 s.
    pub fn new(what: impl Into<String>) -> Outage {
        Outage::with_backoff(what, Duration::from_millis(100), Duration::from_secs(5))
    }

    pub fn with_backoff(what: impl Into<String>, first: Duration, max: Duration) -> Outage {
        Outage { what: what.into(), since: None, failures: 0, first, max }
    }

    /// Whether the dependency is currently considered gone.
    pub fn is_down(&self) -> bool {
        self.since.is_some()
    }

    /// Records a failed try and returns how long to wait before the next.
    /// The first failure of an outage is logged with its error; later ones
    /// only when the error changes would be noise, so they are counted.
    pub fn failed(&mut self, error: &(dyn Display + Sync)) -> Duration {
        if self.since.is_none() {
            self.since = Some(Instant::now());
            tracing::warn!("{}: lost ({error}); retrying with backoff", self.what);
        }
        self.failures += 1;
        self.delay()
    }

    /// Records a successful try; logs the recovery if there was an outage.
    pub fn ok(&mut self) {
        if let Some(since) = self.since.take() {
            tracing::info!(
                "{}: regained after {:.1} s ({} failed tries)",
                self.what,
                since.elapsed().as_secs_f64(),
                self.failures
            );
        }
        self.failures = 0;
    }

    /// Records a failure and sleeps its backoff.
    pub async fn wait_after(&mut self, error: &(dyn Display + Sync)) {
        tokio::time::sleep(self.failed(error)).await;
    }

    /// The delay after `failures` failed tries: `first * 2^(n-1)` capped at
    /// `max`, times a random factor in [0.5, 1] so that many workers that
    /// lost the same server do not all come back in the same millisecond.
    fn delay(&self) -> Duration {
        let exp = self.failures.saturating_sub(1).min(16);
        let base = self.first.saturating_mul(1 << exp).min(self.max);
        base.mul_f64(0.5 + 0.5 * rand::random::<f64>())
    }
}

/// Calls `connect` until it succeeds or fails in a way that waiting will
/// not mend (`transient` says which), with an [`Outage`]'s backoff between
/// tries: how a worker or the scheduler starts while PostgreSQL or Redis is
/// still coming up (a fresh cluster, a restarted pod), while a wrong
/// password still ends it at once.
pub async fn until_connected<T, E: Display + Sync, F: std::future::Future<Output = Result<T, E>>>(
    what: &str,
    mut connect: impl FnMut() -> F,
    transient: impl Fn(&E) -> bool,
) -> Result<T, E> {
    let mut outage = Outage::new(what);
    loop {
        match connect().await {
            Ok(v) => {
                outage.ok();
                return Ok(v);
            }
            Err(e) if transient(&e) => outage.wait_after(&e).await,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter_below_it() {
        let mut o = Outage::with_backoff("t", Duration::from_millis(100), Duration::from_secs(1));
        let delays: Vec<Duration> = (0..8).map(|_| o.failed(&"down")).collect();
        for (n, d) in delays.iter().enumerate() {
            let base = Duration::from_millis(100).saturating_mul(1 << n).min(Duration::from_secs(1));
            assert!(*d <= base && *d >= base / 2, "try {n}: {d:?} not in [{:?}, {base:?}]", base / 2);
        }
        assert!(o.is_down());
        o.ok();
        assert!(!o.is_down());
        assert!(o.failed(&"again") <= Duration::from_millis(100), "backoff restarts after a recovery");
    }

    #[tokio::test]
    async fn until_connected_waits_out_transient_errors_only() {
        // Refused twice, then up; or a fatal error on try `fatal_at`.
        fn server(fatal_at: u32) -> impl FnMut() -> std::future::Ready<Result<u32, &'static str>> {
            let mut tries = 0;
            move || {
                tries += 1;
                std::future::ready(match tries {
                    n if n == fatal_at => Err("wrong password"),
                    1 | 2 => Err("refused"),
                    n => Ok(n),
                })
            }
        }
        let transient = |e: &&str| *e == "refused";
        assert_eq!(until_connected("t", server(0), transient).await, Ok(3));
        assert_eq!(until_connected("t", server(2), transient).await, Err("wrong password"));
    }
}
