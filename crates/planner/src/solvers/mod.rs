//! Near-optimal domain-specific solvers: the label source of Trunda's
//! heuristic learning (thesis section "Labels", notes section 2).
//!
//! Exact h* is too slow for millions of states, so Trunda labels states with
//! the cost of plans from fast, near-optimal solvers written for each domain,
//! and treats their error as label noise. Each solver here reads an
//! [`Instance`] (a state and a goal as named atoms, from the PDDL problem or
//! from any state of a grounded task), returns a [`Plan`] that the lifted
//! validator (`validate.rs`) accepts, and refuses with a [`SolverError`] what
//! it does not handle. A solver is seeded and deterministic given its seed.
//!
//! [`SOLVERS`] registers them by name (what a label job names), with the
//! generated domains ([`crate::generate::DOMAINS`]) each serves.

mod blocksworld;
mod instance;
mod zenotravel;

use std::collections::HashMap;
use std::fmt;

pub use instance::{Fact, Instance};

use crate::pddl::{Domain, Problem};
use crate::plan::PlanStep;
use crate::task::{OpId, Task};

/// Every solver, by name.
pub static SOLVERS: &[&SolverInfo] = &[&blocksworld::SOLVER, &zenotravel::SOLVER];

/// A solver, described by itself.
#[derive(Debug)]
pub struct SolverInfo {
    /// The name a label job gives.
    pub name: &'static str,
    /// One line for listings.
    pub description: &'static str,
    /// The generated domains ([`crate::generate::DOMAINS`] names) it serves.
    pub domains: &'static [&'static str],
    /// A plan from the instance's state to its goal; `seed` fixes every
    /// random choice.
    pub solve: fn(&Instance, u64) -> Result<Plan, SolverError>,
}

/// The solver of this name.
pub fn by_name(name: &str) -> Option<&'static SolverInfo> {
    SOLVERS.iter().copied().find(|s| s.name == name)
}

/// The solver serving this generated domain, if any.
pub fn for_domain(domain: &str) -> Option<&'static SolverInfo> {
    SOLVERS.iter().copied().find(|s| s.domains.contains(&domain))
}

/// The registered solvers' names.
pub fn names() -> impl Iterator<Item = &'static str> {
    SOLVERS.iter().map(|s| s.name)
}

/// Why a solver gave no plan.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SolverError {
    #[error("no solver named `{0}`; expected one of {known}", known = names().collect::<Vec<_>>().join(", "))]
    UnknownSolver(String),
    /// The instance is not of a kind the solver handles (another domain, a
    /// goal predicate it does not know, a malformed state).
    #[error("not supported: {0}")]
    Unsupported(String),
    /// The solver can tell the goal cannot be reached.
    #[error("unsolvable: {0}")]
    Unsolvable(String),
    /// A plan step is not an operator of the grounded task (pruned away, or
    /// the task is of another domain).
    #[error("plan step {0} is not an operator of the task")]
    NotInTask(String),
}

/// One step of a plan: an action and its objects.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Step {
    pub action: String,
    pub args: Vec<String>,
}

impl Step {
    pub fn new(action: &str, args: &[&str]) -> Step {
        Step { action: action.to_string(), args: args.iter().map(|a| a.to_string()).collect() }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "({}", self.action)?;
        for a in &self.args {
            write!(f, " {a}")?;
        }
        f.write_str(")")
    }
}

/// A solver's plan. All our domains are unit-cost: its cost is its length.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    pub steps: Vec<Step>,
}

impl Plan {
    pub fn cost(&self) -> u64 {
        self.steps.len() as u64
    }

    /// The plan as an IPC plan file, with the cost comment.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        for step in &self.steps {
            s.push_str(&step.to_string());
            s.push('\n');
        }
        s.push_str(&format!("; cost = {} (unit cost)\n", self.cost()));
        s
    }

    /// The steps as `validate::validate` reads them (line = step number).
    pub fn plan_steps(&self) -> Vec<PlanStep> {
        self.steps
            .iter()
            .enumerate()
            .map(|(i, s)| PlanStep { action: s.action.clone(), args: s.args.clone(), line: i as u32 + 1 })
            .collect()
    }

    /// The plan as operators of a grounded task (by operator name).
    pub fn to_ops(&self, task: &Task) -> Result<Vec<OpId>, SolverError> {
        let by_name: HashMap<&str, OpId> =
            task.operators.iter().enumerate().map(|(i, o)| (o.name.as_str(), i as OpId)).collect();
        self.steps
            .iter()
            .map(|s| {
                let name = s.to_string();
                by_name.get(name.as_str()).copied().ok_or(SolverError::NotInTask(name))
            })
            .collect()
    }
}

/// Solves a PDDL problem's initial state with the solver `name`.
pub fn solve_problem(name: &str, domain: &Domain, problem: &Problem, seed: u64) -> Result<Plan, SolverError> {
    let solver = by_name(name).ok_or_else(|| SolverError::UnknownSolver(name.to_string()))?;
    (solver.solve)(&Instance::from_problem(domain, problem)?, seed)
}

/// Solves from `state` of a grounded task with the solver `name`: the plan
/// as the task's operators.
pub fn solve_task(name: &str, task: &Task, state: &[u64], seed: u64) -> Result<Vec<OpId>, SolverError> {
    let solver = by_name(name).ok_or_else(|| SolverError::UnknownSolver(name.to_string()))?;
    (solver.solve)(&Instance::from_task(task, state)?, seed)?.to_ops(task)
}

/// Indexes the objects of one role (blocks, planes, ...) by name, in sorted
/// order, so that solvers' choices do not depend on the order of atoms.
#[derive(Debug, Default, Clone)]
struct Names {
    names: Vec<String>,
    index: HashMap<String, usize>,
}

impl Names {
    fn from_sorted(mut names: Vec<String>) -> Names {
        names.sort();
        names.dedup();
        let index = names.iter().enumerate().map(|(i, n)| (n.clone(), i)).collect();
        Names { names, index }
    }

    fn get(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    fn name(&self, i: usize) -> &str {
        &self.names[i]
    }

    fn len(&self) -> usize {
        self.names.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solvers_are_registered_once_and_serve_generated_domains() {
        let mut seen = std::collections::HashSet::new();
        for s in SOLVERS {
            assert!(seen.insert(s.name), "{} twice", s.name);
            assert!(std::ptr::eq(by_name(s.name).unwrap(), *s));
            for d in s.domains {
                assert!(crate::generate::domain(d).is_some(), "{}: no generated domain {d}", s.name);
                assert!(std::ptr::eq(for_domain(d).unwrap(), *s));
            }
        }
        assert!(by_name("sokoban").is_none() && for_domain("visitall").is_none());
    }

    #[test]
    fn unknown_solvers_are_named_in_the_error() {
        let d = crate::pddl::parse_domain(crate::generate::domain_pddl("gripper").unwrap(), "d").unwrap();
        let text = crate::generate::generate(&crate::generate::Params::Gripper { balls: 1 }, 1).unwrap();
        let p = crate::pddl::parse_problem(&text, "p", &d).unwrap();
        let e = solve_problem("nope", &d, &p, 1).unwrap_err();
        assert_eq!(e.to_string(), "no solver named `nope`; expected one of blocksworld-goodtower, zenotravel-ga");
        // A solver refuses another domain by its actions.
        let e = solve_problem("blocksworld-goodtower", &d, &p, 1).unwrap_err();
        assert!(matches!(e, SolverError::Unsupported(_)), "{e}");
        let e = solve_problem("zenotravel-ga", &d, &p, 1).unwrap_err();
        assert!(matches!(e, SolverError::Unsupported(_)), "{e}");
    }

    #[test]
    fn steps_print_as_plan_lines() {
        let plan = Plan { steps: vec![Step::new("pick-up", &["a"]), Step::new("stack", &["a", "b"])] };
        assert_eq!(plan.to_text(), "(pick-up a)\n(stack a b)\n; cost = 2 (unit cost)\n");
        let parsed = crate::plan::parse_plan(&plan.to_text(), "p").unwrap();
        assert_eq!(parsed, plan.plan_steps());
    }
}
