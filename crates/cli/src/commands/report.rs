//! `hfarm report EXPERIMENT --table accuracy|planning|curves`: the paper's
//! tables (and Figure 2) out of PostgreSQL's report views; with `--against
//! ijcai24`, beside the published ones, cell by cell; with `--against
//! pddlsl-runs`, beside the authors' per-run results (mean ± std over their
//! seeds), each of their checkpoints beside ours of the same kind; with
//! `--against marom-rosman`, a `[[likely]]` experiment's suboptimality and
//! efficiency beside the supplement's Tables 7-12; with `--against trunda`,
//! a `[[graphlearn]]` experiment's features, fit and coverage beside the
//! numbers of the thesis's chapter 5.

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use coordinator::published;
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
    /// Only this lower bound (an admissible heuristic: lmcut, hmax, blind, ...).
    #[arg(long)]
    pub bound: Option<String>,
    /// Only this residual (none, or a heuristic: ff, lmcut, ...).
    #[arg(long)]
    pub residual: Option<String>,
    /// Beside the published tables, cell by cell: a name (ijcai24) or the path of a
    /// fixture of that form (reports/published/); or pddlsl-runs, the authors' per-run
    /// accuracy (IBM/pddlsl results_training*.ods), per split, checkpoint and metric;
    /// or marom-rosman, the supplement's Tables 7-12 (--table suboptimality|efficiency);
    /// or trunda, the thesis's Tables 5.1-5.3 and sections 5.4.3-5.4.4 (--table features|fit|coverage).
    /// Prints ours, theirs, z = (ours - theirs) / their std and a mark where ours is
    /// outside their mean ± 2 std.
    #[arg(long, value_name = "NAME|PATH")]
    pub against: Option<String>,
    /// With --against: only this published table (e.g. 2, 5, 12; trunda: a section, 5.2), its repeated
    /// configurations included (by default each configuration once); with
    /// pddlsl-runs, their split (test or test2) that our test split stands beside,
    /// alone (by default both are listed and ours stands beside test2).
    #[arg(long, value_name = "ID", requires = "against")]
    pub published_table: Option<String>,
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
    // Bad --against input is refused before connecting.
    let against = match &a.against {
        None => None,
        Some(name) => {
            if table == Table::Curves {
                bail!("--against compares --table accuracy, planning, suboptimality, efficiency, features, fit or coverage");
            }
            if !matches!(format, Format::Md | Format::Csv | Format::Json) {
                bail!("--against prints --format md, csv or json");
            }
            let p = published::Against::load(name).map_err(anyhow::Error::msg)?;
            p.check(table, a.published_table.as_deref()).map_err(anyhow::Error::msg)?;
            Some(p)
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        let Some(id) = schema::experiments::resolve_experiment(&pool, &a.experiment).await? else {
            bail!("no experiment {}", a.experiment);
        };
        let filter = Filter { domain: a.domain, model: a.model, bound: a.bound, residual: a.residual };
        let r = match &against {
            // Their runs have both checkpoints: ours per checkpoint (accuracy only: checked above).
            Some(published::Against::Runs(_)) => schema::reports::accuracy_by_checkpoint(&pool, id, &filter).await,
            // The published tables, and the plain report, are the best-MSE checkpoint's.
            _ => schema::reports::table(&pool, id, table, &filter).await,
        }
        .context("reading the report views")?;
        match &against {
            None => print!("{}", report::render(&r, format)),
            Some(p) => {
                let c = p.compare(&r, &filter, a.published_table.as_deref()).map_err(anyhow::Error::msg)?;
                print!("{}", c.render(format).map_err(anyhow::Error::msg)?);
                if format != Format::Md {
                    eprintln!("{}", c.summary());
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
