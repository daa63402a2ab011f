//! Labelled states for learning: every state along an optimal plan, with
//! h*, the value of every registered heuristic ([`heuristics::registered`]:
//! ours and the authors' pyperplan definitions) and the
//! relaxed-plan features the learners read, and the state's atoms (static
//! ones included) as names.

use std::collections::{BTreeMap, HashMap};

use crate::ground::GroundOptions;
use crate::heuristics::{self, Definitions, Heuristic, PyperplanFeatures, RelaxedPlanFeatures};
use crate::state::initial_state;
use crate::successors::apply;
use crate::Task;

/// Parses and grounds an instance, with or without relevance pruning.
pub fn load(domain: &str, problem: &str, prune: bool) -> Result<Task, String> {
    let d = crate::pddl::parse_domain(domain, "domain.pddl").map_err(|e| e.to_string())?;
    let p = crate::pddl::parse_problem(problem, "problem.pddl", &d).map_err(|e| e.to_string())?;
    crate::ground::ground_with(&d, &p, GroundOptions { prune_irrelevant: prune }).map_err(|e| e.to_string())
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct LabelledState {
    pub step: u32,
    /// Every atom true in the state, static ones included, sorted.
    pub atoms: Vec<String>,
    pub h_star: u64,
    /// Every registered heuristic's value, by name; None at a dead end.
    pub heuristics: BTreeMap<String, Option<f64>>,
    pub deletes_ignored: Option<f64>,
    pub mean_deletes_ignored: Option<f64>,
    /// The linear model's hFF feature where it is not the `ff` value:
    /// pyperplan's `calc_h_with_plan` for labels made with
    /// [`Definitions::Pyperplan`] (whose relaxed plan then gives the
    /// deletes too); None: the `ff` value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_ff: Option<f64>,
}

impl LabelledState {
    /// The value of the heuristic `name`; None at a dead end or for a name
    /// that is not registered.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.heuristics.get(name).copied().flatten()
    }
}

/// Replays `plan` from the initial state; returns the states s_0..s_n.
pub fn replay(task: &Task, plan: &[String]) -> Result<Vec<Vec<u64>>, String> {
    let by_name: HashMap<&str, u32> =
        task.operators.iter().enumerate().map(|(i, o)| (o.name.as_str(), i as u32)).collect();
    let mut s = initial_state(task);
    let mut out = vec![s.clone()];
    let mut next = s.clone();
    for step in plan {
        let &op =
            by_name.get(step.as_str()).ok_or_else(|| format!("plan step {step} is not an operator of the task"))?;
        if !crate::successors::is_applicable(task, &s, op) {
            return Err(format!("plan step {step} is not applicable"));
        }
        apply(task, &s, op, &mut next);
        std::mem::swap(&mut s, &mut next);
        out.push(s.clone());
    }
    Ok(out)
}

fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// Labels every state of an optimal `plan` (operator names) from the
/// initial state: h* and every registered heuristic (on the pruned task, as
/// Fast Downward computes them), atoms from the unpruned task (the complete
/// relational state, for learners), and the relaxed-plan features by our
/// definitions.
pub fn label(domain: &str, problem: &str, plan: &[String]) -> Result<Vec<LabelledState>, String> {
    label_with(domain, problem, plan, Definitions::Hfarm)
}

/// [`label`], with the relaxed-plan features (the linear model's hFF and
/// deletes) by `features`' definitions: [`Definitions::Pyperplan`] is what the
/// authors' training data holds (`generate_datum.py:276-300`, pyperplan's
/// `calc_h_with_plan` on each plan state). The heuristics' values are every
/// registered heuristic's under its own name either way (`lmcut` is Fast
/// Downward's, as their labels' is; `lmcut-pyperplan` pyperplan's).
pub fn label_with(
    domain: &str,
    problem: &str,
    plan: &[String],
    features: Definitions,
) -> Result<Vec<LabelledState>, String> {
    let pruned = load(domain, problem, true)?;
    let full = load(domain, problem, false)?;
    let states = replay(&pruned, plan)?;
    let full_states = replay(&full, plan)?;
    // One heuristic object per instance, evaluated in plan order:
    // pyperplan's LM-cut keeps operator data from one state to the next, so
    // its values depend on that order (as in the authors' runs).
    let mut hs: Vec<(&str, Box<dyn Heuristic>)> =
        heuristics::registered().map(|h| (h.name, (h.build)(&pruned))).collect();
    let mut ours = RelaxedPlanFeatures::new(&pruned);
    let mut theirs = (features == Definitions::Pyperplan).then(|| PyperplanFeatures::new(&pruned));
    let n = plan.len() as u64;
    let mut out = vec![];
    for (k, (s, fs)) in states.iter().zip(&full_states).enumerate() {
        let values = hs.iter_mut().map(|(name, h)| (name.to_string(), finite(h.evaluate(s)))).collect();
        let (f, feature_ff) = match theirs.as_mut() {
            None => (ours.features(s), None),
            // The goal count is not read from here (labels carry goalcount's value).
            Some(theirs) => {
                let f = theirs.features(s, 0.0);
                (f, f.map(|f| f.ff))
            }
        };
        let mut atoms: Vec<String> = full.static_atoms.iter().map(|a| full.atom_name(a)).collect();
        crate::state::for_each_fact(fs, |fact| atoms.push(full.fact_name(fact)));
        atoms.sort();
        out.push(LabelledState {
            step: k as u32,
            atoms,
            h_star: n - k as u64,
            heuristics: values,
            deletes_ignored: f.map(|f| f.deletes_ignored),
            mean_deletes_ignored: f.map(|f| f.mean_deletes_ignored),
            feature_ff,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate::{domain_pddl, generate, Params};
    use crate::search::{astar, Limits, SearchStatus};

    #[test]
    fn every_registered_heuristic_labels_every_state() {
        let params = Params::Gripper { balls: 2 };
        let domain = domain_pddl(params.domain()).unwrap();
        // The first seed whose instance is not solved in the initial state.
        let (problem, plan) = (1..20)
            .find_map(|seed| {
                let problem = generate(&params, seed).unwrap();
                let task = crate::load_task_from_text(domain, "domain.pddl", &problem, "problem.pddl").unwrap();
                let r = astar(&task, &mut heuristics::LmCut::new(&task), Limits::default());
                assert_eq!(r.status, SearchStatus::Solved);
                let plan: Vec<String> = r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect();
                (!plan.is_empty()).then_some((problem, plan))
            })
            .expect("a non-trivial instance");
        let states = label(domain, &problem, &plan).unwrap();
        assert_eq!(states.len(), plan.len() + 1);
        for s in &states {
            let names: Vec<&str> = s.heuristics.keys().map(String::as_str).collect();
            let mut registered: Vec<&str> = heuristics::registered().map(|h| h.name).collect();
            registered.sort();
            assert_eq!(names, registered);
            let h_star = s.h_star as f64;
            for h in heuristics::registered() {
                let v = s.value(h.name).unwrap_or_else(|| panic!("{} is a dead end on a plan", h.name));
                assert!(!h.admissible || v <= h_star, "{} {v} > h* {h_star}", h.name);
            }
        }
        assert_eq!(states.last().unwrap().value("goalcount"), Some(0.0));
        assert!(states[0].value("goalcount").unwrap() > 0.0);
        assert_eq!(states[0].value("fancy"), None);
    }
}
