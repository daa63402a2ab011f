//! `/api/experiments[/{id}]`: experiments with their progress.

use axum::extract::{Path, State};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;
use uuid::Uuid;

use super::error::{ApiError, ApiResult};
use crate::state::AppState;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/experiments", get(list)).route("/api/experiments/{id}", get(one))
}

async fn list(State(s): State<AppState>) -> ApiResult {
    let mut out = vec![];
    for e in schema::experiments::list_experiments(&s.pool).await? {
        let counts = schema::status_counts(&s.pool, e.id).await?;
        out.push(json!({ "id": e.id, "name": e.name, "created_at": e.created_at, "jobs": counts }));
    }
    Ok(Json(json!(out)))
}

/// The window over which the ETA's completion rate is measured.
const ETA_WINDOW_S: f64 = 600.0;

async fn one(State(s): State<AppState>, Path(id): Path<Uuid>) -> ApiResult {
    let report = match crate::status(&s.pool, id).await {
        Ok(r) => r,
        Err(crate::submit::SubmitError::UnknownExperiment(_)) => {
            return Err(ApiError::not_found(format!("no experiment {id}")))
        }
        Err(e) => return Err(ApiError(axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    };
    let (total, done) = (report.jobs.total(), report.jobs.finished());
    let recent = schema::experiments::recently_succeeded(&s.pool, id, ETA_WINDOW_S).await?;
    let eta_s = (recent > 0 && done < total).then(|| (total - done) as f64 / (recent as f64 / ETA_WINDOW_S));
    let unfilled = schema::slots::unfilled(&s.pool, id).await?.len();
    Ok(Json(json!({
        "id": id, "name": report.name, "jobs": report.jobs, "by_kind": report.by_kind,
        "total": total, "done": done, "finished": done == total, "eta_s": eta_s,
        "slots_without_instance": unfilled,
    })))
}
