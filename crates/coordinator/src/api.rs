//! The status API served by `hfarm serve`: thin axum handlers over the pool.
//! Reads are open; mutations (retry, cancel) need `Authorization: Bearer
//! <token>` with the token from configuration (`HFARM_API_TOKEN`), and are
//! refused when none is configured.

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use sqlx::PgPool;
use uuid::Uuid;

#[derive(Clone)]
pub struct ApiState {
    pub pool: PgPool,
    /// Bearer token for mutations; None disables them.
    pub token: Option<String>,
    /// For queue depths in `/metrics` (None: not reported).
    pub queue: Option<jobs::queue::Queue>,
}

pub fn router(state: ApiState) -> Router {
    Router::new()
        .route("/", get(crate::dashboard::index))
        .route("/metrics", get(crate::dashboard::metrics))
        .route("/healthz", get(|| async { "ok" }))
        .route("/api/experiments", get(experiments))
        .route("/api/experiments/{id}", get(experiment))
        .route("/api/experiments/{id}/matrix", get(crate::dashboard::matrix))
        .route("/api/experiments/{id}/report/{table}", get(crate::dashboard::table))
        .route("/api/experiments/{id}/curves.svg", get(crate::dashboard::curves_svg))
        .route("/api/jobs", get(jobs))
        .route("/api/workers", get(workers))
        .route("/api/jobs/{key}/retry", post(retry))
        .route("/api/jobs/{key}/cancel", post(cancel))
        .with_state(state)
}

/// An error as a JSON body with the right status.
struct ApiError(StatusCode, String);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl From<sqlx::Error> for ApiError {
    fn from(e: sqlx::Error) -> Self {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("database: {e}"))
    }
}

impl From<schema::DbError> for ApiError {
    fn from(e: schema::DbError) -> Self {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())
    }
}

type ApiResult = Result<Json<Value>, ApiError>;

async fn experiments(State(s): State<ApiState>) -> ApiResult {
    let rows: Vec<(Uuid, String, f64)> = sqlx::query_as(
        "SELECT id, name, extract(epoch FROM created_at)::float8 FROM experiments ORDER BY created_at DESC",
    )
    .fetch_all(&s.pool)
    .await?;
    let mut out = vec![];
    for (id, name, created) in rows {
        let counts = schema::status_counts(&s.pool, id).await?;
        out.push(json!({ "id": id, "name": name, "created_at": created, "jobs": counts }));
    }
    Ok(Json(json!(out)))
}

async fn experiment(State(s): State<ApiState>, Path(id): Path<Uuid>) -> ApiResult {
    let report = match crate::status(&s.pool, id).await {
        Ok(r) => r,
        Err(crate::submit::SubmitError::UnknownExperiment(_)) => {
            return Err(ApiError(StatusCode::NOT_FOUND, format!("no experiment {id}")))
        }
        Err(e) => return Err(ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    };
    let total: i64 = report.jobs.values().sum();
    let done = report.jobs["succeeded"] + report.jobs["dead"] + report.jobs["cancelled"];
    // ETA from the completion rate of the last ten minutes.
    let (recent,): (i64,) = sqlx::query_as(
        "SELECT count(*) FROM jobs j JOIN experiment_jobs e ON e.job = j.key
         WHERE e.experiment = $1 AND j.status = 'succeeded' AND j.finished_at > now() - interval '10 minutes'",
    )
    .bind(id)
    .fetch_one(&s.pool)
    .await?;
    let eta_s = (recent > 0 && done < total).then(|| (total - done) as f64 / (recent as f64 / 600.0));
    Ok(Json(json!({
        "id": id, "name": report.name, "jobs": report.jobs, "by_kind": report.by_kind,
        "total": total, "done": done, "eta_s": eta_s,
    })))
}

#[derive(serde::Deserialize)]
struct JobFilter {
    experiment: Option<Uuid>,
    kind: Option<String>,
    status: Option<String>,
    limit: Option<i64>,
}

/// One row of the jobs listing.
#[derive(sqlx::FromRow, serde::Serialize)]
struct JobRow {
    key: String,
    kind: String,
    status: String,
    attempts: i32,
    worker: Option<String>,
    last_error: Option<String>,
    domain: Option<String>,
    split: Option<String>,
    heuristic: Option<String>,
}

async fn jobs(State(s): State<ApiState>, Query(f): Query<JobFilter>) -> ApiResult {
    let rows: Vec<JobRow> = sqlx::query_as(
        "SELECT j.key, j.kind, j.status::text AS status, j.attempts, j.worker, j.last_error, j.domain, j.split, j.heuristic
         FROM jobs j
         WHERE ($1::uuid IS NULL OR EXISTS (SELECT 1 FROM experiment_jobs e WHERE e.job = j.key AND e.experiment = $1))
           AND ($2::text IS NULL OR j.kind = $2)
           AND ($3::text IS NULL OR j.status::text = $3)
         ORDER BY j.created_at, j.key
         LIMIT $4",
    )
    .bind(f.experiment)
    .bind(f.kind)
    .bind(f.status)
    .bind(f.limit.unwrap_or(500).clamp(1, 10_000))
    .fetch_all(&s.pool)
    .await?;
    Ok(Json(json!(rows)))
}

async fn workers(State(s): State<ApiState>) -> ApiResult {
    let rows: Vec<(String, String, i32, f64, bool)> = sqlx::query_as(
        "SELECT id, class, concurrency, extract(epoch FROM now() - last_seen)::float8, stopped_at IS NULL AND last_seen > now() - interval '30 seconds'
         FROM workers ORDER BY last_seen DESC",
    )
    .fetch_all(&s.pool)
    .await?;
    let running: Vec<(String, String)> =
        sqlx::query_as("SELECT worker, key FROM jobs WHERE status = 'running' AND worker IS NOT NULL")
            .fetch_all(&s.pool)
            .await?;
    let mut by_worker: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (w, k) in running {
        let id = w.rsplit_once('/').map_or(w.clone(), |(id, _)| id.to_string());
        by_worker.entry(id).or_default().push(k);
    }
    let out: Vec<Value> = rows
        .into_iter()
        .map(|(id, class, concurrency, ago, alive)| {
            let jobs = by_worker.remove(&id).unwrap_or_default();
            json!({ "id": id, "class": class, "concurrency": concurrency, "last_seen_s_ago": ago, "alive": alive, "running": jobs })
        })
        .collect();
    Ok(Json(json!(out)))
}

fn authorize(s: &ApiState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = &s.token else {
        return Err(ApiError(StatusCode::FORBIDDEN, "mutations are disabled: configure HFARM_API_TOKEN".into()));
    };
    let given = headers.get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(g) if g == token => Ok(()),
        _ => Err(ApiError(StatusCode::UNAUTHORIZED, "missing or wrong bearer token".into())),
    }
}

async fn retry(State(s): State<ApiState>, headers: HeaderMap, Path(key): Path<String>) -> ApiResult {
    authorize(&s, &headers)?;
    if schema::lifecycle::retry(&s.pool, &key).await? {
        Ok(Json(json!({ "key": key, "status": "pending" })))
    } else {
        Err(ApiError(StatusCode::CONFLICT, format!("job {key} is not dead, failed or cancelled (or does not exist)")))
    }
}

async fn cancel(State(s): State<ApiState>, headers: HeaderMap, Path(key): Path<String>) -> ApiResult {
    authorize(&s, &headers)?;
    if schema::lifecycle::cancel(&s.pool, &key).await? {
        Ok(Json(json!({ "key": key, "status": "cancelled" })))
    } else {
        Err(ApiError(StatusCode::CONFLICT, format!("job {key} has already finished (or does not exist)")))
    }
}
