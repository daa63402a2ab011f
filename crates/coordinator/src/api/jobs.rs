//! `/api/jobs`: the job listing, and retry / cancel (token needed).

use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::json;
use uuid::Uuid;

use super::error::{ApiError, ApiResult};
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/api/jobs", get(list))
        .route("/api/jobs/{key}/retry", post(retry))
        .route("/api/jobs/{key}/cancel", post(cancel))
}

#[derive(serde::Deserialize)]
struct Params {
    experiment: Option<Uuid>,
    kind: Option<String>,
    status: Option<String>,
    limit: Option<i64>,
}

async fn list(State(s): State<AppState>, Query(p): Query<Params>) -> ApiResult {
    let filter = schema::listing::JobFilter {
        experiment: p.experiment,
        kind: p.kind.map(|k| k.parse()).transpose().map_err(ApiError::bad_request)?,
        status: p.status.map(|k| k.parse()).transpose().map_err(ApiError::bad_request)?,
        limit: p.limit.unwrap_or(500),
    };
    Ok(Json(json!(schema::listing::jobs(&s.pool, &filter).await?)))
}

fn authorize(s: &AppState, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = &s.token else {
        return Err(ApiError(StatusCode::FORBIDDEN, "mutations are disabled: configure HFARM_API_TOKEN".into()));
    };
    let given = headers.get("authorization").and_then(|v| v.to_str().ok()).and_then(|v| v.strip_prefix("Bearer "));
    match given {
        Some(g) if g == token => Ok(()),
        _ => Err(ApiError(StatusCode::UNAUTHORIZED, "missing or wrong bearer token".into())),
    }
}

async fn retry(State(s): State<AppState>, headers: HeaderMap, Path(key): Path<String>) -> ApiResult {
    authorize(&s, &headers)?;
    if schema::lifecycle::retry(&s.pool, &key).await? {
        Ok(Json(json!({ "key": key, "status": schema::JobStatus::Pending })))
    } else {
        Err(ApiError(StatusCode::CONFLICT, format!("job {key} is not dead, failed or cancelled (or does not exist)")))
    }
}

async fn cancel(State(s): State<AppState>, headers: HeaderMap, Path(key): Path<String>) -> ApiResult {
    authorize(&s, &headers)?;
    if schema::lifecycle::cancel(&s.pool, &key).await? {
        Ok(Json(json!({ "key": key, "status": schema::JobStatus::Cancelled })))
    } else {
        Err(ApiError(StatusCode::CONFLICT, format!("job {key} has already finished (or does not exist)")))
    }
}
