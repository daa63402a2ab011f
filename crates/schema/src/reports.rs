//! The paper's result tables, read from the `report_*` views (migration
//! 0006). The coordinator renders them (Markdown, CSV, LaTeX, JSON, SVG).

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
}

impl Table {
    pub const ALL: [Table; 3] = [Table::Accuracy, Table::Planning, Table::Curves];

    pub fn as_str(self) -> &'static str {
        match self {
            Table::Accuracy => "accuracy",
            Table::Planning => "planning",
            Table::Curves => "curves",
        }
    }
}

impl std::str::FromStr for Table {
    type Err = String;
    fn from_str(s: &str) -> Result<Table, String> {
        Table::ALL
            .into_iter()
            .find(|t| t.as_str() == s)
            .ok_or_else(|| format!("no table {s}: accuracy, planning or curves"))
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
    }
}

/// Reads a table of `experiment` from its view.
pub async fn table(pool: &PgPool, experiment: Uuid, table: Table, filter: &Filter) -> Result<Report, DbError> {
    let (view, text, ints, nums) = spec(table);
    let columns: Vec<&str> = text.iter().chain(&ints).chain(&nums).copied().collect();
    let order = match table {
        Table::Curves => format!("{}, step", text.join(", ")),
        // Baselines (no model) last within a domain.
        _ => format!("domain, model IS NULL, {}", text[1..].join(", ")),
    };
    let sql = format!(
        "SELECT {} FROM {view} WHERE experiment = $1
           AND ($2::text IS NULL OR domain = $2) AND ($3::text IS NULL OR model = $3 OR model IS NULL)
           AND ($4::text IS NULL OR bound = $4 OR bound IS NULL) AND ($5::text IS NULL OR residual = $5 OR residual IS NULL)
         ORDER BY {order}",
        columns.join(", ")
    );
    let rows = sqlx::query(&sql)
        .bind(experiment)
        .bind(&filter.domain)
        .bind(&filter.model)
        .bind(&filter.bound)
        .bind(&filter.residual)
        .fetch_all(pool)
        .await?;
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
