//! The paper's result tables, read from the `report_*` views (migration
//! 0006; since 0018 `report_accuracy` reads the best-MSE checkpoint's
//! evaluations only, `report_accuracy_by_checkpoint` every checkpoint's). The
//! coordinator renders them (Markdown, CSV, LaTeX, JSON, SVG).

use serde::Serialize;
use sqlx::{PgPool, Row};
use uuid::Uuid;

use crate::DbError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Table {
    /// Table 1: test MSE and MSE+clip (and NLL) per configuration, with hFF and hLMcut.
    Accuracy,
    /// Table 2: ratio of instances solved and evaluations per configuration, with baselines.
    Planning,
    /// Figure 2: validation MSE per step, mean over seeds.
    Curves,
    /// Marom & Rosman, supplement Tables 7 and 9-11: per alpha, time,
    /// generated nodes, suboptimality and tasks solved optimally, mean and
    /// std across runs (`[[likely]]`, migration 0021).
    Suboptimality,
    /// Marom & Rosman, supplement Table 8: per task source, training tasks
    /// solved and growing-walk test tasks solved within the budget, and
    /// training hours (Table 12), mean and std across runs (`[[likely]]`,
    /// migration 0021).
    Efficiency,
    /// Trunda, section 5: coverage and IPC scores per configuration (`[[graphlearn]]`).
    Coverage,
    /// Trunda, Tables 5.1-5.3: feature-vector length, mean Delta-set range
    /// and mean std of h* per alpha, over the bootstraps' samples, and the
    /// length as Table 5.1 counts it (`feature_len_thesis`, migration 0022)
    /// (`[[graphlearn]]`).
    Features,
    /// Trunda, adjusted heuristics (networks' and the value adjustments of
    /// section 5.2.2): runs, solved, runs that fell back to plain h on some
    /// and on every state, and the share of states that fell back (migration 0022).
    Adjustments,
    /// Trunda, 5.4.3: each network's fit to its training samples (MAE, 80%
    /// quantile, least and greatest error, ratio), over folds (migration 0022).
    Fit,
    /// Trunda, Figures 5.18/5.19 and 5.5: per configuration and target, the
    /// outputs and the MAE over the folds' training samples (migration 0022).
    ErrorByTarget,
    /// Trunda, 5.3.1: correlation of feature distance (L1, L2, L-inf) and
    /// target distance per alpha over the bootstraps' samples (migration 0022).
    Correlation,
    /// Per instance: each planning configuration's solved share, evaluations
    /// and cost (mean over seeds) beside hFF's on the same instance: the
    /// rows behind Table 2 and the learned-vs-hFF scatter (migration 0023).
    Instances,
}

impl Table {
    pub const ALL: [Table; 12] = [
        Table::Accuracy,
        Table::Planning,
        Table::Curves,
        Table::Suboptimality,
        Table::Efficiency,
        Table::Coverage,
        Table::Features,
        Table::Adjustments,
        Table::Fit,
        Table::ErrorByTarget,
        Table::Correlation,
        Table::Instances,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Table::Accuracy => "accuracy",
            Table::Planning => "planning",
            Table::Curves => "curves",
            Table::Suboptimality => "suboptimality",
            Table::Efficiency => "efficiency",
            Table::Coverage => "coverage",
            Table::Features => "features",
            Table::Adjustments => "adjustments",
            Table::Fit => "fit",
            Table::ErrorByTarget => "error_by_target",
            Table::Correlation => "correlation",
            Table::Instances => "instances",
        }
    }
}

impl std::str::FromStr for Table {
    type Err = String;
    fn from_str(s: &str) -> Result<Table, String> {
        Table::ALL.into_iter().find(|t| t.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = Table::ALL.iter().map(|t| t.as_str()).collect();
            format!("no table {s}: {}", names.join(", "))
        })
    }
}

/// Restricts a table to some configurations (the appendix variants: per
/// model, per bound, per residual).
#[derive(Debug, Clone, Default, serde::Deserialize)]
pub struct Filter {
    pub domain: Option<String>,
    pub model: Option<String>,
    pub bound: Option<String>,
    pub residual: Option<String>,
}

/// A value of a result table.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Cell {
    Text(Option<String>),
    Int(i64),
    Num(Option<f64>),
}

/// A table: configuration columns, then statistics (mean and std pairs are
/// adjacent columns named `X_mean` and `X_std`).
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub table: Table,
    pub columns: Vec<String>,
    pub rows: Vec<Vec<Cell>>,
}

/// The configuration columns every table starts with.
pub const CONFIG: [&str; 6] = ["domain", "model", "distribution", "sigma", "residual", "bound"];

fn spec(table: Table) -> (&'static str, Vec<&'static str>, Vec<&'static str>, Vec<&'static str>) {
    match table {
        Table::Accuracy => (
            "report_accuracy",
            CONFIG.to_vec(),
            vec!["seeds", "test_states"],
            vec![
                "mse_mean",
                "mse_std",
                "mse_clip_mean",
                "mse_clip_std",
                "nll_mean",
                "nll_std",
                "nll_clip_mean",
                "nll_clip_std",
                "ff_mse",
                "lmcut_mse",
            ],
        ),
        Table::Planning => (
            "report_planning",
            [CONFIG.as_slice(), &["estimate"]].concat(),
            vec!["seeds", "instances"],
            vec!["solved_mean", "solved_std", "evaluations_mean", "evaluations_std"],
        ),
        Table::Curves => {
            ("report_curves", CONFIG.to_vec(), vec!["step", "seeds"], vec!["val_mse", "val_nll", "train_nll"])
        }
        Table::Suboptimality => (
            "report_suboptimality",
            vec!["domain", "model", "inputs", "source", "alpha"],
            vec!["seeds", "tasks", "solved"],
            vec![
                "time_mean",
                "time_std",
                "generated_mean",
                "generated_std",
                "suboptimality_mean",
                "suboptimality_std",
                "optimal_mean",
                "optimal_std",
            ],
        ),
        Table::Efficiency => (
            "report_efficiency",
            vec!["domain", "model", "inputs", "source", "alpha"],
            vec!["seeds", "train_tasks", "sets", "test_tasks"],
            vec![
                "train_solved_mean",
                "train_solved_std",
                "test_solved_mean",
                "test_solved_std",
                "attempted_mean",
                "train_hours_mean",
                "train_hours_std",
            ],
        ),
        Table::Coverage => (
            "report_coverage",
            vec!["domain", "kind", "configuration"],
            vec!["seeds", "problems"],
            vec!["coverage_mean", "coverage_std", "ipc_time", "ipc_length", "ipc_expansions"],
        ),
        Table::Features => (
            "report_features",
            vec!["domain", "alpha"],
            vec!["bootstraps", "samples"],
            vec!["feature_len", "mean_range", "mean_std", "feature_len_thesis"],
        ),
        Table::Adjustments => (
            "report_adjustments",
            vec!["domain", "configuration"],
            vec!["runs", "solved", "with_fallbacks", "all_fallbacks"],
            vec!["fallback_share"],
        ),
        Table::Fit => (
            "report_fit",
            vec!["domain", "configuration"],
            vec!["folds", "samples"],
            vec!["mae_mean", "mae_std", "p80_abs", "min_diff", "max_diff", "ratio_mean", "ratio_max"],
        ),
        Table::ErrorByTarget => (
            "report_error_by_target",
            vec!["domain", "configuration"],
            vec!["target", "n"],
            vec!["mae", "mean_output", "min_output", "max_output"],
        ),
        Table::Correlation => {
            ("report_correlation", vec!["domain", "alpha"], vec!["bootstraps", "pairs"], vec!["l1", "l2", "linf"])
        }
        Table::Instances => (
            "report_instances",
            [CONFIG.as_slice(), &["estimate", "instance", "split", "params"]].concat(),
            vec!["instance_seed", "optimal_cost", "seeds"],
            vec!["solved", "evaluations", "cost", "ff_solved", "ff_evaluations", "ff_cost"],
        ),
    }
}

/// Reads a table of `experiment` from its view.
pub async fn table(pool: &PgPool, experiment: Uuid, table: Table, filter: &Filter) -> Result<Report, DbError> {
    let (view, text, ints, nums) = spec(table);
    let order = match table {
        Table::Curves => format!("{}, step", text.join(", ")),
        // Baselines (no model) last within a domain.
        Table::Accuracy | Table::Planning => format!("domain, model IS NULL, {}", text[1..].join(", ")),
        // Alphas from the most cautious down, as the paper's tables; LengthInc
        // walks by their increment, then GenerateTaskPrac (Table 8's order).
        Table::Suboptimality | Table::Efficiency => {
            "domain, model, inputs, source = 'uncertainty', length(source), source, alpha DESC".to_string()
        }
        Table::Coverage => text.join(", "),
        Table::Features | Table::Correlation => "domain, alpha::int".to_string(),
        Table::Adjustments | Table::Fit => text.join(", "),
        Table::ErrorByTarget => "domain, configuration, target".to_string(),
        // Instances in generation order (split, parameters, seed), each with
        // its configurations as Table 2 lists them.
        Table::Instances => {
            "domain, split, params, instance_seed, instance, model IS NULL, model, distribution, sigma, residual, \
             bound, estimate"
                .to_string()
        }
    };
    read(pool, experiment, View { table, view, text, ints, nums, order }, filter).await
}

/// The column that names an evaluation's checkpoint in
/// [`accuracy_by_checkpoint`]: `best_mse` or `best_nll`.
pub const CHECKPOINT: &str = "checkpoint";

/// Table 1 per checkpoint of the models (view `report_accuracy_by_checkpoint`):
/// [`Table::Accuracy`]'s columns with [`CHECKPOINT`] after the configuration,
/// one row per configuration and checkpoint evaluated. [`table`] reads the
/// best-MSE rows only, as the published tables are; `hfarm report --against
/// pddlsl-runs` reads this, the authors' runs having both checkpoints.
pub async fn accuracy_by_checkpoint(pool: &PgPool, experiment: Uuid, filter: &Filter) -> Result<Report, DbError> {
    let (_, config, ints, nums) = spec(Table::Accuracy);
    let text = [config.as_slice(), &[CHECKPOINT]].concat();
    let order = format!("domain, model IS NULL, {}", text[1..].join(", "));
    let view = "report_accuracy_by_checkpoint";
    read(pool, experiment, View { table: Table::Accuracy, view, text, ints, nums, order }, filter).await
}

/// A view to read: its text, integer and number columns, and its order.
struct View {
    table: Table,
    view: &'static str,
    text: Vec<&'static str>,
    ints: Vec<&'static str>,
    nums: Vec<&'static str>,
    order: String,
}

async fn read(pool: &PgPool, experiment: Uuid, v: View, filter: &Filter) -> Result<Report, DbError> {
    let View { table, view, text, ints, nums, order } = v;
    let columns: Vec<&str> = text.iter().chain(&ints).chain(&nums).copied().collect();
    // A filter applies where the table has the column (a row without a
    // model or bound, a baseline, stays in).
    let mut conditions = vec!["experiment = $1".to_string()];
    let filters = [
        ("domain", &filter.domain),
        ("model", &filter.model),
        ("bound", &filter.bound),
        ("residual", &filter.residual),
    ];
    let mut binds = vec![];
    for (column, value) in filters {
        if let Some(v) = value {
            if text.contains(&column) {
                binds.push(v.clone());
                let n = binds.len() + 1;
                conditions.push(if column == "domain" {
                    format!("{column} = ${n}")
                } else {
                    format!("({column} = ${n} OR {column} IS NULL)")
                });
            }
        }
    }
    let sql = format!("SELECT {} FROM {view} WHERE {} ORDER BY {order}", columns.join(", "), conditions.join(" AND "));
    let mut query = sqlx::query(&sql).bind(experiment);
    for b in &binds {
        query = query.bind(b);
    }
    let rows = query.fetch_all(pool).await?;
    let mut out = vec![];
    for r in rows {
        let mut row = vec![];
        for c in &text {
            row.push(Cell::Text(r.try_get::<Option<String>, _>(*c)?));
        }
        for c in &ints {
            row.push(Cell::Int(r.try_get::<Option<i64>, _>(*c)?.unwrap_or(0)));
        }
        for c in &nums {
            row.push(Cell::Num(r.try_get::<Option<f64>, _>(*c)?));
        }
        out.push(row);
    }
    Ok(Report { table, columns: columns.iter().map(|c| c.to_string()).collect(), rows: out })
}

fn num(v: Option<f64>) -> String {
    match v {
        None => String::new(),
        Some(x) if x != 0.0 && (x.abs() >= 1e5 || x.abs() < 1e-3) => format!("{x:.3e}"),
        Some(x) => format!("{x:.3}"),
    }
}

impl Cell {
    /// The cell as a table shows it (numbers to 3 decimals or in scientific notation).
    pub fn text(&self) -> String {
        match self {
            Cell::Text(t) => t.clone().unwrap_or_default(),
            Cell::Int(i) => i.to_string(),
            Cell::Num(v) => num(*v),
        }
    }
}
