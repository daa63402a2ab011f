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

/// The table in `format`.
pub fn render(report: &Report, format: Format) -> String {
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

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Figure 2 as a standalone SVG: validation MSE (log scale) against step,
/// one line per configuration, mean over seeds.
pub fn curves_svg(report: &Report) -> String {
    let all = series(report);
    let (w, h, left, right, top, bottom) = (900.0, 520.0, 70.0, 260.0, 30.0, 50.0);
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
        let color = PALETTE[i % PALETTE.len()];
        let path: Vec<String> =
            s.points.iter().filter(|p| p.1 > 0.0).map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y))).collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"{}\"><title>{}</title></polyline>",
            path.join(" "),
            escape(&s.label)
        );
        let ly = top + 14.0 * i as f64;
        let _ = writeln!(
            svg,
            "<line x1=\"{}\" y1=\"{ly}\" x2=\"{}\" y2=\"{ly}\" stroke=\"{color}\" stroke-width=\"2\"/><text x=\"{}\" y=\"{}\">{}</text>",
            w - right + 10.0,
            w - right + 30.0,
            w - right + 35.0,
            ly + 4.0,
            escape(&s.label)
        );
    }
    svg + "</svg>\n"
}
