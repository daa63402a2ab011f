//! `hfarm report A --against-experiment B` against a real PostgreSQL: two
//! small experiments' evaluations and plan runs stored as their jobs store
//! them, read through the report views, compared cell by cell.

use std::process::{Command, Output};

use schema::testing::TestDatabase;
use schema::{PgPool, Uuid};

fn hfarm(args: &[&str], db: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("DATABASE_URL", db).output().expect("run hfarm")
}

async fn in_experiment(pool: &PgPool, e: Uuid, job: &str) {
    let q = "INSERT INTO experiment_jobs (experiment, job) VALUES ($1, $2)";
    sqlx::query(q).bind(e).bind(job).execute(pool).await.unwrap();
}

/// A trained gripper NLM (Gaussian, axes sigma, residual, bound) of `seed`
/// in experiment `e`, evaluated once (best-MSE) with this MSE and NLL.
async fn evaluation(pool: &PgPool, e: Uuid, key: &str, seed: i64, axes: [&str; 3], mse: f64, nll: f64) {
    let [sigma, residual, bound] = axes;
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, seed, model, distribution, sigma, bound, residual)
             VALUES ($1, 'train', 'cpu', '{}', 'gripper', $2, 'nlm', 'gaussian', $3, $4, $5)";
    sqlx::query(q).bind(key).bind(seed).bind(sigma).bind(bound).bind(residual).execute(pool).await.unwrap();
    let eval = format!("{key}-eval");
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, bound) VALUES ($1, 'evaluate', 'cpu', '{}', 'gripper', $2)";
    sqlx::query(q).bind(&eval).bind(bound).execute(pool).await.unwrap();
    let q = "INSERT INTO evaluations (job, model, checkpoint, domain, bound, samples, mse, mse_clip, nll, nll_clip,
                 ff_mse, lmcut_mse, sigma)
             VALUES ($1, $2, 'best_mse', 'gripper', $3, 250, $4, $4, $5, $5, 9.9, 15.8, 1.0)";
    sqlx::query(q).bind(&eval).bind(key).bind(bound).bind(mse).bind(nll).execute(pool).await.unwrap();
    in_experiment(pool, e, key).await;
    in_experiment(pool, e, &eval).await;
}

/// A plan run of the learned heuristic of train job `model` on `instance`.
async fn plan(pool: &PgPool, e: Uuid, model: &str, instance: &str, solved: bool, evaluations: i64) {
    let key = format!("{model}-plan-{instance}");
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, heuristic) VALUES ($1, 'plan', 'cpu', '{}', 'gripper', 'learned')";
    sqlx::query(q).bind(&key).execute(pool).await.unwrap();
    let q = "INSERT INTO plan_runs (job, instance, domain, heuristic, search, status, solved, evaluations, expansions,
                 generated, search_time_s, max_evaluations, model, forward_passes)
             VALUES ($1, $2, 'gripper', 'learned', 'gbfs', $3, $4, $5, 1, 1, 0.1, 10000, $6, 2)";
    let status = if solved { "solved" } else { "evaluation_limit" };
    let q = sqlx::query(q).bind(&key).bind(instance).bind(status).bind(solved).bind(evaluations).bind(model);
    q.execute(pool).await.unwrap();
    in_experiment(pool, e, &key).await;
}

const LEARN: [&str; 3] = ["learn", "ff", "lmcut"];

/// alpha and beta: the learned-sigma configuration on 3 seeds in both
/// (alpha's MSE 1.0 ± 0.1, beta's 2.0 ± 0.1; NLL 3.0 ± 0.1 and 3.05 ± 0.1),
/// a fixed-sigma one (1 seed) in alpha only, a residual-free one (3 seeds)
/// in beta only; 2 seeds of the learned one planned on 2 instances each.
async fn two_experiments(pool: &PgPool) -> (Uuid, Uuid) {
    let alpha = schema::create_experiment(pool, "alpha", "", "").await.unwrap();
    let beta = schema::create_experiment(pool, "beta", "", "").await.unwrap();
    for (seed, d) in [(1, -0.1), (2, 0.0), (3, 0.1)] {
        evaluation(pool, alpha, &format!("alpha-learn-{seed}"), seed, LEARN, 1.0 + d, 3.0 + d).await;
        evaluation(pool, beta, &format!("beta-learn-{seed}"), seed, LEARN, 2.0 + d, 3.05 + d).await;
        evaluation(pool, beta, &format!("beta-none-{seed}"), seed, ["learn", "none", "lmcut"], 5.0 + d, 6.0).await;
    }
    evaluation(pool, alpha, "alpha-fixed-1", 1, ["fixed", "ff", "lmcut"], 0.5, 1.0).await;
    for i in ["i0", "i1"] {
        let q = "INSERT INTO jobs (key, kind, resource, spec, domain) VALUES ($1, 'generate', 'cpu', '{}', 'gripper')";
        sqlx::query(q).bind(i).execute(pool).await.unwrap();
    }
    // alpha solves both instances (ratio 1) in 300 and 320 evaluations on
    // seeds 1 and 2; beta one of two (ratio 0.5) in 100 and 120.
    for (seed, evals) in [(1, 300), (2, 320)] {
        for i in ["i0", "i1"] {
            plan(pool, alpha, &format!("alpha-learn-{seed}"), i, true, evals).await;
            plan(pool, beta, &format!("beta-learn-{seed}"), i, i == "i0", evals - 200).await;
        }
    }
    (alpha, beta)
}

/// The CSV line of `metric` in the configuration whose line starts so.
fn line<'a>(csv: &'a str, prefix: &str, metric: &str) -> Vec<&'a str> {
    let l = csv.lines().find(|l| l.starts_with(prefix) && l.contains(&format!(",{metric},")));
    l.unwrap_or_else(|| panic!("no {prefix} {metric} in\n{csv}")).split(',').collect()
}

fn close(s: &str, v: f64) -> bool {
    s.parse::<f64>().is_ok_and(|x| (x - v).abs() < 1e-9)
}

#[tokio::test]
async fn two_experiments_are_compared_cell_by_cell() {
    let db = TestDatabase::create().await;
    let (alpha, _) = two_experiments(&db.pool).await;

    let out = hfarm(&["report", "alpha", "--against-experiment", "beta", "--format", "csv"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let head = "domain,model,distribution,sigma,residual,bound,metric,better,a_mean,a_std,a_seeds,b_mean,b_std,b_seeds,difference,z,verdict";
    assert_eq!(csv.lines().next(), Some(head), "{csv}");
    // 6 metrics (mse, mse_clip, nll, nll_clip, ff_mse, lmcut_mse) x 3 configurations.
    assert_eq!(csv.lines().count(), 1 + 6 * 3, "{csv}");
    let learn = "gripper,nlm,gaussian,learn,ff,lmcut,";
    let mse = line(&csv, learn, "mse");
    assert!(close(mse[8], 1.0) && close(mse[9], 0.1) && mse[10] == "3", "{mse:?}");
    assert!(close(mse[11], 2.0) && close(mse[12], 0.1) && mse[13] == "3", "{mse:?}");
    // A − B = -1, pooled std 0.1: z = -10; lower MSE is better.
    assert!(close(mse[14], -1.0) && close(mse[15], -10.0), "{mse:?}");
    assert_eq!((mse[7], mse[16]), ("lower", "a_better"), "{mse:?}");
    let nll = line(&csv, learn, "nll");
    assert!(close(nll[14], -0.05) && close(nll[15], -0.5) && nll[16] == "same", "{nll:?}");
    // Single-valued columns (no std) are not judged; both sides have 9.9.
    let ff = line(&csv, learn, "ff_mse");
    assert!(close(ff[14], 0.0) && ff[16] == "no_std", "{ff:?}");
    // One side only, never dropped.
    let fixed = line(&csv, "gripper,nlm,gaussian,fixed,ff,lmcut,", "mse");
    assert!(close(fixed[8], 0.5) && fixed[10] == "1" && fixed[11].is_empty() && fixed[16] == "only_a", "{fixed:?}");
    let none = line(&csv, "gripper,nlm,gaussian,learn,none,lmcut,", "mse");
    assert!(none[8].is_empty() && close(none[11], 5.0) && none[16] == "only_b", "{none:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("2 of 4 judged cells same within 2 std, A better in 2, B better in 0"), "{err}");
    assert!(err.contains("6 cells only in A, 6 only in B"), "{err}");

    // Swapped, by id: the verdict turns with the sides.
    let id = alpha.to_string();
    let out = hfarm(&["report", "beta", "--against-experiment", &id, "--format", "csv"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert_eq!(line(&csv, learn, "mse")[16], "b_better", "{csv}");
    assert_eq!(line(&csv, "gripper,nlm,gaussian,fixed,ff,lmcut,", "mse")[16], "only_b", "{csv}");

    // Planning: more solved is better, fewer evaluations are better.
    let out =
        hfarm(&["report", "alpha", "--against-experiment", "beta", "--table", "planning", "--format", "csv"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let n = "gripper,nlm,gaussian,learn,ff,,N,";
    let solved = line(&csv, n, "solved");
    assert!(close(solved[9], 1.0) && close(solved[12], 0.5) && solved[14] == "2", "{solved:?}");
    assert_eq!((solved[8], solved[17]), ("higher", "a_better"), "{solved:?}");
    let evals = line(&csv, n, "evaluations");
    assert!(close(evals[9], 310.0) && close(evals[12], 110.0) && close(evals[15], 200.0), "{evals:?}");
    assert_eq!((evals[8], evals[17]), ("lower", "b_better"), "{evals:?}");

    // Markdown names both sides and ends with the summary; JSON has the rows.
    let out = hfarm(&["report", "alpha", "--against-experiment", "beta"], &db.url);
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(md.starts_with(&format!("A: alpha ({alpha})\nB: beta (")), "{md}");
    assert!(
        md.contains("| gripper | nlm | gaussian | learn | ff | lmcut | mse | 1.000 ± 0.100 (3) | 2.000 ± 0.100 (3) | -1.000 | -10.00 | A better |"),
        "{md}"
    );
    assert!(md.contains("| fixed | ff | lmcut | mse | 0.500 (1) |  |  |  | only in A |"), "{md}");
    assert!(md.trim_end().ends_with("6 cells only in A, 6 only in B"), "{md}");
    let out = hfarm(&["report", "alpha", "--against-experiment", "beta", "--format", "json"], &db.url);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = json["rows"].as_array().unwrap();
    let cell = rows.iter().find(|r| r["sigma"] == "learn" && r["residual"] == "ff" && r["metric"] == "mse").unwrap();
    assert_eq!(
        (&cell["verdict"], &cell["a"]["seeds"], &cell["better"]),
        (&"a_better".into(), &3.into(), &"lower".into())
    );
    assert_eq!(json["summary"]["only_b"], 6);
}

#[tokio::test]
async fn bad_input_is_a_clear_error() {
    let db = TestDatabase::create().await;
    two_experiments(&db.pool).await;
    let err = |args: &[&str]| {
        let out = hfarm(args, &db.url);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
        assert!(out.stdout.is_empty(), "{args:?}");
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let e = err(&["report", "alpha", "--against-experiment", "gamma"]);
    assert!(e.contains("no experiment gamma"), "{e}");
    let e = err(&["report", "gamma", "--against-experiment", "alpha"]);
    assert!(e.contains("no experiment gamma"), "{e}");
    let unknown = Uuid::new_v4().to_string();
    let e = err(&["report", "alpha", "--against-experiment", &unknown]);
    assert!(e.contains(&format!("no experiment {unknown}")), "an id of no experiment: {e}");
    let e = err(&["report", "alpha", "--against-experiment", "beta", "--table", "curves"]);
    assert!(e.contains("--against-experiment compares --table accuracy, planning or coverage"), "{e}");
    let e = err(&["report", "alpha", "--against-experiment", "beta", "--format", "latex"]);
    assert!(e.contains("md, csv or json"), "{e}");
    let e = err(&["report", "alpha", "--against-experiment", "beta", "--against", "ijcai24"]);
    assert!(e.contains("cannot be used with"), "{e}");
}

/// One `[[graphlearn]]` run: `configuration` (learned or a baseline) on
/// `problem` of blocksworld, in experiment `e`.
async fn graph_run(pool: &PgPool, e: Uuid, config: &str, seed: Option<i64>, problem: &str, solved: bool) {
    let key = format!("{e}-{config}-{seed:?}-{problem}");
    let q =
        "INSERT INTO jobs (key, kind, resource, spec, domain) VALUES ($1, 'graph_plan', 'cpu', '{}', 'blocksworld')";
    sqlx::query(q).bind(&key).execute(pool).await.unwrap();
    let q =
        "INSERT INTO graph_runs (job, domain, problem, configuration, learned, seed, solved, status, cost, expansions,
                 evaluations, seconds, run)
             VALUES ($1, 'blocksworld', $2, $3, $4, $5, $6, 'done', 10, 100, 100, 1.0, '{}')";
    let q = sqlx::query(q).bind(&key).bind(problem).bind(config).bind(seed.is_some()).bind(seed).bind(solved);
    q.execute(pool).await.unwrap();
    in_experiment(pool, e, &key).await;
}

// Two seeds per configuration: `report_coverage.coverage_std` is a float8
// since migration 0027 (stddev_samp of a count was numeric and failed to decode).
#[tokio::test]
async fn coverage_is_better_higher() {
    let db = TestDatabase::create().await;
    let alpha = schema::create_experiment(&db.pool, "alpha", "", "").await.unwrap();
    let beta = schema::create_experiment(&db.pool, "beta", "", "").await.unwrap();
    // Of 4 problems, alpha's network solves 4, 4, 3 on seeds 1-3 (3.667 ± 0.577),
    // beta's 1, 2, 1 (1.333 ± 0.577); hFF (one run, no seeds) 2 in both.
    for (seed, a, b) in [(1, 4, 1), (2, 4, 2), (3, 3, 1)] {
        for p in 0..4 {
            let problem = format!("p{p}");
            graph_run(&db.pool, alpha, "mlp", Some(seed), &problem, p < a).await;
            graph_run(&db.pool, beta, "mlp", Some(seed), &problem, p < b).await;
        }
    }
    for p in 0..4 {
        graph_run(&db.pool, alpha, "ff", None, &format!("p{p}"), p < 2).await;
        graph_run(&db.pool, beta, "ff", None, &format!("p{p}"), p < 2).await;
    }
    let out =
        hfarm(&["report", "alpha", "--against-experiment", "beta", "--table", "coverage", "--format", "csv"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    assert!(csv.starts_with("domain,kind,configuration,metric,better,"), "{csv}");
    let mlp = line(&csv, "blocksworld,learned,mlp,", "coverage");
    assert!(close(mlp[5], 11.0 / 3.0) && close(mlp[8], 4.0 / 3.0) && close(mlp[11], 7.0 / 3.0), "{mlp:?}");
    assert_eq!((mlp[4], mlp[13]), ("higher", "a_better"), "{mlp:?}");
    let ff = line(&csv, "blocksworld,baseline,ff,", "coverage");
    assert!(close(ff[5], 2.0) && close(ff[11], 0.0) && ff[13] == "under_2_seeds", "{ff:?}");
    let swapped =
        hfarm(&["report", "beta", "--against-experiment", "alpha", "--table", "coverage", "--format", "csv"], &db.url);
    let swapped = String::from_utf8(swapped.stdout).unwrap();
    assert_eq!(line(&swapped, "blocksworld,learned,mlp,", "coverage")[13], "b_better", "{swapped}");
}
