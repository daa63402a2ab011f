//! The process's log: `tracing` events written to stderr as text or JSON
//! lines (`--log-format`, `HFARM_LOG_FORMAT`), filtered by `--log`
//! (`HFARM_LOG`, an `EnvFilter` directive such as `info` or
//! `warn,worker=debug`), and each job's own lines kept for PostgreSQL
//! (`worker::joblog`), whatever the filter lets through to stderr.

use anyhow::{anyhow, Result};
use tracing_subscriber::filter::{EnvFilter, LevelFilter};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Layer;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line each: time, level, target, the spans (`job{job=KEY kind=plan}`) and the message.
    Text,
    /// One JSON object per line (time, level, target, message, the current span's fields and all spans'), for a log collector.
    Json,
}

/// Installs the process's subscriber; an invalid filter is bad input.
pub fn init(format: Format, filter: &str) -> Result<()> {
    let filter = EnvFilter::builder()
        .with_default_directive(LevelFilter::INFO.into())
        .parse(filter)
        .map_err(|e| anyhow!("--log {filter:?}: expected a filter such as `info` or `warn,worker=debug`: {e}"))?;
    let stderr = tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(false);
    let stderr = match format {
        Format::Text => stderr.boxed(),
        Format::Json => stderr.json().flatten_event(true).boxed(),
    };
    tracing_subscriber::registry()
        .with(stderr.with_filter(filter))
        // Jobs' own logs keep their information lines whatever stderr shows.
        .with(worker::joblog::layer().with_filter(LevelFilter::INFO))
        .try_init()
        .map_err(|e| anyhow!("installing the log: {e}"))
}
