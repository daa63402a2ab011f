//! `/api/jobs`: the job listing, one job in full, a job's stored artifact,
//! and retry / cancel (token needed).

use axum::extract::{Path, Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use schema::listing::JobRow;
use schema::JobStatus;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Authorized;
use super::doc::{JobKindDoc, JobStatusDoc};
use super::error::{ApiError, ApiResult, ErrorBody};
use super::limits::{job_key, listing_limit};
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_jobs))
        .routes(routes!(job_detail))
        .routes(routes!(job_artifact))
        .routes(routes!(retry_job))
        .routes(routes!(cancel_job))
}

/// Which jobs to list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct Params {
    /// Only the jobs of this experiment.
    experiment: Option<Uuid>,
    /// Only jobs of this kind.
    #[param(value_type = Option<JobKindDoc>)]
    kind: Option<String>,
    /// Only jobs in this state.
    #[param(value_type = Option<JobStatusDoc>)]
    status: Option<String>,
    /// At most this many (1 to 10,000; default 500).
    #[param(minimum = 1, maximum = 10_000)]
    limit: Option<i64>,
}

/// A job in the listing.
#[derive(Serialize, ToSchema)]
struct Job {
    key: String,
    #[schema(value_type = JobKindDoc)]
    kind: String,
    #[schema(value_type = JobStatusDoc)]
    status: JobStatus,
    /// Attempts started so far.
    attempts: i32,
    /// The worker slot running it, if any.
    worker: Option<String>,
    last_error: Option<String>,
    domain: Option<String>,
    split: Option<String>,
    heuristic: Option<String>,
}

impl From<JobRow> for Job {
    fn from(r: JobRow) -> Job {
        // Spelled out, so that a new column of the listing is a compile error here.
        let JobRow { key, kind, status, attempts, worker, last_error, domain, split, heuristic } = r;
        Job { key, kind, status, attempts, worker, last_error, domain, split, heuristic }
    }
}

/// A job's new state after a retry or cancel.
#[derive(Serialize, ToSchema)]
struct JobState {
    key: String,
    #[schema(value_type = JobStatusDoc)]
    status: JobStatus,
}

/// Jobs, oldest first.
#[utoipa::path(get, path = "/api/jobs", tag = "jobs", params(Params),
    responses(
        (status = 200, description = "The jobs that match", body = [Job]),
        (status = 400, description = "A parameter is malformed or names no kind or state", body = ErrorBody),
    ))]
async fn list_jobs(State(s): State<AppState>, Query(p): Query<Params>) -> ApiResult<Json<Vec<Job>>> {
    let filter = schema::listing::JobFilter {
        experiment: p.experiment,
        kind: p.kind.map(|k| k.parse()).transpose().map_err(ApiError::bad_request)?,
        status: p.status.map(|k| k.parse()).transpose().map_err(ApiError::bad_request)?,
        limit: listing_limit(p.limit, 500)?,
    };
    Ok(Json(schema::listing::jobs(&s.pool, &filter).await?.into_iter().map(Job::from).collect()))
}

/// One job in full: its row (spec, state, attempts, worker, timings, last
/// error), its inputs and dependents with their states, the experiments
/// that hold it and the result tables with rows of it. `key` may be the
/// start of a key (the 12 digits the dashboard and the CLI show) if only
/// one key starts with it.
#[utoipa::path(get, path = "/api/jobs/{key}", tag = "jobs",
    params(("key" = String, Path, description = "The job's key, or the start of it (hex digits)", max_length = 64,
        pattern = "^[0-9a-fA-F]{1,64}$")),
    responses(
        (status = 200, description = "The job", body = Object),
        (status = 400, description = "Not a job key", body = ErrorBody),
        (status = 404, description = "No job has this key, or a key that starts with it", body = ErrorBody),
        (status = 409, description = "Several keys start with it", body = ErrorBody),
    ))]
async fn job_detail(State(s): State<AppState>, Path(key): Path<String>) -> ApiResult {
    let key = job_key(&key)?;
    match schema::detail::job(&s.pool, key).await? {
        schema::detail::Found::Job(job) => {
            Ok(Json(serde_json::to_value(job).map_err(|e| {
                ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("the job does not serialize: {e}"))
            })?))
        }
        schema::detail::Found::None => Err(ApiError::not_found(format!("no job {key}"))),
        schema::detail::Found::Ambiguous(keys) => Err(ApiError(
            StatusCode::CONFLICT,
            format!("several jobs' keys start with {key}: {}, ...; give more digits", keys.join(", ")),
        )),
    }
}

/// Which checkpoint of a train job.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ArtifactParams {
    /// best_mse (the default: the one the reports use), best_nll or last.
    tag: Option<String>,
}

/// A job's stored artifact, as `hfarm artifact` writes it: a train job's
/// checkpoint (the network's weights; its configuration is in `GET
/// /api/jobs/{key}`'s result), a generate job's optimal plan (IPC plan
/// text), or a content-keyed artifact (a pattern database) by its key.
#[utoipa::path(get, path = "/api/jobs/{key}/artifact", tag = "jobs",
    params(("key" = String, Path, description = "The job's (or the artifact's) full key (hex digits)",
        max_length = 64, pattern = "^[0-9a-fA-F]{1,64}$"), ArtifactParams),
    responses(
        (status = 200, description = "The artifact's bytes", body = Vec<u8>, content_type = "application/octet-stream"),
        (status = 400, description = "Not a job key", body = ErrorBody),
        (status = 404, description = "No such job or artifact, no artifact stored for the job, or no such checkpoint",
            body = ErrorBody),
    ))]
async fn job_artifact(
    State(s): State<AppState>,
    Path(key): Path<String>,
    Query(p): Query<ArtifactParams>,
) -> ApiResult<Response> {
    use schema::export::ArtifactLookup;
    let key = job_key(&key)?;
    let tag = super::limits::text_param("tag", p.tag.as_deref())?;
    match schema::export::artifact(&s.pool, key, tag).await? {
        ArtifactLookup::Found(a) => {
            let (content_type, extension) =
                if a.is_plan() { ("text/plain; charset=utf-8", "plan") } else { ("application/octet-stream", "bin") };
            let disposition = format!("attachment; filename=\"{key}-{}.{extension}\"", a.kind);
            Ok((
                [(header::CONTENT_TYPE, content_type.to_string()), (header::CONTENT_DISPOSITION, disposition)],
                a.bytes,
            )
                .into_response())
        }
        ArtifactLookup::NoSuchKey => Err(ApiError::not_found(format!("no job or artifact {key}"))),
        ArtifactLookup::NoArtifact { kind, status } => {
            Err(ApiError::not_found(format!("{kind} job {key} ({status}) stores no artifact")))
        }
        ArtifactLookup::Tags { asked, available } => Err(ApiError::not_found(format!(
            "job {key} has no checkpoint {}; it has: {}",
            asked.unwrap_or_default(),
            if available.is_empty() { "none".to_string() } else { available.join(", ") }
        ))),
    }
}

/// Runs a dead, failed or cancelled job again (back to `pending`).
#[utoipa::path(post, path = "/api/jobs/{key}/retry", tag = "jobs", security(("bearer" = [])),
    params(("key" = String, Path, description = "The job's key (hex digits)", max_length = 64,
        pattern = "^[0-9a-fA-F]{1,64}$")),
    responses(
        (status = 200, description = "The job is pending again", body = JobState),
        (status = 400, description = "Not a job key", body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
        (status = 403, description = "Mutations are disabled (no token configured)", body = ErrorBody),
        (status = 409, description = "The job is not dead, failed or cancelled, or does not exist", body = ErrorBody),
    ))]
async fn retry_job(_: Authorized, State(s): State<AppState>, Path(key): Path<String>) -> ApiResult<Json<JobState>> {
    let key = job_key(&key)?;
    if schema::lifecycle::retry(&s.pool, key).await? {
        Ok(Json(JobState { key: key.into(), status: JobStatus::Pending }))
    } else {
        Err(ApiError(StatusCode::CONFLICT, format!("job {key} is not dead, failed or cancelled (or does not exist)")))
    }
}

/// Cancels a job that has not finished.
#[utoipa::path(post, path = "/api/jobs/{key}/cancel", tag = "jobs", security(("bearer" = [])),
    params(("key" = String, Path, description = "The job's key (hex digits)", max_length = 64,
        pattern = "^[0-9a-fA-F]{1,64}$")),
    responses(
        (status = 200, description = "The job is cancelled", body = JobState),
        (status = 400, description = "Not a job key", body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
        (status = 403, description = "Mutations are disabled (no token configured)", body = ErrorBody),
        (status = 409, description = "The job has already finished, or does not exist", body = ErrorBody),
    ))]
async fn cancel_job(_: Authorized, State(s): State<AppState>, Path(key): Path<String>) -> ApiResult<Json<JobState>> {
    let key = job_key(&key)?;
    if schema::lifecycle::cancel(&s.pool, key).await? {
        Ok(Json(JobState { key: key.into(), status: JobStatus::Cancelled }))
    } else {
        Err(ApiError(StatusCode::CONFLICT, format!("job {key} has already finished (or does not exist)")))
    }
}
