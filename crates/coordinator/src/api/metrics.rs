//! `GET /metrics`: the farm in Prometheus's text format, computed from
//! PostgreSQL (the source of truth) and Redis (queue depths) at each scrape,
//! so any number of coordinators report the same thing. The job counts and
//! duration histograms take a pass over every job (150-640 ms at 196,000
//! jobs beside a 500-slot fleet on 2 cores, `hfarm bench scale`): they are
//! reused as the dashboard's dear answers are (`cache.rs`), so a scrape
//! never waits for one after the first and they keep PostgreSQL busy a
//! tenth of the time at most; the rest is read at every scrape.

use std::fmt::Write as _;

use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use jobs::{JobKind, Resource};
use schema::JobStatus;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::cache::Cache;
use super::error::{ApiError, ApiResult, ErrorBody};
use super::workers::LIVE_AFTER_S;
use crate::state::AppState;

/// Upper bounds (seconds) of the job-duration histogram's buckets.
const BUCKETS: [f64; 12] = [0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 14400.0, 86400.0];

pub fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(metrics))
}

/// The farm's metrics: queue depths, jobs by kind and state, job durations,
/// live workers and their slots.
#[utoipa::path(get, path = "/metrics", tag = "meta",
    responses(
        (status = 200, description = "Prometheus's text format", body = String,
         content_type = "text/plain; version=0.0.4"),
        (status = 500, description = "The database failed", body = ErrorBody),
    ))]
async fn metrics(State(s): State<AppState>) -> ApiResult<Response> {
    let text = render(&s).await?;
    Ok(([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], text).into_response())
}

fn label(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

/// What a pass over every job gives: (kind, status, count) and each kind's durations.
type JobTable = (Vec<(String, JobStatus, i64)>, Vec<schema::metrics::Durations>);

/// Per database (`schema::metrics::database_key`).
static JOB_TABLE: Cache<u64, JobTable> = Cache::new();

async fn render(s: &AppState) -> Result<String, ApiError> {
    let mut out = String::new();
    out += "# HELP hfarm_queue_depth Job keys waiting in Redis, per resource class.\n# TYPE hfarm_queue_depth gauge\n";
    if let Some(q) = &s.queue {
        for class in Resource::ALL.map(Resource::as_str) {
            if let Ok(n) = q.len(class).await {
                let _ = writeln!(out, "hfarm_queue_depth{{class=\"{class}\"}} {n}");
            }
        }
    }

    // Every kind x status, zeros included: dashboards see a kind before its first job.
    out += "# HELP hfarm_jobs Jobs by kind and status.\n# TYPE hfarm_jobs gauge\n";
    let pool = s.pool.clone();
    let table = JOB_TABLE
        .get(schema::metrics::database_key(&s.pool), move || async move {
            let counts = schema::metrics::job_counts(&pool).await?;
            Ok((counts, schema::metrics::durations(&pool, &BUCKETS).await?))
        })
        .await?;
    let (counts, durations) = &*table;
    for kind in JobKind::ALL {
        for status in JobStatus::ALL {
            let n = counts.iter().find(|(k, st, _)| k == kind.as_str() && *st == status).map_or(0, |c| c.2);
            let _ = writeln!(out, "hfarm_jobs{{kind=\"{kind}\",status=\"{status}\"}} {n}");
        }
    }

    out += "# HELP hfarm_job_duration_seconds Run time of succeeded jobs (their last attempt), by kind.\n\
            # TYPE hfarm_job_duration_seconds histogram\n";
    for d in durations {
        let kind = label(&d.kind);
        for (le, n) in BUCKETS.iter().zip(&d.cumulative) {
            let _ = writeln!(out, "hfarm_job_duration_seconds_bucket{{kind=\"{kind}\",le=\"{le}\"}} {n}");
        }
        let _ = writeln!(out, "hfarm_job_duration_seconds_bucket{{kind=\"{kind}\",le=\"+Inf\"}} {}", d.count);
        let _ = writeln!(out, "hfarm_job_duration_seconds_sum{{kind=\"{kind}\"}} {}", d.sum_s);
        let _ = writeln!(out, "hfarm_job_duration_seconds_count{{kind=\"{kind}\"}} {}", d.count);
    }

    let live = schema::workers::live_by_class(&s.pool, LIVE_AFTER_S).await?;
    let of = |class: &str| live.iter().find(|w| w.class == class);
    out += "# HELP hfarm_workers_live Workers with a heartbeat in the last 30 s, per class.\n# TYPE hfarm_workers_live gauge\n";
    for class in Resource::ALL.map(Resource::as_str) {
        let _ = writeln!(out, "hfarm_workers_live{{class=\"{class}\"}} {}", of(class).map_or(0, |w| w.workers));
    }
    out += "# HELP hfarm_worker_slots Job slots of live workers, per class.\n# TYPE hfarm_worker_slots gauge\n";
    for class in Resource::ALL.map(Resource::as_str) {
        let _ = writeln!(out, "hfarm_worker_slots{{class=\"{class}\"}} {}", of(class).map_or(0, |w| w.slots));
    }
    Ok(out)
}
