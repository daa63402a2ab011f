//! Plan validation against the lifted PDDL, independent of grounding.
//!
//! The state is a set of ground atoms (static ones included); each step's
//! action schema is instantiated with the step's objects, its parameter types
//! and preconditions are checked, then its deletes and adds applied (adds
//! win). Sharing no code with the grounder or the search is the point: a
//! grounding bug cannot hide itself here.

use std::collections::{HashMap, HashSet};

use crate::pddl::{Atom, Domain, Literal, Problem, Term};
use crate::plan::PlanStep;

/// Why a plan is not valid.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", match step { Some(s) => format!("step {s} {action} (line {line}): {reason}"), None => format!("after the last step: {reason}") })]
pub struct InvalidPlan {
    /// 1-based step number, None when the goal fails at the end.
    pub step: Option<usize>,
    pub action: String,
    pub line: u32,
    pub reason: String,
}

type GroundAtom = (String, Vec<String>);

/// Checks `plan`; returns its cost (one per step: we accept unit-cost PDDL only).
pub fn validate(domain: &Domain, problem: &Problem, plan: &[PlanStep]) -> Result<u64, InvalidPlan> {
    let parents: HashMap<&str, &str> = domain.types.iter().map(|(t, p)| (t.as_str(), p.as_str())).collect();
    let is_subtype = |t: &str, of: &str| is_subtype(&parents, t, of);
    let mut object_type: HashMap<&str, &str> = HashMap::new();
    for o in domain.constants.iter().chain(&problem.objects) {
        object_type.insert(&o.name, &o.types[0]);
    }
    let schemas: HashMap<&str, &crate::pddl::ActionSchema> =
        domain.actions.iter().map(|a| (a.name.as_str(), a)).collect();
    let mut state: HashSet<GroundAtom> = problem.init.iter().map(|a| ground(a, &HashMap::new())).collect();

    for (i, step) in plan.iter().enumerate() {
        let fail = |reason: String| InvalidPlan { step: Some(i + 1), action: step.text(), line: step.line, reason };
        let Some(schema) = schemas.get(step.action.as_str()) else {
            return Err(fail(format!("no action named `{}` in the domain", step.action)));
        };
        if schema.parameters.len() != step.args.len() {
            return Err(fail(format!(
                "`{}` takes {} argument(s), the step gives {}",
                schema.name,
                schema.parameters.len(),
                step.args.len()
            )));
        }
        let mut binding: HashMap<&str, &str> = HashMap::new();
        for (param, arg) in schema.parameters.iter().zip(&step.args) {
            let Some(&t) = object_type.get(arg.as_str()) else {
                return Err(fail(format!("unknown object `{arg}`")));
            };
            if !param.types.iter().any(|pt| is_subtype(t, pt)) {
                return Err(fail(format!(
                    "object `{arg}` has type `{t}`, but parameter `{}` needs `{}`",
                    param.name,
                    param.types.join(" or ")
                )));
            }
            binding.insert(&param.name, arg);
        }
        for lit in &schema.precondition {
            if !holds(lit, &state, &binding) {
                let a = show(&ground(&lit.atom, &binding));
                let reason = if lit.positive {
                    format!("precondition {a} is false")
                } else {
                    format!("precondition (not {a}) is false: {a} is true")
                };
                return Err(fail(reason));
            }
        }
        let adds: Vec<GroundAtom> =
            schema.effect.iter().filter(|l| l.positive).map(|l| ground(&l.atom, &binding)).collect();
        for l in schema.effect.iter().filter(|l| !l.positive) {
            state.remove(&ground(&l.atom, &binding));
        }
        state.extend(adds);
    }
    for lit in &problem.goal {
        if !holds(lit, &state, &HashMap::new()) {
            let a = show(&ground(&lit.atom, &HashMap::new()));
            let reason = if lit.positive {
                format!("goal {a} is not satisfied")
            } else {
                format!("goal (not {a}) is not satisfied")
            };
            return Err(InvalidPlan { step: None, action: String::new(), line: 0, reason });
        }
    }
    Ok(plan.len() as u64)
}

fn is_subtype(parents: &HashMap<&str, &str>, t: &str, of: &str) -> bool {
    let mut cur = t.to_string();
    for _ in 0..=parents.len() + 1 {
        if cur == of || of == "object" {
            return true;
        }
        match parents.get(cur.as_str()) {
            Some(p) => cur = p.to_string(),
            None => return false,
        }
    }
    false
}

fn ground(a: &Atom, binding: &HashMap<&str, &str>) -> GroundAtom {
    let args = a
        .args
        .iter()
        .map(|t| match t {
            Term::Var(v) => binding.get(v.as_str()).map_or_else(|| v.clone(), |o| o.to_string()),
            Term::Const(c) => c.clone(),
        })
        .collect();
    (a.predicate.clone(), args)
}

fn holds(lit: &Literal, state: &HashSet<GroundAtom>, binding: &HashMap<&str, &str>) -> bool {
    let g = ground(&lit.atom, binding);
    let truth = if lit.atom.is_equality() { g.1[0] == g.1[1] } else { state.contains(&g) };
    truth == lit.positive
}

fn show(a: &GroundAtom) -> String {
    let mut s = format!("({}", a.0);
    for x in &a.1 {
        s.push(' ');
        s.push_str(x);
    }
    s.push(')');
    s
}
