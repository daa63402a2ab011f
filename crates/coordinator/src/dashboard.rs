//! The web dashboard (`GET /`) and the JSON it reads beyond the status API:
//! the grid as a matrix of training cells, result tables, training curves
//! as SVG, and `/metrics` for Prometheus.

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use serde_json::{json, Value};
use uuid::Uuid;

use crate::api::ApiState;
use crate::report::{self, Filter, Format, Table};

const INDEX: &str = include_str!("../../../dashboards/web/index.html");

pub async fn index() -> Html<&'static str> {
    Html(INDEX)
}

fn internal(e: impl std::fmt::Display) -> Response {
    (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(json!({ "error": e.to_string() }))).into_response()
}

type MatrixRow = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<i64>,
    String,
    Option<String>,
    Option<String>,
    i64,
    i64,
    i64,
    Option<i64>,
);

/// (domain, kind, split, status, count).
type PipelineRow = (Option<String>, String, Option<String>, String, i64);

/// Every training cell of the grid (configuration x seed) with its state and
/// the progress of what depends on it (evaluation, planning); and the
/// instance pipeline (generate, label) per domain and split.
pub async fn matrix(State(s): State<ApiState>, Path(id): Path<Uuid>) -> Response {
    let rows: Result<Vec<MatrixRow>, _> = sqlx::query_as(
        "SELECT t.key, t.domain, t.model, t.distribution, t.sigma, t.residual, t.bound, t.seed, t.status::text,
                t.last_error, t.worker,
                count(d.key) FILTER (WHERE d.status = 'succeeded'),
                count(d.key) FILTER (WHERE d.status IN ('dead', 'failed')),
                count(d.key),
                (SELECT max(step) FROM training_curves c WHERE c.job = t.key)
         FROM jobs t
         JOIN experiment_jobs ej ON ej.job = t.key AND ej.experiment = $1
         LEFT JOIN job_inputs ji ON ji.input = t.key AND ji.position = 0
         LEFT JOIN jobs d ON d.key = ji.job
         WHERE t.kind = 'train'
         GROUP BY t.key
         ORDER BY t.domain, t.model, t.distribution, t.sigma, t.residual, t.bound NULLS FIRST, t.seed",
    )
    .bind(id)
    .fetch_all(&s.pool)
    .await;
    let rows = match rows {
        Ok(r) => r,
        Err(e) => return internal(e),
    };
    let cells: Vec<Value> = rows
        .into_iter()
        .map(
            |(
                key,
                domain,
                model,
                dist,
                sigma,
                residual,
                bound,
                seed,
                status,
                error,
                worker,
                done,
                failed,
                total,
                step,
            )| {
                json!({
                    "key": key, "domain": domain, "model": model, "distribution": dist, "sigma": sigma,
                    "residual": residual, "bound": bound, "seed": seed, "status": status, "error": error,
                    "worker": worker, "dependents_done": done, "dependents_failed": failed, "dependents": total,
                    "step": step,
                })
            },
        )
        .collect();
    let pipeline: Result<Vec<PipelineRow>, _> = sqlx::query_as(
        "SELECT j.domain, j.kind, j.split, j.status::text, count(*)
         FROM jobs j JOIN experiment_jobs ej ON ej.job = j.key AND ej.experiment = $1
         WHERE j.kind IN ('generate', 'label', 'plan', 'evaluate')
         GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4",
    )
    .bind(id)
    .fetch_all(&s.pool)
    .await;
    let pipeline = match pipeline {
        Ok(p) => p,
        Err(e) => return internal(e),
    };
    let pipeline: Vec<Value> = pipeline
        .into_iter()
        .map(|(d, k, sp, st, n)| json!({ "domain": d, "kind": k, "split": sp, "status": st, "count": n }))
        .collect();
    axum::Json(json!({ "cells": cells, "pipeline": pipeline })).into_response()
}

fn table_of(name: &str) -> Option<Table> {
    match name {
        "accuracy" => Some(Table::Accuracy),
        "planning" => Some(Table::Planning),
        "curves" => Some(Table::Curves),
        _ => None,
    }
}

/// A result table as JSON (`report::Report`), filtered by query parameters
/// `domain`, `model`, `bound`, `residual`.
pub async fn table(
    State(s): State<ApiState>,
    Path((id, name)): Path<(Uuid, String)>,
    Query(filter): Query<Filter>,
) -> Response {
    let Some(t) = table_of(&name) else {
        return (
            StatusCode::NOT_FOUND,
            axum::Json(json!({ "error": format!("no table {name}: accuracy, planning or curves") })),
        )
            .into_response();
    };
    match report::table(&s.pool, id, t, &filter).await {
        Ok(r) => axum::Json(r).into_response(),
        Err(e) => internal(e),
    }
}

/// Figure 2 for the experiment, live.
pub async fn curves_svg(State(s): State<ApiState>, Path(id): Path<Uuid>, Query(filter): Query<Filter>) -> Response {
    match report::table(&s.pool, id, Table::Curves, &filter).await {
        Ok(r) => ([(header::CONTENT_TYPE, "image/svg+xml")], r.render(Format::Svg)).into_response(),
        Err(e) => internal(e),
    }
}

pub async fn metrics(State(s): State<ApiState>) -> Response {
    match crate::metrics::render(&s.pool, s.queue.as_ref()).await {
        Ok(text) => ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response(),
        Err(e) => internal(e),
    }
}
