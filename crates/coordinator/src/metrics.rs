//! `GET /metrics`: the farm in Prometheus's text format, computed from
//! PostgreSQL (the source of truth) and Redis (queue depths) at each scrape.

use std::fmt::Write as _;

use sqlx::PgPool;

/// Upper bounds (seconds) of the job-duration histogram's buckets.
const BUCKETS: [f64; 12] = [0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0, 900.0, 3600.0, 14400.0, 86400.0];

/// Seconds a worker may go without a heartbeat and still count as live.
const LIVE_AFTER_S: f64 = 30.0;

fn label(v: &str) -> String {
    v.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

pub async fn render(pool: &PgPool, queue: Option<&jobs::queue::Queue>) -> Result<String, sqlx::Error> {
    let mut out = String::new();
    out += "# HELP hfarm_queue_depth Job keys waiting in Redis, per resource class.\n# TYPE hfarm_queue_depth gauge\n";
    if let Some(q) = queue {
        for class in ["cpu", "gpu"] {
            if let Ok(n) = q.len(class).await {
                let _ = writeln!(out, "hfarm_queue_depth{{class=\"{class}\"}} {n}");
            }
        }
    }

    out += "# HELP hfarm_jobs Jobs by kind and status.\n# TYPE hfarm_jobs gauge\n";
    let counts: Vec<(String, String, i64)> =
        sqlx::query_as("SELECT kind, status::text, count(*) FROM jobs GROUP BY 1, 2 ORDER BY 1, 2")
            .fetch_all(pool)
            .await?;
    for (kind, status, n) in counts {
        let _ = writeln!(out, "hfarm_jobs{{kind=\"{}\",status=\"{}\"}} {n}", label(&kind), label(&status));
    }

    out += "# HELP hfarm_job_duration_seconds Run time of succeeded jobs (their last attempt), by kind.\n\
            # TYPE hfarm_job_duration_seconds histogram\n";
    // Buckets are counted in PostgreSQL: a scrape reads one row per kind,
    // not one duration per job.
    let buckets: Vec<String> = BUCKETS.iter().map(|le| format!("count(*) FILTER (WHERE d <= {le})")).collect();
    let durations: Vec<(String, i64, f64, Vec<i64>)> = sqlx::query_as(&format!(
        "SELECT kind, count(*), coalesce(sum(d), 0), ARRAY[{}]::bigint[]
         FROM (SELECT kind, extract(epoch FROM finished_at - started_at)::float8 AS d FROM jobs
               WHERE status = 'succeeded' AND started_at IS NOT NULL AND finished_at IS NOT NULL) j
         GROUP BY kind ORDER BY kind",
        buckets.join(", ")
    ))
    .fetch_all(pool)
    .await?;
    for (kind, count, sum, cumulative) in durations {
        let kind = label(&kind);
        for (le, n) in BUCKETS.iter().zip(cumulative) {
            let _ = writeln!(out, "hfarm_job_duration_seconds_bucket{{kind=\"{kind}\",le=\"{le}\"}} {n}");
        }
        let _ = writeln!(out, "hfarm_job_duration_seconds_bucket{{kind=\"{kind}\",le=\"+Inf\"}} {count}");
        let _ = writeln!(out, "hfarm_job_duration_seconds_sum{{kind=\"{kind}\"}} {sum}");
        let _ = writeln!(out, "hfarm_job_duration_seconds_count{{kind=\"{kind}\"}} {count}");
    }

    let workers: Vec<(String, i64, i64)> = sqlx::query_as(
        "SELECT class, count(*), coalesce(sum(concurrency), 0)::bigint FROM workers
         WHERE stopped_at IS NULL AND last_seen > now() - make_interval(secs => $1)
         GROUP BY class ORDER BY class",
    )
    .bind(LIVE_AFTER_S)
    .fetch_all(pool)
    .await?;
    out += "# HELP hfarm_workers_live Workers with a heartbeat in the last 30 s, per class.\n# TYPE hfarm_workers_live gauge\n";
    for class in ["cpu", "gpu"] {
        let n = workers.iter().find(|w| w.0 == class).map_or(0, |w| w.1);
        let _ = writeln!(out, "hfarm_workers_live{{class=\"{class}\"}} {n}");
    }
    out += "# HELP hfarm_worker_slots Job slots of live workers, per class.\n# TYPE hfarm_worker_slots gauge\n";
    for class in ["cpu", "gpu"] {
        let n = workers.iter().find(|w| w.0 == class).map_or(0, |w| w.2);
        let _ = writeln!(out, "hfarm_worker_slots{{class=\"{class}\"}} {n}");
    }
    Ok(out)
}
