//! Matching published cells to the rows of our report, and the comparison.

use schema::reports::{Cell, Filter, Report, Table};
use serde::Serialize;

use super::fixture::{Config, Published, Value};
use super::verdict::{judge, Ours, Summary, Verdict};

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
                summary.add(verdict, z);
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
#[cfg(test)]
mod tests {
    use super::super::testdata::*;
    use super::*;

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
}
