//! The planning core of hfarm: a pure library (no async, no I/O beyond what
//! the caller hands it).
//!
//! Pipeline: [`pddl`] parses domain and problem text into a lifted AST;
//! [`ground`] instantiates it by relaxed reachability into a STRIPS
//! [`task::Task`]; [`state`] packs states into bitsets; [`heuristics`]
//! evaluate states in batches; [`search`] runs A* or greedy best-first search;
//! [`plan`] writes and reads IPC plan files and [`validate`] re-checks a plan
//! against the PDDL itself. [`generate`] holds the seeded instance generators
//! and the domain files that ship with the project.

pub mod generate;
pub mod ground;
pub mod heuristics;
pub mod label;
pub mod pddl;
pub mod plan;
pub mod search;
pub mod solvers;
pub mod state;
pub mod successors;
pub mod task;
pub mod validate;

use std::path::Path;

pub use ground::ground;
pub use task::Task;

/// Anything that can go wrong turning files into a task.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}")]
    Io { path: String, source: std::io::Error },
    #[error(transparent)]
    Parse(#[from] pddl::ParseError),
    #[error(transparent)]
    Ground(#[from] ground::GroundError),
}

/// Reads a file as text, naming it in the error.
pub fn read_text(path: &Path) -> Result<String, LoadError> {
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io { path: path.display().to_string(), source })?;
    String::from_utf8(bytes).map_err(|e| {
        let at = e.utf8_error().valid_up_to();
        let text = String::from_utf8_lossy(&e.into_bytes()[..at]).into_owned();
        let line = text.matches('\n').count() + 1;
        let col = text.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        LoadError::Parse(pddl::ParseError::new(
            &path.display().to_string(),
            pddl::Pos { line: line as u32, col: col as u32 },
            "the file is not valid UTF-8 text",
        ))
    })
}

/// Parses a domain and a problem from text and grounds them.
pub fn load_task_from_text(
    domain: &str,
    domain_file: &str,
    problem: &str,
    problem_file: &str,
) -> Result<Task, LoadError> {
    let d = pddl::parse_domain(domain, domain_file)?;
    let p = pddl::parse_problem(problem, problem_file, &d)?;
    Ok(ground(&d, &p)?)
}

/// Reads, parses and grounds a domain and problem file.
pub fn load_task(domain: &Path, problem: &Path) -> Result<Task, LoadError> {
    let dt = read_text(domain)?;
    let pt = read_text(problem)?;
    load_task_from_text(&dt, &domain.display().to_string(), &pt, &problem.display().to_string())
}
