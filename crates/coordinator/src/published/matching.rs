//! Matching published cells to the rows of our report, and the comparison.

use std::collections::BTreeMap;

use schema::reports::{Cell, Filter, Report, Table, CHECKPOINT};
use serde::Serialize;

use super::fixture::{Config, Published, Value};
use super::mapping;
use super::runs::{self, Checkpoint, Runs, Stat};
use super::verdict::{judge, num, Ours, Summary, Verdict};

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

/// A cell of their per-run results (mean over their seeds) beside ours, or
/// one of ours without theirs.
#[derive(Debug, Clone, Serialize)]
pub struct RunCompared {
    /// Their split: test or test2.
    pub split: String,
    pub checkpoint: Checkpoint,
    /// In our axes' names ([`mapping`]).
    #[serde(flatten)]
    pub config: Config,
    /// Their columns that are no axis of ours (None for a cell of ours only).
    pub train_size: Option<u32>,
    pub decay: Option<String>,
    pub exclude_self: Option<String>,
    pub recursion_steps: Option<u32>,
    /// mse or nll.
    pub metric: String,
    pub ours: Option<Ours>,
    /// Their mean and sample std over their seeds (None for a cell of ours only).
    pub theirs: Option<Value>,
    pub theirs_n: Option<usize>,
    /// (ours - their mean) / their std; None where their std is 0 or either side is missing.
    pub z: Option<f64>,
    pub verdict: Verdict,
    pub note: Option<String>,
}

/// Our accuracy table beside their per-run results.
#[derive(Debug, Clone, Serialize)]
pub struct RunsComparison {
    pub against: String,
    /// Their split our test split stands beside.
    pub ours_split: String,
    /// Each sheet's source (repository, commit, file, sheet).
    pub sources: Vec<String>,
    pub rows: Vec<RunCompared>,
    pub summary: Summary,
    pub by_domain: BTreeMap<String, Summary>,
    pub by_metric: BTreeMap<String, Summary>,
}

/// Their value as a [`Value`] for the verdict: their rounding is half a unit in
/// the 15th significant digit, as the sheets store numbers.
fn run_value(s: &Stat) -> Value {
    let mean_rounding = if s.mean == 0.0 { 0.0 } else { 0.5 * 10f64.powi(s.mean.abs().log10().floor() as i32 - 14) };
    let text = match s.std {
        Some(sd) => format!("{} ± {}", num(s.mean), num(sd)),
        None => num(s.mean),
    };
    Value { text, mean: s.mean, std: s.std, mean_rounding, std_rounding: 0.0 }
}

/// Whether `split` names one of their sheets, and `kind` is accuracy.
pub fn check_runs(runs: &Runs, kind: Table, split: Option<&str>) -> Result<(), String> {
    if kind != Table::Accuracy {
        return Err(format!("{} holds test accuracy only: use --table accuracy", runs::NAME));
    }
    runs::check_split(runs, split)
}

/// Puts our accuracy `report` beside their per-run results, cell by cell:
/// every configuration of theirs (both splits, or `only_split`), both
/// checkpoints, MSE and NLL, their mean ± std over seeds and ours where
/// [`mapping`] says one stands beside it (our test split beside their
/// `only_split`, by default [`mapping::DEFAULT_SPLIT`]; our row of the same
/// checkpoint); then every cell of ours that no cell of theirs matched.
///
/// `report` is `schema::reports::accuracy_by_checkpoint`'s, one row per
/// configuration and checkpoint; without its `checkpoint` column (the plain
/// accuracy table) every row of ours is best-MSE.
pub fn compare_runs(
    runs: &Runs,
    report: &Report,
    filter: &Filter,
    only_split: Option<&str>,
) -> Result<RunsComparison, String> {
    check_runs(runs, report.table, only_split)?;
    let ours_split = mapping::ours_split(only_split);
    let cols = Columns { report };
    let ours_checkpoints: Vec<Checkpoint> = report.rows.iter().map(|r| cols.checkpoint(r)).collect::<Result<_, _>>()?;
    let mut rows = vec![];
    // Our (row, metric) cells that a cell of theirs matched.
    let mut used = vec![[false; runs::METRICS.len()]; report.rows.len()];
    for sheet in &runs.sheets {
        if only_split.is_some_and(|s| s != sheet.split) {
            continue;
        }
        for (their, group) in sheet.configurations() {
            let config = mapping::config(their);
            if !passes(&config, filter) {
                continue;
            }
            for checkpoint in Checkpoint::ALL {
                for (m, metric) in runs::METRICS.iter().enumerate() {
                    let values: Vec<f64> = group.iter().filter_map(|r| r.value(checkpoint, metric)).collect();
                    let stat = Stat::of(&values);
                    let theirs = run_value(&stat);
                    let mean_col = format!("{metric}_mean");
                    let std_col = format!("{metric}_std");
                    let found = match mapping::no_counterpart(&sheet.split, ours_split, checkpoint, their) {
                        Some(why) => Err(why),
                        None if cols.index(&mean_col).is_none() => {
                            Err(format!("our accuracy table has no column {mean_col}"))
                        }
                        None => find(&cols, report, &config, metric, Some(checkpoint)).map_err(|why| {
                            match find(&cols, report, &config, metric, None) {
                                // Ours has the configuration, at another checkpoint only.
                                Ok(_) => format!(
                                    "no {} evaluation of ours (evaluated before migration 0018, or trained without it)",
                                    checkpoint.as_str()
                                ),
                                Err(_) => why,
                            }
                        }),
                    };
                    if let Ok(i) = found {
                        used[i][m] = true;
                    }
                    let ours = found.as_ref().ok().and_then(|&i| cols.ours(&report.rows[i], &mean_col, Some(&std_col)));
                    let (z, verdict, note) = match (&ours, &found) {
                        (Some(o), _) => judge(o.mean, &theirs),
                        (None, Err(why)) => (None, Verdict::NoResult, Some(why.clone())),
                        (None, Ok(_)) => (None, Verdict::NoResult, Some("our value is empty".into())),
                    };
                    rows.push(RunCompared {
                        split: sheet.split.clone(),
                        checkpoint,
                        config: config.clone(),
                        train_size: Some(their.train_size),
                        decay: Some(their.decay.clone()),
                        exclude_self: their.exclude_self.clone(),
                        recursion_steps: their.recursion_steps,
                        metric: metric.to_string(),
                        ours,
                        theirs: Some(theirs),
                        theirs_n: Some(stat.n),
                        z,
                        verdict,
                        note,
                    });
                }
            }
        }
    }
    for (i, row) in report.rows.iter().enumerate() {
        let text = |name: &str| cols.text(row, name).map(str::to_string);
        let config = Config {
            domain: text("domain").unwrap_or_default(),
            model: text("model"),
            distribution: text("distribution"),
            sigma: text("sigma"),
            residual: text("residual"),
            bound: text("bound"),
            estimate: None,
        };
        if config.model.is_none() || !passes(&config, filter) {
            continue; // a baseline's row (not a run), or filtered out
        }
        for (m, metric) in runs::METRICS.iter().enumerate() {
            let ours = cols.ours(row, &format!("{metric}_mean"), Some(&format!("{metric}_std")));
            if used[i][m] || ours.is_none() {
                continue;
            }
            rows.push(RunCompared {
                split: ours_split.to_string(),
                checkpoint: ours_checkpoints[i],
                config: Config {
                    domain: text("domain").unwrap_or_default(),
                    model: text("model"),
                    distribution: text("distribution"),
                    sigma: text("sigma"),
                    residual: text("residual"),
                    bound: text("bound"),
                    estimate: None,
                },
                train_size: None,
                decay: None,
                exclude_self: None,
                recursion_steps: None,
                metric: metric.to_string(),
                ours,
                theirs: None,
                theirs_n: None,
                z: None,
                verdict: Verdict::OursOnly,
                note: Some("no configuration of theirs maps onto this one".into()),
            });
        }
    }
    let mut summary = Summary::default();
    let mut by_domain: BTreeMap<String, Summary> = BTreeMap::new();
    let mut by_metric: BTreeMap<String, Summary> = BTreeMap::new();
    for r in &rows {
        summary.add(r.verdict, r.z);
        by_domain.entry(r.config.domain.clone()).or_default().add(r.verdict, r.z);
        by_metric.entry(r.metric.clone()).or_default().add(r.verdict, r.z);
    }
    let sources = runs
        .sheets
        .iter()
        .filter(|s| only_split.is_none_or(|o| o == s.split))
        .map(|s| format!("{}: {}", s.split, s.source))
        .collect();
    Ok(RunsComparison {
        against: runs::NAME.to_string(),
        ours_split: ours_split.to_string(),
        sources,
        rows,
        summary,
        by_domain,
        by_metric,
    })
}

/// Our report's columns by name, and how to read a row's configuration.
struct Columns<'a> {
    report: &'a Report,
}

impl Columns<'_> {
    fn index(&self, name: &str) -> Option<usize> {
        self.report.columns.iter().position(|c| c == name)
    }

    /// The checkpoint a row of ours evaluated: its `checkpoint` column, or
    /// best-MSE in a report without one (`report_accuracy` reads best-MSE
    /// rows only).
    fn checkpoint(&self, row: &[Cell]) -> Result<Checkpoint, String> {
        if self.index(CHECKPOINT).is_none() {
            return Ok(Checkpoint::BestMse);
        }
        let name = self.text(row, CHECKPOINT);
        name.and_then(Checkpoint::parse).ok_or_else(|| format!("our report has a row of checkpoint {name:?}"))
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

    /// Ours in a row: the mean column's value, the std's and the seeds (n
    /// where the value is a mean over seeds, that is where it has a std column).
    fn ours(&self, row: &[Cell], mean_col: &str, std_col: Option<&str>) -> Option<Ours> {
        let mean = self.num(row, mean_col)?;
        let std = std_col.and_then(|c| self.num(row, c));
        let seeds = self.num(row, "seeds").map(|s| s as i64).filter(|_| std_col.is_some());
        Some(Ours { mean, std, seeds })
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

/// The pyperplan counterpart of a bound (`lmcut` -> `lmcut-pyperplan`): the
/// authors' truncated-Gaussian runs read pyperplan's LM-cut as l
/// (`docs/reproduction-linear-test.md`), so a row of ours bounded by it
/// stands for their `lmcut` cell where no row bounded by Fast Downward's is.
fn pyperplan_counterpart(bound: &str) -> Option<String> {
    let counterpart = jobs::grid::Bound::new(bound).ok()?.pyperplan_counterpart()?;
    Some(counterpart.name().to_string())
}

/// Our row (its index) for a published configuration, or why there is none;
/// `checkpoint`: a row of that checkpoint only ([`Columns::checkpoint`]).
fn find(
    cols: &Columns,
    report: &Report,
    c: &Config,
    metric: &str,
    checkpoint: Option<Checkpoint>,
) -> Result<usize, String> {
    let baseline_mse = matches!(metric, "ff_mse" | "lmcut_mse");
    let same = |row: &[Cell]| {
        let eq = |name: &str, want: &Option<String>| cols.text(row, name) == want.as_deref();
        cols.text(row, "domain") == Some(c.domain.as_str())
            && checkpoint.is_none_or(|ck| cols.checkpoint(row) == Ok(ck))
            && (baseline_mse
                || (eq("model", &c.model)
                    && eq("distribution", &c.distribution)
                    && eq("sigma", &c.sigma)
                    && eq("residual", &c.residual)
                    && (report.table != Table::Planning || eq("estimate", &c.estimate))))
    };
    let candidates: Vec<usize> = (0..report.rows.len()).filter(|&i| same(&report.rows[i])).collect();
    if baseline_mse {
        // hFF's and hLMcut's MSE on the test states: a column of every row of the domain.
        let column = metric;
        return candidates
            .into_iter()
            .find(|&i| cols.num(&report.rows[i], column).is_some())
            .ok_or_else(|| format!("no {column} of ours for {}", c.domain));
    }
    let bound = |i: usize| cols.text(&report.rows[i], "bound");
    if let Some(&i) = candidates.iter().find(|&&i| bound(i) == c.bound.as_deref()) {
        return Ok(i);
    }
    // Their l computed as their code computes it stands for their l.
    let theirs_as_code = c.bound.as_deref().and_then(pyperplan_counterpart);
    if let Some(&i) = candidates.iter().find(|&&i| theirs_as_code.is_some() && bound(i) == theirs_as_code.as_deref()) {
        return Ok(i);
    }
    if bound_free(c, metric) {
        if let Some(&i) = candidates.iter().find(|&&i| bound(i).is_none()).or(candidates.first()) {
            return Ok(i);
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
                    find(&cols, report, &r.config, metric, None)
                };
                let ours = found.as_ref().ok().and_then(|&i| cols.ours(&report.rows[i], &mean_col, std_col.as_deref()));
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

    #[test]
    fn runs_are_compared_per_cell_with_z_and_verdicts() {
        let c = compare_runs(&their_runs(), &our_accuracy(), &Filter::default(), None).unwrap();
        let best = Checkpoint::BestMse;
        let n = run_cell(&c, "test2", best, "gaussian", "lmcut", "0.01", "mse");
        let theirs = n.theirs.as_ref().unwrap();
        assert_eq!((theirs.mean, n.theirs_n), (3.0, Some(5)));
        assert!((theirs.std.unwrap() - 2.5f64.sqrt()).abs() < 1e-12);
        assert_eq!(theirs.text, "3.000 ± 1.581");
        assert!((n.z.unwrap() - 1.2).abs() < 1e-9, "{n:?}");
        assert_eq!((n.verdict, n.ours.as_ref().unwrap().seeds), (Verdict::Within, Some(3)));
        assert_eq!(n.config.model.as_deref(), Some("nlm"));
        assert_eq!(n.config.residual.as_deref(), Some("ff"));
        // Every seed 10: std 0, no z; ours equal, so within.
        let nll = run_cell(&c, "test2", best, "gaussian", "lmcut", "0.01", "nll");
        assert_eq!((nll.z, nll.verdict), (None, Verdict::Within));
        assert!(nll.note.as_deref().unwrap().contains("their std is 0"), "{nll:?}");
        let tn = run_cell(&c, "test2", best, "truncated", "lmcut", "0.01", "mse");
        assert!((tn.z.unwrap() + 2.5).abs() < 1e-9);
        assert_eq!(tn.verdict, Verdict::Outside);
        let tn_nll = run_cell(&c, "test2", best, "truncated", "lmcut", "0.01", "nll");
        assert_eq!((tn_nll.verdict, tn_nll.note.as_deref()), (Verdict::NoResult, Some("our value is empty")));
        // Their Gaussian trained with l = hmax: our Gaussian (at hLMcut) stands in.
        let hmax = run_cell(&c, "test2", best, "gaussian", "hmax", "0.01", "mse");
        assert_eq!((hmax.verdict, hmax.ours.as_ref().unwrap().mean), (Verdict::Within, n.ours.as_ref().unwrap().mean));
        // Their best-NLL checkpoint beside our best-NLL row (not the best-MSE one): MSE z = 0;
        // NLL 9.5 against their 9 at every seed, outside.
        let bnll = Checkpoint::BestNll;
        let bn = run_cell(&c, "test2", bnll, "gaussian", "lmcut", "0.01", "mse");
        assert_eq!(
            (bn.verdict, bn.theirs.as_ref().unwrap().mean, bn.ours.as_ref().unwrap().mean),
            (Verdict::Within, 4.0, 4.0)
        );
        assert!(bn.z.unwrap().abs() < 1e-12, "{bn:?}");
        let bn_nll = run_cell(&c, "test2", bnll, "gaussian", "lmcut", "0.01", "nll");
        assert_eq!((bn_nll.verdict, bn_nll.ours.as_ref().unwrap().mean), (Verdict::Outside, 9.5));
        // Their best-NLL Gaussian at l = hmax: our best-NLL Gaussian at hLMcut stands in.
        let bn_hmax = run_cell(&c, "test2", bnll, "gaussian", "hmax", "0.01", "mse");
        assert_eq!((bn_hmax.verdict, bn_hmax.ours.as_ref().unwrap().mean), (Verdict::Within, 4.0));
        // Our TN has a best-MSE row only.
        let bn_tn = run_cell(&c, "test2", bnll, "truncated", "lmcut", "0.01", "mse");
        assert_eq!(bn_tn.verdict, Verdict::NoResult);
        assert!(bn_tn.note.as_deref().unwrap().starts_with("no best_nll evaluation of ours"), "{bn_tn:?}");
        // No counterpart: their decay 0, their split test.
        let d0 = run_cell(&c, "test2", best, "gaussian", "lmcut", "0", "mse");
        assert_eq!(d0.verdict, Verdict::NoResult);
        assert!(d0.note.as_deref().unwrap().contains("variant decay 0"), "{d0:?}");
        let t = run_cell(&c, "test", best, "gaussian", "lmcut", "0.01", "mse");
        assert_eq!((t.verdict, t.theirs_n, t.theirs.as_ref().unwrap().std), (Verdict::NoResult, Some(1), None));
        // Ours without theirs: the fixed/none Gaussian's MSE and NLL.
        let ours_only: Vec<&RunCompared> = c.rows.iter().filter(|r| r.verdict == Verdict::OursOnly).collect();
        assert_eq!(ours_only.len(), 2);
        assert!(ours_only
            .iter()
            .all(|r| r.config.sigma.as_deref() == Some("fixed") && r.theirs.is_none() && r.checkpoint == best));
        // 4 cells of test, 16 of test2, 2 of ours only.
        assert_eq!(c.rows.len(), 22);
        let s = &c.summary;
        assert_eq!((s.compared, s.within, s.without_std, s.missing, s.ours_only), (9, 6, 4, 11, 2));
        assert_eq!(
            s.runs_line(),
            "6 of 9 cells within 2 std; 11 cells of theirs without a result of ours; 2 of ours without a run of theirs"
        );
        assert_eq!(c.by_domain.keys().collect::<Vec<_>>(), ["gripper"]);
        let (mse, nll) = (&c.by_metric["mse"], &c.by_metric["nll"]);
        assert_eq!((mse.compared, mse.within, nll.compared, nll.within), (5, 4, 4, 2));
    }

    /// Our TN bounded by pyperplan's LM-cut stands for their `lmcut` TN, and
    /// our row bounded by Fast Downward's LM-cut wins where both exist.
    #[test]
    fn a_pyperplan_bound_stands_for_theirs_where_ours_has_none() {
        let bound_at = |r: &Report| r.columns.iter().position(|c| c == "bound").unwrap();
        let mut ours = accuracy();
        let at = bound_at(&ours);
        ours.rows[1][at] = Cell::Text(Some("lmcut-pyperplan".into()));
        let c = compare(&ijcai24(), &ours, &Filter::default(), None).unwrap();
        let tn = cell(&c, "4", Some("truncated"), None, "mse");
        assert_eq!(tn.ours.as_ref().map(|o| o.mean), Some(1.0));
        assert_eq!(tn.verdict, Verdict::Outside);
        let mut both = accuracy();
        let mut pyperplan = both.rows[1].clone();
        pyperplan[at] = Cell::Text(Some("lmcut-pyperplan".into()));
        let mse = both.columns.iter().position(|c| c == "mse_mean").unwrap();
        pyperplan[mse] = Cell::Num(Some(3.7));
        both.rows.insert(1, pyperplan);
        let c = compare(&ijcai24(), &both, &Filter::default(), None).unwrap();
        assert_eq!(cell(&c, "4", Some("truncated"), None, "mse").ours.as_ref().map(|o| o.mean), Some(1.0));
        // hmax has no pyperplan counterpart: nothing stands for it.
        assert_eq!(pyperplan_counterpart("hmax"), None);
        assert_eq!(pyperplan_counterpart("lmcut").as_deref(), Some("lmcut-pyperplan"));
    }

    #[test]
    fn runs_select_a_split_and_a_filter_and_refuse_planning() {
        let runs = their_runs();
        let c = compare_runs(&runs, &our_accuracy(), &Filter::default(), Some("test")).unwrap();
        // Ours beside their test split (one run there: no std, judged by the sheets' digits), per
        // checkpoint.
        assert_eq!(c.ours_split, "test");
        let verdicts: Vec<(&str, Checkpoint, &str, Verdict)> =
            c.rows.iter().map(|r| (r.split.as_str(), r.checkpoint, r.metric.as_str(), r.verdict)).collect();
        let (best, bnll) = (Checkpoint::BestMse, Checkpoint::BestNll);
        assert_eq!(
            verdicts,
            [
                ("test", best, "mse", Verdict::Outside),
                ("test", best, "nll", Verdict::Outside),
                ("test", bnll, "mse", Verdict::Outside),
                ("test", bnll, "nll", Verdict::Outside),
                ("test", best, "mse", Verdict::OursOnly),
                ("test", best, "mse", Verdict::OursOnly),
                ("test", best, "nll", Verdict::OursOnly),
            ]
        );
        assert!(c.rows[0].note.as_deref().unwrap().starts_with("no published std"), "{:?}", c.rows[0]);
        assert_eq!(c.sources, ["test: their test"]);
        let f = Filter { bound: Some("hmax".into()), ..Filter::default() };
        let c = compare_runs(&runs, &our_accuracy(), &f, Some("test2")).unwrap();
        assert!(c.rows.iter().filter(|r| r.theirs.is_some()).all(|r| r.config.bound.as_deref() == Some("hmax")));
        assert_eq!(c.rows.iter().filter(|r| r.theirs.is_some()).count(), 4);
        assert!(c.rows.is_empty() || c.rows.iter().all(|r| r.config.bound.as_deref() == Some("hmax")), "ours only too");
        let err = compare_runs(&runs, &planning(), &Filter::default(), None).unwrap_err();
        assert!(err.contains("use --table accuracy"), "{err}");
        // A checkpoint of ours that is none of theirs.
        let mut last = our_accuracy();
        let at = last.columns.iter().position(|c| c == schema::reports::CHECKPOINT).unwrap();
        last.rows[0][at] = Cell::Text(Some("last".into()));
        let err = compare_runs(&runs, &last, &Filter::default(), None).unwrap_err();
        assert!(err.contains("checkpoint Some(\"last\")"), "{err}");
        assert!(check_runs(&runs, Table::Accuracy, Some("test3")).unwrap_err().contains("no split test3"));
    }

    /// On the built-in runs: our gripper NLM learn/hFF Gaussian stands beside
    /// their Table 1 configuration (decay 0.01, exclude_self False) at l =
    /// hLMcut, and beside their Gaussians trained with l = hmax and hblind.
    #[test]
    fn built_in_runs_match_the_published_variant() {
        let runs = runs::load().unwrap();
        let mut ours = accuracy();
        ours.rows.truncate(1);
        let c = compare_runs(&runs, &ours, &Filter::default(), None).unwrap();
        let compared: Vec<&RunCompared> =
            c.rows.iter().filter(|r| matches!(r.verdict, Verdict::Within | Verdict::Outside)).collect();
        let bounds: Vec<(&str, &str)> =
            compared.iter().map(|r| (r.config.bound.as_deref().unwrap(), r.metric.as_str())).collect();
        assert_eq!(
            bounds,
            [("blind", "mse"), ("blind", "nll"), ("hmax", "mse"), ("hmax", "nll"), ("lmcut", "mse"), ("lmcut", "nll")]
        );
        // A report without a checkpoint column is best-MSE: their best-NLL cells say ours has none.
        let bnll = c
            .rows
            .iter()
            .find(|r| {
                r.checkpoint == Checkpoint::BestNll
                    && r.split == "test2"
                    && r.config == compared[4].config
                    && r.decay == compared[4].decay
                    && r.exclude_self == compared[4].exclude_self
                    && r.train_size == compared[4].train_size
            })
            .unwrap();
        assert_eq!(bnll.verdict, Verdict::NoResult);
        assert!(bnll.note.as_deref().unwrap().starts_with("no best_nll evaluation of ours"), "{bnll:?}");
        assert!(compared.iter().all(|r| r.split == "test2"
            && r.checkpoint == Checkpoint::BestMse
            && r.decay.as_deref() == Some("0.01")
            && r.exclude_self.as_deref() == Some("False")
            && r.train_size == Some(400)
            && r.theirs_n == Some(5)));
        // 480 + 384 configurations, 4 cells each.
        assert_eq!(c.rows.len(), 4 * (480 + 384));
        assert_eq!((c.summary.compared, c.summary.ours_only), (6, 0));
        assert_eq!(c.summary.missing, 4 * (480 + 384) - 6);
        assert_eq!(c.by_domain.len(), 6, "their satellite and logistics are listed too");
    }
}
