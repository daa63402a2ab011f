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
    assert_eq!(list[0]["jobs"]["pending"], 88);
    let (st, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(one["by_kind"]["plan"]["pending"], 30);
    assert_eq!(one["total"], 88);
    assert!(one["eta_s"].is_null(), "no live worker, no ETA: {one}");
    assert_eq!((one["finished"].as_bool(), one["slots_without_instance"].as_i64()), (Some(false), Some(0)));
    // With workers, the ETA is the cost model's projection over their slots.
    schema::workers::seen(&db.pool, "w1", "cpu", 1, &serde_json::Value::Null).await.unwrap();
    let (_, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    let eta1 = one["eta_s"].as_f64().unwrap();
    schema::workers::seen(&db.pool, "w2", "cpu", 3, &serde_json::Value::Null).await.unwrap();
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

/// A request with headers and a body; the answer's status, headers and body as JSON.
async fn send(app: &axum::Router, req: Request<Body>) -> (StatusCode, axum::http::HeaderMap, Value) {
    let resp = app.clone().oneshot(req).await.unwrap();
    let (status, headers) = (resp.status(), resp.headers().clone());
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, headers, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// An error in the API's shape: `{"error": "<text>"}` with nothing else.
fn error_text(body: &Value) -> &str {
    let text = body["error"].as_str().unwrap_or_else(|| panic!("not the JSON error shape: {body}"));
    assert_eq!(body.as_object().unwrap().len(), 1, "only `error`: {body}");
    text
}

/// Every route the server serves, method and path as the document writes
/// them. The document must list exactly these, and the router must serve
/// each (routes are registered only through `utoipa_axum::routes!`, which
/// documents them; `routes_are_registered_only_where_documented` checks).
const ROUTES: [(&str, &str); 19] = [
    ("get", "/"),
    ("get", "/healthz"),
    ("get", "/metrics"),
    ("get", "/api/openapi.json"),
    ("get", "/api/vocabulary"),
    ("get", "/api/experiments"),
    ("get", "/api/experiments/{id}"),
    ("get", "/api/experiments/{id}/matrix"),
    ("get", "/api/experiments/{id}/report/{table}"),
    ("get", "/api/experiments/{id}/curves.svg"),
    ("get", "/api/jobs"),
    ("get", "/api/jobs/{key}"),
    ("get", "/api/jobs/{key}/artifact"),
    ("get", "/api/workers"),
    ("post", "/api/jobs/{key}/retry"),
    ("post", "/api/jobs/{key}/cancel"),
    ("post", "/api/experiments/{id}/retry"),
    ("post", "/api/experiments/{id}/cancel"),
    ("post", "/api/experiments/{id}/priority"),
];

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// A database with the smoke grid submitted: (database, experiment, a job key).
async fn smoke() -> (TestDatabase, uuid::Uuid, String) {
    let db = TestDatabase::create().await;
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/smoke.toml")).unwrap();
    let cost = coordinator::cost::CostModel::defaults();
    let e = coordinator::submit(Some(&db.pool), &text, "smoke.toml", false, &cost).await.unwrap().experiment.unwrap();
    let app = router(AppState { pool: db.pool.clone(), token: None, queue: None });
    let (_, jobs) = call(&app, "GET", &format!("/api/jobs?experiment={e}&limit=1"), None).await;
    let key = jobs[0]["key"].as_str().unwrap().to_string();
    (db, e, key)
}

/// The documented (method, path) pairs.
fn documented(doc: &Value) -> Vec<(String, String)> {
    let mut out = vec![];
    for (path, item) in doc["paths"].as_object().expect("paths") {
        for method in item.as_object().unwrap().keys().filter(|m| METHODS.contains(&m.as_str())) {
            out.push((method.clone(), path.clone()));
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn the_openapi_document_lists_every_route_and_the_router_serves_each() {
    let (db, e, key) = smoke().await;
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let (st, doc) = call(&app, "GET", "/api/openapi.json", None).await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(doc, serde_json::to_value(coordinator::api::openapi()).unwrap(), "served as generated");

    let mut expected: Vec<(String, String)> = ROUTES.iter().map(|(m, p)| (m.to_string(), p.to_string())).collect();
    expected.sort();
    assert_eq!(documented(&doc), expected, "the document lists exactly the routes");

    for (method, path) in ROUTES {
        let uri = path.replace("{id}", &e.to_string()).replace("{key}", &key).replace("{table}", "accuracy");
        let (st, body) = call(&app, &method.to_uppercase(), &uri, None).await;
        // Reads answer; mutations are routed, and refused without the token.
        // (A pending generate job has no artifact yet: routed, and a 404.)
        let want = match (method, path) {
            (_, "/api/jobs/{key}/artifact") => StatusCode::NOT_FOUND,
            ("get", _) => StatusCode::OK,
            _ => StatusCode::UNAUTHORIZED,
        };
        assert_eq!(st, want, "{method} {uri}: {body}");
        // No other method on a documented path.
        let item = doc["paths"][path].as_object().unwrap();
        // (HEAD is answered wherever GET is.)
        let served = |m: &str| item.contains_key(m) || (m == "head" && item.contains_key("get"));
        for other in METHODS.iter().filter(|m| !served(m)) {
            let req = Request::builder().method(other.to_uppercase().as_str()).uri(&uri).body(Body::empty()).unwrap();
            let (st, headers, body) = send(&app, req).await;
            assert_eq!(st, StatusCode::METHOD_NOT_ALLOWED, "{other} {uri}: {body}");
            // (An answer to HEAD has no body.)
            if *other != "head" {
                assert!(error_text(&body).contains("not allowed"), "{other} {uri}: {body}");
            }
            assert!(headers.contains_key("allow"), "405 says what is allowed");
        }
    }
}

/// Every route of the API is registered with `routes!` (which documents
/// it), never with axum's undocumented `.route(...)`.
#[test]
fn routes_are_registered_only_where_documented() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../crates/coordinator/src/api");
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let text = std::fs::read_to_string(entry.path()).unwrap();
        for (i, line) in text.lines().enumerate() {
            let code = line.trim_start();
            for undocumented in [".route(", ".route_service(", ".nest(", ".nest_service("] {
                assert!(
                    code.starts_with("//") || !code.contains(undocumented),
                    "{}:{}: {undocumented} adds a route the OpenAPI document does not list; use routes!(handler)",
                    entry.path().display(),
                    i + 1
                );
            }
        }
    }
}

/// Collects every `$ref` under `v`.
fn refs<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                out.push(r);
            }
            m.values().for_each(|x| refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// The document is OpenAPI 3 as its specification (3.1) structures it:
/// the required fields, path templates matched by required path
/// parameters, unique operation ids, a description on every response,
/// references that resolve, security that names a declared scheme; and the
/// main endpoints say what their answers hold.
#[test]
fn the_openapi_document_is_valid_openapi_3() {
    let doc = serde_json::to_value(coordinator::api::openapi()).unwrap();
    let version = doc["openapi"].as_str().expect("openapi");
    assert!(version.starts_with("3.1."), "{version}");
    assert!(doc["info"]["title"].is_string() && doc["info"]["version"].is_string(), "{}", doc["info"]);
    let schemes = doc["components"]["securitySchemes"].as_object().expect("security schemes");
    assert_eq!(schemes["bearer"], serde_json::json!({ "type": "http", "scheme": "bearer" }));
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");

    let mut ids = std::collections::BTreeSet::new();
    for (path, item) in doc["paths"].as_object().unwrap() {
        assert!(path.starts_with('/'), "{path}");
        let placeholders: Vec<&str> = path.split('{').skip(1).map(|s| s.split('}').next().unwrap()).collect();
        for (method, op) in item.as_object().unwrap() {
            assert!(METHODS.contains(&method.as_str()), "{path}: `{method}` is not an operation");
            let at = format!("{method} {path}");
            if let Some(id) = op["operationId"].as_str() {
                assert!(ids.insert(id.to_string()), "{at}: operationId {id} twice");
            }
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            for p in &params {
                let (name, place) = (p["name"].as_str().expect("name"), p["in"].as_str().expect("in"));
                assert!(["query", "header", "path", "cookie"].contains(&place), "{at}: {p}");
                assert!(p["schema"].is_object(), "{at}: {name} has a schema");
                if place == "path" {
                    assert!(placeholders.contains(&name), "{at}: path parameter {name} is not in the path");
                    assert_eq!(p["required"], true, "{at}: path parameters are required");
                }
            }
            for name in &placeholders {
                assert!(
                    params.iter().any(|p| p["in"] == "path" && p["name"] == *name),
                    "{at}: {{{name}}} is not declared"
                );
            }
            let responses = op["responses"].as_object().expect("responses");
            assert!(!responses.is_empty(), "{at}: no response");
            for (code, r) in responses {
                assert!(
                    code == "default" || code.parse::<u16>().is_ok_and(|c| (100..600).contains(&c)),
                    "{at}: {code}"
                );
                assert!(r["description"].is_string(), "{at} {code}: a response needs a description");
            }
            for requirement in op["security"].as_array().into_iter().flatten() {
                for scheme in requirement.as_object().unwrap().keys() {
                    assert!(schemes.contains_key(scheme), "{at}: undeclared security scheme {scheme}");
                }
            }
        }
    }
    let mut all = vec![];
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        let name = r.strip_prefix("#/components/schemas/").unwrap_or_else(|| panic!("unexpected reference {r}"));
        assert!(schemas.contains_key(name), "{r} does not resolve");
    }

    // The main answers are described, down to the vocabulary's names.
    for path in ["/api/experiments", "/api/experiments/{id}", "/api/jobs", "/api/workers", "/api/vocabulary"] {
        let schema = &doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
        assert!(schema.is_object() && schema != &serde_json::json!({}), "{path}: no response schema: {schema}");
    }
    let statuses: Vec<&str> = schema::JobStatus::ALL.iter().map(|s| s.as_str()).collect();
    assert_eq!(schemas["JobStatus"]["enum"], serde_json::json!(statuses));
    assert_eq!(schemas["StatusCounts"]["required"], serde_json::json!(statuses));
    let kinds: Vec<&str> = jobs::JobKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(schemas["JobKind"]["enum"], serde_json::json!(kinds));
    let job = schemas["Job"]["properties"].as_object().unwrap();
    assert_eq!(job["status"]["$ref"], "#/components/schemas/JobStatus");
    for path in [
        "/api/jobs/{key}/retry",
        "/api/jobs/{key}/cancel",
        "/api/experiments/{id}/retry",
        "/api/experiments/{id}/cancel",
        "/api/experiments/{id}/priority",
    ] {
        let op = &doc["paths"][path]["post"];
        assert_eq!(op["security"], serde_json::json!([{ "bearer": [] }]), "mutations declare the token");
    }
}

#[tokio::test]
async fn every_mutation_needs_the_token() {
    let (db, e, key) = smoke().await;
    let doc = serde_json::to_value(coordinator::api::openapi()).unwrap();
    let open = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let closed = router(AppState { pool: db.pool.clone(), token: None, queue: None });
    let empty = router(AppState { pool: db.pool.clone(), token: Some(String::new()), queue: None });
    let mutations: Vec<(String, String)> = documented(&doc).into_iter().filter(|(m, _)| m != "get").collect();
    assert_eq!(mutations.len(), 5, "retry and cancel of a job and an experiment, priority: {mutations:?}");
    for (method, path) in mutations {
        let op = &doc["paths"][&path][&method];
        assert_eq!(op["security"], serde_json::json!([{ "bearer": [] }]), "{method} {path} declares the token");
        let uri = path.replace("{key}", &key).replace("{id}", &e.to_string());
        let m = method.to_uppercase();
        for token in [None, Some("wrong"), Some("s3cre"), Some("s3cretX"), Some("")] {
            let (st, body) = call(&open, &m, &uri, token).await;
            assert_eq!(st, StatusCode::UNAUTHORIZED, "{m} {uri} with {token:?}: {body}");
            error_text(&body);
        }
        // Without a token configured (or an empty one), mutations are off.
        let (st, body) = call(&closed, &m, &uri, Some("s3cret")).await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{body}");
        let (st, body) = call(&empty, &m, &uri, Some("")).await;
        assert_eq!(st, StatusCode::FORBIDDEN, "{body}");
        // The token is checked before the key: a bad key without it is still 401.
        let (st, _) = call(&open, &m, &path.replace("{key}", "zz").replace("{id}", "zz"), None).await;
        assert_eq!(st, StatusCode::UNAUTHORIZED);
    }
    let (st, _) = call(&open, "POST", &format!("/api/jobs/{key}/cancel"), Some("s3cret")).await;
    assert_eq!(st, StatusCode::OK, "the right token passes");
}

#[tokio::test]
async fn malformed_requests_get_clear_json_errors() {
    let (db, e, key) = smoke().await;
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let get = |uri: String| {
        let app = app.clone();
        async move { call(&app, "GET", &uri, None).await }
    };

    // Unknown routes.
    for uri in ["/api/nope", "/api", "/api/experiments/x/y/z", "/index.html"] {
        let (st, body) = get(uri.into()).await;
        assert_eq!(st, StatusCode::NOT_FOUND, "{uri}");
        assert!(error_text(&body).starts_with("no route for GET"), "{body}");
    }
    // Malformed paths: axum's plain-text rejections, in the JSON shape.
    for uri in ["/api/experiments/not-a-uuid", "/api/experiments/1234/matrix", "/api/experiments/%27%3B/curves.svg"] {
        let (st, body) = get(uri.into()).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{uri}: {body}");
        assert!(error_text(&body).contains("UUID"), "{uri}: {body}");
    }
    let (st, body) = get(format!("/api/experiments/{e}/report/nonsense")).await;
    assert_eq!(st, StatusCode::NOT_FOUND);
    assert!(error_text(&body).contains("no table nonsense"), "{body}");
    // Malformed queries.
    for (query, says) in [
        ("limit=abc", "limit"),
        ("limit=0", "limit must be between 1 and 10000"),
        ("limit=10001", "limit must be between 1 and 10000"),
        ("limit=99999999999999999999", "limit"),
        ("status=nonsense", "unknown job status `nonsense`"),
        ("kind=nonsense", "nonsense"),
        ("experiment=zzz", "experiment"),
    ] {
        let (st, body) = get(format!("/api/jobs?{query}")).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "?{query}: {body}");
        assert!(error_text(&body).contains(says), "?{query}: {body}");
    }
    let (st, jobs) = get("/api/jobs?limit=3&unknown=ignored".into()).await;
    assert_eq!((st, jobs.as_array().map(Vec::len)), (StatusCode::OK, Some(3)));
    // Wrong methods.
    for (method, uri) in [("POST", "/api/workers".to_string()), ("GET", format!("/api/jobs/{key}/retry"))] {
        let (st, body) = call(&app, method, &uri, None).await;
        assert_eq!(st, StatusCode::METHOD_NOT_ALLOWED, "{method} {uri}");
        assert!(error_text(&body).starts_with(&format!("method {method} is not allowed on")), "{body}");
    }
    // Malformed job keys (with the token: the key is what is wrong).
    for bad in ["not-hex", "%27%3B%20DROP%20TABLE%20jobs%3B--", &"a".repeat(65)] {
        let (st, body) = call(&app, "POST", &format!("/api/jobs/{bad}/cancel"), Some("s3cret")).await;
        assert_eq!(st, StatusCode::BAD_REQUEST, "{bad}: {body}");
        assert!(error_text(&body).contains("not a job key"), "{body}");
    }
}

#[tokio::test]
async fn request_sizes_are_bounded() {
    let (db, e, key) = smoke().await;
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let limit = coordinator::api::MAX_BODY_BYTES;

    // A body over the limit is refused before the handler runs: the job stays.
    let big = vec![b'x'; limit + 1];
    let req = Request::post(format!("/api/jobs/{key}/cancel"))
        .header("authorization", "Bearer s3cret")
        .header("content-length", big.len())
        .body(Body::from(big))
        .unwrap();
    let (st, _, body) = send(&app, req).await;
    assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    assert_eq!(error_text(&body), format!("request body larger than {limit} bytes"));
    let (_, pending) = call(&app, "GET", "/api/jobs?status=cancelled", None).await;
    assert_eq!(pending.as_array().unwrap().len(), 0, "nothing was cancelled");
    // A GET with an oversized body too.
    let req = Request::get("/api/workers").header("content-length", limit + 1).body(Body::from(vec![0u8; limit + 1]));
    let (st, _, body) = send(&app, req.unwrap()).await;
    assert_eq!(st, StatusCode::PAYLOAD_TOO_LARGE, "{body}");
    // A small body is fine (and ignored).
    let req = Request::post(format!("/api/jobs/{key}/cancel"))
        .header("authorization", "Bearer s3cret")
        .header("content-length", 2)
        .body(Body::from("{}"))
        .unwrap();
    assert_eq!(send(&app, req).await.0, StatusCode::OK);

    // Over-long request targets.
    let long = format!("/api/experiments/{e}/report/accuracy?domain={}", "d".repeat(coordinator::api::MAX_URI_BYTES));
    let (st, body) = call(&app, "GET", &long, None).await;
    assert_eq!(st, StatusCode::URI_TOO_LONG, "{body}");
    error_text(&body);
}

/// Request text reaches PostgreSQL only as bound parameters (SQL lives in
/// `schema`, whose statements interpolate only constants): hostile text in
/// every free-text parameter is a value that matches nothing.
#[tokio::test]
async fn hostile_text_is_only_ever_a_value() {
    let (db, e, _) = smoke().await;
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let hostile = "x%27%20OR%20%271%27%3D%271%27%3B%20DROP%20TABLE%20jobs%3B%20--";
    for param in ["domain", "model", "bound", "residual"] {
        for table in ["accuracy", "planning", "curves"] {
            let (st, r) =
                call(&app, "GET", &format!("/api/experiments/{e}/report/{table}?{param}={hostile}"), None).await;
            assert_eq!(st, StatusCode::OK, "{param} in {table}: {r}");
            assert_eq!(r["rows"].as_array().map(Vec::len), Some(0), "{param} in {table}: {r}");
        }
        let (st, _) = call(&app, "GET", &format!("/api/experiments/{e}/curves.svg?{param}={hostile}"), None).await;
        assert_eq!(st, StatusCode::OK);
    }
    let (st, _) = call(&app, "GET", &format!("/api/jobs?kind={hostile}"), None).await;
    assert_eq!(st, StatusCode::BAD_REQUEST, "kinds are names from the vocabulary");
    let (_, all) = call(&app, "GET", &format!("/api/jobs?experiment={e}"), None).await;
    assert_eq!(all.as_array().unwrap().len(), 88, "the jobs are all there");
}

/// Whether `v` conforms to `schema` (a reference resolved in `doc`), for
/// the keywords the document uses: type (one or several), enum, required,
/// properties, items, additionalProperties, minimum and maximum.
fn conforms(doc: &Value, schema: &Value, v: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        return conforms(doc, &doc["components"]["schemas"][name], v, at);
    }
    let kind = match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    let allowed: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => vec![],
    };
    if !allowed.is_empty() && !allowed.iter().any(|t| *t == kind || (*t == "number" && kind == "integer")) {
        return Err(format!("{at}: {kind} where the document says {allowed:?}: {v}"));
    }
    if let Some(values) = schema["enum"].as_array() {
        if !values.contains(v) {
            return Err(format!("{at}: {v} is not one of {values:?}"));
        }
    }
    if let (Some(min), Some(x)) = (schema["minimum"].as_f64(), v.as_f64()) {
        if x < min {
            return Err(format!("{at}: {x} under the minimum {min}"));
        }
    }
    if let (Some(max), Some(x)) = (schema["maximum"].as_f64(), v.as_f64()) {
        if x > max {
            return Err(format!("{at}: {x} over the maximum {max}"));
        }
    }
    if let Value::Object(fields) = v {
        for name in schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
            if !fields.contains_key(name) {
                return Err(format!("{at}: `{name}` is required"));
            }
        }
        for (name, x) in fields {
            let field = match (&schema["properties"][name], &schema["additionalProperties"]) {
                (Value::Null, Value::Null) => continue,
                (Value::Null, extra) => extra,
                (declared, _) => declared,
            };
            conforms(doc, field, x, &format!("{at}.{name}"))?;
        }
    }
    if let (Value::Array(items), Some(item)) = (v, schema.get("items")) {
        for (i, x) in items.iter().enumerate() {
            conforms(doc, item, x, &format!("{at}[{i}]"))?;
        }
    }
    Ok(())
}

#[test]
fn the_schema_check_sees_mismatches() {
    let doc = serde_json::to_value(coordinator::api::openapi()).unwrap();
    let job = serde_json::json!({ "$ref": "#/components/schemas/Job" });
    let ok = serde_json::json!({ "key": "ab", "kind": "plan", "status": "queued", "attempts": 0, "worker": null });
    assert_eq!(conforms(&doc, &job, &ok, "job"), Ok(()));
    for bad in [
        serde_json::json!({ "key": "ab", "kind": "plan", "status": "asleep", "attempts": 0 }),
        serde_json::json!({ "key": "ab", "kind": "plan", "status": "queued" }),
        serde_json::json!({ "key": "ab", "kind": "plan", "status": "queued", "attempts": "0" }),
        serde_json::json!([]),
    ] {
        assert!(conforms(&doc, &job, &bad, "job").is_err(), "{bad}");
    }
}

/// The answers of the main endpoints, and errors, are what the document says.
#[tokio::test]
async fn answers_conform_to_the_document() {
    let (db, e, key) = smoke().await;
    schema::workers::seen(&db.pool, "w1", "cpu", 2, &serde_json::Value::Null).await.unwrap();
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let doc = serde_json::to_value(coordinator::api::openapi()).unwrap();
    let cases = [
        ("GET", "/api/experiments".to_string(), "/api/experiments", "200"),
        ("GET", format!("/api/experiments/{e}"), "/api/experiments/{id}", "200"),
        ("GET", format!("/api/experiments/{}", uuid::Uuid::new_v4()), "/api/experiments/{id}", "404"),
        ("GET", "/api/experiments/nope".into(), "/api/experiments/{id}", "400"),
        ("GET", format!("/api/jobs?experiment={e}"), "/api/jobs", "200"),
        ("GET", "/api/jobs?status=nonsense".into(), "/api/jobs", "400"),
        ("GET", "/api/workers".into(), "/api/workers", "200"),
        ("GET", "/api/vocabulary".into(), "/api/vocabulary", "200"),
        ("POST", format!("/api/jobs/{key}/cancel"), "/api/jobs/{key}/cancel", "200"),
        ("POST", format!("/api/jobs/{key}/cancel"), "/api/jobs/{key}/cancel", "409"),
        ("POST", format!("/api/jobs/{key}/retry"), "/api/jobs/{key}/retry", "200"),
        ("POST", "/api/jobs/zz/retry".into(), "/api/jobs/{key}/retry", "400"),
    ];
    for (method, uri, path, code) in cases {
        let (st, body) = call(&app, method, &uri, Some("s3cret")).await;
        assert_eq!(st.as_str(), code, "{method} {uri}: {body}");
        let response = &doc["paths"][path][method.to_lowercase()]["responses"][code];
        let schema = &response["content"]["application/json"]["schema"];
        assert!(schema.is_object(), "{method} {path} documents no {code}");
        if let Err(e) = conforms(&doc, schema, &body, &format!("{method} {uri}")) {
            panic!("{e}");
        }
    }
}

/// An experiment's jobs at once (retry, cancel, priority) and one job in
/// full, through the router: only the chosen jobs change, and every answer
/// is the API's shape.
#[tokio::test]
async fn bulk_actions_and_one_job_in_full() {
    let (db, e, _) = smoke().await;
    let app = router(AppState { pool: db.pool.clone(), token: Some("s3cret".into()), queue: None });
    let t = Some("s3cret");
    let (_, gen) = call(&app, "GET", &format!("/api/jobs?experiment={e}&kind=generate"), None).await;
    let keys: Vec<String> = gen.as_array().unwrap().iter().map(|j| j["key"].as_str().unwrap().to_string()).collect();
    for (key, action) in [(&keys[0], "cancel"), (&keys[1], "cancel")] {
        let (st, _) = call(&app, "POST", &format!("/api/jobs/{key}/{action}"), t).await;
        assert_eq!(st, StatusCode::OK);
    }

    // Retry: cancelled jobs only when asked; the count says what changed.
    let (st, body) = call(&app, "POST", &format!("/api/experiments/{e}/retry"), t).await;
    assert_eq!((st, body["changed"].as_u64()), (StatusCode::OK, Some(0)), "dead and failed by default: {body}");
    let (st, body) = call(&app, "POST", &format!("/api/experiments/{e}/retry?status=cancelled&kind=plan"), t).await;
    assert_eq!((st, body["changed"].as_u64()), (StatusCode::OK, Some(0)), "{body}");
    let (st, body) = call(&app, "POST", &format!("/api/experiments/{e}/retry?status=dead,cancelled"), t).await;
    assert_eq!((st, body["changed"].as_u64()), (StatusCode::OK, Some(2)), "{body}");
    let (_, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    assert_eq!((one["jobs"]["pending"].as_i64(), one["jobs"]["cancelled"].as_i64()), (Some(88), Some(0)));

    // Cancel: every unfinished plan job, then the rest.
    let (st, body) = call(&app, "POST", &format!("/api/experiments/{e}/cancel?kind=plan"), t).await;
    assert_eq!((st, body["changed"].as_u64(), body["kept_shared"].as_u64()), (StatusCode::OK, Some(30), Some(0)));
    let (_, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    assert_eq!(one["by_kind"]["plan"]["cancelled"], 30);
    assert_eq!(one["jobs"]["cancelled"], 30, "only the plan jobs: {one}");
    let (st, body) = call(&app, "POST", &format!("/api/experiments/{e}/cancel"), t).await;
    assert_eq!((st, body["changed"].as_u64()), (StatusCode::OK, Some(58)));
    let (_, list) = call(&app, "GET", "/api/experiments?name=smoke", None).await;
    assert_eq!(list[0]["jobs"]["cancelled"], 88);
    let (_, none) = call(&app, "GET", "/api/experiments?name=nothing-by-this-name", None).await;
    assert_eq!(none, serde_json::json!([]));

    // Refusals, in the API's shape.
    for (uri, want) in [
        (format!("/api/experiments/{e}/retry?status=succeeded"), StatusCode::BAD_REQUEST),
        (format!("/api/experiments/{e}/cancel?status=bogus"), StatusCode::BAD_REQUEST),
        (format!("/api/experiments/{e}/retry?kind=bogus"), StatusCode::BAD_REQUEST),
        (format!("/api/experiments/{}/retry", uuid::Uuid::new_v4()), StatusCode::NOT_FOUND),
        (format!("/api/experiments/{}/priority?priority=3", uuid::Uuid::new_v4()), StatusCode::NOT_FOUND),
        (format!("/api/experiments/{e}/priority"), StatusCode::BAD_REQUEST),
        (format!("/api/experiments/{e}/priority?priority=high"), StatusCode::BAD_REQUEST),
        (format!("/api/experiments/{e}/priority?priority=2000000"), StatusCode::BAD_REQUEST),
    ] {
        let (st, body) = call(&app, "POST", &uri, t).await;
        assert_eq!(st, want, "{uri}: {body}");
        error_text(&body);
    }

    // Priority.
    let (st, body) = call(&app, "POST", &format!("/api/experiments/{e}/priority?priority=5"), t).await;
    assert_eq!((st, body["priority"].as_i64(), body["jobs_changed"].as_u64()), (StatusCode::OK, Some(5), Some(88)));
    let (_, one) = call(&app, "GET", &format!("/api/experiments/{e}"), None).await;
    assert_eq!(one["priority"], 5);

    // One job: by key and by its first 12 digits.
    let (st, job) = call(&app, "GET", &format!("/api/jobs/{}", keys[0]), None).await;
    assert_eq!(st, StatusCode::OK, "{job}");
    assert_eq!((job["job"]["key"].as_str(), job["job"]["kind"].as_str()), (Some(keys[0].as_str()), Some("generate")));
    assert_eq!((job["job"]["status"].as_str(), job["job"]["priority"].as_i64()), (Some("cancelled"), Some(5)));
    assert!(job["job"]["spec"]["domain"].is_string(), "{job}");
    assert_eq!(job["experiments"][0]["id"], e.to_string());
    assert!(job["dependents_total"].as_i64().unwrap() > 0, "a generate job feeds labels and plans: {job}");
    let (st, short) = call(&app, "GET", &format!("/api/jobs/{}", &keys[0][..12]), None).await;
    assert_eq!((st, &short["job"]["key"]), (StatusCode::OK, &job["job"]["key"]));
    assert_eq!(job["logs"], serde_json::json!([]), "no attempt logged anything");
    // Its attempts' logs, oldest first: a worker's lines of attempt 1, and of
    // attempt 2 with a handed-back try's lines appended (`schema::joblogs::keep`).
    for (attempt, lines) in [(1, "a\n"), (2, "b\n"), (2, "c\n")] {
        sqlx::query("UPDATE jobs SET attempts = $2 WHERE key = $1")
            .bind(&keys[0])
            .bind(attempt)
            .execute(&db.pool)
            .await
            .unwrap();
        schema::joblogs::keep(&db.pool, &keys[0], "w/0", lines).await.unwrap();
    }
    let (_, job) = call(&app, "GET", &format!("/api/jobs/{}", keys[0]), None).await;
    let logs: Vec<(i64, &str, &str)> = job["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| (l["attempt"].as_i64().unwrap(), l["worker"].as_str().unwrap(), l["lines"].as_str().unwrap()))
        .collect();
    assert_eq!(logs, [(1, "w/0", "a\n"), (2, "w/0", "b\nc\n")]);
    for (uri, want) in [
        ("/api/jobs/0".to_string(), None),
        ("/api/jobs/ffffffffffffffffffffffffffffffffff".to_string(), Some(StatusCode::NOT_FOUND)),
        ("/api/jobs/not-hex".to_string(), Some(StatusCode::BAD_REQUEST)),
    ] {
        let (st, body) = call(&app, "GET", &uri, None).await;
        // "0" starts several keys, one or none: 409, 200 or 404.
        match want {
            Some(w) => assert_eq!(st, w, "{uri}: {body}"),
            None => {
                assert!([StatusCode::CONFLICT, StatusCode::OK, StatusCode::NOT_FOUND].contains(&st), "{uri}: {body}")
            }
        }
        if st != StatusCode::OK {
            error_text(&body);
        }
    }
}

/// What the dashboard polls every 5 s, at the full grid's size:
/// `grids/ijcai24.toml` recorded with its jobs in a midway mixture of
/// states (`schema::testing::scatter_statuses`). A measurement, not a
/// check (minutes to record the grid): run it with
/// `cargo test -p system-tests --test api -- --ignored --nocapture dashboard_polls_at_full_grid_size`.
#[tokio::test]
#[ignore = "a measurement: minutes to record the full grid"]
async fn dashboard_polls_at_full_grid_size() {
    // `HFARM_SCALE_DB_URL`: a database that keeps the recorded grid between
    // runs (created if missing), instead of a fresh one.
    let (_db, pool) = match std::env::var("HFARM_SCALE_DB_URL") {
        Ok(url) => (None, schema::connect_creating(&url).await.unwrap()),
        Err(_) => {
            let db = TestDatabase::create().await;
            let pool = db.pool.clone();
            (Some(db), pool)
        }
    };
    let e = match schema::experiments::resolve_experiment(&pool, "ijcai24").await.unwrap() {
        Some(e) => e,
        None => {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../grids/ijcai24.toml");
            let text = std::fs::read_to_string(path).unwrap();
            let t = std::time::Instant::now();
            let cost = coordinator::cost::CostModel::defaults();
            let e = coordinator::submit(Some(&pool), &text, path, false, &cost).await.unwrap().experiment.unwrap();
            println!("submitted in {:.1} s", t.elapsed().as_secs_f64());
            schema::testing::scatter_statuses(&pool, e).await.unwrap();
            e
        }
    };
    let app = router(AppState { pool: pool.clone(), token: None, queue: None });
    let (_, dead) = call(&app, "GET", &format!("/api/jobs?experiment={e}&status=dead&limit=1"), None).await;
    let key = dead[0]["key"].as_str().unwrap().to_string();
    for uri in [
        "/api/experiments".to_string(),
        format!("/api/experiments/{e}"),
        format!("/api/experiments/{e}/matrix"),
        format!("/api/jobs?experiment={e}&status=failed&limit=50"),
        format!("/api/jobs?experiment={e}&status=dead&limit=50"),
        "/api/workers".to_string(),
        format!("/api/experiments/{e}/report/accuracy"),
        format!("/api/experiments/{e}/report/planning"),
        format!("/api/jobs/{key}"),
        format!("/api/jobs/{}", &key[..12]),
    ] {
        let mut ms = vec![];
        for _ in 0..10 {
            let t = std::time::Instant::now();
            let (st, body) = call(&app, "GET", &uri, None).await;
            ms.push(t.elapsed().as_secs_f64() * 1e3);
            assert_eq!(st, StatusCode::OK, "{uri}: {body}");
        }
        let first = ms[0];
        ms.sort_by(f64::total_cmp);
        println!("{uri:70} first {first:8.1} ms  p50 {:8.1} ms  max {:8.1} ms", ms[ms.len() / 2], ms[ms.len() - 1]);
    }
}
