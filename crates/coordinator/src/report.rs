//! Rendering the paper's result tables (read by `schema::reports`) as
//! Markdown, CSV, LaTeX or JSON, and the training curves of Figure 2 as SVG.

use std::fmt::Write as _;

use schema::reports::{Cell, Report, CONFIG};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Md,
    Csv,
    Latex,
    Json,
    /// Curves only: an SVG chart (log-scale validation MSE).
    Svg,
}

impl Format {
    pub const ALL: [Format; 5] = [Format::Md, Format::Csv, Format::Latex, Format::Json, Format::Svg];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Md => "md",
            Format::Csv => "csv",
            Format::Latex => "latex",
            Format::Json => "json",
            Format::Svg => "svg",
        }
    }
}

impl std::str::FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        Format::ALL
            .into_iter()
            .find(|f| f.as_str() == s)
            .ok_or_else(|| format!("no format {s}: md, csv, latex, json or svg"))
    }
}

/// Columns for human formats: `X_mean` and `X_std` merged into "X" as
/// "mean ± std" (the paper's style).
fn merged(report: &Report, pm: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut cols = vec![];
    let mut plan: Vec<(usize, Option<usize>)> = vec![];
    let mut i = 0;
    while i < report.columns.len() {
        let c = &report.columns[i];
        if let Some(base) = c.strip_suffix("_mean") {
            if report.columns.get(i + 1).map(String::as_str) == Some(&format!("{base}_std")) {
                cols.push(base.to_string());
                plan.push((i, Some(i + 1)));
                i += 2;
                continue;
            }
        }
        cols.push(c.clone());
        plan.push((i, None));
        i += 1;
    }
    let rows = report
        .rows
        .iter()
        .map(|r| {
            plan.iter()
                .map(|&(a, b)| match b {
                    None => r[a].text(),
                    Some(b) => match (&r[a], &r[b]) {
                        (Cell::Num(Some(_)), Cell::Num(Some(_))) => format!("{}{pm}{}", r[a].text(), r[b].text()),
                        _ => r[a].text(),
                    },
                })
                .collect()
        })
        .collect();
    (cols, rows)
}

/// The table in `format`. Markdown and LaTeX, the tables people read, end
/// coverage tables (Table 2's `planning`, Trunda's `coverage`) with one row
/// per configuration over all domains, as Downward Lab prints them
/// ([`with_domain_sums`]); CSV and JSON stay one row per domain, so that
/// what reads them never counts an instance twice.
pub fn render(report: &Report, format: Format) -> String {
    let summed;
    let report = if matches!(format, Format::Md | Format::Latex) {
        summed = with_domain_sums(report);
        &summed
    } else {
        report
    };
    match format {
        Format::Json => serde_json::to_string_pretty(report).unwrap_or_default(),
        Format::Csv => {
            let mut s = report.columns.join(",") + "\n";
            for r in &report.rows {
                let cells: Vec<String> = r
                    .iter()
                    .map(|c| match c {
                        Cell::Num(Some(v)) => format!("{v}"),
                        other => csv_field(&other.text()),
                    })
                    .collect();
                s += &(cells.join(",") + "\n");
            }
            s
        }
        Format::Md => {
            let (cols, rows) = merged(report, " ± ");
            let mut s = format!("| {} |\n|{}\n", cols.join(" | "), "---|".repeat(cols.len()));
            for r in rows {
                s += &format!("| {} |\n", r.join(" | "));
            }
            s
        }
        Format::Latex => {
            let (cols, rows) = merged(report, " $\\pm$ ");
            let mut s = format!("\\begin{{tabular}}{{{}}}\n\\toprule\n", "l".repeat(cols.len()));
            s += &(cols.iter().map(|c| latex_escape(c)).collect::<Vec<_>>().join(" & ") + " \\\\\n\\midrule\n");
            for r in rows {
                s += &(r.iter().map(|c| latex_escape(c)).collect::<Vec<_>>().join(" & ") + " \\\\\n");
            }
            s + "\\bottomrule\n\\end{tabular}\n"
        }
        Format::Svg => curves_svg(report),
    }
}

/// What the row over all domains holds in each column of a coverage table.
#[derive(Clone, Copy, PartialEq)]
enum Over {
    /// A configuration column: the configuration's value.
    Key,
    /// The `domain` column.
    Domain,
    /// Counts and scores that add up: instances, problems solved, IPC scores.
    Sum,
    /// A mean over a domain's instances (ratio solved, evaluations): the
    /// mean over all instances, each domain weighted by its instances.
    Weighted,
    /// The fewest over domains (seeds).
    Min,
    /// A standard deviation over seeds: a sum's needs each seed's totals,
    /// which the table does not hold, so it is left empty.
    Blank,
}

/// `report` with, for Table 2 (`planning`) and Trunda's `coverage`, one
/// row per configuration over all the domains it ran on, after the
/// per-domain rows: Downward Lab's sum row. Its domain reads `all domains`,
/// or `K of N domains` where the configuration ran on only K of the
/// table's N (its sums then compare with no other row's). Other tables,
/// and tables of a single domain, are returned as they are.
pub fn with_domain_sums(report: &Report) -> Report {
    use schema::reports::Table;
    let role = |c: &str| match (report.table, c) {
        (_, "domain") => Over::Domain,
        (_, "seeds") => Over::Min,
        (_, c) if c.ends_with("_std") => Over::Blank,
        (Table::Planning, "instances") => Over::Sum,
        (Table::Planning, "solved_mean" | "evaluations_mean") => Over::Weighted,
        (Table::Coverage, "problems" | "coverage_mean" | "ipc_time" | "ipc_length" | "ipc_expansions") => Over::Sum,
        _ => Over::Key,
    };
    let roles: Vec<Over> = report.columns.iter().map(|c| role(c)).collect();
    let (Some(domain), Some(weight)) = (
        roles.iter().position(|&r| r == Over::Domain),
        report.columns.iter().position(|c| c == "instances" || c == "problems"),
    ) else {
        return report.clone();
    };
    if !matches!(report.table, Table::Planning | Table::Coverage) {
        return report.clone();
    }
    let mut domains: Vec<String> = report.rows.iter().map(|r| r[domain].text()).collect();
    domains.sort();
    domains.dedup();
    if domains.len() < 2 {
        return report.clone();
    }
    let value = |c: &Cell| match c {
        Cell::Int(i) => Some(*i as f64),
        Cell::Num(v) => *v,
        Cell::Text(_) => None,
    };
    // Configurations in the order they first appear.
    let mut groups: Vec<(Vec<String>, Vec<&Vec<Cell>>)> = vec![];
    for row in &report.rows {
        let key: Vec<String> = roles.iter().zip(row).filter(|(r, _)| **r == Over::Key).map(|(_, c)| c.text()).collect();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(row),
            None => groups.push((key, vec![row])),
        }
    }
    let mut out = report.clone();
    for (_, rows) in groups {
        let mut ran: Vec<String> = rows.iter().map(|r| r[domain].text()).collect();
        ran.sort();
        ran.dedup();
        let label = if ran.len() == domains.len() {
            "all domains".to_string()
        } else {
            format!("{} of {} domains", ran.len(), domains.len())
        };
        let weights: Vec<f64> = rows.iter().map(|r| value(&r[weight]).unwrap_or(0.0)).collect();
        let total: f64 = weights.iter().sum();
        let sum_row = roles
            .iter()
            .enumerate()
            .map(|(i, role)| match role {
                Over::Key => rows[0][i].clone(),
                Over::Domain => Cell::Text(Some(label.clone())),
                Over::Blank => Cell::Num(None),
                Over::Min => {
                    let least = rows.iter().filter_map(|r| value(&r[i])).fold(f64::INFINITY, f64::min);
                    if least.is_finite() {
                        Cell::Int(least as i64)
                    } else {
                        Cell::Num(None)
                    }
                }
                Over::Sum => {
                    let s: f64 = rows.iter().filter_map(|r| value(&r[i])).sum();
                    match rows[0][i] {
                        Cell::Int(_) => Cell::Int(s.round() as i64),
                        _ => Cell::Num(Some(s)),
                    }
                }
                // A domain without a value (no run solved: no mean) leaves
                // the mean over all domains undefined too.
                Over::Weighted => {
                    let parts: Option<Vec<f64>> = rows.iter().map(|r| value(&r[i])).collect();
                    match parts {
                        Some(p) if total > 0.0 => {
                            Cell::Num(Some(p.iter().zip(&weights).map(|(v, w)| v * w).sum::<f64>() / total))
                        }
                        _ => Cell::Num(None),
                    }
                }
            })
            .collect();
        out.rows.push(sum_row);
    }
    out
}

/// A CSV field, quoted where it holds a comma, a quote or a newline.
pub(crate) fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn latex_escape(s: &str) -> String {
    if s.contains("$\\pm$") {
        return s.replace('_', "\\_");
    }
    s.replace('\\', "\\textbackslash{}").replace('_', "\\_").replace('&', "\\&").replace('%', "\\%").replace('#', "\\#")
}

/// One line of Figure 2: a configuration's mean validation MSE per step.
struct Series {
    label: String,
    points: Vec<(f64, f64)>,
}

fn series(report: &Report) -> Vec<Series> {
    let step = report.columns.iter().position(|c| c == "step");
    let mse = report.columns.iter().position(|c| c == "val_mse");
    let (Some(step), Some(mse)) = (step, mse) else { return vec![] };
    let mut out: Vec<Series> = vec![];
    for r in &report.rows {
        let label: Vec<String> = r[..CONFIG.len()].iter().map(Cell::text).filter(|t| !t.is_empty()).collect();
        let label = label.join("/");
        let (Cell::Int(x), Cell::Num(Some(y))) = (&r[step], &r[mse]) else { continue };
        match out.last_mut() {
            Some(s) if s.label == label => s.points.push((*x as f64, *y)),
            _ => out.push(Series { label, points: vec![(*x as f64, *y)] }),
        }
    }
    out
}

const PALETTE: [&str; 10] =
    ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"];

/// Dash patterns (SVG `stroke-dasharray`; "none" is solid), changed every
/// `PALETTE.len()` series: 40 series are told apart by color and dash.
const DASHES: [&str; 4] = ["none", "7 3", "2 2", "9 3 2 3"];

/// Series `i`'s color and dash.
fn style(i: usize) -> (&'static str, &'static str) {
    (PALETTE[i % PALETTE.len()], DASHES[(i / PALETTE.len()) % DASHES.len()])
}

/// Vertical room of one legend entry, in pixels.
const LEGEND_ROW: f64 = 14.0;

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Figure 2 as a standalone SVG: validation MSE (log scale) against step,
/// one line per configuration, mean over seeds.
pub fn curves_svg(report: &Report) -> String {
    let all = series(report);
    let (w, left, right, top, bottom) = (900.0, 70.0, 260.0, 30.0, 50.0);
    // Tall enough for one legend entry per series (the paper's grid has
    // about 112 configurations): the plot grows with it rather than the
    // legend running off the bottom.
    let h = f64::max(520.0, top + LEGEND_ROW * all.len() as f64 + bottom);
    let pts = all.iter().flat_map(|s| &s.points).filter(|p| p.1 > 0.0);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y.log10());
        y1 = y1.max(y.log10());
    }
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    if !x0.is_finite() {
        svg += "<text x=\"20\" y=\"40\">no training curves yet</text>\n</svg>\n";
        return svg;
    }
    let (y0, y1) = (y0.floor(), y1.ceil().max(y0.floor() + 1.0));
    let x1 = if x1 > x0 { x1 } else { x0 + 1.0 };
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| top + (y1 - y.log10()) / (y1 - y0) * (h - top - bottom);
    let _ = writeln!(
        svg,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/><line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>",
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    let mut e = y0 as i32;
    while e as f64 <= y1 {
        let y = py(10f64.powi(e));
        let _ = writeln!(
            svg,
            "<line x1=\"{left}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#ddd\"/><text x=\"{}\" y=\"{}\" text-anchor=\"end\">1e{e}</text>",
            w - right,
            left - 6.0,
            y + 4.0
        );
        e += 1;
    }
    for k in 0..=4 {
        let x = x0 + (x1 - x0) * k as f64 / 4.0;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            px(x),
            h - bottom + 18.0,
            x.round()
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">training step</text><text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">validation MSE (log scale, mean over seeds)</text>",
        (left + w - right) / 2.0,
        h - 12.0,
        h / 2.0,
        h / 2.0
    );
    for (i, s) in all.iter().enumerate() {
        let (color, dash) = style(i);
        let path: Vec<String> =
            s.points.iter().filter(|p| p.1 > 0.0).map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-dasharray=\"{dash}\" stroke-width=\"1.5\" points=\"{}\"><title>{}</title></polyline>",
            path.join(" "),
            escape(&s.label)
        );
        let ly = top + LEGEND_ROW * i as f64;
        let _ = writeln!(
            svg,
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{color}\" stroke-dasharray=\"{dash}\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">{}</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 35.0,
            ly + 4.0,
            escape(&s.label)
        );
    }
    svg + "</svg>\n"
}

#[cfg(test)]
mod tests {
    use schema::reports::{Cell, Report, Table};

    use super::{render, with_domain_sums, Format};

    fn text(s: &str) -> Cell {
        Cell::Text(Some(s.to_string()))
    }

    /// Figure 2 at the paper's grid's size: every legend entry inside the
    /// picture, and 40 series in 40 different line styles.
    #[test]
    fn the_curves_legend_holds_every_series_in_distinct_styles() {
        let mut columns: Vec<String> = schema::reports::CONFIG.iter().map(|c| c.to_string()).collect();
        columns.extend(["step".to_string(), "val_mse".to_string()]);
        let mut rows = vec![];
        for c in 0..60 {
            for step in [10, 20] {
                let mut row: Vec<Cell> = vec![text("gripper"), text(&format!("model{c}"))];
                row.extend((2..schema::reports::CONFIG.len()).map(|_| text("")));
                row.extend([Cell::Int(step), Cell::Num(Some(1.0 + c as f64 / step as f64))]);
                rows.push(row);
            }
        }
        let svg = render(&Report { table: Table::Curves, columns, rows }, Format::Svg);
        let attr = |line: &str, name: &str| -> Option<String> {
            let rest = line.split(&format!(" {name}=\"")).nth(1)?;
            Some(rest.split('"').next()?.to_string())
        };
        let height: f64 = attr(svg.lines().next().unwrap(), "height").unwrap().parse().unwrap();
        let legend: Vec<&str> =
            svg.lines().filter(|l| l.starts_with("<line") && l.contains("stroke-dasharray")).collect();
        assert_eq!(legend.len(), 60);
        for l in &legend {
            let y: f64 = attr(l.split("<text").nth(1).unwrap(), "y").unwrap().parse().unwrap();
            assert!(y < height, "legend entry at y {y} below the picture's {height}: {l}");
        }
        let styles: std::collections::HashSet<(String, String)> =
            legend[..40].iter().map(|l| (attr(l, "stroke").unwrap(), attr(l, "stroke-dasharray").unwrap())).collect();
        assert_eq!(styles.len(), 40);
    }

    /// Table 2 over two domains: ratio solved and evaluations weighted by
    /// each domain's instances, instances added, stds left empty, seeds the
    /// fewest; a configuration missing from a domain says so.
    #[test]
    fn planning_tables_end_with_a_row_per_configuration_over_all_domains() {
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
        let row = |domain: &str, estimate: &str, seeds: i64, n: i64, solved: f64, evals: f64| {
            let mut r = vec![text(domain), text("nlm"), text("gaussian"), text("learn"), text("ff"), Cell::Text(None)];
            r.extend([text(estimate), Cell::Int(seeds), Cell::Int(n), Cell::Num(Some(solved)), Cell::Num(Some(0.1))]);
            r.extend([Cell::Num(Some(evals)), Cell::Num(Some(5.0))]);
            r
        };
        let report = Report {
            table: Table::Planning,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: vec![
                row("blocksworld", "N", 3, 10, 0.5, 100.0),
                row("blocksworld", "TN", 3, 10, 1.0, 50.0),
                row("gripper", "N", 2, 30, 0.9, 200.0),
            ],
        };
        let summed = with_domain_sums(&report);
        assert_eq!(summed.rows.len(), 5);
        assert_eq!(summed.rows[..3], report.rows[..], "the domains' rows first, unchanged");
        let n = &summed.rows[3];
        assert_eq!(n[0], text("all domains"));
        assert_eq!(n[6], text("N"));
        assert_eq!((&n[7], &n[8]), (&Cell::Int(2), &Cell::Int(40)));
        // (0.5 * 10 + 0.9 * 30) / 40 = 0.8 solved; (100 * 10 + 200 * 30) / 40 = 175 evaluations.
        let Cell::Num(Some(solved)) = n[9] else { panic!("{n:?}") };
        let Cell::Num(Some(evals)) = n[11] else { panic!("{n:?}") };
        assert!((solved - 0.8).abs() < 1e-12 && (evals - 175.0).abs() < 1e-12, "{n:?}");
        assert_eq!((&n[10], &n[12]), (&Cell::Num(None), &Cell::Num(None)));
        let tn = &summed.rows[4];
        assert_eq!((&tn[0], &tn[6], &tn[8]), (&text("1 of 2 domains"), &text("TN"), &Cell::Int(10)));

        let md = render(&report, Format::Md);
        assert!(md.lines().last().unwrap().starts_with("| 1 of 2 domains | nlm |"), "{md}");
        assert!(md.contains("| all domains | nlm | gaussian | learn | ff |  | N | 2 | 40 | 0.800 |"), "{md}");
        assert_eq!(render(&report, Format::Csv).lines().count(), 4, "CSV keeps one row per domain");
        let one = Report { rows: report.rows[..2].to_vec(), ..report.clone() };
        assert_eq!(with_domain_sums(&one).rows.len(), 2, "one domain: nothing to add up");
    }

    /// Trunda's coverage: problems solved and IPC scores add up.
    #[test]
    fn coverage_tables_add_up_problems_solved_and_ipc_scores() {
        let columns =
            ["domain", "kind", "configuration", "seeds", "problems", "coverage_mean", "coverage_std", "ipc_time"];
        let row = |domain: &str, problems: i64, coverage: f64, ipc: f64| {
            vec![text(domain), text("learned"), text("mlp"), Cell::Int(5), Cell::Int(problems)]
                .into_iter()
                .chain([Cell::Num(Some(coverage)), Cell::Num(Some(1.0)), Cell::Num(Some(ipc))])
                .collect::<Vec<_>>()
        };
        let report = Report {
            table: Table::Coverage,
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: vec![row("blocksworld", 20, 12.5, 10.25), row("zenotravel", 10, 4.0, 3.5)],
        };
        let all = with_domain_sums(&report).rows.pop().unwrap();
        assert_eq!(all[0], text("all domains"));
        assert_eq!(
            (&all[4], &all[5], &all[6], &all[7]),
            (&Cell::Int(30), &Cell::Num(Some(16.5)), &Cell::Num(None), &Cell::Num(Some(13.75)))
        );
        let accuracy = Report { table: Table::Accuracy, ..report.clone() };
        assert_eq!(with_domain_sums(&accuracy).rows.len(), 2, "only coverage tables");
    }
}
