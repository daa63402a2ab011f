//! Trunda's thesis beside ours: `hfarm report EXPERIMENT --table
//! features|fit|coverage --against trunda`.
//!
//! The fixture (`reports/published/trunda.csv`, embedded here) holds every
//! number of chapter 5 that a report of ours measures, as printed, each
//! named with our report's axes (domain, configuration or alpha), the
//! metric, and its line in the seed text. The rules:
//! - *Which cells*: `--table features` compares sections 5.1-5.3 (Tables
//!   5.1-5.3: feature-vector length, mean Delta-set range and std per
//!   alpha), `--table fit` section 5.4.3 (the best network's training fit),
//!   `--table coverage` section 5.4.4 (problems solved); `--published-table
//!   5.2` keeps one section; the report's domain filter applies to theirs.
//! - *Matching*: domain equal, and alpha (features) or configuration (fit,
//!   coverage) equal.
//! - *Verdict*: [`super::verdict::judge`]; the thesis prints no std, so
//!   ours is within when it could round to the printed number.

use schema::reports::{Cell, Filter, Report, Table};
use serde::Serialize;

use super::fixture::Value;
use super::verdict::{judge, num, Ours, Summary, Verdict, OUTSIDE};
use crate::report::Format;

/// The name `--against` knows it by.
pub const NAME: &str = "trunda";

/// The fixture, as committed.
pub const CSV: &str = include_str!("../../../../reports/published/trunda.csv");

/// The sections the fixture holds, with the report each stands beside.
const SECTIONS: [(&str, Table); 5] = [
    ("5.1", Table::Features),
    ("5.2", Table::Features),
    ("5.3", Table::Features),
    ("5.4.3", Table::Fit),
    ("5.4.4", Table::Coverage),
];

/// The report a section stands beside.
pub fn kind_of(section: &str) -> Option<Table> {
    SECTIONS.iter().find(|(s, _)| *s == section).map(|(_, t)| *t)
}

/// Our report's column for a published metric, and its std column if any.
fn column(metric: &str) -> Option<(&'static str, Option<&'static str>)> {
    Some(match metric {
        // Table 5.1 counts without the symbols' singletons (graphlearn::adjust::thesis_len).
        "feature_len" => ("feature_len_thesis", None),
        "mean_range" => ("mean_range", None),
        "mean_std" => ("mean_std", None),
        "mae" => ("mae_mean", Some("mae_std")),
        "p80_abs" => ("p80_abs", None),
        "min_diff" => ("min_diff", None),
        "max_diff" => ("max_diff", None),
        "ratio_mean" => ("ratio_mean", None),
        "ratio_max" => ("ratio_max", None),
        "coverage" => ("coverage_mean", Some("coverage_std")),
        _ => return None,
    })
}

/// A published number.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThesisCell {
    pub section: String,
    pub domain: String,
    /// Our configuration's name (fit, coverage), else empty.
    pub configuration: String,
    /// Alpha (features), else empty.
    pub alpha: String,
    pub metric: String,
    pub value: Value,
    /// Its line in the thesis's text.
    pub line: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Thesis {
    /// The fixture's first comment line: where the numbers come from.
    pub source: String,
    pub cells: Vec<ThesisCell>,
}

/// Half a unit in the last digit of a printed number.
fn rounding(text: &str) -> f64 {
    match text.split_once('.') {
        Some((_, decimals)) => 0.5 * 10f64.powi(-(decimals.len() as i32)),
        None => 0.5,
    }
}

/// Reads the fixture's text, checking every row.
pub fn parse(text: &str) -> Result<Thesis, String> {
    let source = text.lines().next().and_then(|l| l.strip_prefix("# ")).unwrap_or_default().to_string();
    let mut rows = text.lines().enumerate().filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty());
    let header = rows.next().map(|(_, l)| l).ok_or("an empty fixture")?;
    const HEADER: &str = "section,domain,configuration,alpha,metric,value,printed,line";
    if header != HEADER {
        return Err(format!("the header must be `{HEADER}`"));
    }
    let mut cells = vec![];
    for (i, line) in rows {
        let at = |e: String| format!("line {}: {e}", i + 1);
        let f: Vec<&str> = line.split(',').collect();
        if f.len() != 8 {
            return Err(at(format!("{} fields, not 8", f.len())));
        }
        let kind = kind_of(f[0]).ok_or_else(|| at(format!("section {} is not one of 5.1-5.3, 5.4.3, 5.4.4", f[0])))?;
        if column(f[4]).is_none() {
            return Err(at(format!("unknown metric {}", f[4])));
        }
        // Features rows are per alpha, the others per configuration.
        if (kind == Table::Features) != (!f[3].is_empty() && f[2].is_empty()) {
            return Err(at("features rows name an alpha, the others a configuration".into()));
        }
        let mean = f[5].parse::<f64>().map_err(|e| at(format!("{}: {e}", f[5])))?;
        let value = Value { text: f[6].to_string(), mean, std: None, mean_rounding: rounding(f[5]), std_rounding: 0.0 };
        cells.push(ThesisCell {
            section: f[0].to_string(),
            domain: f[1].to_string(),
            configuration: f[2].to_string(),
            alpha: f[3].to_string(),
            metric: f[4].to_string(),
            value,
            line: f[7].parse().map_err(|e| at(format!("line: {e}")))?,
        });
    }
    Ok(Thesis { source, cells })
}

/// The built-in fixture.
pub fn load() -> Result<Thesis, String> {
    parse(CSV).map_err(|e| format!("reports/published/trunda.csv: {e}"))
}

/// Refuses a report kind the thesis has no numbers for, or a section that
/// is not of that kind.
pub fn check(_t: &Thesis, kind: Table, only: Option<&str>) -> Result<(), String> {
    if !SECTIONS.iter().any(|(_, t)| *t == kind) {
        return Err(format!("{NAME} compares --table features (5.1-5.3), fit (5.4.3) or coverage (5.4.4)"));
    }
    if let Some(s) = only {
        match kind_of(s) {
            None => return Err(format!("--published-table {s}: a section, 5.1, 5.2, 5.3, 5.4.3 or 5.4.4")),
            Some(k) if k != kind => {
                return Err(format!("--published-table {s}: not a section of --table {}", kind.as_str()))
            }
            _ => {}
        }
    }
    Ok(())
}

/// One published number beside ours.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThesisCompared {
    pub cell: ThesisCell,
    pub ours: Option<Ours>,
    pub z: Option<f64>,
    pub verdict: Verdict,
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ThesisComparison {
    pub source: String,
    pub table: Table,
    pub cells: Vec<ThesisCompared>,
    pub summary: Summary,
}

fn text_at(report: &Report, row: &[Cell], column: &str) -> Option<String> {
    let i = report.columns.iter().position(|c| c == column)?;
    Some(row[i].text())
}

fn num_at(report: &Report, row: &[Cell], column: &str) -> Option<f64> {
    let i = report.columns.iter().position(|c| c == column)?;
    match &row[i] {
        Cell::Num(v) => *v,
        Cell::Int(n) => Some(*n as f64),
        Cell::Text(_) => None,
    }
}

/// Every published number of the report's kind (and `only`'s section)
/// beside the row of ours with the same axes.
pub fn compare(t: &Thesis, report: &Report, filter: &Filter, only: Option<&str>) -> Result<ThesisComparison, String> {
    check(t, report.table, only)?;
    let mut cells = vec![];
    let mut summary = Summary::default();
    for c in &t.cells {
        if kind_of(&c.section) != Some(report.table) || only.is_some_and(|s| s != c.section) {
            continue;
        }
        if filter.domain.as_ref().is_some_and(|d| *d != c.domain) {
            continue;
        }
        let row = report.rows.iter().find(|r| {
            text_at(report, r, "domain").as_deref() == Some(&c.domain)
                && match report.table {
                    Table::Features => text_at(report, r, "alpha").as_deref() == Some(&c.alpha),
                    _ => text_at(report, r, "configuration").as_deref() == Some(&c.configuration),
                }
        });
        let (col, std_col) = column(&c.metric).expect("checked when read");
        let ours = row.and_then(|r| {
            let mean = num_at(report, r, col)?;
            let std = std_col.and_then(|s| num_at(report, r, s));
            let n = ["seeds", "folds", "bootstraps"].iter().find_map(|k| num_at(report, r, k));
            Some(Ours { mean, std, seeds: n.map(|n| n as i64) })
        });
        let (z, verdict, note) = match &ours {
            Some(o) => judge(o.mean, &c.value),
            None => (None, Verdict::NoResult, None),
        };
        summary.add(verdict, z);
        cells.push(ThesisCompared { cell: c.clone(), ours, z, verdict, note });
    }
    Ok(ThesisComparison { source: t.source.clone(), table: report.table, cells, summary })
}

fn ours_text(o: &Option<Ours>) -> String {
    match o {
        None => "—".into(),
        Some(Ours { mean, std, seeds }) => format!(
            "{}{}{}",
            num(*mean),
            std.map_or(String::new(), |s| format!(" ± {}", num(s))),
            seeds.map_or(String::new(), |n| format!(" (n={n})"))
        ),
    }
}

/// Markdown (with the source and the summary), CSV or JSON.
pub fn render(c: &ThesisComparison, format: Format) -> Result<String, String> {
    let header = ["section", "domain", "configuration", "alpha", "metric", "theirs", "line", "ours", "", "note"];
    let rows: Vec<Vec<String>> = c
        .cells
        .iter()
        .map(|x| {
            vec![
                x.cell.section.clone(),
                x.cell.domain.clone(),
                x.cell.configuration.clone(),
                x.cell.alpha.clone(),
                x.cell.metric.clone(),
                x.cell.value.text.clone(),
                x.cell.line.to_string(),
                ours_text(&x.ours),
                if x.verdict == Verdict::Outside { OUTSIDE.to_string() } else { String::new() },
                x.note.clone().unwrap_or_default(),
            ]
        })
        .collect();
    super::render::printed_comparison(c, &c.source, &c.summary.line(), &header, &rows, format)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fixture_holds_the_thesis_numbers_as_printed() {
        let t = load().unwrap();
        let count = |s: &str| t.cells.iter().filter(|c| c.section == s).count();
        assert_eq!(["5.1", "5.2", "5.3", "5.4.3", "5.4.4"].map(count), [8, 8, 8, 10, 2]);
        assert!(t.source.contains("Trunda") && t.source.contains("d0ac2731"), "{}", t.source);
        let find = |s: &str, d: &str, key: &str, metric: &str| {
            t.cells
                .iter()
                .find(|c| {
                    c.section == s && c.domain == d && (c.alpha == key || c.configuration == key) && c.metric == metric
                })
                .unwrap()
                .clone()
        };
        // Spot checks against shared/notes/trunda-thesis.md's transcription of Tables 5.1-5.3.
        assert_eq!(find("5.1", "blocks", "5", "feature_len").value.mean, 139.0);
        assert_eq!(find("5.1", "zeno-travel", "4", "feature_len").value.mean, 107.0);
        let c = find("5.2", "blocks", "2", "mean_range");
        assert_eq!((c.value.mean, c.value.mean_rounding, c.line), (24.74, 0.005, 3078));
        assert_eq!(find("5.3", "zeno-travel", "5", "mean_std").value.mean, 0.83);
        assert_eq!(find("5.4.3", "blocks", "a4-logmse+ff", "min_diff").value.mean, -21.6);
        assert_eq!(find("5.4.3", "zeno-travel", "a4-logmse+ff", "p80_abs").value.mean_rounding, 0.05);
        assert_eq!(find("5.4.4", "blocks", "ff", "coverage").value.mean, 8.0);
        // Each cell's line holds its printed number in the seed text, where the seed is at hand.
        let seed = format!("{}/../../../shared/seeds/trunda-thesis-heuristic-learning.txt", env!("CARGO_MANIFEST_DIR"));
        if let Ok(text) = std::fs::read_to_string(seed) {
            let lines: Vec<&str> = text.lines().collect();
            for c in &t.cells {
                let unsigned = |w: &str| w.trim_start_matches(['-', '−']).to_string();
                let number = c.value.text.split(' ').map(unsigned).find(|w| w.parse::<f64>().is_ok()).unwrap();
                let near = lines[c.line as usize - 1..(c.line as usize + 1).min(lines.len())].join(" ");
                assert!(near.contains(&number), "{c:?}: `{number}` not on line {}", c.line);
            }
        }
    }

    fn t(s: &str) -> Cell {
        Cell::Text(Some(s.into()))
    }

    #[test]
    fn ours_stand_beside_the_thesis() {
        let th = load().unwrap();
        let cols = ["domain", "alpha", "bootstraps", "samples", "feature_len_thesis", "mean_range", "mean_std"];
        let row = |alpha: &str, len: f64, range: f64| {
            vec![
                t("blocks"),
                t(alpha),
                Cell::Int(2),
                Cell::Int(900),
                Cell::Num(Some(len)),
                Cell::Num(Some(range)),
                Cell::Num(Some(2.0)),
            ]
        };
        let r = Report {
            table: Table::Features,
            columns: cols.iter().map(|c| c.to_string()).collect(),
            rows: vec![row("2", 11.0, 24.0), row("3", 32.0, 24.53)],
        };
        let c = compare(&th, &r, &Filter::default(), None).unwrap();
        assert_eq!(c.cells.len(), 24, "Tables 5.1-5.3, both domains");
        let at = |s: &str, alpha: &str| {
            c.cells.iter().find(|x| x.cell.section == s && x.cell.domain == "blocks" && x.cell.alpha == alpha).unwrap()
        };
        assert_eq!(at("5.1", "2").verdict, Verdict::Within, "11 = 11");
        assert_eq!(at("5.1", "3").verdict, Verdict::Outside, "32 against 26");
        assert_eq!(at("5.2", "2").verdict, Verdict::Outside, "24 against 24.74, printed to 0.005");
        assert_eq!(at("5.2", "3").verdict, Verdict::Within);
        assert!(at("5.2", "3").note.as_deref().unwrap().contains("no published std"));
        assert_eq!(at("5.1", "4").verdict, Verdict::NoResult);
        assert_eq!((c.summary.compared, c.summary.within, c.summary.missing), (6, 2, 18));
        let md = render(&c, Format::Md).unwrap();
        assert!(md.contains("| 5.1 | blocks |  | 3 | feature_len | 26 | 3027 | 32.000 (n=2) | ✗ |"), "{md}");
        assert_eq!(render(&c, Format::Csv).unwrap().lines().count(), 25);
        // A domain filter and one section.
        let f = Filter { domain: Some("blocks".into()), ..Filter::default() };
        assert_eq!(compare(&th, &r, &f, None).unwrap().cells.len(), 12);
        assert_eq!(compare(&th, &r, &Filter::default(), Some("5.2")).unwrap().cells.len(), 8);
        // Fit and coverage match by configuration.
        let r = Report {
            table: Table::Coverage,
            columns: ["domain", "kind", "configuration", "seeds", "coverage_mean", "coverage_std"]
                .map(String::from)
                .to_vec(),
            rows: vec![vec![t("blocks"), t("baseline"), t("ff"), Cell::Int(1), Cell::Num(Some(27.0)), Cell::Num(None)]],
        };
        let c = compare(&th, &r, &Filter::default(), None).unwrap();
        let ff = c.cells.iter().find(|x| x.cell.configuration == "ff").unwrap();
        assert_eq!((ff.verdict, ff.ours.as_ref().unwrap().mean), (Verdict::Outside, 27.0));
        assert_eq!(c.summary.missing, 1, "a4-logmse+ff has no row of ours");
    }

    #[test]
    fn wrong_tables_and_rows_are_refused() {
        let th = load().unwrap();
        assert!(check(&th, Table::Accuracy, None).unwrap_err().contains("features"));
        assert!(check(&th, Table::Features, Some("5.4.3")).is_err());
        assert!(check(&th, Table::Fit, Some("5.4.3")).is_ok());
        assert!(check(&th, Table::Fit, Some("7")).is_err());
        assert!(parse("a,b\n").unwrap_err().contains("header"));
        let head = "section,domain,configuration,alpha,metric,value,printed,line\n";
        assert!(parse(&format!("{head}6.1,blocks,,2,feature_len,1,1,1\n")).unwrap_err().contains("not one of"));
        assert!(parse(&format!("{head}5.1,blocks,a2-mse,,feature_len,1,1,1\n")).unwrap_err().contains("alpha"));
        assert!(parse(&format!("{head}5.4.3,blocks,a2-mse,,nope,1,1,1\n")).unwrap_err().contains("unknown metric"));
    }
}
