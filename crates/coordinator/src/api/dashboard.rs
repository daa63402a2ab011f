//! The web dashboard (`GET /`) and the JSON it reads beyond the status API:
//! the job kinds, the grid as a matrix of training cells, result tables,
//! and training curves as SVG.

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Response};
use axum::Json;
use jobs::{JobKind, KindInfo, Needs, Resource};
use schema::reports::{Filter, Table};
use schema::JobStatus;
use serde::Serialize;
use serde_json::json;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::cache::Cache;
use super::doc::{JobStatusDoc, NeedsDoc, ResourceDoc, TableDoc};
use super::error::{ApiError, ApiResult, ErrorBody};
use super::limits::text_param;
use crate::report::{self, Format};
use crate::state::AppState;

const INDEX: &str = include_str!("../../../../dashboards/web/index.html");

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(dashboard))
        .routes(routes!(vocabulary))
        .routes(routes!(matrix))
        .routes(routes!(report_table))
        .routes(routes!(curves_svg))
}

/// The dashboard page.
#[utoipa::path(get, path = "/", tag = "dashboard",
    responses((status = 200, description = "The dashboard", body = String, content_type = "text/html")))]
async fn dashboard() -> Html<&'static str> {
    Html(INDEX)
}

/// What the farm's words are.
#[derive(Serialize, ToSchema)]
struct Vocabulary {
    /// The job kinds, in pipeline order.
    kinds: Vec<Kind>,
    /// The job states, in the order of a job's life.
    #[schema(value_type = Vec<JobStatusDoc>)]
    statuses: [JobStatus; JobStatus::ALL.len()],
}

/// A job kind (`jobs::KindInfo`).
#[derive(Serialize, ToSchema)]
struct Kind {
    name: &'static str,
    description: &'static str,
    /// Its queue.
    #[schema(value_type = ResourceDoc)]
    resource: Resource,
    /// Part of an experiment's pipeline (false: a measurement aid such as `noop`).
    pipeline: bool,
    /// Which inputs it cannot run without.
    #[schema(value_type = NeedsDoc)]
    needs: Needs,
}

impl From<KindInfo> for Kind {
    fn from(k: KindInfo) -> Kind {
        // Spelled out, so that a new field of `KindInfo` is a compile error here.
        let KindInfo { name, description, resource, pipeline, needs } = k;
        Kind { name, description, resource, pipeline, needs }
    }
}

/// The job kinds in pipeline order (`jobs::JobKind`) and the job states
/// (`schema::JobStatus`), so the page lists whatever the farm has.
#[utoipa::path(get, path = "/api/vocabulary", tag = "dashboard",
    responses((status = 200, description = "Job kinds and job states", body = Vocabulary)))]
async fn vocabulary() -> Json<Vocabulary> {
    Json(Vocabulary { kinds: JobKind::ALL.map(|k| k.describe().into()).into(), statuses: JobStatus::ALL })
}

/// Every training cell of the grid (configuration x seed) with its state and
/// the progress of what depends on it; and the pipeline of the other kinds
/// per domain and split.
#[utoipa::path(get, path = "/api/experiments/{id}/matrix", tag = "dashboard",
    params(("id" = Uuid, Path, description = "The experiment's id")),
    responses(
        (status = 200, description = "`cells`: the training cells; `pipeline`: the other kinds per domain and split",
         body = Object),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
    ))]
async fn matrix(State(s): State<AppState>, Path(id): Path<Uuid>) -> ApiResult {
    let pool = s.pool;
    let m = MATRIX
        .get(id, move || async move {
            let cells = schema::matrix::cells(&pool, id).await?;
            let others: Vec<JobKind> =
                JobKind::ALL.into_iter().filter(|k| *k != JobKind::Train && k.describe().pipeline).collect();
            let pipeline = schema::matrix::pipeline(&pool, id, &others).await?;
            Ok(json!({ "cells": cells, "pipeline": pipeline }))
        })
        .await?;
    Ok(Json(m.as_ref().clone()))
}

/// The matrix per experiment: a pass over its jobs (seconds at the full
/// grid's size), reused as `cache.rs` says.
static MATRIX: Cache<Uuid, serde_json::Value> = Cache::new();

/// A result table as JSON (`schema::reports::Report`), filtered by query
/// parameters `domain`, `model`, `bound`, `residual`.
#[utoipa::path(get, path = "/api/experiments/{id}/report/{table}", tag = "dashboard",
    params(("id" = Uuid, Path, description = "The experiment's id"), ("table" = TableDoc, Path, description = "Which table"),
           FilterParams),
    responses(
        (status = 200, description = "The table: its columns and rows", body = Object),
        (status = 400, description = "The id is not a UUID, or a filter holds a NUL character", body = ErrorBody),
        (status = 404, description = "No such table", body = ErrorBody),
    ))]
async fn report_table(
    State(s): State<AppState>,
    Path((id, name)): Path<(Uuid, String)>,
    Query(filter): Query<Filter>,
) -> ApiResult<Response> {
    let t: Table = name.parse().map_err(ApiError::not_found)?;
    let filter = checked(filter)?;
    Ok(Json(schema::reports::table(&s.pool, id, t, &filter).await?).into_response())
}

/// Figure 2 for the experiment, live.
#[utoipa::path(get, path = "/api/experiments/{id}/curves.svg", tag = "dashboard",
    params(("id" = Uuid, Path, description = "The experiment's id"), FilterParams),
    responses(
        (status = 200, description = "Validation MSE per training step, mean over seeds", body = String,
         content_type = "image/svg+xml"),
        (status = 400, description = "The id is not a UUID, or a filter holds a NUL character", body = ErrorBody),
    ))]
async fn curves_svg(
    State(s): State<AppState>,
    Path(id): Path<Uuid>,
    Query(filter): Query<Filter>,
) -> ApiResult<Response> {
    let r = schema::reports::table(&s.pool, id, Table::Curves, &checked(filter)?).await?;
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], report::render(&r, Format::Svg)).into_response())
}

/// The filter, refused when a value cannot be text in PostgreSQL.
fn checked(filter: Filter) -> Result<Filter, ApiError> {
    text_param("domain", filter.domain.as_deref())?;
    text_param("model", filter.model.as_deref())?;
    text_param("bound", filter.bound.as_deref())?;
    text_param("residual", filter.residual.as_deref())?;
    Ok(filter)
}

/// The query parameters of `schema::reports::Filter`, for the document
/// only (`Filter` lives in `schema`, which knows nothing of OpenAPI); the
/// `From` below keeps the two alike. The pattern says what `checked`
/// refuses: a NUL character, which PostgreSQL's text cannot hold.
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct FilterParams {
    /// Only this domain.
    #[param(pattern = r"^[^\x00]*$")]
    domain: Option<String>,
    /// Only this model (baselines, which have none, stay).
    #[param(pattern = r"^[^\x00]*$")]
    model: Option<String>,
    /// Only this bound.
    #[param(pattern = r"^[^\x00]*$")]
    bound: Option<String>,
    /// Only this residual.
    #[param(pattern = r"^[^\x00]*$")]
    residual: Option<String>,
}

impl From<Filter> for FilterParams {
    fn from(f: Filter) -> FilterParams {
        let Filter { domain, model, bound, residual } = f;
        FilterParams { domain, model, bound, residual }
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use schema::reports::Filter;

    use super::checked;

    /// Found by schemathesis: `?bound=%00` reached PostgreSQL, which refused
    /// the text and the request got a 500.
    #[test]
    fn a_nul_in_a_filter_is_a_bad_request() {
        let filter = Filter { bound: Some("lm\0cut".into()), ..Filter::default() };
        let e = checked(filter).expect_err("refused");
        assert_eq!(e.0, StatusCode::BAD_REQUEST);
        assert_eq!(e.1, "bound must not contain a NUL character");
        assert!(checked(Filter { domain: Some("ferry".into()), ..Filter::default() }).is_ok());
    }

    /// The document says what is refused, so that clients (and schemathesis)
    /// know before they ask: a job key's pattern, a filter without NUL.
    #[test]
    fn the_document_states_what_is_refused() {
        let doc = serde_json::to_value(crate::api::openapi()).unwrap();
        let params = |path: &str, method: &str| doc["paths"][path][method]["parameters"].as_array().unwrap().clone();
        let pattern = |ps: &[serde_json::Value], name: &str| {
            let p = ps.iter().find(|p| p["name"] == name).unwrap();
            p["schema"]["pattern"].as_str().unwrap().to_string()
        };
        assert_eq!(pattern(&params("/api/jobs/{key}/retry", "post"), "key"), "^[0-9a-fA-F]{1,64}$");
        assert_eq!(pattern(&params("/api/jobs/{key}/cancel", "post"), "key"), "^[0-9a-fA-F]{1,64}$");
        let report = params("/api/experiments/{id}/report/{table}", "get");
        for name in ["domain", "model", "bound", "residual"] {
            assert_eq!(pattern(&report, name), r"^[^\x00]*$");
        }
    }
}
