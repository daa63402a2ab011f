//! Evaluations per checkpoint (migration 0018): an evaluate job writes a
//! best-MSE and a best-NLL row; rows stored before the migration are
//! best-MSE; `report_accuracy` (the published tables' view) still reads one
//! row per configuration, the best-MSE one, and
//! `report_accuracy_by_checkpoint` both.

use schema::reports::{self, Cell, Filter, Table};
use schema::results::{insert_evaluation, Evaluation};
use schema::testing::TestDatabase;
use schema::training::Tag;
use sqlx::PgPool;
use uuid::Uuid;

async fn experiment(pool: &PgPool) -> Uuid {
    let id = Uuid::new_v4();
    sqlx::query("INSERT INTO experiments (id, name, grid_toml) VALUES ($1, 'checkpoints', '')")
        .bind(id)
        .execute(pool)
        .await
        .unwrap();
    id
}

/// A train job of gripper NLM learn/hFF Gaussian and its evaluate job, both
/// in the experiment.
async fn jobs(pool: &PgPool, experiment: Uuid, train: &str, seed: i64) -> String {
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, seed, model, distribution, sigma, bound, residual)
             VALUES ($1, 'train', 'cpu', '{}', 'gripper', $2, 'nlm', 'gaussian', 'learn', 'lmcut', 'ff')";
    sqlx::query(q).bind(train).bind(seed).execute(pool).await.unwrap();
    let eval = format!("{train}-eval");
    let q = "INSERT INTO jobs (key, kind, resource, spec, domain, bound) VALUES ($1, 'evaluate', 'cpu', '{}', 'gripper', 'lmcut')";
    sqlx::query(q).bind(&eval).execute(pool).await.unwrap();
    for job in [train, eval.as_str()] {
        sqlx::query("INSERT INTO experiment_jobs (experiment, job) VALUES ($1, $2)")
            .bind(experiment)
            .bind(job)
            .execute(pool)
            .await
            .unwrap();
    }
    eval
}

fn evaluation(model: &str, checkpoint: Tag, mse: f64, nll: f64) -> Evaluation {
    Evaluation {
        model: model.to_string(),
        checkpoint,
        domain: "gripper".into(),
        bound: "lmcut".into(),
        samples: 250,
        mse,
        mse_clip: mse,
        nll,
        nll_clip: nll,
        ff_mse: 9.9,
        lmcut_mse: 15.8,
        sigma: 1.0,
    }
}

/// A number of a report row by column name.
fn num(r: &reports::Report, row: usize, column: &str) -> Option<f64> {
    let i = r.columns.iter().position(|c| c == column).unwrap();
    match &r.rows[row][i] {
        Cell::Num(v) => *v,
        Cell::Int(v) => Some(*v as f64),
        Cell::Text(t) => panic!("{column} is text: {t:?}"),
    }
}

fn text(r: &reports::Report, row: usize, column: &str) -> Option<String> {
    let i = r.columns.iter().position(|c| c == column).unwrap();
    match &r.rows[row][i] {
        Cell::Text(t) => t.clone(),
        other => panic!("{column} is not text: {other:?}"),
    }
}

#[tokio::test]
async fn an_evaluation_writes_a_row_per_checkpoint_and_report_accuracy_stays_best_mse() {
    // A row written before 0018 (no checkpoint column yet).
    let db = TestDatabase::create_at_migration(17).await;
    let exp = experiment(&db.pool).await;
    let old = jobs(&db.pool, exp, "train-1", 1).await;
    sqlx::query(
        "INSERT INTO evaluations (job, model, domain, bound, samples, mse, mse_clip, nll, nll_clip, ff_mse, lmcut_mse, sigma)
         VALUES ($1, 'train-1', 'gripper', 'lmcut', 250, 2.0, 2.0, 5.0, 5.0, 9.9, 15.8, 1.0)",
    )
    .bind(&old)
    .execute(&db.pool)
    .await
    .unwrap();
    db.migrate().await.unwrap();
    let stored: Vec<(String, String)> =
        sqlx::query_as("SELECT job, checkpoint FROM evaluations").fetch_all(&db.pool).await.unwrap();
    assert_eq!(stored, [(old.clone(), "best_mse".to_string())], "an older row is best-MSE");

    // An evaluate job's two rows, in its transaction; a second attempt's are ignored.
    let eval = jobs(&db.pool, exp, "train-2", 2).await;
    for _attempt in 0..2 {
        let mut tx = db.pool.begin().await.unwrap();
        insert_evaluation(&mut tx, &eval, &evaluation("train-2", Tag::BestMse, 4.0, 7.0)).await.unwrap();
        insert_evaluation(&mut tx, &eval, &evaluation("train-2", Tag::BestNll, 6.0, 3.0)).await.unwrap();
        tx.commit().await.unwrap();
    }
    let rows: Vec<(String, f64, f64)> =
        sqlx::query_as("SELECT checkpoint, mse, nll FROM evaluations WHERE job = $1 ORDER BY checkpoint")
            .bind(&eval)
            .fetch_all(&db.pool)
            .await
            .unwrap();
    assert_eq!(rows, [("best_mse".to_string(), 4.0, 7.0), ("best_nll".to_string(), 6.0, 3.0)]);
    // Only the two best checkpoints are evaluations.
    let mut tx = db.pool.begin().await.unwrap();
    let last = insert_evaluation(&mut tx, &eval, &evaluation("train-2", Tag::Last, 1.0, 1.0)).await;
    assert!(last.is_err(), "{last:?}");
    drop(tx);

    // The published tables' view: one row for the configuration, over the two seeds' best-MSE rows.
    let filter = Filter::default();
    let r = reports::table(&db.pool, exp, Table::Accuracy, &filter).await.unwrap();
    assert_eq!(r.rows.len(), 1, "{r:?}");
    assert!(!r.columns.iter().any(|c| c == reports::CHECKPOINT));
    assert_eq!(
        (num(&r, 0, "seeds"), num(&r, 0, "mse_mean"), num(&r, 0, "nll_mean")),
        (Some(2.0), Some(3.0), Some(6.0))
    );
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM report_accuracy WHERE experiment = $1")
        .bind(exp)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(n, 1);

    // Per checkpoint: best-MSE over both seeds, best-NLL over the one that has it.
    let r = reports::accuracy_by_checkpoint(&db.pool, exp, &filter).await.unwrap();
    assert_eq!(r.table, Table::Accuracy);
    type Row = (Option<String>, Option<f64>, Option<f64>, Option<f64>);
    let by: Vec<Row> = (0..r.rows.len())
        .map(|i| {
            (text(&r, i, reports::CHECKPOINT), num(&r, i, "seeds"), num(&r, i, "mse_mean"), num(&r, i, "nll_mean"))
        })
        .collect();
    assert_eq!(
        by,
        [
            (Some("best_mse".into()), Some(2.0), Some(3.0), Some(6.0)),
            (Some("best_nll".into()), Some(1.0), Some(6.0), Some(3.0)),
        ]
    );
    assert_eq!(text(&r, 1, "model").as_deref(), Some("nlm"));
    // Filters apply as to the accuracy table.
    let hmax = Filter { bound: Some("hmax".into()), ..Filter::default() };
    assert!(reports::accuracy_by_checkpoint(&db.pool, exp, &hmax).await.unwrap().rows.is_empty());
}
