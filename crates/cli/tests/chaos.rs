//! The chaos suite: a grid of 1,000+ real jobs (generate, label, plan) run
//! by several `hfarm worker` processes and an `hfarm serve`, while faults
//! from a seeded schedule hit them: workers SIGKILLed, workers SIGSTOPped
//! past their lease and resumed, PostgreSQL crashed and restarted, Redis
//! restarted (losing everything) or flushed, the coordinator killed and
//! started again. Both servers are private to the test (a cluster made by
//! `initdb`, a `redis-server`, each on a free port).
//!
//! Invariant at the end: every job succeeded, with exactly one result per
//! job (no duplicate, none lost), no lease left behind, nothing stuck; and
//! the processes said in their logs that they lost a server and regained it.
//!
//! `scripts/chaos` runs the same test bigger and longer, through the
//! environment: HFARM_CHAOS_SEED, HFARM_CHAOS_WORKERS, HFARM_CHAOS_SEEDS
//! (gripper training seeds: two jobs each), HFARM_CHAOS_FAULTS.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sqlx::postgres::{PgPool, PgPoolOptions};
use support::servers::{PrivatePostgres, PrivateRedis};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    KillWorker,
    StopWorker,
    RestartPostgres,
    RestartRedis,
    FlushRedis,
    KillCoordinator,
}

const FAULTS: [Fault; 6] = [
    Fault::KillWorker,
    Fault::StopWorker,
    Fault::RestartPostgres,
    Fault::RestartRedis,
    Fault::FlushRedis,
    Fault::KillCoordinator,
];

/// SplitMix64: the schedule depends on the seed alone.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `n` faults, each after a pause of 0.3-1.2 s: every kind once in the
/// first six (so that each lands even if the grid ends early), then kinds
/// at random; `victim` picks the worker a fault hits.
fn schedule(seed: u64, n: usize) -> Vec<(f64, Fault, usize)> {
    let mut rng = Rng(seed);
    let mut kinds = FAULTS.to_vec();
    for i in (1..kinds.len()).rev() {
        kinds.swap(i, rng.below(i + 1));
    }
    kinds.extend((FAULTS.len()..n).map(|_| FAULTS[rng.below(FAULTS.len())]));
    kinds.truncate(n);
    kinds.into_iter().map(|k| (rng.uniform(0.3, 1.2), k, rng.below(1 << 16))).collect()
}

/// The farm's processes, each logging to its own file.
struct Farm {
    logs: PathBuf,
    env: Vec<(&'static str, String)>,
    serve: Child,
    workers: Vec<Child>,
    started: usize,
    lease_s: f64,
}

impl Farm {
    fn spawn(&mut self, name: &str, args: &[&str]) -> Child {
        self.started += 1;
        let log = std::fs::File::create(self.logs.join(format!("{:03}-{name}.log", self.started))).unwrap();
        Command::new(env!("CARGO_BIN_EXE_hfarm"))
            .args(args)
            .envs(self.env.iter().map(|(k, v)| (*k, v.as_str())))
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .expect("spawn hfarm")
    }

    fn start_serve(&mut self) -> Child {
        self.spawn("serve", &["serve", "--requeue-after", "2", "--listen", "127.0.0.1:0"])
    }

    fn start_worker(&mut self) -> Child {
        let lease = self.lease_s.to_string();
        self.spawn("worker", &["worker", "--concurrency", "2", "--lease", &lease, "--grace", "2"])
    }

    /// PostgreSQL outages the processes reported, and those they reported
    /// recovering from, over every log (see [`postgres_outages`]).
    fn postgres_outages(&self) -> (Vec<String>, Vec<String>) {
        let (mut lost, mut regained) = (vec![], vec![]);
        for e in std::fs::read_dir(&self.logs).unwrap().flatten() {
            let log = std::fs::read_to_string(e.path()).unwrap_or_default();
            let (l, r) = postgres_outages(&messages(&log));
            lost.extend(l);
            regained.extend(r);
        }
        (lost, regained)
    }
}

/// The messages of a log of JSON lines (`--log-format json`), one a line;
/// a line that is not a JSON event (a panic's) is kept as it is.
fn messages(log: &str) -> String {
    let mut out = String::new();
    for line in log.lines() {
        let event = serde_json::from_str::<serde_json::Value>(line).ok();
        match event.as_ref().and_then(|e| e["message"].as_str()) {
            Some(m) => out.push_str(m),
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[test]
fn json_log_lines_are_read_by_their_message() {
    let log = r#"{"timestamp":"2026-11-29T06:00:00.1Z","level":"WARN","message":"scheduler: lost (postgres: refused); retrying with backoff","target":"outage"}
thread 'main' panicked at src/x.rs:1:1
"#;
    assert_eq!(
        messages(log),
        "scheduler: lost (postgres: refused); retrying with backoff\nthread 'main' panicked at src/x.rs:1:1\n"
    );
}

/// The PostgreSQL outages one process's log reports (`outage::Outage`'s
/// lines): a loop that lost PostgreSQL says `{what}: lost ({error}); retrying
/// with backoff`, where `what` is a worker's `worker {id}: postgres` (or its
/// heartbeat's `...: postgres`), a process's start `postgres at {url}`, or
/// the scheduler, whose error then starts with `postgres: `; the same loop
/// says `{what}: regained after {s} s ({n} failed tries)` when it is back.
/// Returns the lines of each outage and of each recovery that follows an
/// outage of the same loop. A Redis outage (`... redis: lost`, or the
/// scheduler's `lost (redis: ...)`) counts for neither.
fn postgres_outages(log: &str) -> (Vec<String>, Vec<String>) {
    let mut down: Vec<&str> = vec![];
    let (mut lost, mut regained) = (vec![], vec![]);
    for line in log.lines() {
        if let Some((what, error)) = line.split_once(": lost (") {
            let postgres = what.ends_with(": postgres")
                || what.starts_with("postgres at ")
                || (what == "scheduler" && error.starts_with("postgres: "));
            if line.ends_with("); retrying with backoff") {
                if postgres {
                    lost.push(line.to_string());
                    down.push(what);
                } else {
                    // Another dependency: a recovery of this loop is not PostgreSQL's.
                    down.retain(|w| *w != what);
                }
            }
        } else if let Some((what, rest)) = line.split_once(": regained after ") {
            let well_formed = rest.ends_with(" failed tries)") && rest.contains(" s (");
            if well_formed && down.contains(&what) {
                regained.push(line.to_string());
                down.retain(|w| *w != what);
            }
        }
    }
    (lost, regained)
}

#[test]
fn postgres_outages_are_told_from_redis_ones_and_from_urls_in_errors() {
    let log = "\
scheduler: lost (redis: connection refused); retrying with backoff
scheduler: regained after 1.2 s (3 failed tries)
worker w1/0: redis: lost (broken pipe); retrying with backoff
worker w1/0: redis: regained after 0.4 s (1 failed tries)
worker w1/0: job failed: cannot reach postgres://postgres@127.0.0.1:5/hfarm
worker w1/1: postgres: lost (error communicating with database: Connection refused); retrying with backoff
scheduler: lost (postgres: pool timed out while waiting for an open connection); retrying with backoff
worker w1/1: postgres: regained after 2.0 s (4 failed tries)
scheduler: regained after 1.8 s (5 failed tries)
worker w2/0: heartbeat for k: postgres: lost (connection reset); retrying with backoff
";
    let (lost, regained) = postgres_outages(log);
    assert_eq!(lost.len(), 3, "{lost:?}");
    assert!(lost.iter().all(|l| l.contains("postgres: lost (") || l.contains("lost (postgres: ")), "{lost:?}");
    assert_eq!(
        regained,
        [
            "worker w1/1: postgres: regained after 2.0 s (4 failed tries)",
            "scheduler: regained after 1.8 s (5 failed tries)"
        ]
    );
    // Redis alone: neither.
    let (lost, regained) = postgres_outages(&log.lines().take(4).collect::<Vec<_>>().join("\n"));
    assert!(lost.is_empty() && regained.is_empty(), "{lost:?} {regained:?}");
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill sends a signal to our own child's pid.
    unsafe { libc::kill(child.id() as i32, sig) };
}

fn kill(child: &mut Child) {
    let _ = child.kill();
    let _ = child.wait();
}

fn grid(dir: &Path, train_seeds: usize) -> PathBuf {
    let text = format!(
        r#"name = "chaos"
seeds = [1]
[limits.generate]
time_s = 30
memory_mib = 512
tries = 20
[limits.plan]
max_evaluations = 10000
time_s = 30
memory_mib = 512
[baselines]
heuristics = ["ff", "goalcount", "blind"]
[domains.gripper.train]
seeds = "1..{train_seeds}"
balls = [4, 5]
[domains.gripper.validation]
seeds = "1..10"
balls = [2]
[domains.gripper.test]
seeds = "1..60"
balls = [6]
planning = 60
"#
    );
    let path = dir.join("chaos.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// Counts by job status, read while PostgreSQL may be restarting (None then).
async fn counts(pool: &PgPool) -> Option<(i64, i64, i64)> {
    sqlx::query_as(
        "SELECT count(*) FILTER (WHERE status = 'succeeded'),
                count(*) FILTER (WHERE status IN ('dead', 'cancelled', 'skipped')), count(*) FROM jobs",
    )
    .fetch_one(pool)
    .await
    .ok()
}

async fn one(pool: &PgPool, sql: &str) -> i64 {
    sqlx::query_as::<_, (i64,)>(sql).fetch_one(pool).await.unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grid_survives_a_seeded_schedule_of_faults_with_every_job_done_exactly_once() {
    let seed: u64 = env_or("HFARM_CHAOS_SEED", 1);
    let n_workers: usize = env_or("HFARM_CHAOS_WORKERS", 3);
    let train_seeds: usize = env_or("HFARM_CHAOS_SEEDS", 300);
    let n_faults: usize = env_or("HFARM_CHAOS_FAULTS", 20);
    let lease_s = 3.0;

    let mut pg = PrivatePostgres::start();
    let mut redis = PrivateRedis::start();
    let dir = std::env::temp_dir().join(format!("hfarm-chaos-{}-{seed}", std::process::id()));
    let logs = dir.join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let db_url = pg.url("hfarm");
    let env = vec![
        ("DATABASE_URL", db_url.clone()),
        ("REDIS_URL", redis.url.clone()),
        ("HFARM_REDIS_PREFIX", "chaos".to_string()),
        // JSON lines: the outage lines are told by their message, whatever the format's prefix.
        ("HFARM_LOG_FORMAT", "json".to_string()),
    ];

    let out = Command::new(env!("CARGO_BIN_EXE_hfarm"))
        .args(["submit", grid(&dir, train_seeds).to_str().unwrap(), "--json"])
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let total = serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()["new"].as_i64().unwrap();
    assert!(total >= 1000, "the chaos grid has {total} jobs");
    let pool =
        PgPoolOptions::new().max_connections(2).acquire_timeout(Duration::from_secs(2)).connect(&db_url).await.unwrap();

    let placeholder = Command::new("true").spawn().unwrap();
    let mut farm = Farm { logs, env, serve: placeholder, workers: vec![], started: 0, lease_s };
    farm.serve = farm.start_serve();
    for _ in 0..n_workers {
        let w = farm.start_worker();
        farm.workers.push(w);
    }

    let start = Instant::now();
    let mut injected: Vec<Fault> = vec![];
    // Stopped workers and when to wake them.
    let mut frozen: Vec<(usize, Instant)> = vec![];
    for (pause, fault, victim) in schedule(seed, n_faults) {
        tokio::time::sleep(Duration::from_secs_f64(pause)).await;
        frozen.retain(|&(w, until)| {
            let wake = Instant::now() >= until;
            if wake {
                signal(&farm.workers[w], libc::SIGCONT);
            }
            !wake
        });
        if counts(&pool).await.is_some_and(|(done, ended, all)| done + ended == all) {
            break; // the grid finished before the schedule did
        }
        let w = victim % farm.workers.len();
        match fault {
            Fault::KillWorker => {
                frozen.retain(|&(f, _)| f != w);
                kill(&mut farm.workers[w]);
                farm.workers[w] = farm.start_worker();
            }
            Fault::StopWorker => {
                // Frozen past its lease: its jobs go to others, and its late
                // completions must be refused when it wakes up.
                if !frozen.iter().any(|&(f, _)| f == w) {
                    signal(&farm.workers[w], libc::SIGSTOP);
                    frozen.push((w, Instant::now() + Duration::from_secs_f64(lease_s + 1.5)));
                }
            }
            // Down for a second: five scheduler ticks, and longer than the
            // workers' claims and completions take, so someone must notice.
            Fault::RestartPostgres => pg.restart(Duration::from_secs(1)),
            Fault::RestartRedis => redis.restart(),
            Fault::FlushRedis => redis.flush(),
            Fault::KillCoordinator => {
                kill(&mut farm.serve);
                tokio::time::sleep(Duration::from_millis(500)).await;
                farm.serve = farm.start_serve();
            }
        }
        eprintln!("chaos: {:6.1} s  {fault:?}", start.elapsed().as_secs_f64());
        injected.push(fault);
    }

    for (w, until) in frozen {
        tokio::time::sleep(until.saturating_duration_since(Instant::now())).await;
        signal(&farm.workers[w], libc::SIGCONT);
    }
    let deadline = Instant::now() + Duration::from_secs(900);
    loop {
        if let Some((done, ended, all)) = counts(&pool).await {
            if done + ended == all {
                break;
            }
        }
        assert!(Instant::now() < deadline, "not finished in time: {:?}", counts(&pool).await);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let elapsed = start.elapsed().as_secs_f64();
    for w in &farm.workers {
        signal(w, libc::SIGTERM);
    }
    signal(&farm.serve, libc::SIGTERM);
    for w in farm.workers.iter_mut().chain(std::iter::once(&mut farm.serve)) {
        let _ = w.wait();
    }

    // Every job succeeded; nothing dead, stuck or holding a lease.
    let not_done = one(&pool, "SELECT count(*) FROM jobs WHERE status <> 'succeeded'").await;
    let errors: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT key, last_error FROM jobs WHERE status <> 'succeeded' LIMIT 5")
            .fetch_all(&pool)
            .await
            .unwrap();
    assert_eq!(not_done, 0, "jobs not succeeded: {errors:?}");
    assert_eq!(one(&pool, "SELECT count(*) FROM jobs WHERE lease_expires_at IS NOT NULL").await, 0, "leases left");
    // Exactly one result per job: lost = jobs without one, duplicates = extra ones.
    let per_job = "WITH r AS (
            SELECT j.key, j.kind,
                   CASE j.kind
                     WHEN 'generate' THEN (SELECT count(*) FROM instances i WHERE i.job = j.key)
                                        + (SELECT count(*) FROM unfilled_slots u WHERE u.job = j.key)
                     WHEN 'plan' THEN (SELECT count(*) FROM plan_runs p WHERE p.job = j.key)
                     -- A label job writes one row per state of its instance's optimal plan.
                     WHEN 'label' THEN (SELECT count(*) FROM labelled_states l WHERE l.job = j.key)
                                     - (SELECT i.optimal_cost + 1 FROM job_inputs x JOIN instances i ON i.job = x.input
                                        WHERE x.job = j.key)
                                     + 1
                   END AS n
            FROM jobs j)";
    let lost = one(&pool, &format!("{per_job} SELECT count(*) FROM r WHERE n < 1")).await;
    let duplicates = one(&pool, &format!("{per_job} SELECT coalesce(sum(n - 1), 0)::bigint FROM r WHERE n > 1")).await;
    let attempts = one(&pool, "SELECT sum(attempts)::bigint FROM jobs").await;
    eprintln!(
        "chaos figures: seed {seed}, {total} jobs, {n_workers} workers, {} faults injected {:?}, \
         {attempts} attempts, duplicates {duplicates}, lost {lost}, {elapsed:.0} s",
        injected.len(),
        tally(&injected)
    );
    assert_eq!((lost, duplicates), (0, 0));
    assert!(injected.len() >= FAULTS.len().min(n_faults), "too few faults landed before the grid finished");

    // They said that PostgreSQL went away and that they got it back (the
    // outage lines of `outage::Outage`, for PostgreSQL and no other server).
    if injected.contains(&Fault::RestartPostgres) {
        let (lost, regained) = farm.postgres_outages();
        assert!(!lost.is_empty(), "nobody said PostgreSQL went away");
        assert!(!regained.is_empty(), "nobody said PostgreSQL came back after: {lost:?}");
        eprintln!("chaos: {} PostgreSQL outages reported, {} recoveries", lost.len(), regained.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn tally(faults: &[Fault]) -> Vec<(Fault, usize)> {
    let mut t: Vec<(Fault, usize)> = FAULTS.iter().map(|f| (*f, faults.iter().filter(|g| *g == f).count())).collect();
    t.retain(|(_, n)| *n > 0);
    t
}
