//! The job lifecycle's guarantees, on a real PostgreSQL.

use jobs::expand::expand;
use jobs::grid::Grid;
use schema::lifecycle::{self, Failure};
use schema::testing::TestDatabase;

async fn smoke_db() -> (TestDatabase, uuid::Uuid, Vec<jobs::Job>) {
    let db = TestDatabase::create().await;
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml")).unwrap();
    let grid = Grid::parse(&text, "smoke.toml").unwrap();
    let jobs = expand(&grid).jobs;
    let e = schema::create_experiment(&db.pool, "smoke", "", &text).await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    (db, e, jobs)
}

async fn succeed(db: &TestDatabase, key: &str, worker: &str) -> bool {
    let mut tx = db.pool.begin().await.unwrap();
    let ok = lifecycle::finish(&mut tx, key, worker).await.unwrap();
    if ok {
        tx.commit().await.unwrap();
    } else {
        tx.rollback().await.unwrap();
    }
    ok
}

#[tokio::test]
async fn only_jobs_whose_inputs_succeeded_become_ready() {
    let (db, _, jobs) = smoke_db().await;
    let ready = lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    let generate: Vec<_> = jobs.iter().filter(|j| j.inputs.is_empty()).collect();
    assert_eq!(ready.len(), generate.len(), "only input-less jobs are ready at first");
    assert!(ready.iter().all(|r| r.resource == "cpu"));
    assert!(lifecycle::promote_ready(&db.pool, 1000).await.unwrap().is_empty(), "queued jobs are not promoted twice");
    let first = &generate[0].key.0;
    assert!(lifecycle::claim(&db.pool, first, "w1", 60.0).await.unwrap().is_some());
    assert!(succeed(&db, first, "w1").await);
    let next = lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    let consumers: Vec<_> =
        jobs.iter().filter(|j| j.inputs.iter().any(|i| &i.0 == first)).map(|j| j.key.0.clone()).collect();
    assert!(!consumers.is_empty());
    assert!(next.iter().all(|r| consumers.contains(&r.key)), "{next:?}");
    assert_eq!(
        next.len(),
        consumers.iter().filter(|c| jobs.iter().find(|j| &j.key.0 == *c).unwrap().inputs.len() == 1).count()
    );
}

#[tokio::test]
async fn a_duplicate_delivery_runs_and_records_once() {
    let (db, e, _) = smoke_db().await;
    let ready = lifecycle::promote_ready(&db.pool, 1).await.unwrap();
    let key = &ready[0].key;
    let a = lifecycle::claim(&db.pool, key, "w1", 60.0).await.unwrap();
    let b = lifecycle::claim(&db.pool, key, "w2", 60.0).await.unwrap();
    assert!(a.is_some() && b.is_none(), "the second delivery must find the job taken");
    assert!(succeed(&db, key, "w1").await);
    assert!(!succeed(&db, key, "w2").await, "a stale worker cannot finish it");
    assert!(lifecycle::claim(&db.pool, key, "w3", 60.0).await.unwrap().is_none());
    let counts = schema::status_counts(&db.pool, e).await.unwrap();
    assert_eq!(counts[schema::JobStatus::Succeeded], 1);
}

#[tokio::test]
async fn a_poison_job_is_dead_after_its_attempts_with_its_error() {
    let (db, _, _) = smoke_db().await;
    let key = lifecycle::promote_ready(&db.pool, 1).await.unwrap()[0].key.clone();
    let mut outcomes = vec![];
    for attempt in 1..=3 {
        let c = lifecycle::claim(&db.pool, &key, "w", 60.0).await.unwrap().expect("queued");
        assert_eq!(c.attempts, attempt);
        outcomes.push(lifecycle::fail(&db.pool, &key, "w", &format!("boom {attempt}")).await.unwrap());
        let again = lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
        assert_eq!(again.iter().any(|r| r.key == key), attempt < 3);
    }
    assert_eq!(outcomes, vec![Failure::Retry, Failure::Retry, Failure::Dead]);
    let (status, err): (String, String) = sqlx::query_as("SELECT status::text, last_error FROM jobs WHERE key = $1")
        .bind(&key)
        .fetch_one(&db.pool)
        .await
        .unwrap();
    assert_eq!((status.as_str(), err.as_str()), ("dead", "boom 3"));
    assert!(lifecycle::retry(&db.pool, &key).await.unwrap());
    assert!(lifecycle::promote_ready(&db.pool, 1000).await.unwrap().iter().any(|r| r.key == key));
}

#[tokio::test]
async fn an_expired_lease_out_of_attempts_ends_dead_with_its_reason_and_is_not_announced() {
    let (db, _, _) = smoke_db().await;
    let keys: Vec<String> = lifecycle::promote_ready(&db.pool, 2).await.unwrap().into_iter().map(|r| r.key).collect();
    sqlx::query("UPDATE jobs SET max_attempts = 1 WHERE key = $1").bind(&keys[0]).execute(&db.pool).await.unwrap();
    for k in &keys {
        lifecycle::claim(&db.pool, k, "killed", 0.05).await.unwrap().unwrap();
    }
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    let back: Vec<String> = lifecycle::requeue_expired(&db.pool).await.unwrap().into_iter().map(|r| r.key).collect();
    assert_eq!(back, vec![keys[1].clone()], "only the job with attempts left is announced");
    let row = |k: &String| {
        sqlx::query_as::<_, (String, Option<String>, Option<String>, bool, bool)>(
            "SELECT status::text, worker, last_error, finished_at IS NOT NULL, lease_expires_at IS NULL
             FROM jobs WHERE key = $1",
        )
        .bind(k.clone())
        .fetch_one(&db.pool)
    };
    let (status, worker, error, finished, no_lease) = row(&keys[0]).await.unwrap();
    assert_eq!((status.as_str(), worker.as_deref(), finished, no_lease), ("dead", Some("killed"), true, true));
    assert_eq!(error.as_deref(), Some("lease expired (worker killed lost)"));
    let (status, worker, error, finished, no_lease) = row(&keys[1]).await.unwrap();
    assert_eq!((status.as_str(), worker, error, finished, no_lease), ("queued", None, None, false, true));
    assert!(lifecycle::requeue_expired(&db.pool).await.unwrap().is_empty(), "nothing twice");
}

#[tokio::test]
async fn an_expired_lease_sends_the_job_back_and_the_lost_worker_cannot_finish() {
    let (db, _, _) = smoke_db().await;
    let key = lifecycle::promote_ready(&db.pool, 1).await.unwrap()[0].key.clone();
    lifecycle::claim(&db.pool, &key, "killed", 0.05).await.unwrap().unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(150)).await;
    assert!(!lifecycle::heartbeat(&db.pool, &key, "other", 60.0).await.unwrap());
    let back = lifecycle::requeue_expired(&db.pool).await.unwrap();
    assert_eq!(back.len(), 1);
    let c = lifecycle::claim(&db.pool, &key, "healthy", 60.0).await.unwrap().unwrap();
    assert_eq!(c.attempts, 2);
    assert!(!succeed(&db, &key, "killed").await);
    assert!(lifecycle::heartbeat(&db.pool, &key, "healthy", 60.0).await.unwrap());
    assert!(succeed(&db, &key, "healthy").await);
}

#[tokio::test]
async fn stale_queued_jobs_are_announced_again_and_hand_back_keeps_the_attempt() {
    let (db, _, _) = smoke_db().await;
    let ready = lifecycle::promote_ready(&db.pool, 3).await.unwrap();
    assert!(lifecycle::stale_queued(&db.pool, 60.0, &["cpu"]).await.unwrap().is_empty());
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert_eq!(lifecycle::stale_queued(&db.pool, 0.1, &["cpu", "gpu"]).await.unwrap().len(), 3);
    let key = &ready[0].key;
    lifecycle::claim(&db.pool, key, "w", 60.0).await.unwrap().unwrap();
    assert!(lifecycle::hand_back(&db.pool, key, "w").await.unwrap().is_some());
    let c = lifecycle::claim(&db.pool, key, "w2", 60.0).await.unwrap().unwrap();
    assert_eq!(c.attempts, 1, "a handed-back attempt does not count");
    assert!(lifecycle::cancel(&db.pool, key).await.unwrap());
    assert!(!succeed(&db, key, "w2").await, "a cancelled job cannot succeed");
}

/// What wakes the scheduler's search for ready jobs (migration 0031): jobs
/// added, a job ended or failed, a job sent back to pending; not claims,
/// heartbeats, promotions or hand-backs, which make no job ready. A change
/// in a transaction not yet committed wakes the call after its commit.
#[tokio::test]
async fn wakeups_come_from_changes_that_can_make_a_job_ready() {
    let (db, _, _) = smoke_db().await;
    assert!(lifecycle::take_wakeups(&db.pool).await.unwrap(), "jobs were added");
    assert!(!lifecycle::take_wakeups(&db.pool).await.unwrap(), "taken once");

    let ready = lifecycle::promote_ready(&db.pool, 2).await.unwrap();
    let (a, b) = (&ready[0].key, &ready[1].key);
    assert!(lifecycle::claim(&db.pool, a, "w1", 60.0).await.unwrap().is_some());
    assert!(lifecycle::claim(&db.pool, b, "w1", 60.0).await.unwrap().is_some());
    assert!(lifecycle::heartbeat(&db.pool, a, "w1", 60.0).await.unwrap());
    assert!(lifecycle::hand_back(&db.pool, b, "w1").await.unwrap().is_some());
    assert!(!lifecycle::take_wakeups(&db.pool).await.unwrap(), "promotion, claims, heartbeat, hand-back");

    let mut tx = db.pool.begin().await.unwrap();
    assert!(lifecycle::finish(&mut tx, a, "w1").await.unwrap());
    assert!(!lifecycle::take_wakeups(&db.pool).await.unwrap(), "not before the commit");
    tx.commit().await.unwrap();
    assert!(lifecycle::take_wakeups(&db.pool).await.unwrap(), "a job ended");

    assert!(lifecycle::claim(&db.pool, b, "w2", 60.0).await.unwrap().is_some());
    lifecycle::fail(&db.pool, b, "w2", "boom").await.unwrap();
    assert!(lifecycle::take_wakeups(&db.pool).await.unwrap(), "a job failed");
    assert!(lifecycle::retry(&db.pool, b).await.unwrap());
    assert!(lifecycle::take_wakeups(&db.pool).await.unwrap(), "a job back to pending");
}
