//! The status API over a real PostgreSQL (requests go through the router
//! directly, no socket needed).

use axum::body::Body;
use axum::http::{Request, StatusCode};
use coordinator::api::router;
use coordinator::AppState;
use http_body_util::BodyExt;
use schema::testing::TestDatabase;
use serde_json::Value;
use tower::ServiceExt;

async fn call(app: &axum::Router, method: &str, uri: &str, token: Option<&str>) -> (StatusCode, Value) {
    let mut req = Request::builder().method(method).uri(uri);
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let resp = app.clone().oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

#[tokio::test]
async fn reads_are_open_and_mutations_need_the_token() {
    let db = TestDatabase::create().await;
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml")).unwrap();
    let e = coordinator::submit(Some(&db.pool), &text, "smoke.toml", false, &coordinator::cost::CostModel::defaults())
        .await
        .unwrap()
        .experiment
        .unwrap();
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });

    let (st, list) = call(&app, "GET", "/api/experiments", None).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(list[0]["jobs"]["pending"], 72);
    let (st, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(one["by_kind"]["plan"]["pending"], 20);
    assert_eq!(one["total"], 72);
    assert!(one["eta_s"].is_null(), "no live worker, no ETA: {one}");
    assert_eq!((one["finished"].as_bool(), one["slots_without_instance"].as_i64()), (Some(false), Some(0)));
    // With workers, the ETA is the cost model's projection over their slots.
    schema::workers::seen(&db.pool, "w1", "cpu", 1).await.unwrap();
    let (_, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    let eta1 = one["eta_s"].as_f64().unwrap();
    schema::workers::seen(&db.pool, "w2", "cpu", 3).await.unwrap();
    let (_, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    let eta4 = one["eta_s"].as_f64().unwrap();
    assert!(eta1 > 0.0 && (eta1 / eta4 - 4.0).abs() < 1e-9, "four slots, a quarter of the time: {eta1} {eta4}");
    let (st, _) = call(&app, "GET", &format!("/api/experiments/{}", uuid::Uuid::new_v4()), None).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    let (_, gen) = call(&app, "GET", &format!("/api/jobs?experiment={e}&kind=generate"), None).await;
    assert_eq!(gen.as_array().unwrap().len(), 26);
    let key = gen[0]["key"].as_str().unwrap().to_string();

    let (st, _) = call(&app, "POST", &format!("/api/jobs/{key}/cancel"), None).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, _) = call(&app, "POST", &format!("/api/jobs/{key}/cancel"), Some("wrong")).await;
    assert_eq!(st, StatusCode::UNAUTHORIZED);
    let (st, body) = call(&app, "POST", &format!("/api/jobs/{key}/cancel"), Some("s3cret")).await;
    assert_eq!((st, body["status"].as_str()), (StatusCode::OK, Some("cancelled")));
    let (_, cancelled) = call(&app, "GET", "/api/jobs?status=cancelled", None).await;
    assert_eq!(cancelled.as_array().unwrap().len(), 1);
    let (st, _) = call(&app, "POST", &format!("/api/jobs/{key}/retry"), Some("s3cret")).await;
    assert_eq!(st, StatusCode::OK);
    let (st, _) = call(&app, "POST", &format!("/api/jobs/{key}/retry"), Some("s3cret")).await;
    assert_eq!(st, StatusCode::CONFLICT, "a pending job cannot be retried");

    let closed = router(AppState { pool: db.pool.clone(), token: None, queue: None });
    let (st, body) = call(&closed, "POST", &format!("/api/jobs/{key}/cancel"), Some("s3cret")).await;
    assert_eq!(st, StatusCode::FORBIDDEN, "{body}");
    let (st, workers) = call(&closed, "GET", "/api/workers", None).await;
    assert_eq!(st, StatusCode::OK);
    let ids: Vec<&str> = workers.as_array().unwrap().iter().map(|w| w["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2, "the two workers announced above: {ids:?}");
}
