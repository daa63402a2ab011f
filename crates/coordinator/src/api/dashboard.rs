//! The web dashboard (`GET /`) and the JSON it reads beyond the status API:
//! the job kinds, the grid as a matrix of training cells, result tables,
//! and training curves as SVG.

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use jobs::JobKind;
use schema::reports::{Filter, Table};
use serde_json::json;
use uuid::Uuid;

use super::error::{ApiError, ApiResult};
use crate::report::{self, Format};
use crate::state::AppState;

const INDEX: &str = include_str!("../../../../dashboards/web/index.html");

pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/", get(index))
        .route("/api/vocabulary", get(vocabulary))
        .route("/api/experiments/{id}/matrix", get(matrix))
        .route("/api/experiments/{id}/report/{table}", get(table))
        .route("/api/experiments/{id}/curves.svg", get(curves_svg))
}

async fn index() -> Html<&'static str> {
    Html(INDEX)
}

/// The job kinds in pipeline order (`jobs::JobKind`) and the job states
/// (`schema::JobStatus`), so the page lists whatever the farm has.
async fn vocabulary() -> Json<serde_json::Value> {
    let kinds: Vec<_> = JobKind::ALL.iter().map(|k| k.describe()).collect();
    Json(json!({ "kinds": kinds, "statuses": schema::JobStatus::ALL }))
}

/// Every training cell of the grid (configuration x seed) with its state and
/// the progress of what depends on it; and the pipeline of the other kinds
/// per domain and split.
async fn matrix(State(s): State<AppState>, Path(id): Path<Uuid>) -> ApiResult {
    let cells = schema::matrix::cells(&s.pool, id).await?;
    let others: Vec<JobKind> =
        JobKind::ALL.into_iter().filter(|k| *k != JobKind::Train && k.describe().pipeline).collect();
    let pipeline = schema::matrix::pipeline(&s.pool, id, &others).await?;
    Ok(Json(json!({ "cells": cells, "pipeline": pipeline })))
}

/// A result table as JSON (`schema::reports::Report`), filtered by query
/// parameters `domain`, `model`, `bound`, `residual`.
async fn table(
    State(s): State<AppState>,
    Path((id, name)): Path<(Uuid, String)>,
    Query(filter): Query<Filter>,
) -> ApiResult<Response> {
    let t: Table = name.parse().map_err(ApiError::not_found)?;
    Ok(Json(schema::reports::table(&s.pool, id, t, &filter).await?).into_response())
}

/// Figure 2 for the experiment, live.
async fn curves_svg(
    State(s): State<AppState>,
    Path(id): Path<Uuid>,
    Query(filter): Query<Filter>,
) -> ApiResult<Response> {
    let r = schema::reports::table(&s.pool, id, Table::Curves, &filter).await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], report::render(&r, Format::Svg)).into_response())
}
