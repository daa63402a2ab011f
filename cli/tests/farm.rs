//! `hfarm submit` and `hfarm status` against a real PostgreSQL.

use std::process::Command;

use schema::testing::TestDatabase;

fn hfarm(args: &[&str], db: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_hfarm")).args(args).env("DATABASE_URL", db).output().expect("run hfarm")
}

const SMOKE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml");

#[tokio::test]
async fn submit_then_status_then_resubmit_reuses_everything() {
    let db = TestDatabase::create().await;
    let out = hfarm(&["submit", SMOKE, "--json"], &db.url);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["experiment"].as_str().unwrap().to_string();
    assert_eq!(v["jobs"]["generate"], 26);
    assert_eq!(v["new"], 72);
    let st = hfarm(&["status", &id, "--json"], &db.url);
    let s: serde_json::Value = serde_json::from_slice(&st.stdout).unwrap();
    for state in ["pending", "queued", "running", "succeeded", "failed", "dead", "cancelled"] {
        assert!(s["jobs"][state].is_i64(), "{state} missing in {s}");
    }
    assert_eq!(s["jobs"]["pending"], 72);
    let again = hfarm(&["submit", SMOKE, "--json"], &db.url);
    let v2: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(v2["new"], 0);
    assert_eq!(v2["reused"], 72);
    assert_ne!(v2["experiment"], v["experiment"]);
}

#[test]
fn dry_run_needs_no_database_and_malformed_grids_name_the_key() {
    let out = hfarm(&["submit", SMOKE, "--dry-run", "--json"], "postgres://nobody@127.0.0.1:1/none");
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["experiment"].is_null());
    assert_eq!(v["jobs"]["plan"], 20);
    let dir = std::env::temp_dir().join(format!("hfarm-grid-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, std::fs::read_to_string(SMOKE).unwrap().replace("balls = [6]", "balls = [6]\nbals = 1"))
        .unwrap();
    let out = hfarm(&["submit", bad.to_str().unwrap(), "--dry-run"], "postgres://nobody@127.0.0.1:1/none");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("domains.gripper.test.bals"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
