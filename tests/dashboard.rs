//! The dashboard page in headless Chromium (Debian's `chromium`), its JSON,
//! and `/metrics`, over a hand-made experiment in a real PostgreSQL.
//! The screenshot is kept at target/test-artifacts/dashboard.png.

use support::fixture as common;

use std::path::PathBuf;

use axum::body::Body;
use axum::http::Request;
use coordinator::api::router;
use coordinator::AppState;
use http_body_util::BodyExt;
use schema::testing::TestDatabase;
use tower::ServiceExt;

fn chromium() -> PathBuf {
    for c in ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"] {
        if std::path::Path::new(c).exists() {
            return c.into();
        }
    }
    panic!("the dashboard test needs Chromium: apt-get install chromium (./scripts/test installs it)");
}

async fn headless(args: &[&str], url: &str, profile: &std::path::Path) -> std::process::Output {
    let mut cmd = tokio::process::Command::new(chromium());
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--hide-scrollbars",
        "--virtual-time-budget=8000",
    ]);
    cmd.arg(format!("--user-data-dir={}", profile.display())).args(args).arg(url);
    tokio::time::timeout(std::time::Duration::from_secs(90), cmd.output()).await.expect("chromium finished").unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_dashboard_shows_progress_the_grid_failures_workers_curves_and_tables() {
    let db = TestDatabase::create().await;
    let f = common::build(&db.pool).await;
    sqlx::query("INSERT INTO workers (id, class, concurrency) VALUES ('gpu-box-1', 'gpu', 2)")
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query(
        "UPDATE jobs SET status = 'dead', last_error = 'training diverged at step 7: loss NaN' WHERE key = 'train-truncated-3'",
    )
    .execute(&db.pool)
    .await
    .unwrap();
    let app = router(AppState { pool: db.pool.clone(), token: None, queue: None });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("http://{addr}/?experiment={}", f.experiment);
    let profile = std::env::temp_dir().join(format!("hfarm-chromium-{}", db.name));

    let out = headless(&["--dump-dom"], &url, &profile).await;
    let dom = String::from_utf8_lossy(&out.stdout);
    let meta = dom.find("class=\"meta\"").map(|i| &dom[i..(i + 300).min(dom.len())]).unwrap_or("");
    assert!(
        dom.contains("data-loaded=\"yes\""),
        "the page's script did not finish: {meta}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dom.contains("5.000 ± 3.606"), "the accuracy table (Gaussian MSE mean ± std)");
    assert_eq!(dom.matches("Progress per job kind").count(), 1);
    assert_eq!(dom.matches("<div class=\"legend\"><span").count(), 1, "a refresh replaces a section's content");
    assert!(dom.contains("<td class=\"cell succeeded\""), "grid cells coloured by state");
    assert!(dom.contains("<td class=\"cell running\""), "a running cell");
    assert!(dom.contains("<td class=\"cell dead\""), "a dead cell");
    assert!(dom.contains("training diverged at step 7"), "failures with their errors");
    assert!(dom.contains("gpu-box-1"), "workers");
    assert!(dom.contains("curves.svg"), "training curves");
    assert!(dom.contains(">TN<") && dom.contains(">N<"), "the planning table");

    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../target/test-artifacts"));
    std::fs::create_dir_all(&dir).unwrap();
    let shot = dir.join("dashboard.png");
    let _ = std::fs::remove_file(&shot);
    let out = headless(&[&format!("--screenshot={}", shot.display()), "--window-size=1400,1600"], &url, &profile).await;
    let size = std::fs::metadata(&shot).map(|m| m.len()).unwrap_or(0);
    assert!(size > 20_000, "screenshot {} ({size} bytes): {}", shot.display(), String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_dir_all(&profile);
}

async fn get(app: &axum::Router, uri: &str) -> (axum::http::StatusCode, String) {
    let resp = app.clone().oneshot(Request::get(uri).body(Body::empty()).unwrap()).await.unwrap();
    let status = resp.status();
    (status, String::from_utf8_lossy(&resp.into_body().collect().await.unwrap().to_bytes()).into_owned())
}

#[tokio::test]
async fn metrics_are_prometheus_text() {
    let db = TestDatabase::create().await;
    common::build(&db.pool).await;
    sqlx::query("INSERT INTO workers (id, class, concurrency) VALUES ('cpu-box-1', 'cpu', 4), ('old', 'cpu', 1)")
        .execute(&db.pool)
        .await
        .unwrap();
    sqlx::query("UPDATE workers SET last_seen = now() - interval '1 hour' WHERE id = 'old'")
        .execute(&db.pool)
        .await
        .unwrap();
    let redis = support::servers::redis_url();
    let keys = support::servers::TestKeys::new(&db.name);
    let queue = queue::Queue::connect(&redis, &keys).await.expect("tests need Redis");
    queue.push("cpu", &["a".to_string(), "b".to_string()]).await.unwrap();
    let app = router(AppState { pool: db.pool.clone(), token: None, queue: Some(queue) });
    let (st, text) = get(&app, "/metrics").await;
    assert_eq!(st, 200);
    for line in [
        "hfarm_queue_depth{class=\"cpu\"} 2",
        "hfarm_queue_depth{class=\"gpu\"} 0",
        "hfarm_jobs{kind=\"train\",status=\"succeeded\"} 5",
        "hfarm_jobs{kind=\"train\",status=\"running\"} 1",
        "hfarm_jobs{kind=\"plan\",status=\"succeeded\"} 14",
        "hfarm_job_duration_seconds_count{kind=\"plan\"} 14",
        "hfarm_job_duration_seconds_bucket{kind=\"plan\",le=\"+Inf\"} 14",
        "hfarm_workers_live{class=\"cpu\"} 1",
        "hfarm_worker_slots{class=\"cpu\"} 4",
        "# TYPE hfarm_job_duration_seconds histogram",
    ] {
        assert!(text.lines().any(|l| l == line), "missing `{line}` in:\n{text}");
    }
    // Every sample line is `name{labels} value` with a numeric value.
    for l in text.lines().filter(|l| !l.starts_with('#')) {
        let v = l.rsplit(' ').next().unwrap();
        assert!(v.parse::<f64>().is_ok(), "bad sample line {l}");
    }
    // The Grafana dashboard (compose profile `monitoring`) queries only metrics we emit.
    let grafana: serde_json::Value = serde_json::from_str(include_str!("../dashboards/grafana/hfarm.json")).unwrap();
    let mut names = 0;
    for panel in grafana["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            for (i, _) in expr.match_indices("hfarm_") {
                let name: String = expr[i..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
                assert!(text.lines().any(|l| l.starts_with(&format!("{name}{{"))), "Grafana uses {name}, not emitted");
                names += 1;
            }
        }
    }
    assert!(names >= 10);
    let (st, page) = get(&app, "/").await;
    assert_eq!(st, 200);
    assert!(page.contains("<title>hfarm</title>"));
}
