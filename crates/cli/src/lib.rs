//! The `hfarm` command line, shared by its two binaries.
//!
//! Each subcommand lives in `commands/`; this file only parses arguments and
//! maps errors to exit codes (0 success, 1 a negative answer such as an
//! invalid plan or a dead job, 2 bad input, [`EXIT_UNREACHABLE`] a server
//! that did not answer).
//!
//! Why two binaries: loading libtorch costs about 0.3-0.6 s before `main`
//! runs (its static initialisers register thousands of operators), which
//! every `hfarm plan`, `status` or `puzzle solve` paid. So this library never
//! names the worker, the learner or `tch`: the commands that run models (a
//! worker, the learner and queue benchmarks, a worker's job processes) are
//! [`Models`], implemented in `hfarm-torch` (src/bin/hfarm-torch/, the same
//! command line with everything linked), to which `hfarm` (src/main.rs) hands
//! them by exec, with the same arguments. Not calling that code is not
//! enough: the linker pulls whole object files out of a crate's archive, so
//! one reference anywhere in the library (a generic instantiation shared with
//! the worker crate was enough) brought in `tch`'s C++ wrapper, whose static
//! initialisers load libtorch. `tests/lean.rs` checks that `hfarm` starts
//! without it.

pub mod commands;
pub mod logging;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "hfarm", version, about = "A distributed experiment farm for learned planning heuristics")]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
    /// How log lines (of `serve`, `worker` and every command's warnings) are written to stderr.
    #[arg(long, global = true, value_enum, env = "HFARM_LOG_FORMAT", default_value = "text")]
    log_format: logging::Format,
    /// Which log lines reach stderr: a level (`error`, `warn`, `info`, `debug`) and per-module levels
    /// (`warn,worker=debug`); by default sqlx's notices and slow-statement warnings stay out.
    #[arg(long, global = true, env = "HFARM_LOG", default_value = "info,sqlx=error")]
    log: String,
}

#[derive(Subcommand)]
pub enum Command {
    /// Solve a PDDL problem with A* or greedy best-first search.
    Plan(commands::plan::Args),
    /// Permutation puzzles: solve, generate random walks, build pattern databases, benchmark.
    Puzzle(commands::puzzle::Args),
    /// Print the initial state's value of every classical heuristic.
    Heuristics(commands::heuristics::Args),
    /// Count the initial state's small connected subgraphs of its object graph (Trunda's features).
    Features(commands::features::Args),
    /// Print a generated problem file.
    Generate(commands::generate::Args),
    /// Print a shipped domain file.
    Domain(commands::generate::DomainArgs),
    /// Check a plan against the PDDL; print its cost.
    Validate(commands::validate::Args),
    /// Weisfeiler-Leman features with a linear model: train, plan, run the IPC 2023 track, bench.
    Wl(commands::wl::Args),
    /// Benchmark the planner, beside Fast Downward when it is installed.
    Bench(commands::bench::Args),
    /// Expand a grid file into jobs and record them (resume is the default).
    Submit(commands::farm::SubmitArgs),
    /// Progress of an experiment (by name or id): jobs per state.
    Status(commands::ops::StatusArgs),
    /// Experiments, newest first, with their progress (optionally those of one name).
    List(commands::ops::ListArgs),
    /// Run an experiment's dead and failed jobs again (--status, --kind to choose).
    Retry(commands::ops::RetryArgs),
    /// Cancel an experiment's unfinished jobs (jobs other experiments share are kept unless --include-shared).
    Cancel(commands::ops::CancelArgs),
    /// Set an experiment's priority (higher is announced first).
    Priority(commands::ops::PriorityArgs),
    /// One job in full: state, attempts, worker, timings, error, inputs, dependents, spec.
    Job(commands::ops::JobArgs),
    /// Write an experiment (grid, jobs, every result table as CSV, a manifest with checksums) to a folder.
    Export(commands::export::ExportArgs),
    /// Load a folder `hfarm export` wrote into this farm, with the same job keys (one transaction).
    Import(commands::export::ImportArgs),
    /// Write a job's stored artifact to a file: a checkpoint, an optimal plan, a pattern database.
    Artifact(commands::export::ArtifactArgs),
    /// Run the scheduler: announce ready jobs on Redis, recover lost ones.
    Serve(commands::farm::ServeArgs),
    /// Run a stateless worker that pulls and runs jobs.
    Worker(commands::farm::WorkerArgs),
    /// The paper's result tables (or training curves) of an experiment.
    Report(commands::report::Args),
    /// Print a shell completion script (e.g. `hfarm completions bash > ~/.local/share/bash-completion/completions/hfarm`).
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// A worker's child process: runs isolated job tasks read from stdin.
    #[command(hide = true)]
    JobProcess,
}

/// The exit status of a command that failed because PostgreSQL or Redis
/// was unreachable: not the user's input (2), and worth retrying.
pub const EXIT_UNREACHABLE: u8 = 3;

/// The exit status of a failed command: [`EXIT_UNREACHABLE`] when a cause in
/// its chain is a server outage, else 2 (bad input).
fn failure_code(e: &anyhow::Error) -> u8 {
    let outage = |c: &(dyn std::error::Error + 'static)| {
        schema::is_outage_cause(c) || c.downcast_ref::<queue::RedisError>().is_some_and(queue::is_outage)
    };
    if e.chain().any(outage) {
        EXIT_UNREACHABLE
    } else {
        2
    }
}

/// The commands that need libtorch: [`main`] hands them to `M`.
pub trait Models {
    /// `hfarm worker`: a worker runs training, evaluation and learned plan jobs.
    fn worker(a: commands::farm::WorkerArgs) -> anyhow::Result<ExitCode>;
    /// `hfarm bench` for the benchmarks that train, evaluate or run workers
    /// ([`commands::bench::Which::needs_models`]).
    fn bench(a: commands::bench::Args) -> anyhow::Result<ExitCode>;
    /// A worker's child process (isolated jobs may evaluate a model).
    fn job_process() -> ExitCode;
    /// A log layer beside stderr's: the worker's job log, which keeps each
    /// job's lines for PostgreSQL.
    fn job_log() -> Option<logging::BoxedLayer>;
}

/// Parses the command line and runs it, with `M` for what needs libtorch.
pub fn main<M: Models>() -> ExitCode {
    let cli = Cli::parse();
    if let Err(e) = logging::init(cli.log_format, &cli.log, M::job_log()) {
        eprintln!("error: {e:#}");
        return ExitCode::from(2);
    }
    let result = match cli.command {
        Command::Plan(a) => commands::plan::run(a),
        Command::Puzzle(a) => commands::puzzle::run(a),
        Command::Heuristics(a) => commands::heuristics::run(a),
        Command::Features(a) => commands::features::run(a).map(|()| ExitCode::SUCCESS),
        Command::Generate(a) => commands::generate::run(a),
        Command::Domain(a) => commands::generate::run_domain(a),
        Command::Validate(a) => commands::validate::run(a),
        Command::Wl(a) => commands::wl::run(a),
        Command::Bench(a) if a.which.needs_models() => M::bench(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Submit(a) => commands::farm::submit(a),
        Command::Status(a) => commands::ops::status(a),
        Command::List(a) => commands::ops::list(a),
        Command::Retry(a) => commands::ops::retry(a),
        Command::Cancel(a) => commands::ops::cancel(a),
        Command::Priority(a) => commands::ops::priority(a),
        Command::Job(a) => commands::ops::job(a),
        Command::Export(a) => commands::export::export(a),
        Command::Import(a) => commands::export::import(a),
        Command::Artifact(a) => commands::export::artifact(a),
        Command::Serve(a) => commands::farm::serve(a),
        Command::Worker(a) => M::worker(a),
        Command::Report(a) => commands::report::run(a),
        Command::Completions { shell } => {
            // Into a buffer first: clap_complete panics when its writer fails (a closed pipe).
            let mut script = vec![];
            clap_complete::generate(shell, &mut <Cli as clap::CommandFactory>::command(), "hfarm", &mut script);
            std::io::Write::write_all(&mut std::io::stdout(), &script)
                .map(|()| ExitCode::SUCCESS)
                .map_err(anyhow::Error::from)
        }
        Command::JobProcess => return M::job_process(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(failure_code(&e))
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every argument of every subcommand says what it is in `--help`
    /// (clap's own --help and --version aside): the arguments' names, in
    /// `command path: argument` form, that have none.
    fn without_help(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") || arg.is_hide_set() {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                out.push(format!("{path}: {id}"));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            without_help(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    /// A server that did not answer is exit 3 wherever it sits in the chain;
    /// anything else a command refuses is bad input, 2.
    #[test]
    fn an_unreachable_server_is_not_bad_input() {
        use anyhow::Context;
        let refused = || std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let db = schema::DbError::Connect { url: "postgres://x".into(), cause: refused().into() };
        assert_eq!(super::failure_code(&anyhow::Error::from(db)), super::EXIT_UNREACHABLE);
        let deep = Err::<(), _>(schema::DbError::Query(refused().into())).context("listing experiments").unwrap_err();
        assert_eq!(super::failure_code(&deep), super::EXIT_UNREACHABLE);
        let redis = anyhow::Error::from(queue::RedisError::from(refused())).context("cannot connect to Redis");
        assert_eq!(super::failure_code(&redis), super::EXIT_UNREACHABLE);
        let decode = anyhow::Error::from(schema::DbError::Decode("kind".into()));
        assert_eq!(super::failure_code(&decode), 2);
        assert_eq!(super::failure_code(&anyhow::anyhow!("no experiment named x")), 2);
    }

    /// The bash script offers every visible subcommand.
    #[test]
    fn completions_cover_every_subcommand() {
        let mut cmd = super::Cli::command();
        let mut script = vec![];
        clap_complete::generate(clap_complete::Shell::Bash, &mut cmd, "hfarm", &mut script);
        let script = String::from_utf8(script).expect("the script is text");
        let names: Vec<String> =
            cmd.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| s.get_name().to_string()).collect();
        assert!(names.len() > 20, "{names:?}");
        for name in names {
            assert!(script.contains(&format!("hfarm,{name})")), "{name} missing");
        }
    }

    #[test]
    fn every_argument_has_help_text() {
        let mut missing = vec![];
        without_help(&super::Cli::command(), "hfarm", &mut missing);
        assert!(missing.is_empty(), "{} arguments without help text:\n{}", missing.len(), missing.join("\n"));
    }
}
