//! A problem loaded for learning: its grounded task with every atom kept
//! (`prune_irrelevant: false`, so that a state's facts are the atoms of its
//! object graph) and the object-graph layout of its states.
//!
//! Searches (the learned heuristic's and the baselines') run on this same
//! unpruned task, so that states, features and plans all refer to one
//! grounding. On the domains of the thesis (blocksworld, zenotravel)
//! relevance pruning removes nothing.

use std::path::Path;

use planner::Task;
use subgraphs::object_graph::{load, load_files, Loaded};
use subgraphs::TaskGraph;

use crate::Error;

/// A named, loaded problem.
#[derive(Debug, Clone)]
pub struct Problem {
    /// How rows and reports name it (a file name, say).
    pub name: String,
    pub loaded: Loaded,
}

impl Problem {
    /// From domain and problem text.
    pub fn from_text(name: &str, domain: &str, problem: &str) -> Result<Problem, Error> {
        let loaded = load(domain, "domain.pddl", problem, name)?;
        Ok(Problem { name: name.to_string(), loaded })
    }

    /// From files; named by the problem file's name.
    pub fn from_files(domain: &Path, problem: &Path) -> Result<Problem, Error> {
        let loaded = load_files(domain, problem)?;
        let name = problem.file_name().map_or_else(|| problem.display().to_string(), |n| n.to_string_lossy().into());
        Ok(Problem { name, loaded })
    }

    pub fn task(&self) -> &Task {
        &self.loaded.task
    }

    pub fn graphs(&self) -> &TaskGraph {
        &self.loaded.graphs
    }

    /// Words of a packed state of this problem.
    pub fn words(&self) -> usize {
        planner::state::words_for(self.task().num_facts())
    }
}

/// Checks that all problems are of one domain (same predicate and type
/// symbols: the feature graphs mean the same thing in each).
pub fn check_one_domain(problems: &[Problem]) -> Result<(), Error> {
    let Some(first) = problems.first() else {
        return Err(Error::Input("no problems given".into()));
    };
    for p in problems {
        if p.graphs().symbols() != first.graphs().symbols() {
            return Err(Error::Input(format!(
                "problem {} is of domain {}, problem {} of domain {} (or their predicates differ): features are per domain",
                p.name,
                p.graphs().symbols().domain,
                first.name,
                first.graphs().symbols().domain
            )));
        }
    }
    Ok(())
}
