//! A small hand-made experiment written straight into the tables (no
//! workers), with known values, for the report views and the dashboard.

use sqlx::PgPool;
use uuid::Uuid;

pub struct Fixture {
    pub experiment: Uuid,
    /// (model, distribution, seed, mse, mse_clip, nll) of each evaluation.
    pub evaluations: Vec<(&'static str, &'static str, i64, f64, f64, f64)>,
    /// (train job, instance, solved, evaluations) of each learned plan run.
    pub plans: Vec<(String, String, bool, i64)>,
}

async fn job(pool: &PgPool, e: Uuid, key: &str, kind: &str, axes: [Option<&str>; 6], seed: Option<i64>, status: &str) {
    let resource = if kind == "train" { "gpu" } else { "cpu" };
    sqlx::query(
        "INSERT INTO jobs (key, kind, resource, spec, status, attempts, domain, seed, heuristic, model, distribution, sigma, bound, residual, started_at, finished_at)
         VALUES ($1, $2, $3, '{}'::jsonb, $4::job_status, 1, 'gripper', $5, $6, $7, $8, $9, $10, $11, now() - interval '3 seconds', now())",
    )
    .bind(key)
    .bind(kind)
    .bind(resource)
    .bind(status)
    .bind(seed)
    .bind(axes[0])
    .bind(axes[1])
    .bind(axes[2])
    .bind(axes[3])
    .bind(axes[4])
    .bind(axes[5])
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("INSERT INTO experiment_jobs (experiment, job) VALUES ($1, $2)")
        .bind(e)
        .bind(key)
        .execute(pool)
        .await
        .unwrap();
}

/// Two configurations (NLM N and NLM TN, learned sigma, residual ff, l =
/// lmcut) x 3 seeds, each evaluated and planned on 2 instances, plus an hFF
/// baseline; curves of 2 points.
pub async fn build(pool: &PgPool) -> Fixture {
    let e = schema::create_experiment(pool, "fixture", "hand-made", "").await.unwrap();
    for i in 0..2 {
        job(pool, e, &format!("inst{i}"), "generate", [None; 6], None, "succeeded").await;
    }
    let mut evaluations = vec![];
    let mut plans = vec![];
    let values = [
        // (distribution, seed, mse, mse_clip, nll)
        ("gaussian", 1, 2.0, 1.5, 3.0),
        ("gaussian", 2, 4.0, 2.5, 3.5),
        ("gaussian", 3, 9.0, 3.0, 5.0),
        ("truncated", 1, 1.0, 1.0, 2.0),
        ("truncated", 2, 0.5, 0.5, 1.0),
        ("truncated", 3, 1.5, 1.25, 2.5),
    ];
    for (k, &(dist, seed, mse, mse_clip, nll)) in values.iter().enumerate() {
        let train = format!("train-{dist}-{seed}");
        let bound = (dist == "truncated").then_some("lmcut");
        let status = if k == 2 { "running" } else { "succeeded" };
        job(
            pool,
            e,
            &train,
            "train",
            [None, Some("nlm"), Some(dist), Some("learn"), bound, Some("ff")],
            Some(seed),
            status,
        )
        .await;
        let eval = format!("eval-{dist}-{seed}");
        job(pool, e, &eval, "evaluate", [None, None, None, None, Some("lmcut"), None], None, "succeeded").await;
        sqlx::query(
            "INSERT INTO evaluations (job, model, domain, bound, samples, mse, mse_clip, nll, nll_clip, ff_mse, lmcut_mse, sigma)
             VALUES ($1, $2, 'gripper', 'lmcut', 40, $3, $4, $5, $5, 7.0, 11.0, 0.7)",
        )
        .bind(&eval)
        .bind(&train)
        .bind(mse)
        .bind(mse_clip)
        .bind(nll)
        .execute(pool)
        .await
        .unwrap();
        evaluations.push(("nlm", dist, seed, mse, mse_clip, nll));
        for step in [10i64, 20] {
            sqlx::query(
                "INSERT INTO training_curves (job, step, train_nll, val_mse, val_nll, seconds) VALUES ($1, $2, 1.0, $3, 1.0, 1.0)",
            )
            .bind(&train)
            .bind(step)
            .bind(mse * 10.0 / step as f64)
            .execute(pool)
            .await
            .unwrap();
        }
        for i in 0..2 {
            let solved = !(seed == 3 && i == 1);
            let evals = if solved { 100 * (seed + i) } else { 10_000 };
            let key = format!("plan-{dist}-{seed}-{i}");
            job(pool, e, &key, "plan", [Some("learned"), None, None, None, None, None], None, "succeeded").await;
            sqlx::query(
                "INSERT INTO plan_runs (job, instance, domain, heuristic, search, status, solved, evaluations, expansions,
                     generated, search_time_s, max_evaluations, model, forward_passes)
                 VALUES ($1, $2, 'gripper', 'learned', 'gbfs', $3, $4, $5, 1, 1, 0.1, 10000, $6, 2)",
            )
            .bind(&key)
            .bind(format!("inst{i}"))
            .bind(if solved { "solved" } else { "evaluation_limit" })
            .bind(solved)
            .bind(evals)
            .bind(&train)
            .execute(pool)
            .await
            .unwrap();
            plans.push((train.clone(), format!("inst{i}"), solved, evals));
        }
    }
    for i in 0..2 {
        let key = format!("plan-ff-{i}");
        job(pool, e, &key, "plan", [Some("ff"), None, None, None, None, None], None, "succeeded").await;
        sqlx::query(
            "INSERT INTO plan_runs (job, instance, domain, heuristic, search, status, solved, evaluations, expansions,
                 generated, search_time_s, max_evaluations)
             VALUES ($1, $2, 'gripper', 'ff', 'gbfs', 'solved', true, $3, 1, 1, 0.1, 10000)",
        )
        .bind(&key)
        .bind(format!("inst{i}"))
        .bind(300 + 100 * i as i64)
        .execute(pool)
        .await
        .unwrap();
    }
    Fixture { experiment: e, evaluations, plans }
}

pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// Sample standard deviation (n - 1), as PostgreSQL's stddev_samp.
pub fn std(v: &[f64]) -> f64 {
    let m = mean(v);
    (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (v.len() - 1) as f64).sqrt()
}
