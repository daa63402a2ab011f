//! The published-table fixtures (`reports/published/*.toml`): their schema,
//! checked when read, and the printed values with their rounding.

use schema::reports::Table;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The fixture of the IJCAI 2024 paper (Tables 1, 2, 4-9, 11-14).
pub const IJCAI24: &str = include_str!("../../../../reports/published/ijcai24.toml");

/// Published tables known by name (`--against NAME`).
pub const BUILT_IN: [(&str, &str); 1] = [("ijcai24", IJCAI24)];

/// Axis values a published row may name (our grids' names).
const DOMAINS: [&str; 4] = ["blocksworld", "ferry", "gripper", "visitall"];
const MODELS: [&str; 3] = ["linear", "nlm", "hgn"];
const DISTRIBUTIONS: [&str; 2] = ["gaussian", "truncated"];
const SIGMAS: [&str; 2] = ["learn", "fixed"];
const RESIDUALS: [&str; 3] = ["none", "ff", "lmcut"];
const BOUNDS: [&str; 3] = ["lmcut", "hmax", "blind"];
const ESTIMATES: [&str; 3] = ["N", "N+clip", "TN"];

/// The metrics of each kind of table, named as our report's columns
/// (`X_mean`/`X_std`, or `X` for the classical heuristics' MSE).
const ACCURACY_METRICS: [&str; 6] = ["mse", "mse_clip", "nll", "nll_clip", "ff_mse", "lmcut_mse"];
const PLANNING_METRICS: [&str; 2] = ["solved", "evaluations"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixture {
    name: String,
    paper: String,
    #[serde(default)]
    seeds: Option<u32>,
    #[serde(default)]
    sources: BTreeMap<String, String>,
    #[serde(default)]
    notes: Vec<String>,
    tables: Vec<RawTable>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTable {
    id: String,
    kind: String,
    model: String,
    title: String,
    #[serde(default)]
    pdf_text: Option<RawSource>,
    #[serde(default)]
    arxiv_html: Option<RawSource>,
    #[serde(default)]
    repeats: Option<String>,
    #[serde(default)]
    notes: Vec<String>,
    #[serde(default)]
    baselines: Vec<RawBaseline>,
    #[serde(default)]
    rows: Vec<RawRow>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSource {
    #[serde(default)]
    page: Option<u32>,
    lines: [u32; 2],
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBaseline {
    domain: String,
    ff_mse: Option<String>,
    lmcut_mse: Option<String>,
    #[serde(default)]
    pdf_lines: Vec<u32>,
    #[serde(default)]
    repeats: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRow {
    domain: String,
    distribution: Option<String>,
    sigma: Option<String>,
    residual: Option<String>,
    bound: Option<String>,
    estimate: Option<String>,
    mse: Option<String>,
    mse_clip: Option<String>,
    nll: Option<String>,
    nll_clip: Option<String>,
    solved: Option<String>,
    evaluations: Option<String>,
    #[serde(default)]
    pdf_lines: Vec<u32>,
    #[serde(default)]
    repeats: Option<String>,
}

/// A paper's published tables.
#[derive(Debug, Clone, Serialize)]
pub struct Published {
    pub name: String,
    pub paper: String,
    /// Seeds behind each published mean ± std.
    pub seeds: Option<u32>,
    /// The texts it was transcribed from, by the names the tables use.
    pub sources: BTreeMap<String, String>,
    pub notes: Vec<String>,
    pub tables: Vec<PublishedTable>,
}

/// One published table.
#[derive(Debug, Clone, Serialize)]
pub struct PublishedTable {
    /// The paper's number ("1", "5", "12").
    pub id: String,
    pub kind: Table,
    pub model: String,
    pub title: String,
    /// Where it was transcribed from (file, page, lines).
    pub source: String,
    pub notes: Vec<String>,
    pub rows: Vec<PublishedRow>,
}

/// A configuration, named with our report's axes (`None`: the axis does not
/// apply, as for a baseline heuristic).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Config {
    pub domain: String,
    pub model: Option<String>,
    pub distribution: Option<String>,
    pub sigma: Option<String>,
    pub residual: Option<String>,
    pub bound: Option<String>,
    /// Planning only: N, N+clip, TN, or the baseline heuristic's name.
    pub estimate: Option<String>,
}

/// One row of a published table: a configuration and its cells.
#[derive(Debug, Clone, Serialize)]
pub struct PublishedRow {
    pub config: Config,
    /// (metric, value) in our report's metric names.
    pub cells: Vec<(String, Value)>,
    /// Another table that prints the same configuration (same means).
    pub repeats: Option<String>,
    /// Lines of the source text (pdf_text) holding this row's cells.
    pub lines: Vec<u32>,
}

/// A published value: the printed text and what it means.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Value {
    /// As printed: ".76±.1", "(8.9±1.8)e8", "1".
    pub text: String,
    pub mean: f64,
    /// None where no std was printed.
    pub std: Option<f64>,
    /// Half a unit in the last printed digit of the mean, and of the std.
    pub mean_rounding: f64,
    pub std_rounding: f64,
}

impl Value {
    /// Parses a printed cell; a ratio (`solved`) counts at least two decimals.
    pub fn parse(text: &str, metric: &str) -> Result<Value, String> {
        let bad = || format!("{text:?} is not mean±std, mean, or (mean±std)eK");
        let t = text.trim();
        let (body, exp) = match t.strip_prefix('(') {
            Some(rest) => {
                let (inner, tail) = rest.split_once(')').ok_or_else(bad)?;
                let e: i32 = tail.strip_prefix('e').ok_or_else(bad)?.parse().map_err(|_| bad())?;
                (inner, e)
            }
            None => (t, 0),
        };
        let (m, s) = match body.split_once('±') {
            Some((m, s)) => (m, Some(s)),
            None => (body, None),
        };
        let min_decimals = if metric == "solved" { 2 } else { 0 };
        let number = |x: &str| -> Result<(f64, f64), String> {
            if x.is_empty() || !x.chars().all(|c| c.is_ascii_digit() || c == '.') {
                return Err(bad());
            }
            let v: f64 = x.parse().map_err(|_| bad())?;
            let decimals = x.split_once('.').map_or(0, |(_, d)| d.len()).max(min_decimals);
            let scale = 10f64.powi(exp);
            Ok((v * scale, 0.5 * 10f64.powi(-(decimals as i32)) * scale))
        };
        let (mean, mean_rounding) = number(m)?;
        let (std, std_rounding) = match s {
            Some(s) => {
                let (v, r) = number(s)?;
                (Some(v), r)
            }
            None => (None, 0.0),
        };
        Ok(Value { text: t.to_string(), mean, std, mean_rounding, std_rounding })
    }
}

fn check(what: &str, v: &Option<String>, allowed: &[&str]) -> Result<(), String> {
    match v {
        Some(x) if !allowed.contains(&x.as_str()) => Err(format!("{what} {x:?}: not one of {}", allowed.join(", "))),
        _ => Ok(()),
    }
}

fn source(t: &RawTable) -> String {
    let mut parts = vec![];
    if let Some(s) = &t.pdf_text {
        let page = s.page.map(|p| format!(" text page {p},")).unwrap_or_default();
        parts.push(format!("pdf_text{page} lines {}-{}", s.lines[0], s.lines[1]));
    }
    if let Some(s) = &t.arxiv_html {
        parts.push(format!("arxiv_html lines {}-{}", s.lines[0], s.lines[1]));
    }
    parts.join("; ")
}

/// Reads a fixture (TOML, the form of `reports/published/ijcai24.toml`).
pub fn parse(text: &str) -> Result<Published, String> {
    let raw: RawFixture = toml::from_str(text).map_err(|e| e.to_string())?;
    let ids: BTreeSet<&str> = raw.tables.iter().map(|t| t.id.as_str()).collect();
    let mut tables = vec![];
    for t in &raw.tables {
        let at = |e: String| format!("table {}: {e}", t.id);
        let kind = match t.kind.as_str() {
            "accuracy" => Table::Accuracy,
            "planning" => Table::Planning,
            k => return Err(at(format!("kind {k:?}: accuracy or planning"))),
        };
        check("model", &Some(t.model.clone()), &MODELS).map_err(at)?;
        let repeats_ok = |r: &Option<String>| match r {
            Some(r) if !ids.contains(r.as_str()) || *r == t.id => {
                Err(format!("repeats {r:?}: no other table of that id"))
            }
            _ => Ok(()),
        };
        repeats_ok(&t.repeats).map_err(at)?;
        if kind == Table::Planning && !t.baselines.is_empty() {
            return Err(at("a planning table's baselines are rows with estimate = \"ff\"".into()));
        }
        let mut rows = vec![];
        for b in &t.baselines {
            check("domain", &Some(b.domain.clone()), &DOMAINS).map_err(at)?;
            repeats_ok(&b.repeats).map_err(at)?;
            let mut cells = vec![];
            for (metric, v) in [("ff_mse", &b.ff_mse), ("lmcut_mse", &b.lmcut_mse)] {
                if let Some(v) = v {
                    cells.push((metric.to_string(), Value::parse(v, metric).map_err(at)?));
                }
            }
            let config = Config {
                domain: b.domain.clone(),
                model: None,
                distribution: None,
                sigma: None,
                residual: None,
                bound: None,
                estimate: None,
            };
            rows.push(PublishedRow {
                config,
                cells,
                repeats: b.repeats.clone().or_else(|| t.repeats.clone()),
                lines: b.pdf_lines.clone(),
            });
        }
        for r in &t.rows {
            let at = |e: String| at(format!("{} row: {e}", r.domain));
            check("domain", &Some(r.domain.clone()), &DOMAINS).map_err(at)?;
            check("distribution", &r.distribution, &DISTRIBUTIONS).map_err(at)?;
            check("sigma", &r.sigma, &SIGMAS).map_err(at)?;
            check("residual", &r.residual, &RESIDUALS).map_err(at)?;
            check("bound", &r.bound, &BOUNDS).map_err(at)?;
            repeats_ok(&r.repeats).map_err(at)?;
            let baseline = r.distribution.is_none();
            let named = [&r.sigma, &r.residual, &r.bound].iter().all(|a| a.is_some() != baseline);
            if !named {
                return Err(at("a learned row names distribution, sigma, residual and bound; a baseline none".into()));
            }
            if baseline && kind == Table::Accuracy {
                return Err(at("an accuracy table's baselines go in `baselines`".into()));
            }
            let values: [(&str, &Option<String>); 6] = [
                ("mse", &r.mse),
                ("mse_clip", &r.mse_clip),
                ("nll", &r.nll),
                ("nll_clip", &r.nll_clip),
                ("solved", &r.solved),
                ("evaluations", &r.evaluations),
            ];
            let allowed: &[&str] = if kind == Table::Accuracy { &ACCURACY_METRICS } else { &PLANNING_METRICS };
            let mut cells = vec![];
            for (metric, v) in values {
                if let Some(v) = v {
                    if !allowed.contains(&metric) {
                        return Err(at(format!("{metric} in a {} table", t.kind)));
                    }
                    cells.push((metric.to_string(), Value::parse(v, metric).map_err(at)?));
                }
            }
            match (kind, &r.estimate) {
                (Table::Accuracy, Some(e)) => return Err(at(format!("estimate {e:?} in an accuracy table"))),
                (Table::Planning, None) => return Err(at("a planning row needs an estimate".into())),
                (Table::Planning, Some(e)) if baseline && ESTIMATES.contains(&e.as_str()) => {
                    return Err(at(format!("estimate {e:?} needs a distribution")));
                }
                (Table::Planning, Some(e)) if !baseline => {
                    check("estimate", &Some(e.clone()), &ESTIMATES).map_err(at)?
                }
                _ => {}
            }
            let config = Config {
                domain: r.domain.clone(),
                model: (!baseline).then(|| t.model.clone()),
                distribution: r.distribution.clone(),
                sigma: r.sigma.clone(),
                residual: r.residual.clone(),
                bound: r.bound.clone(),
                estimate: r.estimate.clone(),
            };
            rows.push(PublishedRow {
                config,
                cells,
                repeats: r.repeats.clone().or_else(|| t.repeats.clone()),
                lines: r.pdf_lines.clone(),
            });
        }
        tables.push(PublishedTable {
            id: t.id.clone(),
            kind,
            model: t.model.clone(),
            title: t.title.clone(),
            source: source(t),
            notes: t.notes.clone(),
            rows,
        });
    }
    Ok(Published { name: raw.name, paper: raw.paper, seeds: raw.seeds, sources: raw.sources, notes: raw.notes, tables })
}

/// The published tables `--against` names: a built-in name (`ijcai24`) or
/// the path of a fixture file.
pub fn load(name_or_path: &str) -> Result<Published, String> {
    if let Some((_, text)) = BUILT_IN.iter().find(|(n, _)| *n == name_or_path) {
        return parse(text).map_err(|e| format!("built-in {name_or_path}: {e}"));
    }
    let path = std::path::Path::new(name_or_path);
    if !path.exists() {
        let mut names: Vec<&str> = BUILT_IN.iter().map(|(n, _)| *n).collect();
        names.push(super::runs::NAME);
        return Err(format!(
            "no published tables {name_or_path:?}: {} or the path of a fixture file",
            names.join(", ")
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name_or_path}: {e}"))?;
    parse(&text).map_err(|e| format!("{name_or_path}: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::published::testdata::ijcai24;

    #[test]
    fn the_fixture_has_every_table_and_row() {
        let p = ijcai24();
        assert_eq!(p.name, "ijcai24");
        assert_eq!(p.seeds, Some(5));
        let rows: Vec<(&str, usize)> = p.tables.iter().map(|t| (t.id.as_str(), t.rows.len())).collect();
        assert_eq!(
            rows,
            [
                ("1", 36),
                ("2", 28),
                ("4", 36),
                ("5", 52),
                ("6", 36),
                ("7", 52),
                ("8", 36),
                ("9", 52),
                ("11", 28),
                ("12", 40),
                ("13", 28),
                ("14", 40)
            ]
        );
        let cells: usize = p.tables.iter().flat_map(|t| &t.rows).map(|r| r.cells.len()).sum();
        assert_eq!(cells, 888, "the checker (tools/reference/published_tables.py) counts 888");
        let own: usize =
            p.tables.iter().flat_map(|t| &t.rows).filter(|r| r.repeats.is_none()).map(|r| r.cells.len()).sum();
        assert_eq!(own, 604);
        // Spot checks, one per kind of cell.
        let t6 = &p.tables[4];
        assert_eq!((t6.id.as_str(), t6.kind, t6.model.as_str()), ("6", Table::Accuracy, "hgn"));
        let ferry = t6.rows.iter().find(|r| r.config.domain == "ferry" && r.config.model.is_some()).unwrap();
        assert_eq!(ferry.cells[0].1.mean, 8.9e8);
        assert_eq!(ferry.cells[0].1.std, Some(1.8e8));
        let t5 = &p.tables[3];
        assert!(t5.source.contains("lines 1416-1433"), "{}", t5.source);
        let ff = &t5.rows[0];
        assert_eq!(ff.config.estimate.as_deref(), Some("ff"));
        assert_eq!(ff.config.model, None);
        assert_eq!(ff.cells[1].1.mean, 9309.0);
        assert_eq!(ff.cells[1].1.std, None);
    }

    #[test]
    fn printed_values_parse_with_their_rounding() {
        let v = Value::parse(".76±.1", "mse").unwrap();
        assert_eq!((v.mean, v.std), (0.76, Some(0.1)));
        assert!((v.mean_rounding - 0.005).abs() < 1e-12 && (v.std_rounding - 0.05).abs() < 1e-12);
        let v = Value::parse("(2.4±2.8)e5", "mse").unwrap();
        assert_eq!((v.mean, v.std), (2.4e5, Some(2.8e5)));
        assert!((v.mean_rounding - 5e3).abs() < 1e-6);
        let v = Value::parse("1", "solved").unwrap();
        assert_eq!((v.mean, v.std), (1.0, None));
        assert!((v.mean_rounding - 0.005).abs() < 1e-12, "a ratio counts two decimals");
        assert_eq!(Value::parse("10000±0", "evaluations").unwrap().std, Some(0.0));
        for bad in ["", "±.1", ".7x", "(1±2)", "(1±2)e", "1±", "–"] {
            assert!(Value::parse(bad, "mse").is_err(), "{bad:?}");
        }
    }

    #[test]
    fn fixtures_are_checked_when_read() {
        let ok = "name = \"x\"\npaper = \"p\"\n[[tables]]\nid = \"1\"\nkind = \"planning\"\nmodel = \"nlm\"\ntitle = \"t\"\nrows = [ { domain = \"gripper\", estimate = \"ff\", solved = \".5\" } ]\n";
        assert_eq!(parse(ok).unwrap().tables[0].rows.len(), 1);
        for (from, to, why) in [
            ("\"gripper\"", "\"grippper\"", "domain"),
            ("planning", "curves", "kind"),
            ("solved = \".5\"", "solved = \".5x\"", "not mean"),
            ("solved", "mse", "mse in a planning table"),
            ("estimate = \"ff\", ", "", "needs an estimate"),
            ("title = \"t\"", "title = \"t\"\nrepeats = \"2\"", "repeats"),
            ("domain = \"gripper\",", "domain = \"gripper\", sigma = \"learn\",", "baseline none"),
            ("title", "titel", "unknown field"),
        ] {
            let err = parse(&ok.replacen(from, to, 1)).unwrap_err();
            assert!(err.contains(why), "{from} -> {to}: {err}");
        }
        assert!(load("no-such-table").unwrap_err().contains("ijcai24, pddlsl-runs or the path"));
    }
}
