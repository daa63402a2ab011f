//! `hfarm-torch`: the whole command line, libtorch linked. `hfarm` hands it
//! the commands that run models (see the crate's lib.rs); it runs every other
//! command too, so either binary can serve as the other's stand-in.
//!
//! Everything that names the worker, the learner or `tch` lives in this
//! binary's modules, never in the library: the lean `hfarm` links only the
//! crates the library uses, and one reference from there, even in code it
//! never calls, would bring libtorch back into its start-up.

mod bench_learner;
mod bench_queue;
mod bench_scale;
mod farm_worker;

use std::process::ExitCode;

use hfarm_cli::commands::bench::{self, Which};
use hfarm_cli::commands::farm;

struct Linked;

impl hfarm_cli::Models for Linked {
    fn worker(a: farm::WorkerArgs) -> anyhow::Result<ExitCode> {
        farm_worker::run(a)
    }
    fn bench(a: bench::Args) -> anyhow::Result<ExitCode> {
        match a.which {
            Which::AstarLmcut | Which::GbfsFf => bench::run(a),
            Which::Queue => bench_queue::run(a.jobs, a.slots, a.json),
            Which::Scale => bench_scale::run(&a.grid, a.jobs, a.slots, a.json),
            Which::Nlm => bench_learner::nlm(a.objects, a.batch, a.steps, &a.device, a.json),
            Which::LearnedGbfs => bench_learner::learned_gbfs(a.json),
            Which::Train => bench_learner::train(a.steps, &a.device, a.json),
            Which::TrainGroup => bench_learner::train_group(&a.model, a.runs, a.steps, &a.device, a.json),
            Which::Loss => bench_learner::loss(a.batch, a.steps, &a.device, a.json),
            Which::PlanMany => bench_learner::plan_many(&a.model, a.searches, a.budget, a.balls, &a.device, a.json),
        }
    }
    fn job_process() -> ExitCode {
        worker::isolate::child_main()
    }
    fn job_log() -> Option<hfarm_cli::logging::BoxedLayer> {
        use tracing_subscriber::filter::LevelFilter;
        use tracing_subscriber::Layer;
        // Jobs' own logs keep their information lines whatever stderr shows.
        Some(worker::joblog::layer().with_filter(LevelFilter::INFO).boxed())
    }
}

fn main() -> ExitCode {
    hfarm_cli::main::<Linked>()
}
