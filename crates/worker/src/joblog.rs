//! Each job's own log. The lines logged for a job (`tracing` events inside
//! a span with a `job` field, or carrying that field themselves) are kept
//! while the job runs on this worker, and stored with its attempt in
//! PostgreSQL (`schema::joblogs`) when the attempt ends, so that `hfarm job
//! KEY` shows them after the worker that ran it has scaled away.
//!
//! A span or event names its job as `job = KEY`, or several jobs as keys
//! separated by spaces (a group of trainings or searches run as one).
//!
//! Invariants: only jobs [`open`]ed in this process collect lines, and
//! [`take`] ends the collection, so memory is bounded by the running jobs;
//! each job keeps its last [`MAX_LINES`] lines and at most [`MAX_BYTES`]
//! bytes, with a first line saying how many earlier ones were dropped.

use std::collections::{HashMap, VecDeque};
use std::fmt::Write as _;
use std::sync::{LazyLock, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

/// Most lines a job's log keeps (the last ones).
pub const MAX_LINES: usize = 200;
/// Most bytes a job's log keeps; a longer line is cut to this.
pub const MAX_BYTES: usize = 16 * 1024;

/// The name of the field that says which job (or jobs) a span or event is about.
pub const FIELD: &str = "job";

/// The last lines of one job's log.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Tail {
    lines: VecDeque<String>,
    bytes: usize,
    dropped: usize,
}

impl Tail {
    /// Appends `line`, dropping the oldest lines past the bounds.
    pub fn push(&mut self, mut line: String) {
        if line.len() > MAX_BYTES {
            let mut cut = MAX_BYTES;
            while !line.is_char_boundary(cut) {
                cut -= 1;
            }
            line.truncate(cut);
        }
        self.bytes += line.len();
        self.lines.push_back(line);
        while self.lines.len() > MAX_LINES || self.bytes > MAX_BYTES {
            let Some(old) = self.lines.pop_front() else { break };
            self.bytes -= old.len();
            self.dropped += 1;
        }
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty() && self.dropped == 0
    }

    /// The log as text, one line each, after a line counting those dropped.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if self.dropped > 0 {
            let _ = writeln!(out, "[{} earlier lines dropped]", self.dropped);
        }
        for l in &self.lines {
            out.push_str(l);
            out.push('\n');
        }
        out
    }
}

/// The logs of the jobs running in this process.
static OPEN: LazyLock<Mutex<HashMap<String, Tail>>> = LazyLock::new(Mutex::default);

fn open_logs() -> std::sync::MutexGuard<'static, HashMap<String, Tail>> {
    // A panic while holding it cannot leave a log half-written in a way that matters.
    OPEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// Starts collecting `key`'s lines (anew, if it ran here before).
pub fn open(key: &str) {
    open_logs().insert(key.to_string(), Tail::default());
}

/// Ends collecting `key`'s lines and returns them (none if it was not open).
pub fn take(key: &str) -> Tail {
    open_logs().remove(key).unwrap_or_default()
}

/// The `tracing` layer that collects jobs' lines; `hfarm` installs it
/// beside the layer that writes the process's log.
pub fn layer() -> JobLogLayer {
    JobLogLayer
}

#[derive(Debug, Clone, Copy)]
pub struct JobLogLayer;

/// The jobs a span is about, kept in its extensions.
struct Jobs(Vec<String>);

impl<S> tracing_subscriber::Layer<S> for JobLogLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut v = Fields::default();
        attrs.record(&mut v);
        if let (Some(jobs), Some(span)) = (v.job, ctx.span(id)) {
            span.extensions_mut().insert(Jobs(jobs.split_whitespace().map(str::to_string).collect()));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        // Most events of a worker are about no job, and most of the time
        // no job is open: say so before formatting anything.
        if open_logs().is_empty() {
            return;
        }
        let mut v = Fields::default();
        event.record(&mut v);
        let jobs: Vec<String> = match &v.job {
            Some(j) => j.split_whitespace().map(str::to_string).collect(),
            None => {
                let Some(scope) = ctx.event_scope(event) else { return };
                let found = scope.into_iter().find_map(|span| span.extensions().get::<Jobs>().map(|j| j.0.clone()));
                let Some(jobs) = found else { return };
                jobs
            }
        };
        let line = format!("{} {:5} {}{}", clock(SystemTime::now()), event.metadata().level(), v.message, v.rest);
        let mut logs = open_logs();
        for key in jobs {
            if let Some(tail) = logs.get_mut(&key) {
                tail.push(line.clone());
            }
        }
    }
}

/// `HH:MM:SS.mmm` in UTC (the date is the job's, which `hfarm job` shows).
fn clock(t: SystemTime) -> String {
    let ms = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_millis()) % 86_400_000;
    format!("{:02}:{:02}:{:02}.{:03}", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
}

/// An event's or span's fields: the message, the job, the rest as ` name=value`.
#[derive(Default)]
struct Fields {
    message: String,
    job: Option<String>,
    rest: String,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message.push_str(value),
            FIELD => self.job = Some(value.to_string()),
            name => _ = write!(self.rest, " {name}={value}"),
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => _ = write!(self.message, "{value:?}"),
            FIELD => self.job = Some(format!("{value:?}")),
            name => _ = write!(self.rest, " {name}={value:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use tracing_subscriber::layer::SubscriberExt;

    use super::*;

    #[test]
    fn a_tail_keeps_the_last_lines_within_its_bounds_and_counts_the_rest() {
        let mut t = Tail::default();
        assert!(t.is_empty());
        for i in 0..MAX_LINES + 5 {
            t.push(format!("line {i}"));
        }
        let text = t.text();
        assert!(text.starts_with("[5 earlier lines dropped]\nline 5\n"), "{text}");
        assert!(text.ends_with(&format!("line {}\n", MAX_LINES + 4)));
        assert_eq!(text.lines().count(), MAX_LINES + 1);

        // By bytes: a few long lines push out the short ones; one too long is cut.
        let mut t = Tail::default();
        t.push("short".into());
        t.push("é".repeat(MAX_BYTES)); // 2 bytes a char: cut at a char boundary
        let text = t.text();
        assert!(text.starts_with("[1 earlier lines dropped]\n"), "{}", &text[..40]);
        assert_eq!(t.bytes, MAX_BYTES);
        assert!(t.lines.iter().map(String::len).sum::<usize>() <= MAX_BYTES);
    }

    #[test]
    fn events_in_a_jobs_span_or_naming_it_go_to_that_jobs_log_only_while_it_is_open() {
        let subscriber = tracing_subscriber::registry().with(layer());
        tracing::subscriber::with_default(subscriber, || {
            // Unique keys: other tests of this process may log meanwhile.
            let (a, b, c) = ("joblog-test-a", "joblog-test-b", "joblog-test-c");
            tracing::info!(job = a, "before it opened");
            open(a);
            open(b);
            tracing::info_span!("job", job = a).in_scope(|| {
                tracing::warn!(tries = 3, "in the span");
                tracing::info_span!("inner").in_scope(|| tracing::info!("in a span inside it"));
            });
            tracing::info_span!("group", job = format!("{a} {b} {c}").as_str()).in_scope(|| {
                tracing::info!("in a group span");
            });
            tracing::info!(job = b, "naming b");
            tracing::info!("about no job");
            let ta = take(a).text();
            let lines: Vec<&str> = ta.lines().collect();
            assert_eq!(lines.len(), 3, "{ta}");
            assert!(lines[0].ends_with("WARN  in the span tries=3"), "{ta}");
            assert!(lines[1].ends_with("INFO  in a span inside it"), "{ta}");
            assert!(lines[2].ends_with("INFO  in a group span"), "{ta}");
            assert_eq!(take(b).text().lines().count(), 2, "the group's line and its own");
            assert!(take(c).is_empty(), "never opened");
            tracing::info!(job = a, "after it was taken");
            assert!(take(a).is_empty());
        });
    }
}
