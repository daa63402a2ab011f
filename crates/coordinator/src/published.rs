//! Published numbers beside ours: `hfarm report EXPERIMENT --against ijcai24`.
//!
//! A published fixture (`reports/published/ijcai24.toml`, embedded here) holds
//! a paper's tables cell by cell, as printed ("mean±std"), each row named with
//! our axes (domain, model, distribution, sigma, residual, bound, estimate).
//! [`compare`] matches every published cell to the row of one of our report
//! tables (`schema::reports::table`) with the same configuration and puts
//! ours beside theirs, with z = (ours - theirs) / their std and a marker where
//! ours falls outside their mean ± 2 std. All pure functions: no database.
//!
//! The rules, in one place:
//! - *Which cells*: those of the report's kind (accuracy or planning) that
//!   pass the report's filter (a published baseline, having no model, passes a
//!   model filter as ours does); by default only rows not marked
//!   `repeats = "T"` (a configuration printed again in another table is
//!   compared once, with table T); with a table id, that table's rows only.
//! - *Matching*: every axis equal. The bound may differ only where the value
//!   does not depend on it: a Gaussian's MSE and NLL, and planning with the
//!   Gaussian's unclipped mean (estimate N); there the row with the same bound
//!   is preferred, then one without a bound, then any.
//! - *Verdict*: with their std s > 0, z = (ours - mean) / s and ours is
//!   within when |z| <= 2. Where they printed a std of 0 or none (hFF and
//!   hLMcut, ratios printed as 1 or 0, linear planning's ±0) there is no z,
//!   and ours is within when it could round to what they printed: |ours -
//!   mean| <= half a unit in the mean's last printed digit plus twice half a
//!   unit in the std's (a printed ratio counts two decimals).
//! - A published cell without a row or column of ours is counted apart:
//!   "N of M cells within 2 std; K published cells without a result of ours".

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use schema::reports::{Cell, Filter, Report, Table};
use serde::{Deserialize, Serialize};

use crate::report::Format;

/// The fixture of the IJCAI 2024 paper (Tables 1, 2, 4-9, 11-14).
pub const IJCAI24: &str = include_str!("../../../reports/published/ijcai24.toml");

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
        let names: Vec<&str> = BUILT_IN.iter().map(|(n, _)| *n).collect();
        return Err(format!(
            "no published tables {name_or_path:?}: {} or the path of a fixture file",
            names.join(", ")
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name_or_path}: {e}"))?;
    parse(&text).map_err(|e| format!("{name_or_path}: {e}"))
}

/// Ours for one published cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ours {
    pub mean: f64,
    pub std: Option<f64>,
    pub seeds: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Within,
    Outside,
    NoResult,
}

/// One published cell beside ours.
#[derive(Debug, Clone, Serialize)]
pub struct Compared {
    pub table: String,
    #[serde(flatten)]
    pub config: Config,
    pub metric: String,
    pub ours: Option<Ours>,
    pub theirs: Value,
    /// (ours - theirs) / their std; None where their std is 0 or absent.
    pub z: Option<f64>,
    pub verdict: Verdict,
    /// Why there is no z or no result, when there is a reason to give.
    pub note: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Cells with a result of ours.
    pub compared: usize,
    /// Of those, within their mean ± 2 std.
    pub within: usize,
    /// Published cells without a result of ours.
    pub missing: usize,
    /// Compared cells whose published std is 0 or absent (judged by rounding).
    pub without_std: usize,
}

impl Summary {
    pub fn line(&self) -> String {
        format!(
            "{} of {} cells within 2 std; {} published cells without a result of ours",
            self.within, self.compared, self.missing
        )
    }
}

/// A report table beside the published one.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub against: String,
    pub paper: String,
    pub table: Table,
    pub rows: Vec<Compared>,
    pub summary: Summary,
}

/// Our report's columns by name, and how to read a row's configuration.
struct Columns<'a> {
    report: &'a Report,
}

impl Columns<'_> {
    fn index(&self, name: &str) -> Option<usize> {
        self.report.columns.iter().position(|c| c == name)
    }

    fn text<'r>(&self, row: &'r [Cell], name: &str) -> Option<&'r str> {
        match self.index(name).map(|i| &row[i]) {
            Some(Cell::Text(Some(t))) => Some(t.as_str()),
            _ => None,
        }
    }

    fn num(&self, row: &[Cell], name: &str) -> Option<f64> {
        match self.index(name).map(|i| &row[i]) {
            Some(Cell::Num(v)) => *v,
            Some(Cell::Int(i)) => Some(*i as f64),
            _ => None,
        }
    }
}

fn passes(c: &Config, f: &Filter) -> bool {
    let open = |mine: &Option<String>, want: &Option<String>| match (mine, want) {
        (_, None) | (None, _) => true,
        (Some(m), Some(w)) => m == w,
    };
    f.domain.as_ref().is_none_or(|d| *d == c.domain)
        && open(&c.model, &f.model)
        && open(&c.bound, &f.bound)
        && open(&c.residual, &f.residual)
}

/// Whether the value does not depend on the bound (a Gaussian's MSE or NLL,
/// or planning with its unclipped mean).
fn bound_free(c: &Config, metric: &str) -> bool {
    c.distribution.as_deref() == Some("gaussian")
        && (matches!(metric, "mse" | "nll") || c.estimate.as_deref() == Some("N"))
}

/// Our row for a published configuration, or why there is none.
fn find<'r>(cols: &Columns, report: &'r Report, c: &Config, metric: &str) -> Result<&'r [Cell], String> {
    let baseline_mse = matches!(metric, "ff_mse" | "lmcut_mse");
    let same = |row: &[Cell]| {
        let eq = |name: &str, want: &Option<String>| cols.text(row, name) == want.as_deref();
        cols.text(row, "domain") == Some(c.domain.as_str())
            && (baseline_mse
                || (eq("model", &c.model)
                    && eq("distribution", &c.distribution)
                    && eq("sigma", &c.sigma)
                    && eq("residual", &c.residual)
                    && (report.table != Table::Planning || eq("estimate", &c.estimate))))
    };
    let candidates: Vec<&[Cell]> = report.rows.iter().map(Vec::as_slice).filter(|r| same(r)).collect();
    if baseline_mse {
        // hFF's and hLMcut's MSE on the test states: a column of every row of the domain.
        let column = metric;
        return candidates
            .into_iter()
            .find(|r| cols.num(r, column).is_some())
            .ok_or_else(|| format!("no {column} of ours for {}", c.domain));
    }
    let bound = |r: &[Cell]| cols.text(r, "bound").map(str::to_owned);
    if let Some(r) = candidates.iter().find(|r| bound(r).as_deref() == c.bound.as_deref()) {
        return Ok(r);
    }
    if bound_free(c, metric) {
        if let Some(r) = candidates.iter().find(|r| bound(r).is_none()).or(candidates.first()) {
            return Ok(r);
        }
    }
    Err("no such configuration in our report".into())
}

fn judge(ours: f64, theirs: &Value) -> (Option<f64>, Verdict, Option<String>) {
    match theirs.std {
        Some(s) if s > 0.0 => {
            let z = (ours - theirs.mean) / s;
            (Some(z), if z.abs() <= 2.0 { Verdict::Within } else { Verdict::Outside }, None)
        }
        std => {
            let slack = theirs.mean_rounding + 2.0 * theirs.std_rounding;
            let verdict = if (ours - theirs.mean).abs() <= slack { Verdict::Within } else { Verdict::Outside };
            let note = if std.is_some() { "their std is 0" } else { "no published std" };
            (None, verdict, Some(format!("{note}: judged by their rounding, ±{}", num(slack))))
        }
    }
}

/// Whether `id` names a published table of this kind (None: any is fine).
pub fn check_table(published: &Published, kind: Table, id: Option<&str>) -> Result<(), String> {
    let Some(id) = id else { return Ok(()) };
    let t = published.tables.iter().find(|t| t.id == id).ok_or_else(|| {
        let ids: Vec<&str> = published.tables.iter().map(|t| t.id.as_str()).collect();
        format!("{} has no table {id}: {}", published.name, ids.join(", "))
    })?;
    if t.kind != kind {
        let k = t.kind.as_str();
        return Err(format!("Table {id} of {} is a {k} table: use --table {k}", published.name));
    }
    Ok(())
}

/// Puts `report` beside the published cells of its kind. `only_table`: one
/// published table (all its rows, repeated ones included) instead of every
/// table's own rows.
pub fn compare(
    published: &Published,
    report: &Report,
    filter: &Filter,
    only_table: Option<&str>,
) -> Result<Comparison, String> {
    if report.table == Table::Curves {
        return Err("--against compares --table accuracy or planning".into());
    }
    check_table(published, report.table, only_table)?;
    let cols = Columns { report };
    let mut rows = vec![];
    let mut summary = Summary::default();
    for t in &published.tables {
        let chosen = match only_table {
            Some(id) => t.id == id,
            None => t.kind == report.table,
        };
        if !chosen {
            continue;
        }
        for r in &t.rows {
            if (only_table.is_none() && r.repeats.is_some()) || !passes(&r.config, filter) {
                continue;
            }
            for (metric, theirs) in &r.cells {
                let (mean_col, std_col) = if metric.ends_with("_mse") && metric != "mse" {
                    (metric.clone(), None)
                } else {
                    (format!("{metric}_mean"), Some(format!("{metric}_std")))
                };
                let found = if cols.index(&mean_col).is_none() {
                    Err(format!("our {} table has no column {mean_col}", report.table.as_str()))
                } else {
                    find(&cols, report, &r.config, metric)
                };
                let ours = found.as_ref().ok().and_then(|row| {
                    let mean = cols.num(row, &mean_col)?;
                    let std = std_col.as_ref().and_then(|c| cols.num(row, c));
                    let seeds = cols.num(row, "seeds").map(|s| s as i64).filter(|_| std_col.is_some());
                    Some(Ours { mean, std, seeds })
                });
                let (z, verdict, note) = match (&ours, &found) {
                    (Some(o), _) => judge(o.mean, theirs),
                    (None, Err(why)) => (None, Verdict::NoResult, Some(why.clone())),
                    (None, Ok(_)) => (None, Verdict::NoResult, Some("our value is empty".into())),
                };
                match verdict {
                    Verdict::NoResult => summary.missing += 1,
                    v => {
                        summary.compared += 1;
                        summary.within += usize::from(v == Verdict::Within);
                        summary.without_std += usize::from(z.is_none());
                    }
                }
                rows.push(Compared {
                    table: t.id.clone(),
                    config: r.config.clone(),
                    metric: metric.clone(),
                    ours,
                    theirs: theirs.clone(),
                    z,
                    verdict,
                    note,
                });
            }
        }
    }
    Ok(Comparison {
        against: published.name.clone(),
        paper: published.paper.clone(),
        table: report.table,
        rows,
        summary,
    })
}

/// The marker of a cell outside their mean ± 2 std.
pub const OUTSIDE: &str = "✗";

fn num(v: f64) -> String {
    Cell::Num(Some(v)).text()
}

fn ours_text(o: &Option<Ours>) -> String {
    match o {
        None => "—".into(),
        Some(Ours { mean, std: Some(s), .. }) => format!("{} ± {}", num(*mean), num(*s)),
        Some(Ours { mean, .. }) => num(*mean),
    }
}

fn z_text(c: &Compared) -> String {
    match (c.z, c.theirs.std, c.verdict) {
        (_, _, Verdict::NoResult) => String::new(),
        (Some(z), _, _) => format!("{z:+.2}"),
        (None, Some(_), _) => "std 0".into(),
        (None, None, _) => "no std".into(),
    }
}

fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Within => "",
        Verdict::Outside => OUTSIDE,
        Verdict::NoResult => "no result",
    }
}

fn config_fields(c: &Config, planning: bool) -> Vec<String> {
    let o = |v: &Option<String>| v.clone().unwrap_or_default();
    let mut f = vec![c.domain.clone(), o(&c.model), o(&c.distribution), o(&c.sigma), o(&c.residual), o(&c.bound)];
    if planning {
        f.push(o(&c.estimate));
    }
    f
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The comparison as Markdown (with its summary line), CSV or JSON.
pub fn render(c: &Comparison, format: Format) -> Result<String, String> {
    let planning = c.table == Table::Planning;
    let mut config_cols = vec!["domain", "model", "distribution", "sigma", "residual", "bound"];
    if planning {
        config_cols.push("estimate");
    }
    match format {
        Format::Json => serde_json::to_string_pretty(c).map(|s| s + "\n").map_err(|e| e.to_string()),
        Format::Csv => {
            let mut cols = vec!["table"];
            cols.extend(&config_cols);
            cols.extend([
                "metric",
                "ours_mean",
                "ours_std",
                "seeds",
                "theirs",
                "theirs_mean",
                "theirs_std",
                "z",
                "verdict",
                "note",
            ]);
            let mut s = cols.join(",") + "\n";
            let opt = |v: Option<f64>| v.map(|x| format!("{x}")).unwrap_or_default();
            for r in &c.rows {
                let mut f = vec![r.table.clone()];
                f.extend(config_fields(&r.config, planning));
                f.push(r.metric.clone());
                f.push(opt(r.ours.as_ref().map(|o| o.mean)));
                f.push(opt(r.ours.as_ref().and_then(|o| o.std)));
                f.push(r.ours.as_ref().and_then(|o| o.seeds).map(|n| n.to_string()).unwrap_or_default());
                f.push(r.theirs.text.clone());
                f.push(format!("{}", r.theirs.mean));
                f.push(opt(r.theirs.std));
                f.push(opt(r.z));
                f.push(
                    serde_json::to_value(r.verdict).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default(),
                );
                f.push(r.note.clone().unwrap_or_default());
                s += &(f.iter().map(|x| csv_field(x)).collect::<Vec<_>>().join(",") + "\n");
            }
            Ok(s)
        }
        Format::Md => {
            let mut s = String::new();
            let _ = writeln!(
                s,
                "Against {} ({}), {}: ours is mean ± std over our seeds (n), theirs as printed; z = (ours - theirs) / their std; {OUTSIDE} = ours outside their mean ± 2 std.\n",
                c.against,
                c.paper,
                c.table.as_str()
            );
            let mut cols = vec!["table"];
            cols.extend(&config_cols);
            cols.extend(["metric", "ours", "n", "theirs", "z", ""]);
            let _ = writeln!(s, "| {} |\n|{}", cols.join(" | "), "---|".repeat(cols.len()));
            for r in &c.rows {
                let mut f = vec![r.table.clone()];
                f.extend(config_fields(&r.config, planning));
                f.push(r.metric.clone());
                f.push(ours_text(&r.ours));
                f.push(r.ours.as_ref().and_then(|o| o.seeds).map(|n| n.to_string()).unwrap_or_default());
                f.push(r.theirs.text.clone());
                f.push(z_text(r));
                f.push(mark(r.verdict).to_string());
                let _ = writeln!(s, "| {} |", f.join(" | "));
            }
            let _ = writeln!(s, "\n{}", c.summary.line());
            Ok(s)
        }
        Format::Latex | Format::Svg => Err(format!("--against prints md, csv or json, not {}", format.as_str())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Cell {
        Cell::Text(Some(s.to_string()))
    }

    const NONE: Cell = Cell::Text(None);

    /// Two configurations of gripper NLM (learn/hFF, l = hLMcut) over 3 seeds,
    /// as `schema::reports::table` returns them.
    fn accuracy() -> Report {
        let columns = [
            "domain",
            "model",
            "distribution",
            "sigma",
            "residual",
            "bound",
            "seeds",
            "test_states",
            "mse_mean",
            "mse_std",
            "mse_clip_mean",
            "mse_clip_std",
            "nll_mean",
            "nll_std",
            "ff_mse",
            "lmcut_mse",
        ];
        let row = |dist: &str, mse: f64, clip: f64| {
            vec![
                text("gripper"),
                text("nlm"),
                text(dist),
                text("learn"),
                text("ff"),
                text("lmcut"),
                Cell::Int(3),
                Cell::Int(40),
                Cell::Num(Some(mse)),
                Cell::Num(Some(0.5)),
                Cell::Num(Some(clip)),
                Cell::Num(Some(0.4)),
                Cell::Num(Some(2.0)),
                Cell::Num(Some(0.1)),
                Cell::Num(Some(9.93)),
                Cell::Num(Some(20.0)),
            ]
        };
        Report {
            table: Table::Accuracy,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            // Gaussian mse 5.0 (theirs 3.65±.9: z = +1.5), +clip 3.0 (3.65±.7: z = -0.93);
            // TN mse 1.0 (theirs 3.70±.9: z = -3.0, outside).
            rows: vec![row("gaussian", 5.0, 3.0), row("truncated", 1.0, 1.0)],
        }
    }

    fn planning() -> Report {
        let columns = [
            "domain",
            "model",
            "distribution",
            "sigma",
            "residual",
            "bound",
            "estimate",
            "seeds",
            "instances",
            "solved_mean",
            "solved_std",
            "evaluations_mean",
            "evaluations_std",
        ];
        let row = |dist: Option<&str>, bound: Option<&str>, est: &str, solved: f64, evals: f64| {
            let t = |v: Option<&str>| v.map(text).unwrap_or(NONE);
            let learned = dist.is_some();
            vec![
                text("gripper"),
                t(learned.then_some("nlm")),
                t(dist),
                t(learned.then_some("learn")),
                t(learned.then_some("ff")),
                t(bound),
                text(est),
                Cell::Int(if learned { 3 } else { 1 }),
                Cell::Int(100),
                Cell::Num(Some(solved)),
                Cell::Num(Some(if learned { 0.01 } else { 0.0 })),
                Cell::Num(Some(evals)),
                Cell::Num(Some(if learned { 100.0 } else { 0.0 })),
            ]
        };
        Report {
            table: Table::Planning,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: vec![
                // N plans without a bound: it must match the paper's N (l = hLMcut) cell.
                row(Some("gaussian"), None, "N", 1.0, 1700.0),
                row(Some("gaussian"), Some("lmcut"), "N+clip", 0.99, 1643.0),
                row(Some("truncated"), Some("lmcut"), "TN", 1.0, 3000.0),
                row(None, None, "ff", 0.96, 3918.0),
            ],
        }
    }

    fn ijcai24() -> Published {
        load("ijcai24").expect("the built-in fixture parses")
    }

    fn cell<'c>(c: &'c Comparison, table: &str, dist: Option<&str>, est: Option<&str>, metric: &str) -> &'c Compared {
        c.rows
            .iter()
            .find(|r| {
                r.table == table
                    && r.config.domain == "gripper"
                    && r.config.distribution.as_deref() == dist
                    && r.config.estimate.as_deref() == est
                    && r.metric == metric
                    && r.verdict != Verdict::NoResult
            })
            .unwrap_or_else(|| panic!("no compared cell {table} {dist:?} {est:?} {metric}"))
    }

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
    fn accuracy_cells_match_by_configuration_with_z_and_marker() {
        let c = compare(&ijcai24(), &accuracy(), &Filter::default(), None).unwrap();
        assert_eq!(c.table, Table::Accuracy);
        // By default Table 4, not its repeat Table 1.
        assert!(c.rows.iter().all(|r| r.table != "1"));
        let n = cell(&c, "4", Some("gaussian"), None, "mse");
        assert_eq!(n.theirs.text, "3.65±.9");
        assert_eq!(n.ours.as_ref().unwrap().seeds, Some(3));
        assert!((n.z.unwrap() - 1.5).abs() < 1e-9);
        assert_eq!(n.verdict, Verdict::Within);
        let clip = cell(&c, "4", Some("gaussian"), None, "mse_clip");
        assert!((clip.z.unwrap() - (3.0 - 3.65) / 0.7).abs() < 1e-9);
        let tn = cell(&c, "4", Some("truncated"), None, "mse");
        assert!((tn.z.unwrap() + 3.0).abs() < 1e-9);
        assert_eq!(tn.verdict, Verdict::Outside);
        // hFF's MSE: no published std, equal up to rounding.
        let ff = cell(&c, "4", None, None, "ff_mse");
        assert_eq!((ff.z, ff.verdict), (None, Verdict::Within));
        let lmcut = cell(&c, "4", None, None, "lmcut_mse");
        assert_eq!((lmcut.z, lmcut.verdict), (None, Verdict::Outside), "20.0 against 15.82");
        // Table 11's Gaussian with l = hmax: its MSE does not depend on the bound and matches
        // our l = hLMcut row; its +clip does and has no result; the TN at hmax neither.
        let hmax: Vec<&Compared> = c
            .rows
            .iter()
            .filter(|r| r.table == "11" && r.config.domain == "gripper" && r.config.bound.as_deref() == Some("hmax"))
            .collect();
        let verdicts: Vec<(&str, Verdict)> = hmax.iter().map(|r| (r.metric.as_str(), r.verdict)).collect();
        assert_eq!(
            verdicts,
            [("mse", Verdict::Within), ("mse_clip", Verdict::NoResult), ("mse", Verdict::NoResult)],
            "{hmax:?}"
        );
        assert_eq!(hmax[0].ours.as_ref().unwrap().mean, 5.0);
        // 5 compared cells in Table 4 (N mse, +clip, TN mse, hFF, hLMcut) and Table 11's N at
        // hmax and hblind; Table 8's NLL is linear and Table 6 HGN: no result.
        assert_eq!(c.summary.compared, 7);
        assert_eq!(c.summary.within, 5);
        assert_eq!(c.summary.without_std, 2);
        assert_eq!(c.summary.compared + c.summary.missing, c.rows.len());
        assert_eq!(
            c.summary.line(),
            format!("5 of 7 cells within 2 std; {} published cells without a result of ours", c.rows.len() - 7)
        );
    }

    #[test]
    fn filters_and_a_single_table_select_the_published_cells() {
        let p = ijcai24();
        let nlm = Filter { model: Some("nlm".into()), domain: Some("gripper".into()), ..Filter::default() };
        let c = compare(&p, &accuracy(), &nlm, None).unwrap();
        assert!(c.rows.iter().all(|r| r.config.domain == "gripper"));
        assert!(c.rows.iter().all(|r| r.config.model.as_deref().is_none_or(|m| m == "nlm")));
        assert!(c.rows.iter().any(|r| r.metric == "ff_mse"), "baselines pass a model filter");
        // Table 1 alone, although it repeats Table 4.
        let t1 = compare(&p, &accuracy(), &Filter::default(), Some("1")).unwrap();
        assert!(t1.rows.iter().all(|r| r.table == "1"));
        assert_eq!(t1.rows.len(), 56);
        assert_eq!(t1.summary.compared, 5);
        let err = compare(&p, &accuracy(), &Filter::default(), Some("5")).unwrap_err();
        assert!(err.contains("planning table"), "{err}");
        assert!(compare(&p, &accuracy(), &Filter::default(), Some("3")).unwrap_err().contains("no table 3"));
    }

    #[test]
    fn planning_matches_estimates_and_the_unbounded_gaussian() {
        let c = compare(&ijcai24(), &planning(), &Filter::default(), None).unwrap();
        // Table 5 is compared, not Table 2 (its repeat).
        assert!(c.rows.iter().all(|r| r.table != "2"));
        let n = cell(&c, "5", Some("gaussian"), Some("N"), "evaluations");
        assert_eq!(n.theirs.text, "1642±198");
        assert!((n.z.unwrap() - (1700.0 - 1642.0) / 198.0).abs() < 1e-9);
        // "1" has no std: ours 1.0 is within, 0.99 is not.
        let solved = cell(&c, "5", Some("gaussian"), Some("N"), "solved");
        assert_eq!((solved.z, solved.verdict), (None, Verdict::Within));
        let clip = cell(&c, "5", Some("gaussian"), Some("N+clip"), "solved");
        assert_eq!(clip.verdict, Verdict::Outside);
        let tn = cell(&c, "5", Some("truncated"), Some("TN"), "evaluations");
        assert_eq!(tn.verdict, Verdict::Outside, "3000 against 1637±244");
        let ff = cell(&c, "5", None, Some("ff"), "evaluations");
        assert_eq!((ff.z, ff.verdict), (None, Verdict::Within));
        // Table 12's N at l = hmax is our unbounded N; its N+clip and TN have no result.
        let n_hmax = c
            .rows
            .iter()
            .find(|r| {
                r.table == "12"
                    && r.config.domain == "gripper"
                    && r.config.bound.as_deref() == Some("hmax")
                    && r.config.estimate.as_deref() == Some("N")
                    && r.metric == "evaluations"
            })
            .unwrap();
        assert_eq!(n_hmax.ours.as_ref().unwrap().mean, 1700.0);
    }

    #[test]
    fn std_zero_is_said_and_never_divided_by() {
        let v = Value::parse("964±0", "evaluations").unwrap();
        let (z, verdict, note) = judge(965.0, &v);
        assert_eq!((z, verdict), (None, Verdict::Within), "within the printed rounding (±1.5)");
        assert!(note.unwrap().contains("std is 0"));
        assert_eq!(judge(970.0, &v).1, Verdict::Outside);
        let v = Value::parse(".3±.0", "mse").unwrap();
        assert_eq!(judge(0.39, &v).1, Verdict::Within, ".3±.0: mean within .05, std below .05");
        assert_eq!(judge(0.5, &v).1, Verdict::Outside);
    }

    #[test]
    fn missing_columns_and_rows_are_counted_apart() {
        let mut r = accuracy();
        // Without a column of ours (as nll_clip today), and without any row.
        let c = compare(&ijcai24(), &r, &Filter::default(), Some("8")).unwrap();
        let nll_clip = c.rows.iter().find(|x| x.metric == "nll_clip").unwrap();
        assert_eq!(nll_clip.verdict, Verdict::NoResult);
        assert!(nll_clip.note.as_deref().unwrap().contains("no column nll_clip_mean"));
        r.rows.clear();
        let c = compare(&ijcai24(), &r, &Filter::default(), None).unwrap();
        assert_eq!((c.summary.compared, c.summary.within), (0, 0));
        assert_eq!(c.summary.missing, c.rows.len());
        assert!(compare(
            &ijcai24(),
            &Report { table: Table::Curves, columns: vec![], rows: vec![] },
            &Filter::default(),
            None
        )
        .is_err());
    }

    #[test]
    fn rendering_shows_ours_theirs_z_and_the_marker() {
        let f = Filter { domain: Some("gripper".into()), ..Filter::default() };
        let c = compare(&ijcai24(), &accuracy(), &f, Some("4")).unwrap();
        let md = render(&c, Format::Md).unwrap();
        assert!(md.contains("| table | domain | model | distribution | sigma | residual | bound | metric | ours | n | theirs | z |  |"), "{md}");
        assert!(
            md.contains(
                "| 4 | gripper | nlm | gaussian | learn | ff | lmcut | mse | 5.000 ± 0.500 | 3 | 3.65±.9 | +1.50 |  |"
            ),
            "{md}"
        );
        assert!(md.contains("| 4 | gripper | nlm | truncated | learn | ff | lmcut | mse | 1.000 ± 0.500 | 3 | 3.70±.9 | -3.00 | ✗ |"), "{md}");
        assert!(md.contains("| 4 | gripper |  |  |  |  |  | ff_mse | 9.930 |  | 9.93 | no std |  |"), "{md}");
        assert!(
            md.contains(
                "| 4 | gripper | nlm | gaussian | learn | none | lmcut | mse | — |  | 68.12±16.0 |  | no result |"
            ),
            "{md}"
        );
        assert!(
            md.trim_end().ends_with("3 of 5 cells within 2 std; 9 published cells without a result of ours"),
            "{md}"
        );
        let csv = render(&c, Format::Csv).unwrap();
        let mut lines = csv.lines();
        assert_eq!(
            lines.next().unwrap(),
            "table,domain,model,distribution,sigma,residual,bound,metric,ours_mean,ours_std,seeds,theirs,theirs_mean,theirs_std,z,verdict,note"
        );
        let tn = csv.lines().find(|l| l.starts_with("4,gripper,nlm,truncated,learn,ff,lmcut,mse,")).unwrap();
        assert!(tn.starts_with("4,gripper,nlm,truncated,learn,ff,lmcut,mse,1,0.5,3,3.70±.9,3.7,0.9,"), "{tn}");
        assert!(tn.ends_with(",outside,"), "{tn}");
        assert_eq!(csv.lines().count(), 1 + c.rows.len());
        let json: serde_json::Value = serde_json::from_str(&render(&c, Format::Json).unwrap()).unwrap();
        assert_eq!(json["summary"]["within"], 3);
        assert_eq!(json["rows"][0]["domain"], "gripper");
        assert_eq!(json["rows"][0]["metric"], "ff_mse", "baselines first, as the table lists them");
        assert_eq!(json["rows"][0]["theirs"]["mean"], 9.93);
        assert_eq!(json["rows"][2]["theirs"]["text"], "3.65±.9");
        assert!(render(&c, Format::Latex).is_err());
        // Planning has the estimate column.
        let p = compare(&ijcai24(), &planning(), &Filter::default(), Some("5")).unwrap();
        assert!(render(&p, Format::Md).unwrap().contains("| bound | estimate | metric |"));
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
        assert!(load("no-such-table").unwrap_err().contains("ijcai24 or the path"));
    }
}
