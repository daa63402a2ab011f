//! `hfarm report EXPERIMENT --table accuracy|planning|curves`: the paper's
//! tables (and Figure 2) out of PostgreSQL's report views; with `--against
//! ijcai24`, beside the published ones, cell by cell; with `--against
//! pddlsl-runs`, beside the authors' per-run results (mean ± std over their
//! seeds), each of their checkpoints beside ours of the same kind; with
//! `--against marom-rosman`, a `[[likely]]` experiment's suboptimality and
//! efficiency beside the supplement's Tables 7-12; with `--against trunda`,
//! a `[[graphlearn]]` experiment's features, fit and coverage beside the
//! numbers of the thesis's chapter 5. With `--against-experiment B`, beside
//! another experiment of the same database, cell by cell (`coordinator::compare`).

use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use coordinator::report::{self, Format};
use coordinator::{compare, published};
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
    /// Only this lower bound (an admissible heuristic: lmcut, hmax, blind, ...; the paper's grids
    /// bound by lmcut-pyperplan, the l the authors' truncated-Gaussian runs read).
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
    /// Beside another experiment of this database (id or name), cell by cell
    /// (--table accuracy, planning or coverage; --format md, csv or json; the same filters):
    /// A's value (this experiment's), B's, A - B and, where both ran 2 or more seeds, a
    /// verdict: same within 2 std (pooled, sqrt((std_A^2 + std_B^2) / 2)), A better or B
    /// better (lower MSE, NLL and evaluations, higher ratio solved, coverage and IPC
    /// scores); cells of one side only are listed as only in A / only in B.
    #[arg(long, value_name = "EXPERIMENT", conflicts_with_all = ["against", "published_table"])]
    pub against_experiment: Option<String>,
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
    if let Some(b) = &a.against_experiment {
        compare::check(table, format).map_err(anyhow::Error::msg)?;
        return against_experiment(&a, b, table, format);
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

/// An experiment by id or name, and how the comparison names it; a clear
/// error where this database has none (an id is checked too, so that a
/// mistyped one is not read as an empty experiment).
async fn experiment(pool: &schema::PgPool, id_or_name: &str) -> Result<(schema::Uuid, String)> {
    let id = schema::experiments::resolve_experiment(pool, id_or_name).await?;
    let name = match id {
        Some(id) => schema::experiments::experiment_name(pool, id).await?.map(|n| (id, n)),
        None => None,
    };
    match name {
        Some((id, name)) => Ok((id, format!("{name} ({id})"))),
        None => bail!("no experiment {id_or_name} (neither the id nor the name of an experiment in this database)"),
    }
}

/// `--against-experiment B`: this experiment (A) beside B, cell by cell.
fn against_experiment(a: &Args, b: &str, table: Table, format: Format) -> Result<ExitCode> {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    rt.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        let (id_a, name_a) = experiment(&pool, &a.experiment).await?;
        let (id_b, name_b) = experiment(&pool, b).await?;
        let filter = Filter {
            domain: a.domain.clone(),
            model: a.model.clone(),
            bound: a.bound.clone(),
            residual: a.residual.clone(),
        };
        let ra = schema::reports::table(&pool, id_a, table, &filter).await.context("reading the report views")?;
        let rb = schema::reports::table(&pool, id_b, table, &filter).await.context("reading the report views")?;
        let c = compare::compare(&ra, &rb, &name_a, &name_b).map_err(anyhow::Error::msg)?;
        print!("{}", c.render(format).map_err(anyhow::Error::msg)?);
        if format != Format::Md {
            eprintln!("{}", c.summary.line());
        }
        Ok(ExitCode::SUCCESS)
    })
}
