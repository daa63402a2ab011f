//! `hfarm`: the command line without libtorch (see the crate's lib.rs for
//! why). What needs a model is handed to `hfarm-torch`, found beside this
//! program, by exec with the same arguments.

use std::os::unix::process::CommandExt;
use std::process::ExitCode;

use hfarm_cli::commands::{bench, farm};

struct Forward;

impl hfarm_cli::Models for Forward {
    fn worker(_: farm::WorkerArgs) -> anyhow::Result<ExitCode> {
        Ok(forward())
    }
    fn bench(_: bench::Args) -> anyhow::Result<ExitCode> {
        Ok(forward())
    }
    fn job_process() -> ExitCode {
        forward()
    }
    fn job_log() -> Option<hfarm_cli::logging::BoxedLayer> {
        None
    }
}

/// Replaces this process with `hfarm-torch` and the same arguments; returns
/// only if that fails.
fn forward() -> ExitCode {
    let torch = std::env::current_exe().ok().and_then(|me| me.parent().map(|d| d.join("hfarm-torch")));
    let Some(torch) = torch else {
        eprintln!("error: cannot find this program's folder, where hfarm-torch (which runs models) should be");
        return ExitCode::from(2);
    };
    let err = std::process::Command::new(&torch).arg0("hfarm").args(std::env::args_os().skip(1)).exec();
    eprintln!(
        "error: this command runs models and needs {} beside hfarm: {err} (`cargo build --release -p hfarm` builds both)",
        torch.display()
    );
    ExitCode::from(2)
}

fn main() -> ExitCode {
    hfarm_cli::main::<Forward>()
}
