//! Living with a large experiment from the terminal: `hfarm list`,
//! `hfarm status EXP` by name or id, `hfarm retry EXP`, `hfarm cancel EXP`,
//! `hfarm priority EXP N` and `hfarm job KEY`. Each reads and writes
//! PostgreSQL through `schema`'s typed operations, as `hfarm status` does
//! (the API's token guards the HTTP server; these need the database's
//! credentials). Each command renders its answer as text, or as one JSON
//! value with `--json`; the rendering is separate from the printing so
//! that tests can read it.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{bail, Result};
use jobs::JobKind;
use schema::bulk::{Acted, BulkError, Selection};
use schema::detail::Found;
use schema::{JobStatus, PgPool, Uuid};

use super::farm::Database;

/// An experiment named on the command line: its id, or its name (the
/// newest experiment of that name).
#[derive(clap::Args)]
pub struct Experiment {
    /// The experiment: its id (as `hfarm submit` prints it) or its name (the
    /// grid's `name`; the newest experiment of that name).
    #[arg(value_name = "EXPERIMENT")]
    pub experiment: String,
}

#[derive(clap::Args)]
pub struct ListArgs {
    /// Only experiments with this name.
    pub name: Option<String>,
    /// One JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

/// Exit codes of `hfarm status`: 0 when nothing died; these otherwise (1 is
/// any error, 2 a usage error, as clap exits).
pub const EXIT_DEAD: u8 = 1;
pub const EXIT_TIMED_OUT: u8 = 4;

#[derive(clap::Args)]
#[command(after_help = "Exit status: 0; 1 when some job of the experiment is dead (out of attempts: `hfarm retry` \
    sends it back); 2 on bad input (a usage error, no such experiment); 3 when PostgreSQL is unreachable; 4 when \
    --wait's --timeout ran out first.")]
pub struct StatusArgs {
    #[command(flatten)]
    pub experiment: Experiment,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Print the counts once instead of a live progress bar on a terminal.
    #[arg(long)]
    pub once: bool,
    /// Return only when no job is left to run (pending, queued, running or
    /// failed and due for another attempt), then print the counts: for
    /// scripts and CI (`hfarm submit grid.toml && hfarm status NAME --wait`).
    #[arg(long)]
    pub wait: bool,
    /// With --wait: give up after this many seconds (exit status 4).
    #[arg(long, requires = "wait", value_parser = positive_seconds)]
    pub timeout: Option<f64>,
    #[command(flatten)]
    pub db: Database,
}

fn positive_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        _ => Err(format!("expected a positive number of seconds, got `{s}`")),
    }
}

#[derive(clap::Args)]
pub struct RetryArgs {
    #[command(flatten)]
    pub experiment: Experiment,
    /// Only jobs in these states (comma-separated or repeated: dead, failed,
    /// cancelled, skipped; default dead and failed).
    #[arg(long, value_delimiter = ',', value_name = "STATE")]
    pub status: Vec<JobStatus>,
    /// Only jobs of this kind (as `hfarm status` lists them: generate, label, train, plan, ...).
    #[arg(long, value_name = "KIND")]
    pub kind: Option<JobKind>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

#[derive(clap::Args)]
pub struct CancelArgs {
    #[command(flatten)]
    pub experiment: Experiment,
    /// Only jobs in these states (comma-separated or repeated: pending,
    /// queued, running, failed; default all four).
    #[arg(long, value_delimiter = ',', value_name = "STATE")]
    pub status: Vec<JobStatus>,
    /// Only jobs of this kind.
    #[arg(long, value_name = "KIND")]
    pub kind: Option<JobKind>,
    /// Also cancel jobs that other experiments hold too (by default they
    /// run on: one experiment's cancel stops no other's work).
    #[arg(long)]
    pub include_shared: bool,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

#[derive(clap::Args)]
pub struct PriorityArgs {
    #[command(flatten)]
    pub experiment: Experiment,
    /// The new priority: higher is announced first; experiments start at 0.
    #[arg(allow_negative_numbers = true, value_parser = clap::value_parser!(i32).range(-1_000_000..=1_000_000))]
    pub priority: i32,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

#[derive(clap::Args)]
pub struct JobArgs {
    /// The job's key, or its start (the 12 digits `hfarm` and the dashboard show).
    pub key: String,
    /// One JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

/// Runs `f` on a connection to the database and prints what it renders.
fn print_with<F, Fut>(db: &Database, f: F) -> Result<ExitCode>
where
    F: FnOnce(PgPool) -> Fut,
    Fut: std::future::Future<Output = Result<String>>,
{
    let text = super::farm::runtime()?.block_on(async {
        let pool = schema::connect(&db.database_url).await?;
        f(pool).await
    })?;
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// The experiment that `given` names: an id, or the newest experiment with
/// that name. Errors name what exists when nothing matches.
pub async fn resolve(pool: &PgPool, given: &str) -> Result<Uuid> {
    if let Ok(id) = Uuid::parse_str(given) {
        if schema::experiments::experiment_name(pool, id).await?.is_none() {
            bail!("no experiment {id} (`hfarm list` lists them)");
        }
        return Ok(id);
    }
    let named = schema::experiments::list_with_counts(pool, Some(given)).await?;
    match named.first() {
        Some(newest) => {
            if named.len() > 1 {
                eprintln!(
                    "{} experiments are named {given}: the newest, {} (others: `hfarm list {given}`)",
                    named.len(),
                    newest.id
                );
            }
            Ok(newest.id)
        }
        None => {
            let all = schema::experiments::list_with_counts(pool, None).await?;
            let mut names: Vec<&str> = all.iter().map(|e| e.name.as_str()).collect();
            names.dedup();
            if names.is_empty() {
                bail!("no experiment named {given}: none recorded yet (hfarm submit GRID)");
            }
            names.sort_unstable();
            names.dedup();
            bail!("no experiment named {given}; there are: {}", names.join(", "))
        }
    }
}

/// `hfarm list [NAME]`: experiments, newest first, with their progress.
pub fn list(a: ListArgs) -> Result<ExitCode> {
    print_with(&a.db, |pool| async move { render_list(&pool, a.name.as_deref(), a.json).await })
}

pub async fn render_list(pool: &PgPool, name: Option<&str>, json: bool) -> Result<String> {
    let list = schema::experiments::list_with_counts(pool, name).await?;
    if json {
        let v: Vec<_> = list
            .iter()
            .map(|e| {
                serde_json::json!({
                    "id": e.id, "name": e.name, "created_at": e.created_at, "priority": e.priority,
                    "jobs": e.jobs, "total": e.jobs.total(), "done": e.jobs.finished(),
                })
            })
            .collect();
        return Ok(format!("{}\n", serde_json::Value::from(v)));
    }
    if list.is_empty() {
        return Ok(match name {
            Some(n) => format!("no experiment named {n}\n"),
            None => "no experiments yet (hfarm submit GRID)\n".into(),
        });
    }
    let mut out = format!(
        "{:36}  {:24}  {:16}  {:>8}  {:>8}  {:>8}  {:>8}  {:>5}\n",
        "id", "name", "submitted (UTC)", "jobs", "done", "running", "bad", "prio"
    );
    for e in &list {
        let bad = e.jobs[JobStatus::Dead] + e.jobs[JobStatus::Failed];
        let _ = writeln!(
            out,
            "{:36}  {:24}  {:16}  {:>8}  {:>8}  {:>8}  {:>8}  {:>5}",
            e.id,
            e.name,
            utc(e.created_at),
            e.jobs.total(),
            e.jobs.finished(),
            e.jobs[JobStatus::Running],
            bad,
            e.priority
        );
    }
    Ok(out)
}

/// `hfarm status EXPERIMENT` (by name or id): the job counts, once, as a live
/// bar on a terminal until nothing is left to run, or (`--wait`) printed when
/// nothing is left. The exit status says whether a job died ([`exit_code`]).
pub fn status(a: StatusArgs) -> Result<ExitCode> {
    use std::io::{IsTerminal, Write};
    let live = !a.json && !a.once && std::io::stdout().is_terminal();
    super::farm::runtime()?.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        let id = resolve(&pool, &a.experiment.experiment).await?;
        let deadline = a.timeout.map(|s| std::time::Instant::now() + std::time::Duration::from_secs_f64(s));
        // The bar's estimate, refreshed every 10 s: pricing the unfinished jobs reads them all.
        let mut eta: Option<(std::time::Instant, String)> = None;
        loop {
            let report = coordinator::status(&pool, id).await?;
            let done = report.jobs.active() == 0;
            let timed_out = !done && deadline.is_some_and(|d| std::time::Instant::now() >= d);
            if live {
                if !done && eta.as_ref().is_none_or(|(at, _)| at.elapsed().as_secs() >= 10) {
                    eta = Some((std::time::Instant::now(), eta_text(&pool, id).await?));
                }
                let eta = if done { "" } else { eta.as_ref().map_or("", |(_, text)| text.as_str()) };
                print!("\r{}  {eta}\x1b[K", progress_bar(&report));
                std::io::stdout().flush()?;
                if done || timed_out {
                    println!();
                }
            }
            if done || timed_out || (!live && !a.wait) {
                if a.json {
                    println!("{}", serde_json::to_string(&report)?);
                } else if !live {
                    print!("{}", counts_text(&report));
                }
                return Ok(ExitCode::from(exit_code(&report, timed_out)));
            }
            // Polling costs the coordinator little (counts are kept by
            // triggers), but a script waiting for hours need not ask twice a second.
            let pause = if live { 500 } else { 2_000 };
            tokio::time::sleep(std::time::Duration::from_millis(pause)).await;
        }
    })
}

/// The estimate the dashboard shows (`coordinator::cost::eta`: the unfinished
/// jobs priced by the cost model over the live workers' slots), or which
/// worker class the experiment waits for.
async fn eta_text(pool: &PgPool, id: Uuid) -> Result<String> {
    let left = coordinator::submit::work_left(pool, id).await?;
    let live = schema::workers::live_by_class(pool, coordinator::api::LIVE_AFTER_S).await?;
    let slots = |class: jobs::Resource| live.iter().find(|w| w.class == class.as_str()).map_or(0, |w| w.slots);
    Ok(match coordinator::cost::eta(&left, slots) {
        Ok(seconds) => format!("ETA {}", duration_text(seconds)),
        Err(class) => format!("waiting: no live {} worker", class.as_str()),
    })
}

/// 3h 05m, 12m 40s, 40s.
fn duration_text(seconds: f64) -> String {
    let s = seconds.max(0.0).round() as u64;
    match (s / 3600, s % 3600 / 60, s % 60) {
        (0, 0, s) => format!("{s}s"),
        (0, m, s) => format!("{m}m {s:02}s"),
        (h, m, _) => format!("{h}h {m:02}m"),
    }
}

/// 0 when no job died, [`EXIT_DEAD`] when some did, [`EXIT_TIMED_OUT`] when a
/// wait ran out first.
pub fn exit_code(report: &coordinator::StatusReport, timed_out: bool) -> u8 {
    if timed_out {
        EXIT_TIMED_OUT
    } else if report.jobs[JobStatus::Dead] > 0 {
        EXIT_DEAD
    } else {
        0
    }
}

fn counts_text(report: &coordinator::StatusReport) -> String {
    let mut out = format!("experiment {} ({})\n", report.experiment, report.name);
    for (state, n) in report.jobs.iter() {
        let _ = writeln!(out, "  {:10} {n}", state.as_str());
    }
    out
}

fn progress_bar(report: &coordinator::StatusReport) -> String {
    let total = report.jobs.total();
    let finished = report.jobs.finished();
    let width = 40usize;
    let filled = if total == 0 { width } else { (finished as usize * width) / total as usize };
    let detail: Vec<String> = report.jobs.iter().filter(|(_, n)| *n > 0).map(|(s, n)| format!("{s} {n}")).collect();
    format!(
        "{} [{}{}] {finished}/{total}  {}",
        report.name,
        "#".repeat(filled),
        ".".repeat(width - filled),
        detail.join(", ")
    )
}

/// Text for a bulk action's outcome.
fn acted(what: &str, experiment: Uuid, r: Result<Acted, BulkError>, json: bool) -> Result<String> {
    let a = match r {
        Ok(a) => a,
        Err(BulkError::Refused(why)) => bail!("{why}"),
        Err(BulkError::Db(e)) => return Err(e.into()),
    };
    if json {
        let v = serde_json::json!({ "experiment": experiment, "changed": a.changed, "kept_shared": a.kept_shared });
        return Ok(format!("{v}\n"));
    }
    let mut out = format!("{what} {} job{} of experiment {experiment}\n", a.changed, plural(a.changed));
    if a.kept_shared > 0 {
        let _ = writeln!(
            out,
            "kept {} job{} that other experiments hold too (--include-shared cancels them as well)",
            a.kept_shared,
            plural(a.kept_shared)
        );
    }
    Ok(out)
}

/// A worker's machine in one line: `host, CPU model, N cores, M GiB, CUDA, hfarm V`.
fn machine_text(m: &serde_json::Value) -> String {
    let text = |k: &str| m.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let parts = [
        text("host"),
        text("cpu"),
        m.get("cores").and_then(|v| v.as_u64()).map(|n| format!("{n} cores")),
        m.get("memory_gib").and_then(|v| v.as_f64()).map(|g| format!("{g} GiB")),
        (m.get("cuda") == Some(&serde_json::Value::Bool(true))).then(|| "CUDA".to_string()),
        text("hfarm").map(|v| format!("hfarm {v}")),
    ];
    parts.into_iter().flatten().collect::<Vec<_>>().join(", ")
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// `hfarm retry EXPERIMENT [--status S,..] [--kind K]`: dead and failed jobs
/// (or those named) back to pending with fresh attempts.
pub fn retry(a: RetryArgs) -> Result<ExitCode> {
    print_with(&a.db, |pool| async move {
        let sel = Selection { statuses: a.status, kind: a.kind };
        render_retry(&pool, &a.experiment.experiment, &sel, a.json).await
    })
}

pub async fn render_retry(pool: &PgPool, experiment: &str, sel: &Selection, json: bool) -> Result<String> {
    let id = resolve(pool, experiment).await?;
    acted("sent back to pending:", id, schema::bulk::retry_experiment(pool, id, sel).await, json)
}

/// `hfarm cancel EXPERIMENT [--status S,..] [--kind K] [--include-shared]`:
/// jobs that have not ended are cancelled; running ones stop at their
/// worker's next heartbeat.
pub fn cancel(a: CancelArgs) -> Result<ExitCode> {
    print_with(&a.db, |pool| async move {
        let sel = Selection { statuses: a.status, kind: a.kind };
        render_cancel(&pool, &a.experiment.experiment, &sel, a.include_shared, a.json).await
    })
}

pub async fn render_cancel(
    pool: &PgPool,
    experiment: &str,
    sel: &Selection,
    include_shared: bool,
    json: bool,
) -> Result<String> {
    let id = resolve(pool, experiment).await?;
    acted("cancelled", id, schema::bulk::cancel_experiment(pool, id, sel, include_shared).await, json)
}

/// `hfarm priority EXPERIMENT N`: its ready jobs are announced before those
/// of experiments with a lower priority.
pub fn priority(a: PriorityArgs) -> Result<ExitCode> {
    print_with(&a.db, |pool| async move { render_priority(&pool, &a.experiment.experiment, a.priority, a.json).await })
}

pub async fn render_priority(pool: &PgPool, experiment: &str, priority: i32, json: bool) -> Result<String> {
    let id = resolve(pool, experiment).await?;
    let Some(n) = schema::bulk::set_priority(pool, id, priority).await? else { bail!("no experiment {id}") };
    Ok(if json {
        format!("{}\n", serde_json::json!({ "experiment": id, "priority": priority, "jobs_changed": n }))
    } else {
        format!("experiment {id}: priority {priority} ({n} job{} changed)\n", plural(n))
    })
}

/// `hfarm job KEY`: one job in full.
pub fn job(a: JobArgs) -> Result<ExitCode> {
    print_with(&a.db, |pool| async move { render_job(&pool, &a.key, a.json).await })
}

pub async fn render_job(pool: &PgPool, key: &str, json: bool) -> Result<String> {
    if key.is_empty() || key.len() > 64 || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        bail!("not a job key (up to 64 hex digits): {key:?}");
    }
    let d = match schema::detail::job(pool, key).await? {
        Found::Job(d) => d,
        Found::None => bail!("no job {key}"),
        Found::Ambiguous(keys) => {
            bail!("several jobs' keys start with {key}: {}, ...; give more digits", keys.join(", "))
        }
    };
    if json {
        return Ok(format!("{}\n", serde_json::to_string(&d)?));
    }
    let j = &d.job;
    let mut out = String::new();
    let mut line = |k: &str, v: String| {
        if !v.is_empty() {
            let _ = writeln!(out, "{k:12} {v}");
        }
    };
    line("job", j.key.clone());
    line("kind", format!("{} ({})", j.kind, j.resource));
    line("status", j.status.to_string());
    line("attempts", format!("{} of {}", j.attempts, j.max_attempts));
    line("worker", j.worker.clone().unwrap_or_default());
    line("machine", j.machine.as_ref().map(machine_text).unwrap_or_default());
    line("priority", j.priority.to_string());
    line("created", utc(j.created_at));
    line("queued", j.queued_at.map(utc).unwrap_or_default());
    line("started", j.started_at.map(utc).unwrap_or_default());
    line("finished", j.finished_at.map(utc).unwrap_or_default());
    line(
        "lease until",
        if j.status == JobStatus::Running { j.lease_expires_at.map(utc).unwrap_or_default() } else { String::new() },
    );
    line("run time", j.run_s.map(|s| format!("{s:.1} s")).unwrap_or_default());
    let axes: Vec<String> = [
        ("domain", j.domain.clone()),
        ("split", j.split.clone()),
        ("seed", j.seed.map(|s| s.to_string())),
        ("heuristic", j.heuristic.clone()),
        ("model", j.model.clone()),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.map(|v| format!("{k}={v}")))
    .collect();
    line("axes", axes.join(" "));
    let holders: Vec<String> = d.experiments.iter().map(|x| format!("{} ({})", x.name, x.id)).collect();
    line("experiments", holders.join(", "));
    let stored: Vec<String> =
        d.outputs.iter().map(|o| format!("{}: {} row{}", o.table, o.rows, plural(o.rows as u64))).collect();
    line("stored", if stored.is_empty() { "nothing yet".into() } else { stored.join(", ") });
    if let Some(e) = &j.last_error {
        let _ = writeln!(out, "last error:\n  {}", e.replace('\n', "\n  "));
    }
    if !d.inputs.is_empty() {
        let _ = writeln!(out, "inputs:");
        for i in &d.inputs {
            let need = if i.required == Some(true) { "required" } else { "optional" };
            let _ = writeln!(out, "  {}  {:14} {:10} {need}", &i.key[..i.key.len().min(12)], i.kind, i.status);
        }
    }
    if d.dependents_total > 0 {
        let shown = if d.dependents_total as usize > d.dependents.len() {
            format!(" (first {})", d.dependents.len())
        } else {
            String::new()
        };
        let _ = writeln!(out, "dependents: {}{shown}", d.dependents_total);
        for x in &d.dependents {
            let _ = writeln!(out, "  {}  {:14} {}", &x.key[..x.key.len().min(12)], x.kind, x.status);
        }
    }
    for l in &d.logs {
        let _ = writeln!(out, "log of attempt {} on {} (to {} UTC):", l.attempt, l.worker, utc(l.at));
        for line in l.lines.lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = writeln!(out, "spec:\n  {}", serde_json::to_string_pretty(&j.spec)?.replace('\n', "\n  "));
    Ok(out)
}

/// Seconds since the epoch as `YYYY-MM-DD HH:MM` in UTC (days to civil
/// date by Howard Hinnant's algorithm; no time crate needed).
fn utc(t: f64) -> String {
    let secs = t.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02}", rem / 3600, rem % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use jobs::expand::expand;
    use jobs::grid::Grid;
    use jobs::JobKind;
    use schema::bulk::Selection;
    use schema::testing::TestDatabase;
    use schema::JobStatus;

    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        let texts: Vec<String> = [0.0, 40.4, 760.0, 11_100.0, -3.0].into_iter().map(duration_text).collect();
        assert_eq!(texts, ["0s", "40s", "12m 40s", "3h 05m", "0s"]);
    }

    /// The commands as `hfarm` will wire them (`Command` in lib.rs).
    #[derive(clap::Parser)]
    enum Ops {
        List(ListArgs),
        Status(StatusArgs),
        Retry(RetryArgs),
        Cancel(CancelArgs),
        Priority(PriorityArgs),
        Job(JobArgs),
    }

    #[test]
    fn arguments_parse() {
        use clap::{CommandFactory, Parser};
        Ops::command().debug_assert();
        let Ops::Retry(r) =
            Ops::try_parse_from(["hfarm", "retry", "quick", "--status", "dead,cancelled", "--kind", "plan"]).unwrap()
        else {
            panic!("retry")
        };
        assert_eq!(r.experiment.experiment, "quick");
        assert_eq!((r.status, r.kind), (vec![JobStatus::Dead, JobStatus::Cancelled], Some(JobKind::Plan)));
        let Ops::Priority(p) = Ops::try_parse_from(["hfarm", "priority", "quick", "-5"]).unwrap() else { panic!() };
        assert_eq!(p.priority, -5);
        assert!(Ops::try_parse_from(["hfarm", "priority", "quick", "5000000"]).is_err());
        assert!(Ops::try_parse_from(["hfarm", "cancel", "quick", "--status", "bogus"]).is_err());
        assert!(Ops::try_parse_from(["hfarm", "cancel", "quick", "--kind", "bogus"]).is_err());
        let Ops::Cancel(c) = Ops::try_parse_from(["hfarm", "cancel", "quick", "--include-shared"]).unwrap() else {
            panic!()
        };
        assert!(c.include_shared && c.status.is_empty());
        assert!(matches!(Ops::try_parse_from(["hfarm", "list"]).unwrap(), Ops::List(ListArgs { name: None, .. })));
        assert!(matches!(
            Ops::try_parse_from(["hfarm", "job", "abc", "--json"]).unwrap(),
            Ops::Job(JobArgs { json: true, .. })
        ));
        let Ops::Status(s) = Ops::try_parse_from(["hfarm", "status", "quick", "--once"]).unwrap() else { panic!() };
        assert!(s.once && s.experiment.experiment == "quick");
    }

    #[test]
    fn dates_are_utc() {
        assert_eq!(utc(0.0), "1970-01-01 00:00");
        assert_eq!(utc(951_782_400.0), "2000-02-29 00:00");
        assert_eq!(utc(1_795_000_000.5), "2026-11-18 11:06");
    }

    /// The smoke grid twice under one name, and once under another.
    async fn farm() -> (TestDatabase, Uuid, Uuid, Vec<jobs::Job>) {
        let db = TestDatabase::create().await;
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml")).unwrap();
        let jobs = expand(&Grid::parse(&text, "smoke.toml").unwrap()).jobs;
        let older = schema::create_experiment(&db.pool, "smoke", "", &text).await.unwrap();
        schema::submit_jobs(&db.pool, older, &jobs, false).await.unwrap();
        let newer = schema::create_experiment(&db.pool, "smoke", "", &text).await.unwrap();
        schema::submit_jobs(&db.pool, newer, &jobs[..3], false).await.unwrap();
        let other = schema::create_experiment(&db.pool, "other", "", "").await.unwrap();
        let _ = other;
        (db, older, newer, jobs)
    }

    #[tokio::test]
    async fn experiments_by_name_or_id() {
        let (db, older, newer, jobs) = farm().await;
        assert_eq!(resolve(&db.pool, "smoke").await.unwrap(), newer, "the newest of the name");
        assert_eq!(resolve(&db.pool, &older.to_string()).await.unwrap(), older);
        let e = resolve(&db.pool, "nope").await.unwrap_err().to_string();
        assert_eq!(e, "no experiment named nope; there are: other, smoke");
        let e = resolve(&db.pool, &Uuid::new_v4().to_string()).await.unwrap_err().to_string();
        assert!(e.starts_with("no experiment ") && e.contains("hfarm list"), "{e}");

        let text = render_list(&db.pool, None, false).await.unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(lines[0].starts_with("id "), "{text}");
        assert!(lines[2].starts_with(&newer.to_string()) && lines[2].contains(" 3 "), "{text}");
        let json: serde_json::Value =
            serde_json::from_str(&render_list(&db.pool, Some("smoke"), true).await.unwrap()).unwrap();
        assert_eq!(json.as_array().unwrap().len(), 2);
        assert_eq!(json[1]["total"].as_u64(), Some(jobs.len() as u64));
        assert_eq!(json[1]["jobs"]["pending"].as_u64(), Some(jobs.len() as u64));
        assert_eq!(render_list(&db.pool, Some("nope"), false).await.unwrap(), "no experiment named nope\n");
    }

    #[tokio::test]
    async fn retry_cancel_priority_and_one_job() {
        let (db, older, newer, jobs) = farm().await;
        let plans: Vec<&str> = jobs.iter().filter(|j| j.spec.kind() == JobKind::Plan).map(|j| j.key.as_str()).collect();
        for key in &plans[..2] {
            schema::lifecycle::cancel(&db.pool, key).await.unwrap();
        }
        // Cancel the older smoke experiment's plan jobs (5 heuristics x 3 test slots x 2 domains,
        // the slot not drawn included): 28 more (2 were already).
        assert_eq!(plans.len(), 30);
        let sel = Selection { statuses: vec![], kind: Some(JobKind::Plan) };
        let text = render_cancel(&db.pool, &older.to_string(), &sel, false, false).await.unwrap();
        assert_eq!(text, format!("cancelled 28 jobs of experiment {older}\n"));
        // The newer one by name: its 3 jobs are the older's too, so kept.
        let text = render_cancel(&db.pool, "smoke", &Selection::default(), false, false).await.unwrap();
        assert_eq!(
            text,
            format!(
                "cancelled 0 jobs of experiment {newer}\nkept 3 jobs that other experiments hold too (--include-shared cancels them as well)\n"
            )
        );
        // Retry the cancelled plan jobs.
        let sel = Selection { statuses: vec![JobStatus::Cancelled], kind: Some(JobKind::Plan) };
        let json = render_retry(&db.pool, &older.to_string(), &sel, true).await.unwrap();
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["changed"], 30);
        let sel = Selection { statuses: vec![JobStatus::Running], kind: None };
        let e = render_retry(&db.pool, "smoke", &sel, false).await.unwrap_err().to_string();
        assert!(e.contains("cannot retry running jobs"), "{e}");

        let text = render_priority(&db.pool, "smoke", 7, false).await.unwrap();
        assert_eq!(text, format!("experiment {newer}: priority 7 (3 jobs changed)\n"));

        let key = plans[0];
        let text = render_job(&db.pool, &key[..12], false).await.unwrap();
        assert!(
            text.starts_with(&format!("job          {key}\nkind         plan (cpu)\nstatus       pending\n")),
            "{text}"
        );
        assert!(text.contains("inputs:\n") && text.contains("spec:\n"), "{text}");
        let v: serde_json::Value = serde_json::from_str(&render_job(&db.pool, key, true).await.unwrap()).unwrap();
        assert_eq!(v["job"]["key"], key);
        assert!(render_job(&db.pool, "xyz", false).await.unwrap_err().to_string().starts_with("not a job key"));
        assert!(render_job(&db.pool, &"f".repeat(40), false).await.unwrap_err().to_string().starts_with("no job"));
    }
}
