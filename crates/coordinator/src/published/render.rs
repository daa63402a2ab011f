//! The comparison as Markdown, CSV or JSON.

use std::fmt::Write as _;

use schema::reports::Table;

use super::fixture::Config;
use super::mapping;
use super::matching::{Compared, Comparison, RunCompared, RunsComparison};
use super::verdict::{num, Ours, Verdict, OUTSIDE};
use crate::report::{csv_field, Format};

/// Ours as "mean ± std" (over our seeds), or "—" for none.
pub(crate) fn ours_text(o: &Option<Ours>) -> String {
    match o {
        None => "—".into(),
        Some(Ours { mean, std: Some(s), .. }) => format!("{} ± {}", num(*mean), num(*s)),
        Some(Ours { mean, .. }) => num(*mean),
    }
}

/// The z column: z, or why there is none where both sides have a value.
pub(crate) fn z_text(z: Option<f64>, their_std: Option<f64>, verdict: Verdict) -> String {
    match (z, their_std, verdict) {
        (_, _, Verdict::NoResult | Verdict::OursOnly) => String::new(),
        (Some(z), _, _) => format!("{z:+.2}"),
        (None, Some(_), _) => "std 0".into(),
        (None, None, _) => "no std".into(),
    }
}

/// The marker column of Markdown.
pub(crate) fn mark(v: Verdict) -> &'static str {
    match v {
        Verdict::Within => "",
        Verdict::Outside => OUTSIDE,
        Verdict::NoResult => "no result",
        Verdict::OursOnly => "ours only",
    }
}

/// The verdict as CSV and JSON name it (`within`, `no_result`, ...).
pub(crate) fn verdict_name(v: Verdict) -> String {
    serde_json::to_value(v).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default()
}

/// An optional number in full precision (CSV), or nothing.
pub(crate) fn opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x}")).unwrap_or_default()
}

/// A CSV table: the header, then one line per row.
pub(crate) fn csv_table(cols: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = cols.join(",") + "\n";
    for r in rows {
        s += &(r.iter().map(|x| csv_field(x)).collect::<Vec<_>>().join(",") + "\n");
    }
    s
}

/// A Markdown table.
pub(crate) fn md_table(cols: &[&str], rows: &[Vec<String>]) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "| {} |\n|{}", cols.join(" | "), "---|".repeat(cols.len()));
    for r in rows {
        let _ = writeln!(s, "| {} |", r.join(" | "));
    }
    s
}

/// A comparison against printed numbers (`likely`, `trunda`) as --against
/// prints it: the whole as JSON, its rows as CSV, or as Markdown under the
/// source and above the summary.
pub(crate) fn printed_comparison<C: serde::Serialize>(
    whole: &C,
    source: &str,
    summary: &str,
    header: &[&str],
    rows: &[Vec<String>],
    format: Format,
) -> Result<String, String> {
    match format {
        Format::Json => serde_json::to_string_pretty(whole).map(|s| s + "\n").map_err(|e| e.to_string()),
        Format::Csv => Ok(csv_table(header, rows)),
        Format::Md => Ok(format!("Published: {source}\n\n{}\n{summary}\n", md_table(header, rows))),
        f => Err(format!("--against prints --format md, csv or json, not {}", f.as_str())),
    }
}

/// Refuses the formats a comparison is not printed in.
pub(crate) fn refuse(format: Format) -> String {
    format!("--against prints md, csv or json, not {}", format.as_str())
}

fn config_fields(c: &Config, planning: bool) -> Vec<String> {
    let o = |v: &Option<String>| v.clone().unwrap_or_default();
    let mut f = vec![c.domain.clone(), o(&c.model), o(&c.distribution), o(&c.sigma), o(&c.residual), o(&c.bound)];
    if planning {
        f.push(o(&c.estimate));
    }
    f
}

/// The comparison as Markdown (with its summary line), CSV or JSON.
pub fn render(c: &Comparison, format: Format) -> Result<String, String> {
    let planning = c.table == Table::Planning;
    let mut cols = vec!["table", "domain", "model", "distribution", "sigma", "residual", "bound"];
    if planning {
        cols.push("estimate");
    }
    let seeds = |r: &Compared| r.ours.as_ref().and_then(|o| o.seeds).map(|n| n.to_string()).unwrap_or_default();
    match format {
        Format::Json => serde_json::to_string_pretty(c).map(|s| s + "\n").map_err(|e| e.to_string()),
        Format::Csv => {
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
            let rows: Vec<Vec<String>> = c
                .rows
                .iter()
                .map(|r| {
                    let mut f = vec![r.table.clone()];
                    f.extend(config_fields(&r.config, planning));
                    f.extend([
                        r.metric.clone(),
                        opt(r.ours.as_ref().map(|o| o.mean)),
                        opt(r.ours.as_ref().and_then(|o| o.std)),
                        seeds(r),
                        r.theirs.text.clone(),
                        format!("{}", r.theirs.mean),
                        opt(r.theirs.std),
                        opt(r.z),
                        verdict_name(r.verdict),
                        r.note.clone().unwrap_or_default(),
                    ]);
                    f
                })
                .collect();
            Ok(csv_table(&cols, &rows))
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
            cols.extend(["metric", "ours", "n", "theirs", "z", ""]);
            let rows: Vec<Vec<String>> = c
                .rows
                .iter()
                .map(|r| {
                    let mut f = vec![r.table.clone()];
                    f.extend(config_fields(&r.config, planning));
                    f.extend([
                        r.metric.clone(),
                        ours_text(&r.ours),
                        seeds(r),
                        r.theirs.text.clone(),
                        z_text(r.z, r.theirs.std, r.verdict),
                        mark(r.verdict).to_string(),
                    ]);
                    f
                })
                .collect();
            s += &md_table(&cols, &rows);
            let _ = writeln!(s, "\n{}", c.summary.line());
            Ok(s)
        }
        Format::Latex | Format::Svg => Err(refuse(format)),
    }
}

/// The summary lines of a per-run comparison: all cells, then per domain and per metric.
pub fn runs_summary(c: &RunsComparison) -> String {
    let mut s = format!("all: {}\n", c.summary.runs_line());
    for (domain, t) in &c.by_domain {
        let _ = writeln!(s, "domain {domain}: {}", t.runs_line());
    }
    for (metric, t) in &c.by_metric {
        let _ = writeln!(s, "metric {metric}: {}", t.runs_line());
    }
    s
}

/// Their per-run results beside ours as Markdown (with the summary), CSV or JSON.
pub fn render_runs(c: &RunsComparison, format: Format) -> Result<String, String> {
    let o = |v: &Option<String>| v.clone().unwrap_or_default();
    let n = |v: Option<usize>| v.map(|n| n.to_string()).unwrap_or_default();
    let key = |r: &RunCompared| {
        vec![
            r.split.clone(),
            r.checkpoint.as_str().to_string(),
            r.config.domain.clone(),
            o(&r.config.model),
            o(&r.config.distribution),
            o(&r.config.sigma),
            o(&r.config.residual),
            o(&r.config.bound),
            r.train_size.map(|t| t.to_string()).unwrap_or_default(),
            o(&r.decay),
            o(&r.exclude_self),
            r.recursion_steps.map(|t| t.to_string()).unwrap_or_default(),
            r.metric.clone(),
        ]
    };
    let mut cols = vec![
        "split",
        "checkpoint",
        "domain",
        "model",
        "distribution",
        "sigma",
        "residual",
        "bound",
        "train_size",
        "decay",
        "exclude_self",
        "recursion_steps",
        "metric",
    ];
    let seeds = |r: &RunCompared| n(r.ours.as_ref().and_then(|o| o.seeds).map(|s| s as usize));
    match format {
        Format::Json => serde_json::to_string_pretty(c).map(|s| s + "\n").map_err(|e| e.to_string()),
        Format::Csv => {
            cols.extend([
                "ours_mean",
                "ours_std",
                "ours_n",
                "theirs_mean",
                "theirs_std",
                "theirs_n",
                "z",
                "verdict",
                "note",
            ]);
            let rows: Vec<Vec<String>> = c
                .rows
                .iter()
                .map(|r| {
                    let mut f = key(r);
                    f.extend([
                        opt(r.ours.as_ref().map(|o| o.mean)),
                        opt(r.ours.as_ref().and_then(|o| o.std)),
                        seeds(r),
                        opt(r.theirs.as_ref().map(|t| t.mean)),
                        opt(r.theirs.as_ref().and_then(|t| t.std)),
                        n(r.theirs_n),
                        opt(r.z),
                        verdict_name(r.verdict),
                        r.note.clone().unwrap_or_default(),
                    ]);
                    f
                })
                .collect();
            Ok(csv_table(&cols, &rows))
        }
        Format::Md => {
            let mut s = format!(
                "Against {} ({}): theirs is mean ± sample std over their seeds (n), ours mean ± std over ours (n); z = (ours - their mean) / their std; {OUTSIDE} = ours outside their mean ± 2 std. Ours is our models' same checkpoint ({}) on our test split, beside their split {} (coordinator::published::mapping).\n\n",
                c.against,
                c.sources.join("; "),
                mapping::OUR_CHECKPOINTS.map(|c| c.as_str()).join(", "),
                c.ours_split,
            );
            cols.extend(["ours", "n", "theirs", "n", "z", ""]);
            let rows: Vec<Vec<String>> = c
                .rows
                .iter()
                .map(|r| {
                    let mut f = key(r);
                    f.extend([
                        ours_text(&r.ours),
                        seeds(r),
                        r.theirs.as_ref().map(|t| t.text.clone()).unwrap_or_else(|| "—".into()),
                        n(r.theirs_n),
                        z_text(r.z, r.theirs.as_ref().and_then(|t| t.std), r.verdict),
                        mark(r.verdict).to_string(),
                    ]);
                    f
                })
                .collect();
            s += &md_table(&cols, &rows);
            let _ = write!(s, "\n{}", runs_summary(c));
            Ok(s)
        }
        Format::Latex | Format::Svg => Err(refuse(format)),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testdata::*;
    use super::*;
    use crate::published::compare;
    use schema::reports::Filter;

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
    fn runs_render_per_cell_with_the_summaries() {
        use crate::published::{compare_runs, Against, Outcome};
        let c = compare_runs(&their_runs(), &our_accuracy(), &Filter::default(), None).unwrap();
        let md = render_runs(&c, Format::Md).unwrap();
        assert!(md.starts_with("Against pddlsl-runs (test: their test; test2: their test2): "), "{md}");
        assert!(
            md.contains("| split | checkpoint | domain | model | distribution | sigma | residual | bound | train_size | decay | exclude_self | recursion_steps | metric | ours | n | theirs | n | z |  |"),
            "{md}"
        );
        assert!(
            md.contains("| test2 | best_mse | gripper | nlm | gaussian | learn | ff | lmcut | 400 | 0.01 | False |  | mse | 4.897 ± 0.500 | 3 | 3.000 ± 1.581 | 5 | +1.20 |  |"),
            "{md}"
        );
        assert!(md.contains("| truncated | learn | ff | lmcut | 400 | 0.01 | False |  | mse | -0.953 ± 0.500 | 3 | 3.000 ± 1.581 | 5 | -2.50 | ✗ |"), "{md}");
        assert!(md.contains("| nll | 10.000 ± 0.100 | 3 | 10.000 ± 0.000 | 5 | std 0 |  |"), "{md}");
        assert!(md.contains("| test2 | best_mse | gripper | nlm | gaussian | fixed | none | lmcut |  |  |  |  | mse | 4.897 ± 0.500 | 3 | — |  |  | ours only |"), "{md}");
        assert!(md.contains("| test | best_mse | gripper | nlm | gaussian | learn | ff | lmcut | 400 | 0.01 | False |  | mse | — |  | 1.000 | 1 |  | no result |"), "{md}");
        let summary = "all: 6 of 9 cells within 2 std; 11 cells of theirs without a result of ours; 2 of ours without a run of theirs\n\
                       domain gripper: 6 of 9 cells within 2 std; 11 cells of theirs without a result of ours; 2 of ours without a run of theirs\n\
                       metric mse: 4 of 5 cells within 2 std; 5 cells of theirs without a result of ours; 1 of ours without a run of theirs\n\
                       metric nll: 2 of 4 cells within 2 std; 6 cells of theirs without a result of ours; 1 of ours without a run of theirs\n";
        assert!(md.ends_with(&format!("\n\n{summary}")), "{md}");
        let csv = render_runs(&c, Format::Csv).unwrap();
        assert_eq!(
            csv.lines().next().unwrap(),
            "split,checkpoint,domain,model,distribution,sigma,residual,bound,train_size,decay,exclude_self,recursion_steps,metric,ours_mean,ours_std,ours_n,theirs_mean,theirs_std,theirs_n,z,verdict,note"
        );
        assert_eq!(csv.lines().count(), 1 + c.rows.len());
        let d0 = csv
            .lines()
            .find(|l| l.starts_with("test2,best_mse,gripper,nlm,gaussian,learn,ff,lmcut,400,0,False,,mse,"))
            .unwrap();
        assert!(d0.ends_with(",,,,3,1.5811388300841898,5,,no_result,their variant decay 0: not one we run"), "{d0}");
        let ours_only = csv.lines().find(|l| l.contains(",ours_only,")).unwrap();
        assert!(
            ours_only.starts_with("test2,best_mse,gripper,nlm,gaussian,fixed,none,lmcut,,,,,mse,4.897"),
            "{ours_only}"
        );
        let json: serde_json::Value = serde_json::from_str(&render_runs(&c, Format::Json).unwrap()).unwrap();
        assert_eq!(json["summary"]["within"], 6);
        assert_eq!(json["summary"]["ours_only"], 2);
        assert_eq!(json["by_metric"]["nll"]["compared"], 4);
        assert_eq!(json["rows"][0]["split"], "test");
        assert_eq!(json["rows"][0]["checkpoint"], "best_mse");
        assert_eq!(json["rows"][0]["theirs"]["mean"], 1.0);
        assert!(render_runs(&c, Format::Latex).is_err());
        // Through `Against`, as the CLI calls it.
        let against = Against::load("pddlsl-runs").unwrap();
        assert!(against.check(Table::Planning, None).unwrap_err().contains("use --table accuracy"));
        assert!(against.check(Table::Accuracy, Some("test2")).is_ok());
        let Outcome::Runs(c) = against.compare(&accuracy(), &Filter::default(), Some("test2")).unwrap() else {
            panic!("runs")
        };
        assert_eq!(c.sources.len(), 1);
        assert!(
            c.sources[0].starts_with("test2: IBM/pddlsl at b4c807ad2ed7f52443c590dc31bd0ed347a21e0c, experiments/results_training2.ods, sheet \"results\""),
            "{:?}",
            c.sources
        );
        let tables = Against::load("ijcai24").unwrap();
        let out = tables.compare(&accuracy(), &Filter::default(), Some("4")).unwrap();
        assert!(out.render(Format::Md).unwrap().trim_end().ends_with(&out.summary()));
    }
}
