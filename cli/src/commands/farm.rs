//! `hfarm submit` and `hfarm status`: thin wrappers over the coordinator.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

/// Where PostgreSQL is, from the flag or `DATABASE_URL`.
#[derive(clap::Args)]
pub struct Database {
    /// PostgreSQL URL (default: $DATABASE_URL, else the local server's `hfarm` database).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/hfarm",
        hide_env_values = true
    )]
    pub database_url: String,
}

#[derive(clap::Args)]
pub struct SubmitArgs {
    pub grid: PathBuf,
    /// Expand and count without recording anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Run known jobs again instead of reusing their results.
    #[arg(long)]
    pub force: bool,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

#[derive(clap::Args)]
pub struct StatusArgs {
    pub experiment: uuid::Uuid,
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

pub fn submit(a: SubmitArgs) -> Result<ExitCode> {
    let file = a.grid.display().to_string();
    let text = std::fs::read_to_string(&a.grid).with_context(|| format!("cannot read {file}"))?;
    let report = runtime()?.block_on(async {
        let pool = if a.dry_run { None } else { Some(schema::connect_creating(&a.db.database_url).await?) };
        coordinator::submit(pool.as_ref(), &text, &file, a.force).await.map_err(anyhow::Error::from)
    })?;
    if a.json {
        let mut v = serde_json::json!({ "experiment": report.experiment, "jobs": report.jobs });
        if let (Some(n), Some(r)) = (report.new, report.reused) {
            v["new"] = n.into();
            v["reused"] = r.into();
        }
        println!("{v}");
    } else {
        // The id alone on stdout, so scripts can capture it; details on stderr.
        match report.experiment {
            Some(id) => println!("{id}"),
            None => eprintln!("dry run: experiment `{}` would have these jobs", report.name),
        }
        for (kind, n) in &report.jobs {
            eprintln!("  {kind:10} {n}");
        }
        if let (Some(n), Some(r)) = (report.new, report.reused) {
            eprintln!("  {n} new, {r} reused from earlier submissions");
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn status(a: StatusArgs) -> Result<ExitCode> {
    let report = runtime()?.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        coordinator::status(&pool, a.experiment).await.map_err(anyhow::Error::from)
    })?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!("experiment {} ({})", report.experiment, report.name);
        for (state, n) in &report.jobs {
            println!("  {state:10} {n}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
