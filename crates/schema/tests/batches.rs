//! Batched dispatch on a real PostgreSQL: claims, heartbeats and group
//! commits for many jobs per statement keep the one-job guarantees (a job
//! claimed once, a lost lease named, results and completion together),
//! and lanes and CUDA presence route GPU-preferring jobs.

use jobs::spec::Lane;
use jobs::{Job, JobSpec};
use schema::lifecycle;
use schema::testing::TestDatabase;

/// `n` no-op jobs, queued; returns their keys.
async fn queued(db: &TestDatabase, n: u64) -> Vec<String> {
    let jobs: Vec<Job> = (0..n).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
    let e = schema::create_experiment(&db.pool, "batches", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    let ready = lifecycle::promote_ready(&db.pool, 1000).await.unwrap();
    assert_eq!(ready.len() as u64, n);
    assert!(ready.iter().all(|r| r.lane == Lane::Cpu));
    let mut keys: Vec<String> = ready.into_iter().map(|r| r.key).collect();
    keys.sort();
    keys
}

fn pairs(keys: &[String], slot: &str) -> Vec<(String, String)> {
    keys.iter().enumerate().map(|(i, k)| (k.clone(), format!("{slot}/{i}"))).collect()
}

async fn status(db: &TestDatabase, key: &str) -> (String, Option<String>) {
    sqlx::query_as("SELECT status::text, worker FROM jobs WHERE key = $1").bind(key).fetch_one(&db.pool).await.unwrap()
}

#[tokio::test]
async fn overlapping_batched_claims_take_each_job_once() {
    let db = TestDatabase::create().await;
    let keys = queued(&db, 40).await;
    // Two workers popped overlapping keys (duplicates in Redis, a key twice in one batch).
    let mut a = pairs(&keys[..30], "a");
    a.push((keys[0].clone(), "a/99".into()));
    let mut b = pairs(&keys[10..], "b");
    b.reverse();
    let (mut ca, mut cb) = (lifecycle::Claimer::new(&db.pool), lifecycle::Claimer::new(&db.pool));
    let (ra, rb) = tokio::join!(ca.claim(&a, 60.0), cb.claim(&b, 60.0));
    let (ra, rb) = (ra.unwrap(), rb.unwrap());
    assert_eq!(ra.len() + rb.len(), 40, "every job claimed");
    let mut all: Vec<&str> = ra.iter().chain(&rb).map(|(_, c)| c.key.as_str()).collect();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), 40, "none twice");
    for (slot, c) in ra.iter().chain(&rb) {
        assert_eq!(c.attempts, 1);
        assert!(c.inputs.is_empty());
        assert_eq!(status(&db, &c.key).await, ("running".into(), Some(slot.clone())), "claimed for its slot");
    }
    assert!(ca.claim(&a, 60.0).await.unwrap().is_empty(), "stale hints take nothing");
}

#[tokio::test]
async fn a_batched_heartbeat_renews_held_leases_and_names_lost_ones() {
    let db = TestDatabase::create().await;
    let keys = queued(&db, 3).await;
    let held = pairs(&keys, "w");
    assert_eq!(lifecycle::Claimer::new(&db.pool).claim(&held, 0.05).await.unwrap().len(), 3);
    assert!(lifecycle::cancel(&db.pool, &keys[1]).await.unwrap());
    let lost = lifecycle::heartbeat_many(&db.pool, &held, 60.0).await.unwrap();
    assert_eq!(lost, vec![keys[1].clone()]);
    tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    // Renewed: none of the held leases ran out.
    assert!(lifecycle::requeue_expired(&db.pool).await.unwrap().is_empty());
}

#[tokio::test]
async fn a_group_commit_finishes_its_jobs_together_and_undoes_a_part_alone() {
    let db = TestDatabase::create().await;
    let keys = queued(&db, 4).await;
    let held = pairs(&keys, "w");
    lifecycle::Claimer::new(&db.pool).claim(&held, 60.0).await.unwrap();
    assert!(lifecycle::cancel(&db.pool, &keys[3]).await.unwrap());
    let mut tx = lifecycle::group_begin(&db.pool).await.unwrap();
    // A part that writes and finishes: kept.
    assert!(lifecycle::finish(&mut tx, &keys[0], &held[0].1).await.unwrap());
    lifecycle::part_close(&mut tx, true).await.unwrap();
    // A part whose write fails: rolled back alone, the transaction goes on.
    assert!(lifecycle::finish(&mut tx, &keys[1], "someone-else").await.is_ok_and(|f| !f));
    assert!(sqlx::query("SELECT 1/0").execute(&mut *tx).await.is_err());
    lifecycle::part_close(&mut tx, false).await.unwrap();
    // Parts that wrote nothing: finished in one statement (not a cancelled one).
    let done = vec![held[2].clone(), held[3].clone()];
    assert_eq!(lifecycle::finish_many(&mut tx, &done).await.unwrap(), vec![keys[2].clone()]);
    assert_eq!(status(&db, &keys[0]).await.0, "running", "nothing visible before the commit");
    lifecycle::commit(tx).await.unwrap();
    let st: Vec<String> = statuses(&db, &keys).await;
    assert_eq!(st, ["succeeded", "running", "succeeded", "cancelled"]);
}

async fn statuses(db: &TestDatabase, keys: &[String]) -> Vec<String> {
    let mut out = vec![];
    for k in keys {
        out.push(status(db, k).await.0);
    }
    out
}

#[tokio::test]
async fn gpu_preferring_jobs_have_a_lane_of_their_own_and_cuda_is_advertised() {
    let db = TestDatabase::create().await;
    let jobs: Vec<Job> = (0..3).map(|id| Job::new(JobSpec::Noop { id }, vec![])).collect();
    let e = schema::create_experiment(&db.pool, "lanes", "", "").await.unwrap();
    schema::submit_jobs(&db.pool, e, &jobs, false).await.unwrap();
    sqlx::query("UPDATE jobs SET resource = 'gpu' WHERE key = $1")
        .bind(jobs[0].key.to_string())
        .execute(&db.pool)
        .await
        .unwrap();
    let ready = lifecycle::promote_ready(&db.pool, 10).await.unwrap();
    let gpu: Vec<_> = ready.iter().filter(|r| r.lane == Lane::GpuPreferred).collect();
    assert_eq!((gpu.len(), gpu[0].resource.as_str()), (1, "gpu"));
    assert_eq!(lifecycle::queued_by_lane(&db.pool).await.unwrap(), vec![(Lane::Cpu, 2), (Lane::GpuPreferred, 1)]);
    tokio::time::sleep(std::time::Duration::from_millis(120)).await;
    assert_eq!(lifecycle::stale_queued(&db.pool, 0.1, &["gpu-preferred"]).await.unwrap().len(), 1);
    assert_eq!(lifecycle::stale_queued(&db.pool, 0.1, &["gpu"]).await.unwrap().len(), 0);

    schema::workers::seen(&db.pool, "cpu-1", "cpu", 2, &serde_json::Value::Null).await.unwrap();
    assert!(!lifecycle::advertise_cuda(&db.pool, "cpu-1", false, 15.0).await.unwrap());
    schema::workers::seen(&db.pool, "gpu-1", "gpu", 1, &serde_json::Value::Null).await.unwrap();
    assert!(lifecycle::advertise_cuda(&db.pool, "gpu-1", true, 15.0).await.unwrap());
    assert!(lifecycle::advertise_cuda(&db.pool, "cpu-1", false, 15.0).await.unwrap(), "a live CUDA worker");
    schema::workers::stopped(&db.pool, "gpu-1").await.unwrap();
    assert!(!lifecycle::advertise_cuda(&db.pool, "cpu-1", false, 15.0).await.unwrap(), "it stopped");
}
