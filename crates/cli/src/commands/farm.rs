//! `hfarm submit` and `hfarm status`: thin wrappers over the coordinator.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};

/// Where PostgreSQL is, from the flag or `DATABASE_URL`.
#[derive(clap::Args)]
pub struct Database {
    /// PostgreSQL URL (default: $DATABASE_URL, else the local server's `hfarm` database).
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/hfarm",
        hide_env_values = true
    )]
    pub database_url: String,
}

#[derive(clap::Args)]
pub struct SubmitArgs {
    /// The grid file (TOML: grids/quick.toml, grids/ijcai24.toml, ...).
    pub grid: PathBuf,
    /// Expand and count without recording anything.
    #[arg(long)]
    pub dry_run: bool,
    /// Run known jobs again instead of reusing their results.
    #[arg(long)]
    pub force: bool,
    /// Benchmark output to project costs from (repeatable): the `--json`
    /// lines of `hfarm bench train-group` and `hfarm bench plan-many` run
    /// on the machines that will do the work (their grouped rates stand
    /// where this farm has measured nothing alike).
    #[arg(long, value_name = "FILE")]
    pub rates: Vec<PathBuf>,
    /// One JSON object: the experiment's id, jobs per kind, projected cost, new and reused jobs.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

/// Where Redis is, and the key prefix that separates farms sharing it.
#[derive(clap::Args)]
pub struct Redis {
    /// Redis URL (default: $REDIS_URL, else the local server).
    #[arg(long, env = "REDIS_URL", default_value = "redis://127.0.0.1:6379", hide_env_values = true)]
    pub redis_url: String,
    /// Prefix of this farm's Redis keys.
    #[arg(long, env = "HFARM_REDIS_PREFIX", default_value = "hfarm")]
    pub redis_prefix: String,
}

#[derive(clap::Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub db: Database,
    #[command(flatten)]
    pub redis: Redis,
    /// Seconds after which a queued, unclaimed job is announced again (Redis lost it).
    #[arg(long, default_value_t = 15.0)]
    pub requeue_after: f64,
    /// Address of the status API.
    #[arg(long, default_value = "127.0.0.1:8080")]
    pub listen: String,
    /// Bearer token for the API's mutating endpoints (retry, cancel); without one they are refused.
    #[arg(long, env = "HFARM_API_TOKEN", hide_env_values = true)]
    pub api_token: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum Class {
    /// Every job that needs no GPU: generation, labelling, evaluation, classical and linear
    /// search, puzzles, graphs.
    Cpu,
    /// Training and the relational models' learned searches (on CPU when the machine has none).
    Gpu,
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum IsolationArg {
    Process,
    None,
}

#[derive(clap::Args)]
pub struct WorkerArgs {
    /// Which queue the worker pulls from.
    #[arg(long, value_enum, default_value = "cpu")]
    pub class: Class,
    /// Jobs run at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Lease in seconds: a job whose worker stops heartbeating runs again after this.
    #[arg(long, default_value_t = 30.0)]
    pub lease: f64,
    /// On SIGTERM, seconds running jobs may take to finish before being handed back.
    #[arg(long, default_value_t = 30.0)]
    pub grace: f64,
    /// Where searches run: `process` (child processes under a real memory
    /// limit and a hard deadline; a search that blows up ends its job, not
    /// the worker) or `none` (this process's threads).
    #[arg(long, value_enum, default_value = "process")]
    pub isolation: IsolationArg,
    /// Most train jobs (same domain, model, sigma mode, steps and data) a
    /// slot trains at once as one stacked network; 1 trains each alone.
    /// Default: 8 where training runs on CUDA; on CPU 1 for the NLM
    /// (compute-bound: a stacked group is no faster than runs in turn) and
    /// 4 for the linear model (overhead-bound: 1.3x as a group of 8, `hfarm
    /// bench train-group --model linear`).
    #[arg(long)]
    pub train_group: Option<usize>,
    /// Most learned plan jobs of one model (same domain and limits) a slot
    /// searches at once, their evaluations sharing forward passes; 1
    /// searches each alone, in an isolated child. Default: 256 where the
    /// network runs on CUDA, 1 on CPU (measured on 2 idle cores: 32 shared
    /// searches made 0.67x the evaluations/s of searches in turn).
    #[arg(long)]
    pub plan_group: Option<usize>,
    /// Threads for building a pattern database the farm does not have yet (puzzle jobs; once per farm and
    /// pattern). Default: every core of this machine.
    #[arg(long, env = "HFARM_PDB_THREADS")]
    pub pdb_threads: Option<usize>,
    #[command(flatten)]
    pub db: Database,
    #[command(flatten)]
    pub redis: Redis,
}

/// The status API on `listener`, in a task that ends once `stop` turns true.
pub fn serve_api(
    listener: tokio::net::TcpListener,
    state: coordinator::AppState,
    mut stop: tokio::sync::watch::Receiver<bool>,
) -> tokio::task::JoinHandle<std::io::Result<()>> {
    let app = coordinator::api::router(state);
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stop.wait_for(|s| *s).await;
            })
            .await
    })
}

/// A channel that turns true on SIGTERM or Ctrl-C.
pub fn stop_on_signals() -> Result<tokio::sync::watch::Receiver<bool>> {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
    tokio::spawn(async move {
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
        tracing::info!("stopping: finishing running jobs");
        let _ = tx.send(true);
    });
    Ok(rx)
}

pub fn serve(a: ServeArgs) -> Result<ExitCode> {
    runtime()?.block_on(async {
        let (pool, queue) = connect_waiting(&a.db, &a.redis).await?;
        let stop = stop_on_signals()?;
        let cfg = coordinator::scheduler::SchedulerConfig { requeue_after_s: a.requeue_after, ..Default::default() };
        let listener =
            tokio::net::TcpListener::bind(&a.listen).await.with_context(|| format!("cannot listen on {}", a.listen))?;
        // The address bound: `--listen 127.0.0.1:0` picks a free port, which the log says.
        let listening = listener.local_addr().map_or_else(|_| a.listen.clone(), |addr| addr.to_string());
        let state =
            coordinator::AppState { pool: pool.clone(), token: a.api_token.clone(), queue: Some(queue.clone()) };
        let api = serve_api(listener, state, stop.clone());
        tracing::info!(
            "hfarm serve: scheduling (redis prefix `{}`), status API on http://{listening}",
            a.redis.redis_prefix
        );
        coordinator::scheduler::run_scheduler(pool, queue, cfg, stop).await;
        api.await.context("status API task")?.context("status API")?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Connects to PostgreSQL (creating the database and bringing its schema up
/// to date) and to Redis, waiting with backoff for either that is not up
/// yet: long-running processes start in any order beside their servers (a
/// fresh cluster, a restarted pod), and say what they wait for.
pub async fn connect_waiting(db: &Database, redis: &Redis) -> Result<(schema::PgPool, queue::Queue)> {
    let pool = outage::until_connected(
        &format!("postgres at {}", schema::redact(&db.database_url)),
        || schema::connect_creating(&db.database_url),
        schema::DbError::is_outage,
    )
    .await?;
    let redis_at = schema::redact(&redis.redis_url);
    let queue = outage::until_connected(
        &format!("redis at {redis_at}"),
        || queue::Queue::connect(&redis.redis_url, &redis.redis_prefix),
        queue::is_outage,
    )
    .await
    .with_context(|| format!("cannot connect to Redis at {redis_at}"))?;
    Ok((pool, queue))
}

pub fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread().enable_all().build().context("starting the async runtime")
}

pub fn submit(a: SubmitArgs) -> Result<ExitCode> {
    let file = a.grid.display().to_string();
    let text = std::fs::read_to_string(&a.grid).with_context(|| format!("cannot read {file}"))?;
    let mut rates = vec![];
    for path in &a.rates {
        let name = path.display().to_string();
        rates.push((std::fs::read_to_string(path).with_context(|| format!("cannot read {name}"))?, name));
    }
    let (report, calibrated) = runtime()?.block_on(async {
        let pool = if a.dry_run { None } else { Some(schema::connect_creating(&a.db.database_url).await?) };
        // A dry run records nothing, but calibrates on the farm's measurements when its database answers.
        let reader = match &pool {
            Some(p) => Some(p.clone()),
            None => schema::connect_read_only(&a.db.database_url, 3.0).await.ok(),
        };
        let (mut model, calibrated) = coordinator::submit::cost_model(reader.as_ref()).await;
        for (text, name) in &rates {
            model = model.with_bench(text, name).map_err(anyhow::Error::msg)?;
        }
        let report = coordinator::submit(pool.as_ref(), &text, &file, a.force, &model).await?;
        Ok::<_, anyhow::Error>((report, calibrated))
    })?;
    let basis = match (calibrated, a.rates.is_empty()) {
        (true, true) => {
            "this farm's finished jobs where it measured alike ones, else the reference machine's figures"
        }
        (true, false) => "this farm's finished jobs where it measured alike ones, else the benchmark rates given, else the reference machine's figures",
        (false, true) => "the reference machine's figures (this farm has measured nothing yet)",
        (false, false) => "the benchmark rates given, else the reference machine's figures (this farm has measured nothing yet)",
    };
    if a.json {
        let mut v = serde_json::json!({
            "experiment": report.experiment, "jobs": report.jobs,
            "cost": report.cost, "cost_basis": if calibrated { "calibrated" } else { "defaults" },
        });
        if let (Some(n), Some(r)) = (report.new, report.reused) {
            v["new"] = n.into();
            v["reused"] = r.into();
        }
        println!("{v}");
    } else {
        // The id alone on stdout, so scripts can capture it; details on stderr.
        match report.experiment {
            Some(id) => println!("{id}"),
            None => eprintln!("dry run: experiment `{}` would have these jobs", report.name),
        }
        eprintln!("  {:15} {:>8} {:>11} {:>11}", "kind", "jobs", "CPU-hours", "GPU-hours");
        for (kind, n) in &report.jobs {
            let c = report.cost.by_kind.get(kind).cloned().unwrap_or_default();
            eprintln!("  {:15} {n:>8} {:>11.1} {:>11.1}", kind.as_str(), c.cpu_hours, c.gpu_hours);
        }
        eprintln!("  {:15} {:>8} {:>11.1} {:>11.1}", "total", "", report.cost.cpu_hours, report.cost.gpu_hours);
        eprintln!("  projected from {basis}");
        if let (Some(n), Some(r)) = (report.new, report.reused) {
            eprintln!("  {n} new, {r} reused from earlier submissions");
        }
    }
    Ok(ExitCode::SUCCESS)
}
