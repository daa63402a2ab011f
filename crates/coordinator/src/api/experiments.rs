//! `/api/experiments[/{id}]`: experiments with their progress; and acting
//! on an experiment's jobs at once (token needed): retry, cancel, priority.
//!
//! The dashboard polls `GET /api/experiments/{id}` every 5 s, so it reads
//! only what stays small whatever the experiment's size: the counts that
//! migration 0019's triggers keep, the count of unfilled slots, and the
//! work left for the ETA, which takes a pass over the unfinished jobs and
//! is therefore reused for a while (`cache.rs`: ten times what it cost;
//! the live workers it is divided by are read at every call).

use std::collections::BTreeMap;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::Json;
use jobs::{JobKind, Resource};
use schema::bulk::{Acted, BulkError, Selection};
use schema::{JobStatus, StatusCounts};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;
use uuid::Uuid;

use super::auth::Authorized;
use super::cache::Cache;
use super::doc::{ByKindDoc, JobKindDoc, StatusCountsDoc};
use super::error::{ApiError, ApiResult, ErrorBody};
use super::limits::text_param;
use crate::state::AppState;

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_experiments))
        .routes(routes!(experiment))
        .routes(routes!(retry_experiment))
        .routes(routes!(cancel_experiment))
        .routes(routes!(set_priority))
}

/// An experiment in the listing.
#[derive(Serialize, ToSchema)]
struct Experiment {
    id: Uuid,
    name: String,
    /// When it was submitted, in seconds since the epoch.
    created_at: f64,
    /// Higher is announced first (default 0).
    priority: i32,
    #[schema(value_type = StatusCountsDoc)]
    jobs: StatusCounts,
}

/// One experiment's progress.
#[derive(Serialize, ToSchema)]
struct ExperimentStatus {
    id: Uuid,
    name: String,
    /// Higher is announced first (default 0).
    priority: i32,
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
    /// At the full grid's size the work left is recounted every few tens of seconds.
    eta_s: Option<f64>,
    /// Grid slots that no try could fill with an instance.
    slots_without_instance: i64,
}

/// Which experiments to list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct ListParams {
    /// Only experiments with this name (as the grid's `name` gives it).
    #[param(pattern = r"^[^\x00]*$")]
    name: Option<String>,
}

/// Every experiment, newest first, with its jobs counted by state.
#[utoipa::path(get, path = "/api/experiments", tag = "experiments", params(ListParams),
    responses(
        (status = 200, description = "The experiments", body = [Experiment]),
        (status = 400, description = "The name holds a NUL character", body = ErrorBody),
    ))]
async fn list_experiments(State(s): State<AppState>, Query(p): Query<ListParams>) -> ApiResult<Json<Vec<Experiment>>> {
    let name = text_param("name", p.name.as_deref())?;
    let list = schema::experiments::list_with_counts(&s.pool, name).await?;
    Ok(Json(
        list.into_iter()
            .map(|e| Experiment {
                id: e.id,
                name: e.name,
                created_at: e.created_at,
                priority: e.priority,
                jobs: e.jobs,
            })
            .collect(),
    ))
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
    let Some(priority) = schema::bulk::priority(&s.pool, id).await? else {
        return Err(ApiError::not_found(format!("no experiment {id}")));
    };
    let name = schema::experiments::experiment_name(&s.pool, id).await?.unwrap_or_default();
    let by_kind = schema::experiments::kind_status_counts(&s.pool, id).await?;
    let mut jobs = StatusCounts::default();
    for counts in by_kind.values() {
        for (status, n) in counts.iter() {
            jobs.add(status, n);
        }
    }
    let (total, done) = (jobs.total(), jobs.finished());
    let eta_s = eta(&s, id, jobs.active() > 0).await?;
    let unfilled = schema::slots::unfilled_count(&s.pool, id).await?;
    Ok(Json(ExperimentStatus {
        id,
        name,
        priority,
        jobs,
        by_kind,
        total,
        done,
        finished: done == total,
        eta_s,
        slots_without_instance: unfilled,
    }))
}

/// The work left per experiment (seconds per resource class), reused as
/// `cache.rs` says: a pass over the unfinished jobs.
static WORK_LEFT: Cache<Uuid, BTreeMap<Resource, f64>> = Cache::new();

/// Seconds until the experiment's unfinished jobs are done
/// ([`crate::cost::eta`] over [`crate::submit::work_left`], which is cached);
/// None while a class with work left has no live worker. Nothing left: 0.
async fn eta(s: &AppState, id: Uuid, active: bool) -> Result<Option<f64>, ApiError> {
    if !active {
        return Ok(Some(0.0));
    }
    let pool = s.pool.clone();
    let left =
        WORK_LEFT.get(id, move || async move { Ok::<_, ApiError>(crate::submit::work_left(&pool, id).await?) }).await?;
    let live = schema::workers::live_by_class(&s.pool, super::workers::LIVE_AFTER_S).await?;
    let slots = |class: Resource| live.iter().find(|w| w.class == class.as_str()).map_or(0, |w| w.slots);
    Ok(crate::cost::eta(&left, slots).ok())
}

/// Which of an experiment's jobs a bulk action takes.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct BulkParams {
    /// Only jobs in these states, comma-separated (retry: dead, failed,
    /// cancelled, skipped, default dead,failed; cancel: pending, queued,
    /// running, failed, default all four).
    #[param(pattern = r"^[a-z_]+(,[a-z_]+)*$")]
    status: Option<String>,
    /// Only jobs of this kind.
    #[param(value_type = Option<JobKindDoc>)]
    kind: Option<String>,
    /// Cancel only: also jobs that other experiments hold too (by default
    /// they are kept, so that one experiment's cancel stops no other's work).
    include_shared: Option<bool>,
}

impl BulkParams {
    fn selection(&self) -> Result<Selection, ApiError> {
        let statuses = match self.status.as_deref() {
            None | Some("") => vec![],
            Some(list) => list
                .split(',')
                .map(|s| s.trim().parse::<JobStatus>())
                .collect::<Result<_, _>>()
                .map_err(ApiError::bad_request)?,
        };
        let kind = self.kind.as_deref().map(str::parse).transpose().map_err(ApiError::bad_request)?;
        Ok(Selection { statuses, kind })
    }
}

/// What a bulk action did.
#[derive(Serialize, ToSchema)]
struct BulkResult {
    experiment: Uuid,
    /// Jobs whose state changed.
    changed: u64,
    /// Jobs selected but kept because another experiment holds them too
    /// (cancel without `include_shared`).
    kept_shared: u64,
}

/// 404 unless the experiment exists.
async fn known(s: &AppState, id: Uuid) -> Result<(), ApiError> {
    match schema::bulk::priority(&s.pool, id).await? {
        Some(_) => Ok(()),
        None => Err(ApiError::not_found(format!("no experiment {id}"))),
    }
}

fn acted(id: Uuid, r: Result<Acted, BulkError>) -> ApiResult<Json<BulkResult>> {
    match r {
        Ok(a) => Ok(Json(BulkResult { experiment: id, changed: a.changed, kept_shared: a.kept_shared })),
        Err(BulkError::Refused(why)) => Err(ApiError::bad_request(why)),
        Err(BulkError::Db(e)) => Err(e.into()),
    }
}

/// Runs the experiment's dead and failed jobs again (or those in the states
/// `status` names), back to `pending` with fresh attempts; `kind` narrows
/// them. Jobs in other states are left alone.
#[utoipa::path(post, path = "/api/experiments/{id}/retry", tag = "experiments", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The experiment's id"), BulkParams),
    responses(
        (status = 200, description = "How many jobs are pending again", body = BulkResult),
        (status = 400, description = "The id is not a UUID, or a state or kind is unknown or cannot be retried",
         body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
        (status = 403, description = "Mutations are disabled (no token configured)", body = ErrorBody),
        (status = 404, description = "No such experiment", body = ErrorBody),
    ))]
async fn retry_experiment(
    _: Authorized,
    State(s): State<AppState>,
    Path(id): Path<Uuid>,
    Query(p): Query<BulkParams>,
) -> ApiResult<Json<BulkResult>> {
    let sel = p.selection()?;
    known(&s, id).await?;
    acted(id, schema::bulk::retry_experiment(&s.pool, id, &sel).await)
}

/// Cancels the experiment's jobs that have not ended (or those in the
/// states `status` names); `kind` narrows them. Queued jobs are dropped
/// when popped; a running job's worker stops it at its next heartbeat.
/// Jobs that another experiment holds too are kept unless `include_shared`.
#[utoipa::path(post, path = "/api/experiments/{id}/cancel", tag = "experiments", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The experiment's id"), BulkParams),
    responses(
        (status = 200, description = "How many jobs were cancelled, and kept as shared", body = BulkResult),
        (status = 400, description = "The id is not a UUID, or a state or kind is unknown or cannot be cancelled",
         body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
        (status = 403, description = "Mutations are disabled (no token configured)", body = ErrorBody),
        (status = 404, description = "No such experiment", body = ErrorBody),
    ))]
async fn cancel_experiment(
    _: Authorized,
    State(s): State<AppState>,
    Path(id): Path<Uuid>,
    Query(p): Query<BulkParams>,
) -> ApiResult<Json<BulkResult>> {
    let sel = p.selection()?;
    known(&s, id).await?;
    acted(id, schema::bulk::cancel_experiment(&s.pool, id, &sel, p.include_shared.unwrap_or(false)).await)
}

/// The new priority.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
struct PriorityParams {
    /// Higher is announced first; experiments start at 0.
    #[param(minimum = -1_000_000, maximum = 1_000_000)]
    priority: i32,
}

/// An experiment's priority after a change.
#[derive(Serialize, ToSchema)]
struct Priority {
    experiment: Uuid,
    priority: i32,
    /// Jobs whose priority changed (a job takes the highest priority of the
    /// experiments that hold it).
    jobs_changed: u64,
}

/// Sets the experiment's priority: its ready jobs are announced before
/// those of experiments with a lower one (then oldest first).
#[utoipa::path(post, path = "/api/experiments/{id}/priority", tag = "experiments", security(("bearer" = [])),
    params(("id" = Uuid, Path, description = "The experiment's id"), PriorityParams),
    responses(
        (status = 200, description = "The experiment's new priority", body = Priority),
        (status = 400, description = "The id is not a UUID, or the priority not an integer in range", body = ErrorBody),
        (status = 401, description = "Missing or wrong bearer token", body = ErrorBody),
        (status = 403, description = "Mutations are disabled (no token configured)", body = ErrorBody),
        (status = 404, description = "No such experiment", body = ErrorBody),
    ))]
async fn set_priority(
    _: Authorized,
    State(s): State<AppState>,
    Path(id): Path<Uuid>,
    Query(p): Query<PriorityParams>,
) -> ApiResult<Json<Priority>> {
    if !(-1_000_000..=1_000_000).contains(&p.priority) {
        return Err(ApiError::bad_request("priority must be between -1000000 and 1000000"));
    }
    match schema::bulk::set_priority(&s.pool, id, p.priority).await? {
        Some(n) => Ok(Json(Priority { experiment: id, priority: p.priority, jobs_changed: n })),
        None => Err(ApiError(StatusCode::NOT_FOUND, format!("no experiment {id}"))),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use axum::extract::{Path, Query, State};
    use schema::testing::TestDatabase;

    use crate::state::AppState;

    /// Milliseconds of each of `n` runs of `f`, sorted.
    async fn timed<F, Fut>(n: usize, mut f: F) -> Vec<f64>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let mut out = vec![];
        for _ in 0..n {
            let t = Instant::now();
            f().await;
            out.push(t.elapsed().as_secs_f64() * 1e3);
        }
        out.sort_by(f64::total_cmp);
        out
    }

    fn summary(ms: &[f64]) -> String {
        let at = |q: f64| ms[((ms.len() - 1) as f64 * q).round() as usize];
        format!("p50 {:.1} ms, p95 {:.1} ms, max {:.1} ms", at(0.5), at(0.95), at(1.0))
    }

    /// The dashboard's polls at the full grid's size: `grids/ijcai24.toml`
    /// recorded (93,048 jobs) with its jobs in a midway mixture of states.
    /// A measurement, not a check: run it with
    /// `cargo test -p coordinator -- --ignored --nocapture status_at_full_grid_size`;
    /// `HFARM_SCALE_DB_URL` names a database that already holds the grid
    /// (created if missing, migrated on connect, kept) instead of a fresh one.
    #[tokio::test]
    #[ignore = "a measurement: minutes to record the full grid"]
    async fn status_at_full_grid_size() {
        let (_db, pool) = match std::env::var("HFARM_SCALE_DB_URL") {
            Ok(url) => (None, schema::connect_creating(&url).await.unwrap()),
            Err(_) => {
                let db = TestDatabase::create().await;
                let pool = db.pool.clone();
                (Some(db), pool)
            }
        };
        let id = match schema::experiments::resolve_experiment(&pool, "ijcai24").await.unwrap() {
            Some(id) => id,
            None => {
                let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/ijcai24.toml");
                let text = std::fs::read_to_string(path).unwrap();
                let t = Instant::now();
                let r =
                    crate::submit(Some(&pool), &text, path, false, &crate::cost::CostModel::defaults()).await.unwrap();
                println!("submitted {} jobs in {:.1} s", r.new.unwrap(), t.elapsed().as_secs_f64());
                let id = r.experiment.unwrap();
                schema::testing::scatter_statuses(&pool, id).await.unwrap();
                id
            }
        };
        let s = AppState { pool: pool.clone(), token: None, queue: None };
        let t = Instant::now();
        let one = super::experiment(State(s.clone()), Path(id)).await.ok().unwrap();
        println!("{} jobs; first GET /api/experiments/ID: {:.1} ms", one.0.total, t.elapsed().as_secs_f64() * 1e3);
        let status = timed(20, || async {
            let _ = super::experiment(State(s.clone()), Path(id)).await.ok().unwrap();
        })
        .await;
        let list = timed(20, || async {
            let _ =
                super::list_experiments(State(s.clone()), Query(super::ListParams { name: None })).await.ok().unwrap();
        })
        .await;
        let exact = schema::experiments::exact_kind_status_counts(&pool, id).await.unwrap();
        assert_eq!(one.0.by_kind, exact, "the kept counts are the jobs' own");
        println!("GET /api/experiments/ID: {}", summary(&status));
        println!("GET /api/experiments:    {}", summary(&list));
    }
}
