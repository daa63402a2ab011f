//! Labelled states for learning: every state along an optimal plan, with
//! h* and the classical heuristic values and relaxed-plan features the
//! learners read, and the state's atoms (static ones included) as names.

use std::collections::HashMap;

use crate::ground::GroundOptions;
use crate::heuristics::{self, Heuristic, RelaxedPlanFeatures};
use crate::state::initial_state;
use crate::successors::apply;
use crate::Task;

/// Parses and grounds an instance, with or without relevance pruning.
pub fn load(domain: &str, problem: &str, prune: bool) -> Result<Task, String> {
    let d = crate::pddl::parse_domain(domain, "domain.pddl").map_err(|e| e.to_string())?;
    let p = crate::pddl::parse_problem(problem, "problem.pddl", &d).map_err(|e| e.to_string())?;
    crate::ground::ground_with(&d, &p, GroundOptions { prune_irrelevant: prune }).map_err(|e| e.to_string())
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct LabelledState {
    pub step: u32,
    /// Every atom true in the state, static ones included, sorted.
    pub atoms: Vec<String>,
    pub h_star: u64,
    pub lmcut: Option<f64>,
    pub hmax: Option<f64>,
    pub blind: Option<f64>,
    pub hadd: Option<f64>,
    pub ff: Option<f64>,
    pub goalcount: Option<f64>,
    pub deletes_ignored: Option<f64>,
    pub mean_deletes_ignored: Option<f64>,
}

/// Replays `plan` from the initial state; returns the states s_0..s_n.
fn replay(task: &Task, plan: &[String]) -> Result<Vec<Vec<u64>>, String> {
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

/// Labels every state of an optimal plan: h* and the classical heuristics
/// (on the pruned task, as Fast Downward computes them), atoms from the
/// unpruned task (the complete relational state, for learners).
/// Labels every state of `plan` (operator names) from the initial state.
pub fn label(domain: &str, problem: &str, plan: &[String]) -> Result<Vec<LabelledState>, String> {
    let pruned = load(domain, problem, true)?;
    let full = load(domain, problem, false)?;
    let states = replay(&pruned, plan)?;
    let full_states = replay(&full, plan)?;
    let mut hs: Vec<(&str, Box<dyn Heuristic>)> = ["lmcut", "hmax", "blind", "hadd", "ff", "goalcount"]
        .into_iter()
        .map(|n| (n, heuristics::by_name(n, &pruned).expect("known heuristic")))
        .collect();
    let mut features = RelaxedPlanFeatures::new(&pruned);
    let n = plan.len() as u64;
    let mut out = vec![];
    for (k, (s, fs)) in states.iter().zip(&full_states).enumerate() {
        let mut v = HashMap::new();
        for (name, h) in hs.iter_mut() {
            v.insert(*name, finite(h.evaluate(s)));
        }
        let f = features.features(s);
        let mut atoms: Vec<String> = full.static_atoms.iter().map(|a| full.atom_name(a)).collect();
        crate::state::for_each_fact(fs, |fact| atoms.push(full.fact_name(fact)));
        atoms.sort();
        out.push(LabelledState {
            step: k as u32,
            atoms,
            h_star: n - k as u64,
            lmcut: v["lmcut"],
            hmax: v["hmax"],
            blind: v["blind"],
            hadd: v["hadd"],
            ff: v["ff"],
            goalcount: v["goalcount"],
            deletes_ignored: f.map(|f| f.deletes_ignored),
            mean_deletes_ignored: f.map(|f| f.mean_deletes_ignored),
        });
    }
    Ok(out)
}
