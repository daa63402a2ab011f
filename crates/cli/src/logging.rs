//! The process's log: `tracing` events written to stderr as text or JSON
//! lines (`--log-format`, `HFARM_LOG_FORMAT`), filtered by `--log`
//! (`HFARM_LOG`, an `EnvFilter` directive such as `info` or
//! `warn,worker=debug`), and in `hfarm-torch` each job's own lines kept for
//! PostgreSQL (the worker's job log, a layer [`crate::Models`] adds),
//! whatever the filter lets through to stderr.

use anyhow::{anyhow, Result};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

/// A layer of the process's subscriber, chosen at run time.
pub type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line each: time, level, target, the spans (`job{job=KEY kind=plan}`) and the message.
    Text,
    /// One JSON object per line (time, level, target, message, the current span's fields and all spans'), for a log collector.
    Json,
}

/// Installs the process's subscriber, stderr's layer and `extra` (filtered
/// on its own); an invalid filter is bad input.
pub fn init(format: Format, filter: &str, extra: Option<BoxedLayer>) -> Result<()> {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .parse(filter)
        .map_err(|e| anyhow!("--log {filter:?}: expected a filter such as `info` or `warn,worker=debug`: {e}"))?;
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false);
    let stderr = match format {
        Format::Text => stderr.boxed(),
        Format::Json => stderr.json().flatten_event(true).boxed(),
    };
    let layers: Vec<BoxedLayer> = std::iter::once(stderr.with_filter(filter).boxed()).chain(extra).collect();
    tracing_subscriber::registry().with(layers).try_init().map_err(|e| anyhow!("installing the log: {e}"))
}
