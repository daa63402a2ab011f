//! `hfarm report EXPERIMENT --table accuracy|planning|curves`: the paper's
//! tables (and Figure 2) out of PostgreSQL's report views.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use coordinator::report::{self, Format};
use schema::reports::{Filter, Table};

use super::farm::Database;

#[derive(clap::Args)]
pub struct Args {
    /// Experiment id, or name (the latest experiment of that name).
    pub experiment: String,
    /// accuracy (Table 1), planning (Table 2) or curves (Figure 2).
    #[arg(long, default_value = "accuracy", value_parser = names(Table::ALL.map(Table::as_str)))]
    pub table: String,
    /// md, csv, latex, json; svg for --table curves.
    #[arg(long, default_value = "md", value_parser = names(Format::ALL.map(Format::as_str)))]
    pub format: String,
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

/// A flag whose values are these names (listed by --help, checked by clap).
fn names<const N: usize>(names: [&'static str; N]) -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(names)
}

pub fn run(a: Args) -> Result<ExitCode> {
    let table: Table = a.table.parse().map_err(anyhow::Error::msg)?;
    let format: Format = a.format.parse().map_err(anyhow::Error::msg)?;
    if format == Format::Svg && table != Table::Curves {
        bail!("--format svg draws --table curves only");
    }
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        let Some(id) = schema::experiments::resolve_experiment(&pool, &a.experiment).await? else {
            bail!("no experiment {}", a.experiment);
        };
        let filter = Filter { domain: a.domain, model: a.model, bound: a.bound, residual: a.residual };
        let r = schema::reports::table(&pool, id, table, &filter).await.context("reading the report views")?;
        print!("{}", report::render(&r, format));
        Ok(ExitCode::SUCCESS)
    })
}
