//! `hfarm worker`: a stateless worker pulling jobs of its class from Redis.

use std::process::ExitCode;

use anyhow::{Context, Result};
use hfarm_cli::commands::farm::{connect_waiting, runtime, stop_on_signals, Class, IsolationArg, WorkerArgs};

pub fn run(a: WorkerArgs) -> Result<ExitCode> {
    let class = match a.class {
        Class::Cpu => "cpu",
        Class::Gpu => "gpu",
    };
    let host = std::fs::read_to_string("/etc/hostname").map(|h| h.trim().to_string()).unwrap_or_else(|_| "host".into());
    let id = format!("{host}-{}-{}", std::process::id(), &uuid::Uuid::new_v4().simple().to_string()[..6]);
    let isolation = match a.isolation {
        IsolationArg::Process => {
            let me = std::env::current_exe().context("finding this program, to start job processes")?;
            worker::Isolation::children(me, &["job-process"])
        }
        IsolationArg::None => worker::Isolation::InProcess,
    };
    // Each slot's share of the cores for libtorch, unless the operator chose
    // (`learner::threads_per_slot` says why); set before any thread exists,
    // so job processes inherit it and `learner::device` applies it here.
    if std::env::var_os("HFARM_TORCH_THREADS").is_none() {
        std::env::set_var("HFARM_TORCH_THREADS", learner::threads_per_slot(a.concurrency).to_string());
    }
    let cuda = matches!(a.class, Class::Gpu) && learner::device().is_ok_and(|d| d.is_cuda());
    let train_group = match a.train_group {
        Some(n) => worker::TrainGroups::all(n.max(1)),
        None if cuda => worker::TrainGroups::all(8),
        None => worker::TrainGroups::CpuDefaults,
    };
    let plan_group = a.plan_group.unwrap_or(if cuda { 256 } else { 1 });
    runtime()?.block_on(async {
        let (pool, queue) = connect_waiting(&a.db, &a.redis).await?;
        let stop = stop_on_signals()?;
        let cfg = worker::WorkerConfig {
            id: id.clone(),
            class: class.into(),
            concurrency: a.concurrency,
            lease_s: a.lease,
            grace_s: a.grace,
            isolation,
            train_group,
            plan_group: plan_group.max(1),
            pdb_threads: a
                .pdb_threads
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
                .max(1),
        };
        tracing::info!("hfarm worker {id}: serving the {class} queue with {} slot(s)", a.concurrency);
        worker::run_worker(pool, queue, cfg, stop).await;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}
