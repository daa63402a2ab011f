//! The status server of `hfarm serve`: thin axum handlers over `schema`'s
//! operations, one router per module, merged here. Reads are open;
//! mutations (retry, cancel) need `Authorization: Bearer <token>` with the
//! token from configuration (`HFARM_API_TOKEN`), and are refused when none
//! is configured.

mod dashboard;
mod error;
mod experiments;
mod jobs;
mod metrics;
mod workers;

use axum::routing::get;
use axum::Router;

use crate::state::AppState;

pub use error::ApiError;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/healthz", get(|| async { "ok" }))
        .merge(experiments::routes())
        .merge(jobs::routes())
        .merge(workers::routes())
        .merge(dashboard::routes())
        .merge(metrics::routes())
        .with_state(state)
}
