//! `hfarm report EXPERIMENT --table accuracy|planning|curves`: the paper's
//! tables (and Figure 2) out of PostgreSQL's report views.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use coordinator::report::{self, Filter, Format, Table};

use super::farm::Database;

#[derive(clap::Args)]
pub struct Args {
    /// Experiment id, or name (the latest experiment of that name).
    pub experiment: String,
    #[arg(long, value_enum, default_value = "accuracy")]
    pub table: Table,
    /// md, csv, latex, json; svg for --table curves.
    #[arg(long, value_enum, default_value = "md")]
    pub format: Format,
    /// Only this domain.
    #[arg(long)]
    pub domain: Option<String>,
    /// Only this model (linear, nlm, hgn): the appendix's per-model tables.
    #[arg(long)]
    pub model: Option<String>,
    /// Only this lower bound (lmcut, hmax, blind).
    #[arg(long)]
    pub bound: Option<String>,
    /// Only this residual (none, ff, lmcut).
    #[arg(long)]
    pub residual: Option<String>,
    #[command(flatten)]
    pub db: Database,
}

pub fn run(a: Args) -> Result<ExitCode> {
    if a.format == Format::Svg && a.table != Table::Curves {
        bail!("--format svg draws --table curves only");
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        let Some(id) = report::resolve_experiment(&pool, &a.experiment).await? else {
            bail!("no experiment {}", a.experiment);
        };
        let filter = Filter { domain: a.domain, model: a.model, bound: a.bound, residual: a.residual };
        let r = report::table(&pool, id, a.table, &filter).await.context("reading the report views")?;
        print!("{}", r.render(a.format));
        Ok(ExitCode::SUCCESS)
    })
}
