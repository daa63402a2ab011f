//! `/api/experiments[/{id}]`: experiments with their progress.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use jobs::JobKind;
use schema::StatusCounts;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::doc::{ByKindDoc, StatusCountsDoc};
use super::error::{ApiError, ApiResult, ErrorBody};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_experiments)).routes(routes!(experiment))
}

/// An experiment in the listing.
#[derive(Serialize, ToSchema)]
struct Experiment {
    id: Uuid,
    name: String,
    /// When it was submitted, in seconds since the epoch.
    created_at: f64,
    #[schema(value_type = StatusCountsDoc)]
    jobs: StatusCounts,
}

/// One experiment's progress.
#[derive(Serialize, ToSchema)]
struct ExperimentStatus {
    id: Uuid,
    name: String,
    #[schema(value_type = StatusCountsDoc)]
    jobs: StatusCounts,
    #[schema(value_type = ByKindDoc)]
    by_kind: BTreeMap<JobKind, StatusCounts>,
    /// Jobs in all.
    total: i64,
    /// Jobs that have ended (succeeded, dead, cancelled or skipped).
    done: i64,
    /// Whether every job has ended.
    finished: bool,
    /// Seconds until the unfinished jobs are done at the live workers'
    /// pace; null while a resource class with work left has no live worker.
    eta_s: Option<f64>,
    /// Grid slots that no try could fill with an instance.
    slots_without_instance: usize,
}

/// Every experiment, newest first, with its jobs counted by state.
#[utoipa::path(get, path = "/api/experiments", tag = "experiments",
    responses((status = 200, description = "The experiments", body = [Experiment])))]
async fn list_experiments(State(s): State<AppState>) -> ApiResult<Json<Vec<Experiment>>> {
    let mut out = vec![];
    for e in schema::experiments::list_experiments(&s.pool).await? {
        let jobs = schema::status_counts(&s.pool, e.id).await?;
        out.push(Experiment { id: e.id, name: e.name, created_at: e.created_at, jobs });
    }
    Ok(Json(out))
}

/// One experiment's progress: jobs by state and by kind, and its ETA.
#[utoipa::path(get, path = "/api/experiments/{id}", tag = "experiments",
    params(("id" = Uuid, Path, description = "The experiment's id (as `hfarm submit` prints it)")),
    responses(
        (status = 200, description = "The experiment's progress", body = ExperimentStatus),
        (status = 400, description = "The id is not a UUID", body = ErrorBody),
        (status = 404, description = "No such experiment", body = ErrorBody),
    ))]
async fn experiment(State(s): State<AppState>, Path(id): Path<Uuid>) -> ApiResult<Json<ExperimentStatus>> {
    let report = match crate::status(&s.pool, id).await {
        Ok(r) => r,
        Err(crate::submit::SubmitError::UnknownExperiment(_)) => {
            return Err(ApiError::not_found(format!("no experiment {id}")))
        }
        Err(e) => return Err(ApiError(StatusCode::INTERNAL_SERVER_ERROR, e.to_string())),
    };
    let (total, done) = (report.jobs.total(), report.jobs.finished());
    let eta_s = eta(&s, id).await?;
    let unfilled = schema::slots::unfilled(&s.pool, id).await?.len();
    Ok(Json(ExperimentStatus {
        id,
        name: report.name,
        jobs: report.jobs,
        by_kind: report.by_kind,
        total,
        done,
        finished: done == total,
        eta_s,
        slots_without_instance: unfilled,
    }))
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
