//! Labelled data as the farm stores it: per instance, the problem and the
//! states of its optimal plan with h* and every registered classical
//! heuristic's value.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One labelled state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Every true atom, static ones included, as "(pred a b)".
    pub atoms: Vec<String>,
    pub h_star: f64,
    /// The classical heuristics' values by registered name
    /// (`planner::heuristics::registered`); None at a dead end.
    pub heuristics: BTreeMap<String, Option<f64>>,
    pub deletes_ignored: Option<f64>,
    pub mean_deletes_ignored: Option<f64>,
    /// The linear model's hFF feature where it is not the `ff` value
    /// (`planner::label::LabelledState::feature_ff`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feature_ff: Option<f64>,
}

impl Sample {
    /// The value of the heuristic `name`; None at a dead end or where the
    /// state was labelled without it.
    pub fn value(&self, name: &str) -> Option<f64> {
        self.heuristics.get(name).copied().flatten()
    }
}

/// An instance and its labelled states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledInstance {
    /// Where it came from (a job key), for error messages.
    pub name: String,
    pub problem_pddl: String,
    pub samples: Vec<Sample>,
}

/// A domain and its labelled instances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub domain_pddl: String,
    pub instances: Vec<LabelledInstance>,
}

impl Dataset {
    pub fn num_samples(&self) -> usize {
        self.instances.iter().map(|i| i.samples.len()).sum()
    }
}

impl From<planner::label::LabelledState> for Sample {
    fn from(l: planner::label::LabelledState) -> Sample {
        Sample {
            atoms: l.atoms,
            h_star: l.h_star as f64,
            heuristics: l.heuristics,
            deletes_ignored: l.deletes_ignored,
            mean_deletes_ignored: l.mean_deletes_ignored,
            feature_ff: l.feature_ff,
        }
    }
}

/// Labelled data made on the spot with the planner, as the farm's generate
/// and label jobs make it: generate with `seed`, solve with A*+LM-cut (60 s),
/// label the optimal plan's states. None if unsolved or trivial.
pub fn solve_and_label(params: &planner::generate::Params, seed: u64) -> Option<LabelledInstance> {
    use planner::search::{astar, Limits, SearchStatus};
    let dom = planner::generate::domain_pddl(params.domain())?;
    let problem = planner::generate::generate(params, seed).ok()?;
    let task = planner::load_task_from_text(dom, "domain.pddl", &problem, "problem.pddl").ok()?;
    let r = astar(&task, &mut planner::heuristics::LmCut::new(&task), Limits::new(None, Some(60.0), Some(2048)));
    if r.status != SearchStatus::Solved || r.plan.is_empty() {
        return None;
    }
    let plan: Vec<String> = r.plan.iter().map(|&o| task.operators[o as usize].name.clone()).collect();
    let samples = planner::label::label(dom, &problem, &plan).ok()?.into_iter().map(Sample::from).collect();
    let name = format!("{params:?} seed {seed}");
    Some(LabelledInstance { name, problem_pddl: problem, samples })
}

/// Splits "(pred a b)" into its predicate and arguments.
pub fn parse_atom(atom: &str) -> Option<(&str, Vec<&str>)> {
    let inner = atom.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut parts = inner.split_whitespace();
    let pred = parts.next()?;
    Some((pred, parts.collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The planner's labels become samples that carry every registered
    /// heuristic by name, and survive a JSON round trip.
    #[test]
    fn labelled_states_become_samples_with_every_registered_heuristic() {
        let params = planner::generate::Params::Gripper { balls: 2 };
        let inst = (1..20).find_map(|seed| solve_and_label(&params, seed)).expect("a non-trivial instance");
        assert!(inst.samples.len() > 2);
        for s in &inst.samples {
            let mut names: Vec<&str> = s.heuristics.keys().map(String::as_str).collect();
            let mut registered: Vec<&str> = planner::heuristics::registered().map(|h| h.name).collect();
            names.sort();
            registered.sort();
            assert_eq!(names, registered);
            assert!(s.value("lmcut").unwrap() <= s.h_star && s.value("hmax").unwrap() <= s.value("lmcut").unwrap());
            assert_eq!(s.value("fancy"), None);
        }
        let json = serde_json::to_string(&inst).unwrap();
        assert!(json.contains(r#""heuristics":{"blind":"#), "{json}");
        let back: LabelledInstance = serde_json::from_str(&json).unwrap();
        assert_eq!(back, inst);
        let mut dead = inst.samples[0].clone();
        dead.heuristics.insert("ff".into(), None);
        let back: Sample = serde_json::from_str(&serde_json::to_string(&dead).unwrap()).unwrap();
        assert_eq!((back.value("ff"), back.heuristics.get("ff")), (None, Some(&None)));
    }
}
