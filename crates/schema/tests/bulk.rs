//! Acting on an experiment's jobs at once, the kept counts, priorities and
//! one job's detail, on a real PostgreSQL (one throwaway database per test).

use std::collections::BTreeMap;

use jobs::expand::expand;
use jobs::grid::Grid;
use jobs::JobKind;
use schema::bulk::{self, Acted, BulkError, Selection};
use schema::detail::{self, Found};
use schema::lifecycle;
use schema::testing::TestDatabase;
use schema::{JobStatus, Uuid};

async fn smoke_db() -> (TestDatabase, Uuid, Vec<jobs::Job>) {
    let db = TestDatabase::create().await;
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml")).unwrap();
    let grid = Grid::parse(&text, "smoke.toml").unwrap();
    let jobs = expand(&grid).jobs;
    let e = schema::create_experiment(&db.pool, "smoke", "", &text).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    (db, e, jobs)
}

/// Every job's state, by key.
async fn states(db: &TestDatabase) -> BTreeMap<String, JobStatus> {
    let rows: Vec<(String, JobStatus)> =
        sqlx::query_as("SELECT key, status FROM jobs").fetch_all(&db.pool).await.unwrap();
    rows.into_iter().collect()
}

async fn set(db: &TestDatabase, key: &str, status: &str) {
    sqlx::query(&format!("UPDATE jobs SET status = '{status}' WHERE key = $1"))
        .bind(key)
        .execute(&db.pool)
        .await
        .unwrap();
}

/// The kept counts equal a count of the jobs themselves.
async fn counts_hold(db: &TestDatabase, e: Uuid) {
    let kept = schema::experiments::kind_status_counts(&db.pool, e).await.unwrap();
    let exact = schema::experiments::exact_kind_status_counts(&db.pool, e).await.unwrap();
    assert_eq!(kept, exact, "kept counts of {e}");
}

#[tokio::test]
async fn retry_takes_only_the_chosen_jobs() {
    let (db, e, jobs) = smoke_db().await;
    let gens: Vec<&str> = jobs.iter().filter(|j| j.spec.kind() == JobKind::Generate).map(|j| j.key.as_str()).collect();
    let plans: Vec<&str> = jobs.iter().filter(|j| j.spec.kind() == JobKind::Plan).map(|j| j.key.as_str()).collect();
    set(&db, gens[0], "dead").await;
    set(&db, gens[1], "failed").await;
    set(&db, gens[2], "cancelled").await;
    set(&db, gens[3], "succeeded").await;
    set(&db, plans[0], "dead").await;
    sqlx::query("UPDATE jobs SET attempts = 3, last_error = 'boom' WHERE status IN ('dead', 'failed')")
        .execute(&db.pool)
        .await
        .unwrap();
    let before = states(&db).await;

    // Dead and failed generate jobs only.
    let sel = Selection { statuses: vec![], kind: Some(JobKind::Generate) };
    assert_eq!(bulk::retry_experiment(&db.pool, e, &sel).await.unwrap(), Acted { changed: 2, kept_shared: 0 });
    let after = states(&db).await;
    for (key, was) in &before {
        let expected = if [gens[0], gens[1]].contains(&key.as_str()) { JobStatus::Pending } else { *was };
        assert_eq!(after[key], expected, "{key}");
    }
    let (attempts, error): (i32, Option<String>) =
        sqlx::query_as("SELECT attempts, last_error FROM jobs WHERE key = $1")
            .bind(gens[0])
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!((attempts, error), (0, None), "fresh attempts");

    // Cancelled ones when asked, of any kind; the dead plan job stays.
    let sel = Selection { statuses: vec![JobStatus::Cancelled], kind: None };
    assert_eq!(bulk::retry_experiment(&db.pool, e, &sel).await.unwrap().changed, 1);
    assert_eq!(states(&db).await[plans[0]], JobStatus::Dead);
    assert_eq!(states(&db).await[gens[2]], JobStatus::Pending);
    // A state a retry cannot take jobs from is refused, nothing changes.
    let sel = Selection { statuses: vec![JobStatus::Succeeded], kind: None };
    let err = bulk::retry_experiment(&db.pool, e, &sel).await.unwrap_err();
    assert!(matches!(&err, BulkError::Refused(m) if m.contains("cannot retry succeeded")), "{err}");
    assert_eq!(states(&db).await[gens[3]], JobStatus::Succeeded);
    // Another experiment's retry leaves this one's jobs alone.
    let other = schema::create_experiment(&db.pool, "other", "", "").await.unwrap();
    assert_eq!(bulk::retry_experiment(&db.pool, other, &Selection::default()).await.unwrap().changed, 0);
    assert_eq!(states(&db).await[plans[0]], JobStatus::Dead);
    counts_hold(&db, e).await;
}

#[tokio::test]
async fn cancel_stops_unfinished_jobs_but_not_other_experiments_work() {
    let (db, e, jobs) = smoke_db().await;
    let gens: Vec<&str> = jobs.iter().filter(|j| j.spec.kind() == JobKind::Generate).map(|j| j.key.as_str()).collect();
    // A running job: its worker learns of the cancel at its next heartbeat.
    lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    assert!(lifecycle::claim(&db.pool, gens[0], "w1", 60.0).await.unwrap().is_some());
    set(&db, gens[1], "succeeded").await;
    // A second experiment shares one queued generate job.
    let other = schema::create_experiment(&db.pool, "other", "", "").await.unwrap();
    let shared = jobs.iter().find(|j| j.key.as_str() == gens[2]).unwrap().clone();
    schema::submit_jobs(&db.pool, other, &[shared], false).await.unwrap();

    let r = bulk::cancel_experiment(&db.pool, e, &Selection::default(), false).await.unwrap();
    assert_eq!(r, Acted { changed: jobs.len() as u64 - 2, kept_shared: 1 });
    let after = states(&db).await;
    assert_eq!(after[gens[0]], JobStatus::Cancelled);
    assert_eq!(after[gens[1]], JobStatus::Succeeded, "a finished job stays");
    assert_eq!(after[gens[2]], JobStatus::Queued, "the other experiment's job runs on");
    assert!(!lifecycle::heartbeat(&db.pool, gens[0], "w1", 60.0).await.unwrap(), "the worker is told to stop");
    assert!(lifecycle::claim(&db.pool, gens[3], "w2", 60.0).await.unwrap().is_none(), "a popped key is dropped");
    counts_hold(&db, e).await;
    counts_hold(&db, other).await;

    // Shared jobs too, when asked; only the chosen kind.
    let sel = Selection { statuses: vec![JobStatus::Queued], kind: Some(JobKind::Label) };
    assert_eq!(bulk::cancel_experiment(&db.pool, e, &sel, true).await.unwrap().changed, 0);
    let sel = Selection { statuses: vec![], kind: Some(JobKind::Generate) };
    assert_eq!(bulk::cancel_experiment(&db.pool, e, &sel, true).await.unwrap(), Acted { changed: 1, kept_shared: 0 });
    assert_eq!(states(&db).await[gens[2]], JobStatus::Cancelled);
    let sel = Selection { statuses: vec![JobStatus::Dead], kind: None };
    assert!(matches!(bulk::cancel_experiment(&db.pool, e, &sel, false).await, Err(BulkError::Refused(_))));
    counts_hold(&db, e).await;
    counts_hold(&db, other).await;
}

#[tokio::test]
async fn kept_counts_follow_every_change() {
    let (db, e, jobs) = smoke_db().await;
    counts_hold(&db, e).await;
    // The life of jobs: ready, claimed, finished, failed to death, retried.
    lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    let queued: Vec<String> = sqlx::query_scalar("SELECT key FROM jobs WHERE status = 'queued' ORDER BY key")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    for (i, key) in queued.iter().enumerate().take(6) {
        lifecycle::claim(&db.pool, key, "w", 60.0).await.unwrap().unwrap();
        if i % 2 == 0 {
            let mut tx = lifecycle::begin(&db.pool).await.unwrap();
            assert!(lifecycle::finish(&mut tx, key, "w").await.unwrap());
            tx.commit().await.unwrap();
        } else {
            lifecycle::fail(&db.pool, key, "w", "boom").await.unwrap();
        }
    }
    counts_hold(&db, e).await;
    // Folded, then more changes on top of the folded counts.
    schema::experiments::fold_counts(&db.pool).await.unwrap();
    lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    lifecycle::cancel(&db.pool, &queued[0]).await.unwrap();
    lifecycle::retry(&db.pool, &queued[0]).await.unwrap();
    counts_hold(&db, e).await;

    // A second experiment over the same jobs counts them in their current
    // states, and both follow a change made in the transaction that adds
    // them (counted once, not twice).
    let again = schema::create_experiment(&db.pool, "again", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, again, &jobs, true).await.unwrap();
    counts_hold(&db, again).await;
    counts_hold(&db, e).await;
    let third = schema::create_experiment(&db.pool, "third", "", "").await.unwrap();
    let mut tx = db.pool.begin().await.unwrap();
    sqlx::query("INSERT INTO experiment_jobs (experiment, job) VALUES ($1, $2)")
        .bind(third)
        .bind(&queued[1])
        .execute(&mut *tx)
        .await
        .unwrap();
    sqlx::query("UPDATE jobs SET status = 'succeeded' WHERE key = $1")
        .bind(&queued[1])
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    counts_hold(&db, third).await;
    counts_hold(&db, e).await;
    let total: i64 = schema::status_counts(&db.pool, third).await.unwrap().total();
    assert_eq!(total, 1);

    // The listing carries the same counts; a deleted experiment's go with it.
    let list = schema::experiments::list_with_counts(&db.pool, None).await.unwrap();
    assert_eq!(list.iter().map(|x| x.id).collect::<Vec<_>>(), vec![third, again, e], "newest first");
    assert_eq!(list[2].jobs, schema::status_counts(&db.pool, e).await.unwrap());
    assert_eq!(schema::experiments::list_with_counts(&db.pool, Some("again")).await.unwrap().len(), 1);
    sqlx::query("DELETE FROM experiments WHERE id = $1").bind(again).execute(&db.pool).await.unwrap();
    schema::experiments::fold_counts(&db.pool).await.unwrap();
    let (rows,): (i64,) = sqlx::query_as("SELECT count(*) FROM experiment_counts WHERE experiment = $1")
        .bind(again)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!(rows, 0);
    counts_hold(&db, e).await;
    // And a rebuild counts the same.
    schema::experiments::rebuild_counts(&db.pool).await.unwrap();
    counts_hold(&db, e).await;
    counts_hold(&db, third).await;
}

#[tokio::test]
async fn a_job_takes_the_highest_priority_of_its_experiments() {
    let (db, big, jobs) = smoke_db().await;
    let smoke = schema::create_experiment(&db.pool, "smoke-later", "", "").await.unwrap();
    let gens: Vec<jobs::Job> = jobs.iter().filter(|j| j.spec.kind() == JobKind::Generate).take(3).cloned().collect();
    schema::submit_jobs(&db.pool, smoke, &gens, false).await.unwrap();
    assert_eq!(bulk::set_priority(&db.pool, smoke, 10).await.unwrap(), Some(3));
    assert_eq!(bulk::priority(&db.pool, smoke).await.unwrap(), Some(10));
    let prio = |key: String| {
        let pool = db.pool.clone();
        async move {
            sqlx::query_scalar::<_, i32>("SELECT priority FROM jobs WHERE key = $1")
                .bind(key)
                .fetch_one(&pool)
                .await
                .unwrap()
        }
    };
    assert_eq!(prio(gens[0].key.0.clone()).await, 10);
    let rest = jobs.iter().find(|j| !gens.iter().any(|g| g.key == j.key)).unwrap();
    assert_eq!(prio(rest.key.0.clone()).await, 0);
    // The big experiment above it lifts all its jobs; lowered again, the
    // shared ones keep the smoke experiment's.
    assert_eq!(bulk::set_priority(&db.pool, big, 20).await.unwrap(), Some(jobs.len() as u64));
    assert_eq!(prio(gens[0].key.0.clone()).await, 20);
    bulk::set_priority(&db.pool, big, -5).await.unwrap();
    assert_eq!(prio(gens[0].key.0.clone()).await, 10);
    assert_eq!(prio(rest.key.0.clone()).await, -5);
    assert_eq!(bulk::set_priority(&db.pool, Uuid::new_v4(), 1).await.unwrap(), None);
    // Ready jobs in the order the scheduler is to announce them: priority, then age.
    let order: Vec<(i32,)> = sqlx::query_as("SELECT priority FROM jobs ORDER BY priority DESC, created_at")
        .fetch_all(&db.pool)
        .await
        .unwrap();
    assert_eq!(order[0].0, 10);
}

#[tokio::test]
async fn a_job_in_full() {
    let (db, e, jobs) = smoke_db().await;
    let plan = jobs.iter().find(|j| j.spec.kind() == JobKind::Plan).unwrap();
    let Found::Job(d) = detail::job(&db.pool, plan.key.as_str()).await.unwrap() else { panic!("found") };
    assert_eq!(d.job.key, plan.key.as_str());
    assert_eq!(d.job.kind, "plan");
    assert_eq!(d.job.status, JobStatus::Pending);
    assert_eq!(d.job.spec, serde_json::to_value(&plan.spec).unwrap());
    assert_eq!(
        d.inputs.iter().map(|i| i.key.as_str()).collect::<Vec<_>>(),
        plan.inputs.iter().map(|k| k.as_str()).collect::<Vec<_>>()
    );
    assert_eq!(d.inputs[0].position, Some(0));
    assert_eq!(d.experiments.iter().map(|x| x.id).collect::<Vec<_>>(), vec![e]);
    assert!(d.outputs.is_empty(), "nothing stored yet");
    assert_eq!((d.job.started_at, d.job.run_s), (None, None));

    // Its first input, run and failed: timings, worker, error, a dependent.
    let input = plan.inputs[0].as_str();
    sqlx::query("UPDATE jobs SET status = 'queued' WHERE key = $1").bind(input).execute(&db.pool).await.unwrap();
    lifecycle::claim(&db.pool, input, "w7", 60.0).await.unwrap().unwrap();
    lifecycle::fail(&db.pool, input, "w7", "it broke").await.unwrap();
    let prefix = &input[..12];
    let Found::Job(d) = detail::job(&db.pool, &prefix.to_uppercase()).await.unwrap() else { panic!("by prefix") };
    assert_eq!(d.job.key, input);
    assert_eq!((d.job.status, d.job.attempts, d.job.worker.as_deref()), (JobStatus::Failed, 1, Some("w7")));
    assert_eq!(d.job.last_error.as_deref(), Some("it broke"));
    assert_eq!(d.job.machine, None, "w7 never said what it runs on");
    // A worker that did: its slots' jobs show it, and no other worker's.
    let machine = serde_json::json!({"host": "box-1", "cpu": "Xeon", "cores": 8});
    schema::workers::seen(&db.pool, "w7", "cpu", 1, &machine).await.unwrap();
    schema::workers::seen(&db.pool, "w", "cpu", 1, &serde_json::json!({"host": "other"})).await.unwrap();
    sqlx::query("UPDATE jobs SET worker = 'w7/3' WHERE key = $1").bind(input).execute(&db.pool).await.unwrap();
    let Found::Job(d) = detail::job(&db.pool, input).await.unwrap() else { panic!("found") };
    assert_eq!(d.job.machine, Some(machine));
    assert!(d.job.started_at.is_some() && d.job.finished_at.is_some() && d.job.run_s.unwrap() >= 0.0);
    assert!(d.dependents.iter().any(|x| x.key == plan.key.as_str()));
    assert_eq!(d.dependents_total as usize, d.dependents.len());

    assert!(matches!(detail::job(&db.pool, "ffffffffffffffffffffffffffffffff0").await.unwrap(), Found::None));
    match detail::job(&db.pool, "").await.unwrap() {
        Found::Ambiguous(keys) => assert_eq!(keys.len(), 5),
        other => panic!("every key starts with nothing: {other:?}"),
    }
}

/// Jobs change state while other experiments take them in (a resubmission
/// beside running workers): every experiment's kept counts still equal a
/// recount. The race this guards: a job added to an experiment while a
/// worker moves it on, neither transaction seeing the other's row.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn kept_counts_survive_racing_submissions() {
    let (db, e, jobs) = smoke_db().await;
    let keys: Vec<String> = jobs.iter().map(|j| j.key.0.clone()).collect();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let mut movers = vec![];
    for m in 0..3 {
        let (pool, keys, stop) = (db.pool.clone(), keys.clone(), stop.clone());
        movers.push(tokio::spawn(async move {
            let states = ["queued", "running", "failed", "pending", "succeeded", "dead"];
            let mut i = m;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let key = &keys[(i * 7) % keys.len()];
                let to = states[i % states.len()];
                sqlx::query(&format!("UPDATE jobs SET status = '{to}' WHERE key = $1"))
                    .bind(key)
                    .execute(&pool)
                    .await
                    .unwrap();
                i += 3;
            }
        }));
    }
    let mut others = vec![];
    for n in 0..6 {
        let x = schema::create_experiment(&db.pool, &format!("again-{n}"), "", "").await.unwrap();
        schema::submit_jobs(&db.pool, x, &jobs, false).await.unwrap();
        others.push(x);
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    for m in movers {
        m.await.unwrap();
    }
    counts_hold(&db, e).await;
    for x in others {
        counts_hold(&db, x).await;
    }
}

/// The scheduler promotes ready jobs by priority, then age: a smoke grid
/// given a priority is promoted before a big experiment submitted earlier.
#[tokio::test]
async fn ready_jobs_of_a_prioritised_experiment_are_promoted_first() {
    let (db, _big, jobs) = smoke_db().await;
    // Jobs without inputs are ready at once.
    let ready = jobs.iter().filter(|j| j.inputs.is_empty()).count();
    assert!(ready >= 4, "the smoke grid has {ready} jobs without inputs");
    let later = schema::create_experiment(&db.pool, "smoke-later", "", "").await.unwrap();
    let picked: Vec<jobs::Job> = jobs.iter().filter(|j| j.inputs.is_empty()).rev().take(2).cloned().collect();
    schema::submit_jobs(&db.pool, later, &picked, false).await.unwrap();
    bulk::set_priority(&db.pool, later, 5).await.unwrap();
    let first = lifecycle::promote_ready(&db.pool, 2).await.unwrap();
    let mut got: Vec<String> = first.iter().map(|r| r.key.clone()).collect();
    let mut want: Vec<String> = picked.iter().map(|j| j.key.0.clone()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "the prioritised experiment's jobs come first");
    // The rest follow: every ready job is promoted in the end.
    let rest = lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    assert_eq!(rest.len(), ready - 2);
}
