//! `/api/workers`: workers, their last heartbeat and running jobs.

use std::collections::BTreeMap;

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::doc::ResourceDoc;
use super::error::ApiResult;
use crate::state::AppState;

/// Seconds a worker may go without a heartbeat and still count as alive.
pub const LIVE_AFTER_S: f64 = 30.0;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_workers))
}

/// A worker as listed.
#[derive(Serialize, ToSchema)]
struct Worker {
    id: String,
    /// The queue it pops from.
    #[schema(value_type = ResourceDoc)]
    class: String,
    /// Jobs it runs at once.
    concurrency: i32,
    /// Seconds since its last heartbeat.
    last_seen_s_ago: f64,
    /// Not stopped, and seen within the last 30 seconds.
    alive: bool,
    /// Keys of the jobs it runs.
    running: Vec<String>,
}

/// Every worker ever seen, most recently seen first.
#[utoipa::path(get, path = "/api/workers", tag = "workers",
    responses((status = 200, description = "The workers", body = [Worker])))]
async fn list_workers(State(s): State<AppState>) -> ApiResult<Json<Vec<Worker>>> {
    let workers = schema::workers::list(&s.pool, LIVE_AFTER_S).await?;
    let mut by_worker: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (slot, key) in schema::workers::running_jobs(&s.pool).await? {
        // A slot is `{worker id}/{n}`.
        let id = slot.rsplit_once('/').map_or(slot.clone(), |(id, _)| id.to_string());
        by_worker.entry(id).or_default().push(key);
    }
    let out = workers
        .into_iter()
        .map(|w| Worker {
            running: by_worker.remove(&w.id).unwrap_or_default(),
            id: w.id,
            class: w.class,
            concurrency: w.concurrency,
            last_seen_s_ago: w.last_seen_s_ago,
            alive: w.alive,
        })
        .collect();
    Ok(Json(out))
}
