//! Trunda's analyses (migration 0022) against hand-computed aggregates:
//! adjusted runs' fallbacks, the networks' fit over folds, error by
//! target, and the feature-target correlation of the bootstraps.

use schema::graphlearn::{insert_bootstrap, insert_run, Bootstrap, Run};
use schema::reports::{table, Cell, Filter, Report, Table};
use schema::testing::TestDatabase;
use serde_json::json;
use sqlx::PgPool;
use uuid::Uuid;

async fn job(pool: &PgPool, experiment: Uuid, key: &str, kind: &str) {
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain) VALUES ($1, $2, 'cpu', '{}', 'blocks')";
    sqlx::query(q).bind(key).bind(kind).execute(pool).await.unwrap();
    sqlx::query("INSERT INTO experiment_jobs (experiment, job) VALUES ($1, $2)")
        .bind(experiment)
        .bind(key)
        .execute(pool)
        .await
        .unwrap();
}

fn run(problem: &str, configuration: &str, solved: bool, run: serde_json::Value) -> Run {
    Run {
        domain: "blocks".into(),
        problem: problem.into(),
        configuration: configuration.into(),
        learned: configuration.starts_with('a'),
        seed: Some(1),
        solved,
        status: if solved { "solved" } else { "time_limit" }.into(),
        cost: solved.then_some(10),
        expansions: 5,
        evaluations: 20,
        seconds: 0.5,
        samples: Some(100),
        run,
    }
}

fn fit(mae: f64, min: f64, max: f64, ratio_max: f64, by_target: serde_json::Value) -> serde_json::Value {
    json!({"n": 4, "mae": mae, "p80_abs": 2.0 * mae, "min_diff": min, "max_diff": max,
           "ratio_mean": 1.0 + mae / 10.0, "ratio_max": ratio_max, "by_target": by_target})
}

fn cell(r: &Report, row: usize, column: &str) -> Cell {
    let i = r.columns.iter().position(|c| c == column).unwrap_or_else(|| panic!("no column {column}"));
    r.rows[row][i].clone()
}

fn num(r: &Report, row: usize, column: &str) -> f64 {
    match cell(r, row, column) {
        Cell::Num(Some(v)) => v,
        Cell::Int(n) => n as f64,
        c => panic!("{column}: {c:?}"),
    }
}

#[tokio::test]
async fn graph_reports_aggregate_fallbacks_fit_errors_and_correlation() {
    let db = TestDatabase::create().await;
    let pool = &db.pool;
    let e = Uuid::new_v4();
    sqlx::query("INSERT INTO experiments (id, name, grid_toml) VALUES ($1, 'trunda', '')")
        .bind(e)
        .execute(pool)
        .await
        .unwrap();
    // Two folds of a2-mse: its row with a fit, its h_min with fallbacks,
    // and the value-adjusted goal count.
    let t = |target: f64, n: u64, mean: f64, lo: f64, hi: f64, mae: f64| json!({"target": target, "n": n, "mean_output": mean, "min_output": lo, "max_output": hi, "mae": mae});
    let folds = [
        ("p1", 1.0, -2.0, 1.0, 3.0, json!([t(0.0, 2, 0.5, 0.0, 1.0, 0.5), t(4.0, 2, 3.0, 2.0, 4.0, 1.0)]), 30, 10, 0),
        ("p2", 2.0, -1.0, 4.0, 2.0, json!([t(0.0, 1, 1.0, 1.0, 1.0, 1.0), t(4.0, 3, 6.0, 5.0, 8.0, 2.0)]), 0, 20, 20),
    ];
    for (problem, mae, min, max, ratio_max, by_target, adjusted, fallbacks, gc_adjusted) in folds {
        let key = format!("fold-{problem}");
        job(pool, e, &key, "graph_fold").await;
        let mut tx = pool.begin().await.unwrap();
        let f = fit(mae, min, max, ratio_max, by_target);
        insert_run(&mut tx, &key, &run(problem, "a2-mse", true, json!({"fit": f}))).await.unwrap();
        let adj = json!({"adjusted": adjusted, "fallbacks": fallbacks});
        insert_run(&mut tx, &key, &run(problem, "a2-mse:min", problem == "p1", adj)).await.unwrap();
        let gc = json!({"adjusted": gc_adjusted, "fallbacks": 20 - gc_adjusted});
        insert_run(&mut tx, &key, &run(problem, "goalcount:min", true, gc)).await.unwrap();
        tx.commit().await.unwrap();
    }
    let a = table(pool, e, Table::Adjustments, &Filter::default()).await.unwrap();
    let names: Vec<String> = (0..a.rows.len()).map(|i| cell(&a, i, "configuration").text()).collect();
    assert_eq!(names, ["a2-mse:min", "goalcount:min"], "only adjusted rows");
    assert_eq!(
        ["runs", "solved", "with_fallbacks", "all_fallbacks"].map(|c| num(&a, 0, c)),
        [2.0, 1.0, 2.0, 1.0],
        "p2's h_min adjusted no state: it was plain h"
    );
    assert!((num(&a, 0, "fallback_share") - 30.0 / 60.0).abs() < 1e-12);
    assert_eq!(["with_fallbacks", "all_fallbacks"].map(|c| num(&a, 1, c)), [1.0, 1.0], "p1 fell back everywhere");
    assert!((num(&a, 1, "fallback_share") - 20.0 / 40.0).abs() < 1e-12);

    let f = table(pool, e, Table::Fit, &Filter::default()).await.unwrap();
    assert_eq!(f.rows.len(), 1, "only rows with a fit");
    assert_eq!(cell(&f, 0, "configuration").text(), "a2-mse");
    assert_eq!(num(&f, 0, "folds"), 2.0);
    assert!((num(&f, 0, "mae_mean") - 1.5).abs() < 1e-12);
    assert!((num(&f, 0, "mae_std") - 0.5f64.sqrt()).abs() < 1e-12);
    assert_eq!(["min_diff", "max_diff", "ratio_max"].map(|c| num(&f, 0, c)), [-2.0, 4.0, 3.0], "extremes over folds");

    let t = table(pool, e, Table::ErrorByTarget, &Filter::default()).await.unwrap();
    assert_eq!(t.rows.len(), 2);
    assert_eq!([num(&t, 0, "target"), num(&t, 0, "n"), num(&t, 1, "n")], [0.0, 3.0, 5.0]);
    // Target 4: (2 x 1.0 + 3 x 2.0) / 5 MAE, (2 x 3 + 3 x 6) / 5 mean output, outputs 2..8.
    assert!((num(&t, 1, "mae") - 8.0 / 5.0).abs() < 1e-12);
    assert!((num(&t, 1, "mean_output") - 24.0 / 5.0).abs() < 1e-12);
    assert_eq!([num(&t, 1, "min_output"), num(&t, 1, "max_output")], [2.0, 8.0]);

    // Correlation per alpha, averaged over bootstraps; a bootstrap without one is left out.
    for (key, features) in [
        ("boot-1", json!([{"alpha": 2, "correlation": {"pairs": 100, "l1": 0.8, "l2": 0.7, "linf": 0.6}}])),
        ("boot-2", json!([{"alpha": 2, "correlation": {"pairs": 100, "l1": 0.6, "l2": 0.5, "linf": null}}])),
        ("boot-3", json!([{"alpha": 2}])),
    ] {
        job(pool, e, key, "graph_bootstrap").await;
        let b = Bootstrap {
            domain: "blocks".into(),
            held_out: None,
            rounds: 1,
            stopped: "max_rounds".into(),
            samples: 10,
            history: json!([]),
            seconds: 1.0,
            resumed_from: 0,
            features,
        };
        let mut tx = pool.begin().await.unwrap();
        insert_bootstrap(&mut tx, key, &b, &[]).await.unwrap();
        tx.commit().await.unwrap();
    }
    let c = table(pool, e, Table::Correlation, &Filter::default()).await.unwrap();
    assert_eq!(c.rows.len(), 1);
    assert_eq!([num(&c, 0, "bootstraps"), num(&c, 0, "pairs")], [2.0, 200.0]);
    assert!((num(&c, 0, "l1") - 0.7).abs() < 1e-12 && (num(&c, 0, "linf") - 0.6).abs() < 1e-12);
}
