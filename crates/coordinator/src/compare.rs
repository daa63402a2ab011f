//! Two experiments of one database side by side, cell by cell (`hfarm report
//! A --against-experiment B`): for each configuration x domain x metric of
//! `accuracy`, `planning` or `coverage`, A's value, B's, A − B and, where
//! both ran several seeds, a verdict that knows which way the metric is
//! better. Cells of one side only are listed, never dropped. Pure: the two
//! tables come from `schema::reports`.

use std::collections::BTreeMap;

use schema::reports::{Cell, Report, Table};
use serde::Serialize;

use crate::report::{csv_field, Format};

/// Which way a metric is better.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Better {
    Lower,
    Higher,
}

/// The metrics compared in each table (a `X_mean`/`X_std` pair or a single
/// column `X`), and which way each is better.
fn metrics(table: Table) -> Option<&'static [(&'static str, Better)]> {
    use Better::*;
    match table {
        Table::Accuracy => Some(&[
            ("mse", Lower),
            ("mse_clip", Lower),
            ("nll", Lower),
            ("nll_clip", Lower),
            ("ff_mse", Lower),
            ("lmcut_mse", Lower),
        ]),
        Table::Planning => Some(&[("solved", Higher), ("evaluations", Lower)]),
        Table::Coverage => {
            Some(&[("coverage", Higher), ("ipc_time", Higher), ("ipc_length", Higher), ("ipc_expansions", Higher)])
        }
        _ => None,
    }
}

/// Refuses a table or format the comparison does not have, before any
/// database is read.
pub fn check(table: Table, format: Format) -> Result<(), String> {
    if metrics(table).is_none() {
        return Err(format!(
            "--against-experiment compares --table accuracy, planning or coverage, not {}",
            table.as_str()
        ));
    }
    if !matches!(format, Format::Md | Format::Csv | Format::Json) {
        return Err("--against-experiment prints --format md, csv or json".to_string());
    }
    Ok(())
}

/// One side's value of a cell: the mean over seeds, their std, how many —
/// what the published comparisons call ours ([`crate::published::Ours`]).
pub type Side = crate::published::Ours;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// |A − B| within 2 pooled std, sqrt((std_A² + std_B²) / 2).
    Same,
    ABetter,
    BBetter,
    /// Both have a value, but a side ran fewer than two seeds.
    #[serde(rename = "under_2_seeds")]
    Under2Seeds,
    /// Both have a value, but a side has no std (a single-valued column).
    NoStd,
    OnlyA,
    OnlyB,
}

impl Verdict {
    /// The code in CSV and JSON.
    pub fn code(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::ABetter => "a_better",
            Verdict::BBetter => "b_better",
            Verdict::Under2Seeds => "under_2_seeds",
            Verdict::NoStd => "no_std",
            Verdict::OnlyA => "only_a",
            Verdict::OnlyB => "only_b",
        }
    }

    /// The phrase in Markdown.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Same => "same within 2 std",
            Verdict::ABetter => "A better",
            Verdict::BBetter => "B better",
            Verdict::Under2Seeds => "not judged: under 2 seeds",
            Verdict::NoStd => "not judged: no std",
            Verdict::OnlyA => "only in A",
            Verdict::OnlyB => "only in B",
        }
    }
}

/// One cell: a configuration (the table's text columns), a metric, both sides.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    #[serde(flatten)]
    pub config: BTreeMap<String, String>,
    pub metric: &'static str,
    pub better: Better,
    pub a: Option<Side>,
    pub b: Option<Side>,
    /// A − B.
    pub difference: Option<f64>,
    /// (A − B) / pooled std, where there is one above 0.
    pub z: Option<f64>,
    pub verdict: Verdict,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    pub same: usize,
    pub a_better: usize,
    pub b_better: usize,
    pub not_judged: usize,
    pub only_a: usize,
    pub only_b: usize,
}

impl Summary {
    pub fn line(&self) -> String {
        format!(
            "{} of {} judged cells same within 2 std, A better in {}, B better in {}; {} cells in both not judged \
             (under 2 seeds or no std); {} cells only in A, {} only in B",
            self.same,
            self.same + self.a_better + self.b_better,
            self.a_better,
            self.b_better,
            self.not_judged,
            self.only_a,
            self.only_b
        )
    }
}

/// The two tables side by side.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub table: Table,
    /// How A and B are named in the output (e.g. `name (id)`).
    pub a: String,
    pub b: String,
    /// The configuration columns, in the table's order.
    pub keys: Vec<String>,
    pub rows: Vec<Row>,
    pub summary: Summary,
}

/// The column holding text in `report` (the configuration): a view's column
/// has one type in every row, so the first row says which.
fn key_columns(report: &Report) -> Vec<usize> {
    let Some(first) = report.rows.first() else { return vec![] };
    first.iter().enumerate().filter(|(_, c)| matches!(c, Cell::Text(_))).map(|(i, _)| i).collect()
}

/// A side's value of `metric` in `row`, if it has one (a mean of none, e.g.
/// evaluations where nothing was solved, counts as none).
fn side(report: &Report, row: &[Cell], metric: &str) -> Option<Side> {
    let at = |name: &str| report.columns.iter().position(|c| c == name).and_then(|i| row.get(i));
    let num = |c: Option<&Cell>| match c {
        Some(Cell::Num(v)) => *v,
        Some(Cell::Int(i)) => Some(*i as f64),
        _ => None,
    };
    let seeds = match at("seeds") {
        Some(Cell::Int(n)) => Some(*n),
        _ => None,
    };
    let (mean, std) = match at(&format!("{metric}_mean")) {
        Some(m) => (num(Some(m))?, num(at(&format!("{metric}_std")))),
        None => (num(at(metric))?, None),
    };
    Some(Side { mean, std, seeds })
}

/// A against B for one metric that both have.
fn judge(a: &Side, b: &Side, better: Better) -> (Option<f64>, Verdict) {
    let diff = a.mean - b.mean;
    if a.seeds.unwrap_or(0) < 2 || b.seeds.unwrap_or(0) < 2 {
        return (None, Verdict::Under2Seeds);
    }
    let (Some(sa), Some(sb)) = (a.std, b.std) else { return (None, Verdict::NoStd) };
    let pooled = ((sa * sa + sb * sb) / 2.0).sqrt();
    // Equal means that differ by float noise only are the same even with no spread.
    let noise = 1e-9 * a.mean.abs().max(b.mean.abs()).max(1.0);
    let z = (pooled > 0.0).then(|| diff / pooled);
    if diff.abs() <= 2.0 * pooled + noise {
        return (z, Verdict::Same);
    }
    let a_better = match better {
        Better::Lower => diff < 0.0,
        Better::Higher => diff > 0.0,
    };
    (z, if a_better { Verdict::ABetter } else { Verdict::BBetter })
}

/// Compares two reports of the same table (read with the same filter).
/// Rows follow A's order, then B's configurations that A lacks.
pub fn compare(a: &Report, b: &Report, a_name: &str, b_name: &str) -> Result<Comparison, String> {
    if a.table != b.table || a.columns != b.columns {
        return Err("the two experiments' tables differ in their columns".to_string());
    }
    let Some(metrics) = metrics(a.table) else {
        return Err(format!("no comparison of --table {}", a.table.as_str()));
    };
    let keys = if a.rows.is_empty() { key_columns(b) } else { key_columns(a) };
    let key_of = |row: &[Cell]| -> Vec<String> {
        keys.iter().map(|&i| row.get(i).map(Cell::text).unwrap_or_default()).collect()
    };
    let b_rows: Vec<(Vec<String>, &Vec<Cell>)> = b.rows.iter().map(|r| (key_of(r), r)).collect();
    let a_keys: Vec<Vec<String>> = a.rows.iter().map(|r| key_of(r)).collect();
    let mut rows = vec![];
    let mut summary = Summary::default();
    let mut push = |key: &[String], a_side: Option<Side>, b_side: Option<Side>, metric, better| {
        let (difference, (z, verdict)) = match (&a_side, &b_side) {
            (Some(x), Some(y)) => (Some(x.mean - y.mean), judge(x, y, better)),
            (Some(_), None) => (None, (None, Verdict::OnlyA)),
            (None, Some(_)) => (None, (None, Verdict::OnlyB)),
            (None, None) => return,
        };
        match verdict {
            Verdict::Same => summary.same += 1,
            Verdict::ABetter => summary.a_better += 1,
            Verdict::BBetter => summary.b_better += 1,
            Verdict::Under2Seeds | Verdict::NoStd => summary.not_judged += 1,
            Verdict::OnlyA => summary.only_a += 1,
            Verdict::OnlyB => summary.only_b += 1,
        }
        let config = keys.iter().zip(key).map(|(&i, v)| (a.columns[i].clone(), v.clone())).collect();
        rows.push(Row { config, metric, better, a: a_side, b: b_side, difference, z, verdict });
    };
    for (row, key) in a.rows.iter().zip(&a_keys) {
        let other = b_rows.iter().find(|(k, _)| k == key).map(|(_, r)| *r);
        for &(metric, better) in metrics {
            let b_side = other.and_then(|r| side(b, r, metric));
            push(key, side(a, row, metric), b_side, metric, better);
        }
    }
    for (key, row) in &b_rows {
        if !a_keys.contains(key) {
            for &(metric, better) in metrics {
                push(key, None, side(b, row, metric), metric, better);
            }
        }
    }
    let keys = keys.iter().map(|&i| a.columns[i].clone()).collect();
    Ok(Comparison { table: a.table, a: a_name.to_string(), b: b_name.to_string(), keys, rows, summary })
}

fn num(v: f64) -> String {
    Cell::Num(Some(v)).text()
}

impl Comparison {
    /// The comparison in `format` (md, csv or json: [`check`] refuses others).
    pub fn render(&self, format: Format) -> Result<String, String> {
        match format {
            Format::Json => serde_json::to_string_pretty(self).map_err(|e| e.to_string()),
            Format::Csv => Ok(self.csv()),
            Format::Md => Ok(self.markdown()),
            other => Err(format!("--against-experiment prints --format md, csv or json, not {}", other.as_str())),
        }
    }

    fn config(&self, r: &Row) -> Vec<String> {
        self.keys.iter().map(|k| r.config.get(k).cloned().unwrap_or_default()).collect()
    }

    fn csv(&self) -> String {
        let opt = |v: Option<f64>| v.map(|v| format!("{v}")).unwrap_or_default();
        let side = |s: &Option<Side>| match s {
            Some(s) => [format!("{}", s.mean), opt(s.std), s.seeds.map(|n| n.to_string()).unwrap_or_default()],
            None => Default::default(),
        };
        let head = ["metric", "better", "a_mean", "a_std", "a_seeds", "b_mean", "b_std", "b_seeds"];
        let mut s = [&self.keys[..], &head.map(String::from), &["difference", "z", "verdict"].map(String::from)]
            .concat()
            .join(",")
            + "\n";
        for r in &self.rows {
            let better = if r.better == Better::Lower { "lower" } else { "higher" };
            let mut cells: Vec<String> = self.config(r).iter().map(|c| csv_field(c)).collect();
            cells.extend([r.metric.to_string(), better.to_string()]);
            cells.extend(side(&r.a));
            cells.extend(side(&r.b));
            cells.extend([opt(r.difference), opt(r.z), r.verdict.code().to_string()]);
            s += &(cells.join(",") + "\n");
        }
        s
    }

    fn markdown(&self) -> String {
        let side = |s: &Option<Side>| match s {
            None => String::new(),
            Some(s) => {
                let mut t = num(s.mean);
                if let Some(std) = s.std {
                    t += &format!(" ± {}", num(std));
                }
                if let Some(n) = s.seeds {
                    t += &format!(" ({n})");
                }
                t
            }
        };
        let cols = [&self.keys[..], &["metric", "A", "B", "A − B", "z", "verdict"].map(String::from)].concat();
        let mut s = format!("A: {}\nB: {}\n\n", self.a, self.b);
        s += &format!("| {} |\n|{}\n", cols.join(" | "), "---|".repeat(cols.len()));
        for r in &self.rows {
            let mut cells = self.config(r);
            cells.extend([r.metric.to_string(), side(&r.a), side(&r.b)]);
            cells.extend([
                r.difference.map(num).unwrap_or_default(),
                r.z.map(|z| format!("{z:.2}")).unwrap_or_default(),
            ]);
            cells.push(r.verdict.text().to_string());
            s += &format!("| {} |\n", cells.join(" | "));
        }
        s + &format!("\n{}\n", self.summary.line())
    }
}

#[cfg(test)]
mod tests {
    use schema::reports::{Cell, Report, Table};

    use super::*;

    fn text(s: &str) -> Cell {
        Cell::Text(Some(s.to_string()))
    }

    /// Trunda's coverage table: coverage and IPC scores, higher is better.
    fn coverage(rows: &[(&str, &str, i64, f64, f64, f64)]) -> Report {
        let columns =
            ["domain", "kind", "configuration", "seeds", "problems", "coverage_mean", "coverage_std", "ipc_time"];
        Report {
            table: Table::Coverage,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: rows
                .iter()
                .map(|&(d, c, seeds, cov, std, ipc)| {
                    vec![text(d), text("learned"), text(c), Cell::Int(seeds), Cell::Int(20)]
                        .into_iter()
                        .chain([Cell::Num(Some(cov)), Cell::Num(Some(std)), Cell::Num(Some(ipc))])
                        .collect()
                })
                .collect(),
        }
    }

    #[test]
    fn coverage_higher_is_better_and_one_sided_cells_are_listed() {
        let a = coverage(&[("blocksworld", "mlp", 5, 15.0, 1.0, 10.0), ("gripper", "mlp", 5, 8.0, 1.0, 6.0)]);
        let b = coverage(&[("blocksworld", "mlp", 5, 11.0, 1.0, 9.0), ("zenotravel", "mlp", 1, 3.0, 0.0, 2.0)]);
        let c = compare(&a, &b, "a", "b").unwrap();
        assert_eq!(c.keys, ["domain", "kind", "configuration"]);
        let find = |d: &str, m: &str| c.rows.iter().find(|r| r.config["domain"] == d && r.metric == m).unwrap();
        let cov = find("blocksworld", "coverage");
        // 15 vs 11, pooled std 1: 4 > 2 std, and more coverage is better.
        assert_eq!((cov.difference, cov.z, cov.verdict), (Some(4.0), Some(4.0), Verdict::ABetter));
        assert_eq!(find("blocksworld", "ipc_time").verdict, Verdict::NoStd);
        assert_eq!(find("gripper", "coverage").verdict, Verdict::OnlyA);
        assert_eq!(find("zenotravel", "ipc_time").verdict, Verdict::OnlyB);
        assert_eq!(c.summary.a_better, 1);
        assert_eq!((c.summary.only_a, c.summary.only_b, c.summary.not_judged), (2, 2, 1));
        // B's coverage higher: B better; within 2 std: the same.
        let b = coverage(&[("blocksworld", "mlp", 5, 18.0, 1.0, 9.0)]);
        assert_eq!(compare(&a, &b, "a", "b").unwrap().rows[0].verdict, Verdict::BBetter);
        let b = coverage(&[("blocksworld", "mlp", 5, 16.5, 1.0, 9.0)]);
        assert_eq!(compare(&a, &b, "a", "b").unwrap().rows[0].verdict, Verdict::Same);
        let md = compare(&a, &b, "a", "b").unwrap().render(Format::Md).unwrap();
        assert!(md.contains("| blocksworld | learned | mlp | coverage | 15.000 ± 1.000 (5) | 16.500 ± 1.000 (5) | -1.500 | -1.50 | same within 2 std |"), "{md}");
        assert!(md.contains("| gripper | learned | mlp | coverage | 8.000 ± 1.000 (5) |  |  |  | only in A |"), "{md}");
    }

    #[test]
    fn lower_is_better_for_errors_and_single_seeds_are_not_judged() {
        let accuracy = |seeds: i64, mse: f64| Report {
            table: Table::Accuracy,
            columns: ["domain", "model", "seeds", "mse_mean", "mse_std"].iter().map(|c| c.to_string()).collect(),
            rows: vec![vec![
                text("gripper"),
                text("nlm"),
                Cell::Int(seeds),
                Cell::Num(Some(mse)),
                Cell::Num(Some(0.5)),
            ]],
        };
        let c = compare(&accuracy(3, 1.0), &accuracy(3, 4.0), "a", "b").unwrap();
        assert_eq!(c.rows.len(), 1, "metrics the table lacks are not cells");
        assert_eq!(c.rows[0].verdict, Verdict::ABetter, "lower MSE is better");
        assert_eq!(compare(&accuracy(3, 4.0), &accuracy(3, 1.0), "a", "b").unwrap().rows[0].verdict, Verdict::BBetter);
        let one = compare(&accuracy(1, 1.0), &accuracy(3, 4.0), "a", "b").unwrap();
        assert_eq!((one.rows[0].difference, one.rows[0].verdict), (Some(-3.0), Verdict::Under2Seeds));
        let csv = one.render(Format::Csv).unwrap();
        assert_eq!(
            csv.lines().next().unwrap(),
            "domain,model,metric,better,a_mean,a_std,a_seeds,b_mean,b_std,b_seeds,difference,z,verdict"
        );
        assert_eq!(csv.lines().nth(1).unwrap(), "gripper,nlm,mse,lower,1,0.5,1,4,0.5,3,-3,,under_2_seeds");
        assert!(check(Table::Curves, Format::Md).is_err());
        assert!(check(Table::Planning, Format::Latex).is_err());
        let json: serde_json::Value = serde_json::from_str(&one.render(Format::Json).unwrap()).unwrap();
        assert_eq!(json["rows"][0]["domain"], "gripper");
        assert_eq!(json["rows"][0]["verdict"], "under_2_seeds");
    }
}
