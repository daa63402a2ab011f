//! The report views against aggregates computed by hand on a small fixture,
//! and their renderings.

use support::fixture as common;

use coordinator::report::{render, Format};
use schema::reports::{self as report, Cell, Filter, Table};
use schema::testing::TestDatabase;

fn num(c: &Cell) -> f64 {
    match c {
        Cell::Num(Some(v)) => *v,
        Cell::Int(i) => *i as f64,
        other => panic!("not a number: {other:?}"),
    }
}

fn col(r: &report::Report, name: &str) -> usize {
    r.columns.iter().position(|c| c == name).unwrap_or_else(|| panic!("no column {name} in {:?}", r.columns))
}

fn text(c: &Cell) -> String {
    match c {
        Cell::Text(t) => t.clone().unwrap_or_default(),
        other => panic!("not text: {other:?}"),
    }
}

#[tokio::test]
async fn accuracy_is_the_mean_and_std_over_seeds() {
    let db = TestDatabase::create().await;
    let f = common::build(&db.pool).await;
    let r = report::table(&db.pool, f.experiment, Table::Accuracy, &Filter::default()).await.unwrap();
    assert_eq!(r.rows.len(), 2, "one row per configuration");
    for row in &r.rows {
        let dist = text(&row[col(&r, "distribution")]);
        let of = |k: usize| -> Vec<f64> {
            f.evaluations.iter().filter(|e| e.1 == dist).map(|e| [e.3, e.4, e.5][k]).collect()
        };
        assert_eq!(num(&row[col(&r, "seeds")]), 3.0);
        for (k, name) in ["mse", "mse_clip", "nll"].iter().enumerate() {
            let (m, s) = (common::mean(&of(k)), common::std(&of(k)));
            assert!((num(&row[col(&r, &format!("{name}_mean"))]) - m).abs() < 1e-12, "{dist} {name}");
            assert!((num(&row[col(&r, &format!("{name}_std"))]) - s).abs() < 1e-12, "{dist} {name} std");
        }
        assert_eq!(num(&row[col(&r, "ff_mse")]), 7.0);
        assert_eq!(num(&row[col(&r, "lmcut_mse")]), 11.0);
        assert_eq!(text(&row[col(&r, "bound")]), "lmcut");
    }
    // Gaussian first (ordered by configuration): mse 2, 4, 9 -> mean 5, std sqrt(13).
    assert_eq!(text(&r.rows[0][col(&r, "distribution")]), "gaussian");
    assert!((num(&r.rows[0][col(&r, "mse_mean")]) - 5.0).abs() < 1e-12);
    assert!((num(&r.rows[0][col(&r, "mse_std")]) - 13f64.sqrt()).abs() < 1e-12);

    let md = render(&r, Format::Md);
    assert!(md.contains("| mse |") || md.contains("| mse | mse_clip"), "{md}");
    assert!(md.contains("5.000 ± 3.606"), "{md}");
    let csv = render(&r, Format::Csv);
    assert!(csv.lines().next().unwrap().contains("mse_mean,mse_std"), "{csv}");
    assert_eq!(csv.lines().count(), 3);
    let tex = render(&r, Format::Latex);
    assert!(tex.contains("5.000 $\\pm$ 3.606") && tex.contains("\\begin{tabular}"), "{tex}");
    let only_tn = Filter { model: Some("nlm".into()), bound: Some("lmcut".into()), ..Filter::default() };
    assert_eq!(report::table(&db.pool, f.experiment, Table::Accuracy, &only_tn).await.unwrap().rows.len(), 2);
    let other_model = Filter { model: Some("hgn".into()), ..Filter::default() };
    assert_eq!(report::table(&db.pool, f.experiment, Table::Accuracy, &other_model).await.unwrap().rows.len(), 0);
}

#[tokio::test]
async fn planning_is_per_seed_then_over_seeds_with_the_baseline() {
    let db = TestDatabase::create().await;
    let f = common::build(&db.pool).await;
    let r = report::table(&db.pool, f.experiment, Table::Planning, &Filter::default()).await.unwrap();
    assert_eq!(r.rows.len(), 3, "N, TN and the hFF baseline: {:?}", r.rows);
    for row in &r.rows {
        let estimate = text(&row[col(&r, "estimate")]);
        if estimate == "ff" {
            assert_eq!(text(&row[col(&r, "model")]), "");
            assert_eq!(num(&row[col(&r, "solved_mean")]), 1.0);
            assert_eq!(num(&row[col(&r, "evaluations_mean")]), 350.0);
            assert_eq!(num(&row[col(&r, "evaluations_std")]), 0.0);
            continue;
        }
        let dist = if estimate == "TN" { "train-truncated" } else { "train-gaussian" };
        // Per seed: ratio solved and mean evaluations over its instances; then over seeds.
        let (mut ratios, mut evals) = (vec![], vec![]);
        for seed in 1..=3 {
            let runs: Vec<_> = f.plans.iter().filter(|p| p.0 == format!("{dist}-{seed}")).collect();
            ratios.push(runs.iter().filter(|p| p.2).count() as f64 / runs.len() as f64);
            evals.push(runs.iter().map(|p| p.3 as f64).sum::<f64>() / runs.len() as f64);
        }
        assert!((num(&row[col(&r, "solved_mean")]) - common::mean(&ratios)).abs() < 1e-12, "{estimate}");
        assert!((num(&row[col(&r, "solved_std")]) - common::std(&ratios)).abs() < 1e-12, "{estimate}");
        assert!((num(&row[col(&r, "evaluations_mean")]) - common::mean(&evals)).abs() < 1e-9, "{estimate}");
        assert!((num(&row[col(&r, "evaluations_std")]) - common::std(&evals)).abs() < 1e-9, "{estimate}");
        assert_eq!(num(&row[col(&r, "instances")]), 2.0);
    }
}

#[tokio::test]
async fn curves_are_averaged_over_seeds_and_drawn_on_a_log_scale() {
    let db = TestDatabase::create().await;
    let f = common::build(&db.pool).await;
    let r = report::table(&db.pool, f.experiment, Table::Curves, &Filter::default()).await.unwrap();
    assert_eq!(r.rows.len(), 4, "2 configurations x 2 steps");
    // Gaussian at step 10: val_mse = mse * 10 / 10 -> mean of 2, 4, 9.
    let g10 = r
        .rows
        .iter()
        .find(|row| text(&row[col(&r, "distribution")]) == "gaussian" && num(&row[col(&r, "step")]) == 10.0)
        .unwrap();
    assert!((num(&g10[col(&r, "val_mse")]) - 5.0).abs() < 1e-12);
    let svg = render(&r, Format::Svg);
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<polyline").count(), 2, "{svg}");
    assert!(svg.contains("nlm/gaussian/learn/ff") && svg.contains("log scale"));
}

/// `hfarm report --against ijcai24` without the command line: the fixture's
/// gripper NLM learn/hFF beside the paper's Table 4 (and 11), cell by cell.
#[tokio::test]
async fn the_fixture_beside_the_published_tables() {
    use coordinator::published::{self, Verdict};
    let db = TestDatabase::create().await;
    let f = common::build(&db.pool).await;
    let ijcai = published::load("ijcai24").unwrap();

    let r = report::table(&db.pool, f.experiment, Table::Accuracy, &Filter::default()).await.unwrap();
    let c = published::compare(&ijcai, &r, &Filter::default(), None).unwrap();
    let ours: Vec<_> = c.rows.iter().filter(|x| x.verdict != Verdict::NoResult).collect();
    // (table, distribution, bound, metric, verdict) of each compared cell.
    type Compared<'a> = (&'a str, Option<&'a str>, Option<&'a str>, &'a str, Verdict);
    let got: Vec<Compared> = ours
        .iter()
        .map(|x| {
            (
                x.table.as_str(),
                x.config.distribution.as_deref(),
                x.config.bound.as_deref(),
                x.metric.as_str(),
                x.verdict,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("4", None, None, "ff_mse", Verdict::Outside), // 7 against 9.93 (no std: rounding only)
            ("4", None, None, "lmcut_mse", Verdict::Outside),
            ("4", Some("gaussian"), Some("lmcut"), "mse", Verdict::Within), // 5 against 3.65±.9
            ("4", Some("gaussian"), Some("lmcut"), "mse_clip", Verdict::Within),
            ("4", Some("truncated"), Some("lmcut"), "mse", Verdict::Outside), // 1 against 3.70±.9
            // The Gaussian's MSE does not depend on l: our l = hLMcut row stands for hmax and blind.
            ("11", Some("gaussian"), Some("hmax"), "mse", Verdict::Within),
            ("11", Some("gaussian"), Some("blind"), "mse", Verdict::Within),
        ]
    );
    let tn = ours[4];
    assert!((tn.z.unwrap() + 3.0).abs() < 1e-9, "(1 - 3.70) / .9");
    assert_eq!(tn.ours.as_ref().unwrap().seeds, Some(3));
    assert_eq!(
        c.summary.line(),
        format!("4 of 7 cells within 2 std; {} published cells without a result of ours", c.rows.len() - 7)
    );
    let md = published::render(&c, Format::Md).unwrap();
    assert!(
        md.contains(
            "| 4 | gripper | nlm | truncated | learn | ff | lmcut | mse | 1.000 ± 0.500 | 3 | 3.70±.9 | -3.00 | ✗ |"
        ),
        "{md}"
    );

    let r = report::table(&db.pool, f.experiment, Table::Planning, &Filter::default()).await.unwrap();
    let c = published::compare(&ijcai, &r, &Filter::default(), None).unwrap();
    let find = |table: &str, est: &str, bound: Option<&str>, metric: &str| {
        c.rows
            .iter()
            .find(|x| {
                x.table == table
                    && x.config.domain == "gripper"
                    && x.config.estimate.as_deref() == Some(est)
                    && x.config.bound.as_deref() == bound
                    && x.metric == metric
            })
            .unwrap()
    };
    // Ours: N and TN solve 1, 1 and .5 of their instances per seed (mean 1850 evaluations).
    assert_eq!(find("5", "N", Some("lmcut"), "solved").verdict, Verdict::Outside, ".833 against 1");
    let n = find("5", "N", Some("lmcut"), "evaluations");
    assert!((n.z.unwrap() - (1850.0 - 1642.0) / 198.0).abs() < 1e-9);
    assert_eq!(find("5", "TN", Some("lmcut"), "evaluations").verdict, Verdict::Within);
    assert_eq!(find("5", "N+clip", Some("lmcut"), "solved").verdict, Verdict::NoResult);
    assert_eq!(find("5", "ff", None, "evaluations").verdict, Verdict::Outside, "350 against 3918");
    // Table 12's N with l = hmax is our unbounded N.
    assert_eq!(find("12", "N", Some("hmax"), "evaluations").verdict, Verdict::Within);
    assert_eq!(find("12", "TN", Some("hmax"), "evaluations").verdict, Verdict::NoResult);
    assert!(c.summary.compared >= 8 && c.summary.missing > 0, "{:?}", c.summary);
}
