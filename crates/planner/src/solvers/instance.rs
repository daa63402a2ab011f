//! What a domain solver reads: a state and a goal as named ground atoms, and
//! the domain's action names, built from the lifted problem or from any
//! state of a grounded task.
//!
//! Solvers read atoms by name (`(on a b)`) rather than fact ids, so the same
//! code serves the PDDL files, the pruned grounding search runs on and the
//! unpruned one learners read, and any state of them (label jobs solve from
//! the states a search expanded, not only from the initial one).

use std::collections::BTreeMap;

use crate::pddl::{Domain, Problem, Term};
use crate::state::for_each_fact;
use crate::task::Task;

use super::SolverError;

/// A ground atom by name: predicate and object names.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fact {
    pub predicate: String,
    pub args: Vec<String>,
}

impl Fact {
    pub fn new(predicate: &str, args: &[&str]) -> Fact {
        Fact { predicate: predicate.to_string(), args: args.iter().map(|a| a.to_string()).collect() }
    }
}

/// A state and a goal to solve, by name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The PDDL domain's name (for messages).
    pub domain: String,
    /// Every atom true in the state, static ones included.
    pub state: Vec<Fact>,
    /// The goal: a conjunction of positive atoms.
    pub goal: Vec<Fact>,
    /// The domain's action names and arities.
    pub actions: BTreeMap<String, usize>,
    /// True when `actions` lists every action of the domain (read from the
    /// domain file); false when it lists those a grounding kept.
    pub actions_complete: bool,
}

impl Instance {
    /// The problem's initial state and goal. Negative goals are refused.
    pub fn from_problem(domain: &Domain, problem: &Problem) -> Result<Instance, SolverError> {
        let fact = |a: &crate::pddl::Atom| Fact {
            predicate: a.predicate.clone(),
            args: a.args.iter().map(|t| t.name().to_string()).collect(),
        };
        let mut goal = vec![];
        for lit in &problem.goal {
            if !lit.positive || lit.atom.is_equality() {
                return Err(SolverError::Unsupported(format!(
                    "goal literal ({}{}) is not a positive atom",
                    if lit.positive { "" } else { "not " },
                    lit.atom.predicate
                )));
            }
            if lit.atom.args.iter().any(|t| matches!(t, Term::Var(_))) {
                return Err(SolverError::Unsupported("the goal has a variable".into()));
            }
            goal.push(fact(&lit.atom));
        }
        Ok(Instance {
            domain: domain.name.clone(),
            state: problem.init.iter().map(fact).collect(),
            goal,
            actions: domain.actions.iter().map(|a| (a.name.clone(), a.parameters.len())).collect(),
            actions_complete: true,
        })
    }

    /// A state of a grounded task (packed as `state::initial_state` packs
    /// it), with the task's static atoms, and its goal. Negative goals are
    /// refused.
    pub fn from_task(task: &Task, state: &[u64]) -> Result<Instance, SolverError> {
        if !task.goal_neg.is_empty() {
            return Err(SolverError::Unsupported("the task has negative goals".into()));
        }
        if state.len() != crate::state::words_for(task.num_facts()) {
            return Err(SolverError::Unsupported(format!(
                "the state has {} words, the task's states {}",
                state.len(),
                crate::state::words_for(task.num_facts())
            )));
        }
        let fact = |a: &crate::task::GroundAtom| Fact {
            predicate: task.predicates[a.predicate as usize].clone(),
            args: a.args.iter().map(|&o| task.objects[o as usize].clone()).collect(),
        };
        let mut facts: Vec<Fact> = task.static_atoms.iter().map(fact).collect();
        let mut bad = None;
        for_each_fact(state, |f| match task.facts.get(f as usize) {
            Some(a) => facts.push(fact(a)),
            None => bad = Some(f),
        });
        if let Some(f) = bad {
            return Err(SolverError::Unsupported(format!("the state sets fact {f}, beyond the task's facts")));
        }
        let mut actions = BTreeMap::new();
        for op in &task.operators {
            let words: Vec<&str> = op.name.trim_matches(|c| c == '(' || c == ')').split_whitespace().collect();
            if let Some((name, args)) = words.split_first() {
                actions.insert(name.to_string(), args.len());
            }
        }
        Ok(Instance {
            domain: task.domain_name.clone(),
            state: facts,
            goal: task.goal.iter().map(|&g| fact(&task.facts[g as usize])).collect(),
            actions,
            actions_complete: false,
        })
    }

    /// Refuses a domain whose actions are not `required` plus some of
    /// `optional` (name, arity): every required action must be there when the
    /// list is complete, and no other action may be (a grounding may have
    /// dropped some, never added one).
    pub fn check_actions(
        &self,
        solver: &str,
        required: &[(&str, usize)],
        optional: &[(&str, usize)],
    ) -> Result<(), SolverError> {
        for (name, arity) in &self.actions {
            match required.iter().chain(optional).find(|(n, _)| n == name) {
                None => {
                    return Err(SolverError::Unsupported(format!(
                        "domain `{}` has an action `{name}`, which {solver} does not know",
                        self.domain
                    )))
                }
                Some((_, a)) if a != arity => {
                    return Err(SolverError::Unsupported(format!(
                        "domain `{}`: action `{name}` takes {arity} argument(s), {solver} expects {a}",
                        self.domain
                    )))
                }
                Some(_) => {}
            }
        }
        if self.actions_complete {
            if let Some((name, _)) = required.iter().find(|(n, _)| !self.actions.contains_key(*n)) {
                return Err(SolverError::Unsupported(format!(
                    "domain `{}` has no action `{name}`, which {solver} needs",
                    self.domain
                )));
            }
        }
        Ok(())
    }
}
