//! Labelled states in a real PostgreSQL: heuristic values by name (the
//! `heuristics` jsonb), and migration 0008's backfill from the old
//! per-heuristic columns.

use std::collections::BTreeMap;

use jobs::expand::expand;
use jobs::grid::Grid;
use jobs::JobKind;
use schema::results::{self, Label, NewInstance};
use schema::testing::TestDatabase;

/// Submits the smoke grid; returns a label job and its generate job.
async fn label_job(db: &TestDatabase) -> (String, String) {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml")).unwrap();
    let jobs = expand(&Grid::parse(&text, "smoke.toml").unwrap()).jobs;
    let e = schema::create_experiment(&db.pool, "smoke", "", &text).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    let label = jobs.iter().find(|j| j.spec.kind() == JobKind::Label).unwrap();
    (label.key.0.clone(), label.inputs[0].0.clone())
}

async fn store_instance(db: &TestDatabase, generate: &str) {
    let i = NewInstance {
        domain: "gripper".into(),
        split: "train".into(),
        generator: serde_json::json!({"domain": "gripper", "balls": 1}),
        seed: 1,
        generator_seed: 7,
        tries: 1,
        domain_pddl: "(define (domain gripper))".into(),
        problem_pddl: "(define (problem p))".into(),
        optimal_cost: 1,
        plan: vec!["(pick ball1 rooma left)".into()],
        expansions: 2,
        search_time_s: 0.01,
        effort: Default::default(),
    };
    let mut tx = db.pool.begin().await.unwrap();
    results::insert_instance(&mut tx, generate, &i).await.unwrap();
    tx.commit().await.unwrap();
}

fn values(pairs: &[(&str, Option<f64>)]) -> BTreeMap<String, Option<f64>> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[tokio::test]
async fn heuristic_values_round_trip_by_name_with_dead_ends() {
    let db = TestDatabase::create().await;
    let (label, generate) = label_job(&db).await;
    store_instance(&db, &generate).await;
    let labels = vec![
        Label {
            step: 0,
            atoms: vec!["(at ball1 rooma)".into(), "(room rooma)".into()],
            h_star: 1,
            // Any registered name: the store has no list of heuristics.
            heuristics: values(&[("lmcut", Some(1.0)), ("ff", Some(2.0)), ("hadd", None), ("newh", Some(0.5))]),
            deletes_ignored: Some(3.0),
            mean_deletes_ignored: None,
            feature_ff: None,
        },
        Label {
            step: 1,
            atoms: vec!["(room rooma)".into()],
            h_star: 0,
            heuristics: BTreeMap::new(),
            deletes_ignored: None,
            mean_deletes_ignored: Some(0.25),
            feature_ff: Some(3.0),
        },
    ];
    let mut tx = db.pool.begin().await.unwrap();
    results::insert_labels(&mut tx, &label, &generate, "gripper", "train", &labels).await.unwrap();
    tx.commit().await.unwrap();
    let back = results::labelled_instances(&db.pool, std::slice::from_ref(&label)).await.unwrap();
    assert_eq!(back.len(), 1);
    assert_eq!((back[0].instance.as_str(), back[0].split.as_str()), (generate.as_str(), "train"));
    assert_eq!(back[0].labels, labels);
}

#[tokio::test]
async fn migration_0008_moves_the_old_columns_into_the_map() {
    let db = TestDatabase::create_at_migration(7).await;
    // Rows as the schema of 0007 holds them (today's operations may need later columns).
    let (label, generate) = ("l".repeat(32), "g".repeat(32));
    sqlx::query(
        "INSERT INTO jobs (key, kind, resource, spec) VALUES
             ($1, 'label', 'cpu', '{\"kind\":\"label\"}'), ($2, 'generate', 'cpu', '{\"kind\":\"generate\"}')",
    )
    .bind(&label)
    .bind(&generate)
    .execute(&db.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO labelled_states (job, step, instance, domain, split, atoms, h_star, lmcut, hmax, blind, hadd,
             ff, goalcount, deletes_ignored, mean_deletes_ignored)
         VALUES ($1, 0, $2, 'gripper', 'train', '[\"(room rooma)\"]', 3, 2, 1, 1, 4, 3, 2, 5, 0.5),
                ($1, 1, $2, 'gripper', 'train', '[]', 2, NULL, NULL, 1, NULL, NULL, 1, NULL, NULL)",
    )
    .bind(&label)
    .bind(&generate)
    .execute(&db.pool)
    .await
    .unwrap();
    db.migrate().await.unwrap();
    store_instance(&db, &generate).await;
    let back = results::labelled_instances(&db.pool, std::slice::from_ref(&label)).await.unwrap();
    let labels = &back[0].labels;
    assert_eq!(labels.len(), 2);
    assert_eq!(
        labels[0].heuristics,
        values(&[
            ("blind", Some(1.0)),
            ("ff", Some(3.0)),
            ("goalcount", Some(2.0)),
            ("hadd", Some(4.0)),
            ("hmax", Some(1.0)),
            ("lmcut", Some(2.0))
        ])
    );
    assert_eq!(
        (labels[0].h_star, labels[0].deletes_ignored, labels[0].mean_deletes_ignored),
        (3, Some(5.0), Some(0.5))
    );
    assert_eq!(
        labels[1].heuristics,
        values(&[
            ("blind", Some(1.0)),
            ("ff", None),
            ("goalcount", Some(1.0)),
            ("hadd", None),
            ("hmax", None),
            ("lmcut", None)
        ])
    );
    let (columns,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM information_schema.columns
         WHERE table_name = 'labelled_states' AND column_name IN ('lmcut', 'hmax', 'blind', 'hadd', 'ff', 'goalcount')",
    )
    .fetch_one(&db.pool)
    .await
    .unwrap();
    assert_eq!(columns, 0, "the per-heuristic columns are gone");
}
