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

async fn one(State(s): State<AppState>, Path(id): Path<Uuid>) -> ApiResult {
    let report = match crate::status(&s.pool, id).await {
        Ok(r) => r,
        Err(crate::submit::SubmitError::UnknownExperiment(_)) => {
            return Err(ApiError::not_found(format!("no experiment {id}")))
        }
        Err(e) => return Err(ApiError(axum::http::StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    };
    let (total, done) = (report.jobs.total(), report.jobs.finished());
    let eta_s = eta(&s, id).await?;
    let unfilled = schema::slots::unfilled(&s.pool, id).await?.len();
    Ok(Json(json!({
        "id": id, "name": report.name, "jobs": report.jobs, "by_kind": report.by_kind,
        "total": total, "done": done, "finished": done == total, "eta_s": eta_s,
        "slots_without_instance": unfilled,
    })))
}

/// Seconds until the experiment's unfinished jobs are done: their projected
/// work per resource class (`cost`, the model `hfarm submit --dry-run`
/// uses) over the live workers' slots of that class; None while a class
/// with work left has no live worker.
async fn eta(s: &AppState, id: Uuid) -> Result<Option<f64>, ApiError> {
    let (model, _) = crate::submit::cost_model(Some(&s.pool)).await;
    let left = crate::cost::remaining_seconds(&schema::metrics::remaining(&s.pool, id).await?, &model);
    let live = schema::workers::live_by_class(&s.pool, super::workers::LIVE_AFTER_S).await?;
    let mut eta: f64 = 0.0;
    for (class, seconds) in left {
        let slots = live.iter().find(|w| w.class == class.as_str()).map_or(0, |w| w.slots);
        if slots == 0 {
            return Ok(None);
        }
        eta = eta.max(seconds / slots as f64);
    }
    Ok(Some(eta))
}
