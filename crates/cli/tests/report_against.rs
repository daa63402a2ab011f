//! `hfarm report EXPERIMENT --against pddlsl-runs` (and `ijcai24`) against a
//! real PostgreSQL: evaluations stored as evaluate jobs store them (a
//! best-MSE and a best-NLL row each), read through the report views, put
//! beside the authors' runs checkpoint by checkpoint; the plain report and
//! `ijcai24` read the best-MSE rows only.

use std::process::Command;

use coordinator::published::runs::{self, Checkpoint, Stat};
use schema::testing::TestDatabase;

fn hfarm(args: &[&str], db: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("DATABASE_URL", db).output().expect("run hfarm")
}

/// Their test2 (mean, std) at `checkpoint` of gripper NLM learn/hFF
/// Gaussian, l = hLMcut, in the variant we run (decay 0.01, exclude_self False).
fn theirs(checkpoint: Checkpoint, metric: &str) -> (f64, f64) {
    let all = runs::load().unwrap();
    let test2 = all.sheets.iter().find(|s| s.split == "test2").unwrap();
    let values: Vec<f64> = test2
        .runs
        .iter()
        .filter(|r| {
            let c = &r.config;
            (c.model.as_str(), c.domain.as_str(), c.dist.as_str(), c.sigma.as_str(), c.res.as_str(), c.l.as_str())
                == ("NLM", "gripper", "gaussian", "learn", "ff", "lmcut")
                && c.decay == "0.01"
                && c.exclude_self.as_deref() == Some("False")
                && c.train_size == 400
        })
        .map(|r| r.value(checkpoint, metric).unwrap())
        .collect();
    let s = Stat::of(&values);
    assert_eq!(s.n, 5);
    (s.mean, s.std.unwrap())
}

/// Stores one evaluation of a trained model (a train job with the paper's
/// axes, an evaluate job, its evaluations rows: (checkpoint, mse, nll) each),
/// both jobs in the experiment.
async fn evaluation(pool: &sqlx::PgPool, key: &str, seed: i64, axes: [&str; 3], rows: &[(&str, f64, f64)]) {
    let [sigma, residual, bound] = axes;
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, seed, model, distribution, sigma, bound, residual)
             VALUES ($1, 'train', 'cpu', '{}', 'gripper', $2, 'nlm', 'gaussian', $3, $4, $5)";
    sqlx::query(q).bind(key).bind(seed).bind(sigma).bind(bound).bind(residual).execute(pool).await.unwrap();
    let eval = format!("{key}-eval");
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, bound) VALUES ($1, 'evaluate', 'cpu', '{}', 'gripper', $2)";
    sqlx::query(q).bind(&eval).bind(bound).execute(pool).await.unwrap();
    for &(checkpoint, mse, nll) in rows {
        let q = "INSERT INTO evaluations (job, model, checkpoint, domain, bound, samples, mse, mse_clip, nll, nll_clip,
                     ff_mse, lmcut_mse, sigma)
                 VALUES ($1, $2, $3, 'gripper', $4, 250, $5, $5, $6, $6, 9.9, 15.8, 1.0)";
        let q = sqlx::query(q).bind(&eval).bind(key).bind(checkpoint).bind(bound).bind(mse).bind(nll);
        q.execute(pool).await.unwrap();
    }
    for job in [key, eval.as_str()] {
        let q = "INSERT INTO experiment_jobs (experiment, job) SELECT id, $1 FROM experiments WHERE name = 'against'";
        sqlx::query(q).bind(job).execute(pool).await.unwrap();
    }
}

#[tokio::test]
async fn report_against_pddlsl_runs_reads_our_evaluations_beside_their_runs() {
    let db = TestDatabase::create().await;
    sqlx::query("INSERT INTO experiments (id, name, grid_toml) VALUES (gen_random_uuid(), 'against', '')")
        .execute(&db.pool)
        .await
        .unwrap();
    let (mse, mse_std) = theirs(Checkpoint::BestMse, "mse");
    let (nll, nll_std) = theirs(Checkpoint::BestMse, "nll");
    let (nll_mse, nll_mse_std) = theirs(Checkpoint::BestNll, "mse");
    let (nll_nll, nll_nll_std) = theirs(Checkpoint::BestNll, "nll");
    // Three seeds. Best-MSE: MSE mean = theirs (z = 0); NLL 3 of their std above (outside).
    // Best-NLL: MSE 1 of their std above (z = 1), NLL = theirs (z = 0).
    for (seed, d) in [(1, -0.1), (2, 0.0), (3, 0.1)] {
        let key = format!("train-learn-{seed}");
        let best_mse = ("best_mse", mse + d * mse_std, nll + 3.0 * nll_std);
        let best_nll = ("best_nll", nll_mse + nll_mse_std + d * nll_mse_std, nll_nll + d * nll_nll_std);
        evaluation(&db.pool, &key, seed, ["learn", "ff", "lmcut"], &[best_mse, best_nll]).await;
    }
    // A configuration they never ran, evaluated before best-NLL rows: fixed σ with the hLMcut residual.
    evaluation(&db.pool, "train-fixed-1", 1, ["fixed", "lmcut", "lmcut"], &[("best_mse", 1.0, 2.0)]).await;

    let args = ["report", "against", "--against", "pddlsl-runs", "--published-table", "test2", "--domain", "gripper"];
    let out = hfarm(&[&args[..], &["--format", "csv"]].concat(), &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let csv = String::from_utf8(out.stdout).unwrap();
    let line = |prefix: &str| {
        csv.lines().find(|l| l.starts_with(prefix)).unwrap_or_else(|| panic!("no line {prefix} in\n{csv}")).to_string()
    };
    let key = "test2,best_mse,gripper,nlm,gaussian,learn,ff,lmcut,400,0.01,False,,";
    let m = line(&format!("{key}mse,"));
    let f: Vec<&str> = m.split(',').collect();
    // ours_mean, ours_std, ours_n, theirs_mean, theirs_std, theirs_n, z, verdict
    let ours: f64 = f[13].parse().unwrap();
    assert!((ours - mse).abs() < 1e-9 * mse.max(1.0), "{m}");
    assert_eq!((f[15], f[18], f[20]), ("3", "5", "within"), "{m}");
    assert!(f[19].parse::<f64>().unwrap().abs() < 1e-6, "z = 0: {m}");
    let n = line(&format!("{key}nll,"));
    let f: Vec<&str> = n.split(',').collect();
    assert!((f[19].parse::<f64>().unwrap() - 3.0).abs() < 1e-6, "{n}");
    assert_eq!(f[20], "outside", "{n}");
    // Their best-NLL cells beside our best-NLL rows.
    let key_nll = "test2,best_nll,gripper,nlm,gaussian,learn,ff,lmcut,400,0.01,False,,";
    let m = line(&format!("{key_nll}mse,"));
    let f: Vec<&str> = m.split(',').collect();
    let ours: f64 = f[13].parse().unwrap();
    assert!((ours - (nll_mse + nll_mse_std)).abs() < 1e-9 * nll_mse.max(1.0), "{m}");
    assert_eq!((f[15], f[18], f[20]), ("3", "5", "within"), "{m}");
    assert!((f[19].parse::<f64>().unwrap() - 1.0).abs() < 1e-6, "z = 1: {m}");
    let n = line(&format!("{key_nll}nll,"));
    let f: Vec<&str> = n.split(',').collect();
    assert!((f[13].parse::<f64>().unwrap() - nll_nll).abs() < 1e-9 * nll_nll.abs().max(1.0), "{n}");
    assert!(f[19].parse::<f64>().unwrap().abs() < 1e-6, "z = 0: {n}");
    assert_eq!(f[20], "within", "{n}");
    // Their decay-0 variant and our fixed/hLMcut-residual model (best-MSE only).
    assert!(line("test2,best_mse,gripper,nlm,gaussian,learn,ff,lmcut,400,0,False,,mse,").contains("variant decay 0"));
    let ours_only: Vec<&str> = csv.lines().filter(|l| l.contains(",ours_only,")).collect();
    assert_eq!(ours_only.len(), 2, "{csv}");
    assert!(ours_only[0].starts_with("test2,best_mse,gripper,nlm,gaussian,fixed,lmcut,lmcut,,,,,mse,1,"), "{csv}");
    // Their test2 gripper: 64 NLM, 16 HGN, 16 linear configurations; 4 cells each, and ours only.
    assert_eq!(csv.lines().count(), 1 + 4 * 96 + 2);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("metric mse: "), "{err}");
    assert!(err.contains("2 of ours without a run of theirs"), "{err}");

    // Markdown ends with the summaries; ijcai24 still compares the same report.
    let md = hfarm(&args, &db.url);
    assert!(md.status.success(), "{}", String::from_utf8_lossy(&md.stderr));
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains(
        "| test2 | best_mse | gripper | nlm | gaussian | learn | ff | lmcut | 400 | 0.01 | False |  | mse |"
    ));
    assert!(md.contains("\nall: "), "{md}");
    assert!(md.trim_end().lines().last().unwrap().starts_with("metric nll: "), "{md}");
    let ijcai = hfarm(&["report", "against", "--against", "ijcai24", "--domain", "gripper"], &db.url);
    assert!(ijcai.status.success(), "{}", String::from_utf8_lossy(&ijcai.stderr));
    let ijcai = String::from_utf8(ijcai.stdout).unwrap();
    assert!(ijcai.contains("| 4 | gripper | nlm | gaussian | learn | ff | lmcut | mse |"), "{ijcai}");
    assert!(ijcai.trim_end().ends_with("published cells without a result of ours"), "{ijcai}");
    // ijcai24 and the plain report: best-MSE rows only, one per configuration.
    let ijcai =
        hfarm(&["report", "against", "--against", "ijcai24", "--domain", "gripper", "--format", "json"], &db.url);
    let ijcai: serde_json::Value = serde_json::from_slice(&ijcai.stdout).unwrap();
    let cell = ijcai["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["table"] == "4" && r["sigma"] == "learn" && r["distribution"] == "gaussian" && r["metric"] == "mse")
        .unwrap();
    assert!((cell["ours"]["mean"].as_f64().unwrap() - mse).abs() < 1e-9 * mse.max(1.0), "{cell}");
    let plain = hfarm(&["report", "against", "--domain", "gripper", "--format", "csv"], &db.url);
    assert!(plain.status.success(), "{}", String::from_utf8_lossy(&plain.stderr));
    let plain = String::from_utf8(plain.stdout).unwrap();
    let header: Vec<&str> = plain.lines().next().unwrap().split(',').collect();
    assert!(!header.contains(&"checkpoint"), "{plain}");
    let rows: Vec<Vec<&str>> = plain.lines().skip(1).map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 2, "{plain}");
    let col = |name: &str| header.iter().position(|c| *c == name).unwrap();
    let learn = rows.iter().find(|r| r[col("sigma")] == "learn").unwrap();
    assert_eq!(learn[col("seeds")], "3", "{plain}");
    let ours: f64 = learn[col("mse_mean")].parse().unwrap();
    assert!((ours - mse).abs() < 1e-9 * mse.max(1.0), "best-MSE {mse}: {plain}");
}
