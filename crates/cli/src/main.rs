//! `hfarm`: the command line of the experiment farm.
//!
//! Each subcommand lives in `commands/`; this file only parses arguments and
//! maps errors to exit codes (0 success, 1 a negative answer such as an
//! invalid plan, 2 bad input).

mod commands;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "hfarm", version, about = "A distributed experiment farm for learned planning heuristics")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
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
    /// Benchmark the planner, beside Fast Downward when it is installed.
    Bench(commands::bench::Args),
    /// Expand a grid file into jobs and record them (resume is the default).
    Submit(commands::farm::SubmitArgs),
    /// Progress of an experiment: jobs per state.
    Status(commands::farm::StatusArgs),
    /// Run the scheduler: announce ready jobs on Redis, recover lost ones.
    Serve(commands::farm::ServeArgs),
    /// Run a stateless worker that pulls and runs jobs.
    Worker(commands::farm::WorkerArgs),
    /// The paper's result tables (or training curves) of an experiment.
    Report(commands::report::Args),
    /// A worker's child process: runs isolated job tasks read from stdin.
    #[command(hide = true)]
    JobProcess,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Plan(a) => commands::plan::run(a),
        Command::Puzzle(a) => commands::puzzle::run(a),
        Command::Heuristics(a) => commands::heuristics::run(a),
        Command::Features(a) => commands::features::run(a).map(|()| ExitCode::SUCCESS),
        Command::Generate(a) => commands::generate::run(a),
        Command::Domain(a) => commands::generate::run_domain(a),
        Command::Validate(a) => commands::validate::run(a),
        Command::Bench(a) => commands::bench::run(a),
        Command::Submit(a) => commands::farm::submit(a),
        Command::Status(a) => commands::farm::status(a),
        Command::Serve(a) => commands::farm::serve(a),
        Command::Worker(a) => commands::farm::worker(a),
        Command::Report(a) => commands::report::run(a),
        Command::JobProcess => return worker::isolate::child_main(),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
