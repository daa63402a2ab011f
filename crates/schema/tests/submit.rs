//! Submitting grids into a real PostgreSQL (one throwaway database per test).

use jobs::expand::expand;
use jobs::grid::Grid;
use schema::testing::TestDatabase;

fn smoke() -> (String, Grid) {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml")).unwrap();
    let grid = Grid::parse(&text, "smoke.toml").unwrap();
    (text, grid)
}

#[tokio::test]
async fn submitting_twice_reuses_every_job() {
    let db = TestDatabase::create().await;
    let (text, grid) = smoke();
    let jobs = expand(&grid).jobs;
    let a = schema::create_experiment(&db.pool, &grid.name, &grid.description, &text).await.unwrap();
    let first = schema::submit_jobs(&db.pool, a, &jobs, false).await.unwrap();
    assert_eq!(first.new, jobs.len());
    assert_eq!(first.existing, 0);
    let b = schema::create_experiment(&db.pool, &grid.name, &grid.description, &text).await.unwrap();
    let second = schema::submit_jobs(&db.pool, b, &jobs, false).await.unwrap();
    assert_eq!(second, schema::Submitted { new: 0, existing: jobs.len() });
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM jobs").fetch_one(&db.pool).await.unwrap();
    assert_eq!(n as usize, jobs.len());
    let counts = schema::status_counts(&db.pool, b).await.unwrap();
    assert_eq!(counts[schema::JobStatus::Pending] as usize, jobs.len());
    assert_eq!(counts[schema::JobStatus::Succeeded], 0);
}

#[tokio::test]
async fn axes_are_typed_columns_and_the_dag_is_stored() {
    let db = TestDatabase::create().await;
    let (text, grid) = smoke();
    let jobs = expand(&grid).jobs;
    let e = schema::create_experiment(&db.pool, &grid.name, "", &text).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    let rows: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT domain, split, count(*) FROM jobs WHERE kind = 'generate' GROUP BY domain, split ORDER BY 1, 2",
    )
    .fetch_all(&db.pool)
    .await
    .unwrap();
    assert_eq!(rows.len(), 6);
    assert!(rows.contains(&("gripper".into(), "train".into(), 6)));
    let (edges,): (i64,) = sqlx::query_as("SELECT count(*) FROM job_inputs").fetch_one(&db.pool).await.unwrap();
    let expected: usize = jobs.iter().map(|j| j.inputs.len()).sum();
    assert_eq!(edges as usize, expected);
    let (heuristics,): (i64,) = sqlx::query_as("SELECT count(DISTINCT heuristic) FROM jobs WHERE kind = 'plan'")
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(heuristics, 5);
}

#[tokio::test]
async fn force_sends_known_jobs_back_to_pending() {
    let db = TestDatabase::create().await;
    let (text, grid) = smoke();
    let jobs = expand(&grid).jobs;
    let e = schema::create_experiment(&db.pool, &grid.name, "", &text).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    sqlx::query("UPDATE jobs SET status = 'succeeded', attempts = 1").execute(&db.pool).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    assert_eq!(schema::status_counts(&db.pool, e).await.unwrap()[schema::JobStatus::Succeeded] as usize, jobs.len());
    schema::submit_jobs(&db.pool, e, &jobs, true).await.unwrap();
    assert_eq!(schema::status_counts(&db.pool, e).await.unwrap()[schema::JobStatus::Pending] as usize, jobs.len());
}

#[tokio::test]
async fn connect_creating_makes_a_missing_database() {
    let admin = schema::testing::admin_url();
    let name = format!("hfarm_test_new_{}", uuid::Uuid::new_v4().simple());
    let url = match admin.rfind('/') {
        Some(i) => format!("{}/{name}", &admin[..i]),
        None => unreachable!(),
    };
    let pool = schema::connect_creating(&url).await.unwrap();
    let (n,): (i64,) = sqlx::query_as("SELECT count(*) FROM jobs").fetch_one(&pool).await.unwrap();
    assert_eq!(n, 0);
    pool.close().await;
    use sqlx::{Connection, Executor};
    let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
    c.execute(format!("DROP DATABASE {name} WITH (FORCE)").as_str()).await.unwrap();
}

/// Every job is stored with the cost class the dry run gives it
/// (`jobs::class::JobClass`), and what is left of an experiment is grouped
/// by those columns: the same units per class as the dry run, the plan
/// jobs behind the smoke grid's reserve draws (one test slot of three per
/// domain) at none.
#[tokio::test]
async fn jobs_carry_their_cost_class_and_remaining_work_reads_it() {
    let db = TestDatabase::create().await;
    let (text, grid) = smoke();
    let jobs = expand(&grid).jobs;
    let e = schema::create_experiment(&db.pool, &grid.name, "", &text).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    let classes = jobs::class::JobClass::of_all(&jobs);
    let mut by_class: std::collections::BTreeMap<(String, String, String), (i64, f64)> = Default::default();
    for c in &classes {
        let k = by_class.entry((c.kind.as_str().to_string(), c.domain.clone(), c.group.clone())).or_default();
        k.0 += 1;
        k.1 += c.units;
    }
    let rows = schema::metrics::remaining(&db.pool, e).await.unwrap();
    assert_eq!(rows.len(), by_class.len(), "{rows:?}");
    for r in &rows {
        let (n, units) = by_class[&(r.kind.clone(), r.domain.clone(), r.group.clone())];
        assert_eq!(r.jobs, n, "{r:?}");
        assert!((r.units * r.jobs as f64 - units).abs() < 1e-6, "{r:?}: {units}");
    }
    let reserves: Vec<(f64,)> = sqlx::query_as("SELECT cost_units FROM jobs WHERE kind = 'plan' AND cost_units = 0")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(reserves.len(), 10, "5 heuristics x 1 reserve slot x 2 domains");
    let plans: Vec<(String, f64)> =
        sqlx::query_as("SELECT cost_group, cost_cap_s FROM jobs WHERE kind = 'plan' AND cost_units > 0")
            .fetch_all(&db.pool)
            .await
            .unwrap();
    assert_eq!(plans.len(), 20);
    assert!(plans.iter().all(|(g, cap)| !g.is_empty() && *cap == 30.0), "{plans:?}");
}
