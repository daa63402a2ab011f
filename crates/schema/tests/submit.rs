//! Submitting grids into a real PostgreSQL (one throwaway database per test).

use std::collections::BTreeMap;

use jobs::class::JobClass;
use jobs::expand::expand;
use jobs::grid::Grid;
use jobs::{Job, JobKind};
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

/// Grids that between them make jobs of every kind that a cost class or a
/// measured rate tells apart: trainings, evaluations and learned plans of
/// each model with draws and reserve slots (the quick grid); learners,
/// searched and published optima, tests and growing-walk sets (a likely
/// block each); bootstraps, folds and baselines (the graphlearn demo).
fn class_grids() -> Vec<(String, Grid)> {
    let read =
        |name: &str| std::fs::read_to_string(format!("{}/../../grids/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let likely = "name = \"likely-classes\"\n\
        [[likely]]\ndomain = \"8-puzzle\"\nsettings = \"tiny\"\niterations = 2\nseeds = [1]\nalphas = [0.5]\n\
        test = { walks = 2, length = 20, seed = 1 }\ntest_limits = { time_s = 5 }\n\
        [[likely]]\ndomain = \"15-puzzle\"\nsettings = \"tiny\"\niterations = 1\nseeds = [1]\nalphas = [0.5]\n\
        test = { set = \"korf100:12\", optimal = \"published\" }\n\
        [[likely]]\ndomain = \"8-puzzle\"\nsettings = \"tiny\"\nmodel = \"mean\"\niterations = 1\nseeds = [1]\n\
        tasks = [\"k1\"]\ntrain_limits = { time_s = 1 }\ntest = { growing = 3, sets = 1, budget_s = 2.5, seed = 4 }\n"
        .to_string();
    [
        ("quick.toml", read("quick.toml")),
        ("likely.toml", likely),
        ("graphlearn.toml", read("graphlearn-blocksworld.toml")),
    ]
    .into_iter()
    .map(|(name, text)| {
        let grid = Grid::parse(&text, name).unwrap();
        (text, grid)
    })
    .collect()
}

/// A job's stored class: `jobs.cost_group`, `cost_units`, `cost_cap_s`.
type StoredClass = (Option<String>, Option<f64>, Option<f64>);

/// Every job's stored class, by key.
async fn stored_classes(pool: &sqlx::PgPool) -> BTreeMap<String, StoredClass> {
    use sqlx::Row;
    let rows = sqlx::query("SELECT key, cost_group, cost_units, cost_cap_s FROM jobs").fetch_all(pool).await.unwrap();
    rows.iter().map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3)))).collect()
}

/// Each of `jobs` is stored with the class `JobClass::of_all` gives it.
fn assert_stored_as_rust_classes(stored: &BTreeMap<String, StoredClass>, jobs: &[Job]) {
    for (j, c) in jobs.iter().zip(JobClass::of_all(jobs)) {
        let want = (Some(c.group.clone()), Some(c.units), c.cap_s);
        assert_eq!(stored[j.key.as_str()], want, "{} job {}", c.kind, j.key);
    }
}

/// Submitting stores the class Rust computes for every job of every kind,
/// group, units and cap alike (`jobs::class::JobClass`, the one definition).
#[tokio::test]
async fn every_job_is_stored_with_the_class_rust_gives_it() {
    let db = TestDatabase::create().await;
    let mut kinds = std::collections::BTreeSet::new();
    let mut all = vec![];
    for (text, grid) in class_grids() {
        let jobs = expand(&grid).jobs;
        let e = schema::create_experiment(&db.pool, &grid.name, "", &text).await.unwrap();
        schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
        kinds.extend(jobs.iter().map(|j| j.spec.kind()));
        all.push(jobs);
    }
    let stored = stored_classes(&db.pool).await;
    for jobs in &all {
        assert_stored_as_rust_classes(&stored, jobs);
    }
    let unmade: Vec<JobKind> = JobKind::ALL.into_iter().filter(|k| !kinds.contains(k) && *k != JobKind::Noop).collect();
    assert!(unmade.is_empty(), "the grids make no {unmade:?} jobs");
}

/// Jobs submitted before their class was stored got it from the one-time
/// backfills (migrations 0026 and 0028): the same as Rust gives jobs
/// submitted since, reserve plans, published optima and growing-walk sets
/// included.
#[tokio::test]
async fn jobs_from_before_migration_0026_get_the_class_rust_gives() {
    let db = TestDatabase::create_at_migration(25).await;
    let mut all = vec![];
    for (_, grid) in class_grids() {
        let jobs = expand(&grid).jobs;
        // As `submit_jobs` wrote them then: the spec, its axes and the DAG.
        let mut tx = db.pool.begin().await.unwrap();
        for j in &jobs {
            let a = schema::experiments::JobAxes::of(&j.spec);
            sqlx::query(
                "INSERT INTO jobs (key, kind, resource, spec, domain, split, seed, heuristic, model)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING",
            )
            .bind(j.key.as_str())
            .bind(j.spec.kind().as_str())
            .bind(j.spec.resource().as_str())
            .bind(serde_json::to_value(&j.spec).unwrap())
            .bind(a.domain)
            .bind(a.split)
            .bind(a.seed)
            .bind(a.heuristic)
            .bind(a.model)
            .execute(&mut *tx)
            .await
            .unwrap();
            for (i, input) in j.inputs.iter().enumerate() {
                sqlx::query("INSERT INTO job_inputs (job, position, input) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING")
                    .bind(j.key.as_str())
                    .bind(i as i32)
                    .bind(input.as_str())
                    .execute(&mut *tx)
                    .await
                    .unwrap();
            }
        }
        tx.commit().await.unwrap();
        all.push(jobs);
    }
    db.migrate().await.unwrap();
    let stored = stored_classes(&db.pool).await;
    for jobs in &all {
        assert_stored_as_rust_classes(&stored, jobs);
    }
}

/// The farm's measured rates are keyed by the classes its jobs were stored
/// with, one row per class whose kind is measured, so that a rate applies
/// to exactly the jobs the cost model prices with it: the groups the SQL
/// gave before it read the stored classes (split, model, heuristic, the
/// learner's settings, the configuration), with no search measured where a
/// published optimum was taken as it is.
#[tokio::test]
async fn measured_rates_are_grouped_by_the_stored_classes() {
    let db = TestDatabase::create().await;
    let mut expected: BTreeMap<(String, String, String), i64> = BTreeMap::new();
    for (text, grid) in class_grids() {
        let jobs = expand(&grid).jobs;
        let e = schema::create_experiment(&db.pool, &grid.name, "", &text).await.unwrap();
        schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
        let mut seen = std::collections::HashSet::new();
        for (j, c) in jobs.iter().zip(JobClass::of_all(&jobs)) {
            if !seen.insert(j.key.clone()) {
                continue;
            }
            // Plan rates come from the runs, reserves' included; the other
            // kinds' from jobs whose class takes units.
            let measured = !matches!(c.kind, JobKind::Noop | JobKind::PuzzleEfficiency)
                && (c.units > 0.0 || c.kind == JobKind::Plan);
            if measured {
                *expected.entry((c.kind.as_str().to_string(), c.domain, c.group)).or_default() += 1;
            }
        }
    }
    // Every job ran for 2 s and stored what its kind's rate reads.
    sqlx::query(
        "UPDATE jobs SET status = 'succeeded', attempts = 1, started_at = '2026-01-01 00:00:00+00',
                         finished_at = '2026-01-01 00:00:02+00'",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let fixture = [
        (
            JobKind::Train,
            "INSERT INTO models (job, domain, config, device, steps, train_instances, train_samples,
                                 validation_samples, train_seconds, resumed_from)
             SELECT key, domain, '{}', 'cpu', 150, 1, 1, 1, 10, 50 FROM jobs WHERE kind = $1",
        ),
        (
            JobKind::Plan,
            "INSERT INTO plan_runs (job, instance, domain, heuristic, search, status, solved, evaluations,
                                    expansions, generated, search_time_s, max_evaluations, model)
             SELECT j.key, (SELECT i.input FROM job_inputs i WHERE i.job = j.key ORDER BY i.position DESC LIMIT 1),
                    j.domain, j.heuristic, 'gbfs', 'solved', true, 100, 10, 10, 0.5, 10000,
                    (SELECT i.input FROM job_inputs i JOIN models m ON m.job = i.input WHERE i.job = j.key)
             FROM jobs j WHERE j.kind = $1",
        ),
        (
            JobKind::PuzzleLearn,
            "INSERT INTO puzzle_learners (job, domain, iterations, seconds, resumed_from)
             SELECT key, domain, 4, 8.0, 0 FROM jobs WHERE kind = $1",
        ),
        (
            JobKind::GraphBootstrap,
            "INSERT INTO graph_bootstraps (job, domain, rounds, stopped, samples, history, seconds, resumed_from)
             SELECT key, domain, 3, 'rounds', 10, '[]', 6.0, 1 FROM jobs WHERE kind = $1",
        ),
    ];
    for (kind, q) in fixture {
        sqlx::query(q).bind(kind.as_str()).execute(&db.pool).await.unwrap();
    }
    let rows = schema::metrics::measured_rates(&db.pool).await.unwrap();
    let key = |r: &schema::metrics::Measured| {
        (r.kind.as_str().to_string(), r.domain.clone().unwrap_or_default(), r.group.clone().unwrap_or_default())
    };
    let got: BTreeMap<(String, String, String), i64> = rows.iter().map(|r| (key(r), r.jobs)).collect();
    assert_eq!(got.len(), rows.len(), "one row per class: {rows:?}");
    assert_eq!(got, expected);
    let rate = |kind: JobKind, domain: &str, group: &str| {
        let r = rows.iter().find(|r| key(r) == (kind.as_str().into(), domain.into(), group.into()));
        let r = r.unwrap_or_else(|| panic!("no {kind} rate for {domain}/{group}: {got:?}"));
        (r.seconds, r.units_per_job)
    };
    // The groups the SQL gave before it read the stored classes (checked
    // against that query when it was replaced), each at its unit's rate.
    assert_eq!(rate(JobKind::Generate, "gripper", "test"), (2.0, None));
    assert_eq!(rate(JobKind::Label, "blocksworld", "validation"), (2.0, None));
    assert_eq!(rate(JobKind::Train, "gripper", "nlm"), (0.1, None), "10 s over the 100 steps after resuming");
    assert_eq!(rate(JobKind::Evaluate, "blocksworld", "hgn"), (2.0, None));
    assert_eq!(rate(JobKind::Draw, "gripper", ""), (2.0, None));
    assert_eq!(rate(JobKind::Plan, "gripper", "ff"), (0.005, Some(100.0)));
    assert_eq!(rate(JobKind::Plan, "blocksworld", "linear"), (0.005, Some(100.0)));
    assert_eq!(rate(JobKind::PuzzleLearn, "8-puzzle", "tiny"), (2.0, None), "8 s over 4 iterations");
    assert_eq!(rate(JobKind::PuzzleSolve, "8-puzzle", ""), (2.0, None));
    assert_eq!(rate(JobKind::PuzzleTest, "15-puzzle", ""), (2.0, None));
    assert_eq!(rate(JobKind::GraphBootstrap, "blocksworld", "a2-mse"), (3.0, None), "6 s over 2 rounds");
    assert_eq!(rate(JobKind::GraphFold, "blocksworld", "a3-logmse+ff"), (2.0, None));
    assert_eq!(rate(JobKind::GraphBaseline, "blocksworld", "goalcount"), (2.0, None));
    assert!(
        !got.keys().any(|(kind, domain, _)| kind == JobKind::PuzzleSolve.as_str() && domain == "15-puzzle"),
        "a published optimum taken as it is measured no search"
    );
}
