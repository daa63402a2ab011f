//! `/api/workers`: workers, their last heartbeat and running jobs.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::error::ApiResult;
use crate::state::AppState;

/// Seconds a worker may go without a heartbeat and still count as alive.
pub const LIVE_AFTER_S: f64 = 30.0;

pub fn routes() -> Router<AppState> {
    Router::new().route("/api/workers", get(list))
}

async fn list(State(s): State<AppState>) -> ApiResult {
    let workers = schema::workers::list(&s.pool, LIVE_AFTER_S).await?;
    let mut by_worker: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (slot, key) in schema::workers::running_jobs(&s.pool).await? {
        // A slot is `{worker id}/{n}`.
        let id = slot.rsplit_once('/').map_or(slot.clone(), |(id, _)| id.to_string());
        by_worker.entry(id).or_default().push(key);
    }
    let out: Vec<Value> = workers
        .into_iter()
        .map(|w| {
            let jobs = by_worker.remove(&w.id).unwrap_or_default();
            json!({ "id": w.id, "class": w.class, "concurrency": w.concurrency,
                    "last_seen_s_ago": w.last_seen_s_ago, "alive": w.alive, "running": jobs })
        })
        .collect();
    Ok(Json(json!(out)))
}
