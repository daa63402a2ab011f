//! `hfarm-torch`: the whole command line, libtorch linked. `hfarm` hands it
//! the commands that run models (see the crate's lib.rs); it runs every other
//! command too, so either binary can serve as the other's stand-in.

use std::process::ExitCode;

use hfarm_cli::commands::{bench, farm};

struct Linked;

impl hfarm_cli::Models for Linked {
    fn worker(a: farm::WorkerArgs) -> anyhow::Result<ExitCode> {
        farm::worker(a)
    }
    fn bench(a: bench::Args) -> anyhow::Result<ExitCode> {
        bench::run_models(a)
    }
    fn job_process() -> ExitCode {
        worker::isolate::child_main()
    }
}

fn main() -> ExitCode {
    hfarm_cli::main::<Linked>()
}
