//! The status server of `hfarm serve`: thin axum handlers over `schema`'s
//! operations, one router per module, merged here. Reads are open;
//! mutations (retry, cancel) need `Authorization: Bearer <token>` with the
//! token from configuration (`HFARM_API_TOKEN`, compared in constant time:
//! `auth.rs`), and are refused when none is configured.
//!
//! Every route is registered with `utoipa_axum::routes!`, which also puts
//! it in the OpenAPI document served at `/api/openapi.json` (`doc.rs`).
//! Requests are bounded (`limits.rs`), and every error, axum's own
//! rejections and unknown routes included, answers `{"error": "..."}`
//! (`error.rs`). No handler builds SQL: request text reaches the database
//! only as bound parameters of `schema`'s typed operations.

mod auth;
mod cache;
mod dashboard;
mod doc;
mod error;
mod experiments;
mod jobs;
mod limits;
mod metrics;
mod workers;

use axum::middleware;
use axum::Router;
use tower_http::limit::RequestBodyLimitLayer;
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::state::AppState;

pub use error::ApiError;
pub use limits::{MAX_BODY_BYTES, MAX_LIMIT, MAX_URI_BYTES};
pub use workers::LIVE_AFTER_S;

/// Every route of the server with its documentation.
fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(doc::ApiDoc::openapi())
        .routes(routes!(healthz))
        .merge(experiments::routes())
        .merge(jobs::routes())
        .merge(workers::routes())
        .merge(dashboard::routes())
        .merge(metrics::routes())
        .merge(doc::routes())
}

/// The server's OpenAPI document, as `/api/openapi.json` serves it.
pub fn openapi() -> utoipa::openapi::OpenApi {
    routes().into_openapi()
}

pub fn router(state: AppState) -> Router {
    let (router, _) = routes().split_for_parts();
    router
        .fallback(error::no_route)
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .layer(middleware::from_fn(limits::bounded_uri))
        // Outermost, so that it sees every error the layers above answer.
        .layer(middleware::from_fn(error::json_errors))
        .with_state(state)
}

/// Liveness: answers `ok` while the server runs.
#[utoipa::path(get, path = "/healthz", tag = "meta",
    responses((status = 200, description = "The server runs", body = String, content_type = "text/plain")))]
async fn healthz() -> &'static str {
    "ok"
}
