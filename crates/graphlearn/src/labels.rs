//! Labelled states: a state, its label h* and which labeller gave it.
//!
//! A labeller solves from the state and labels every state along the plan
//! with its cost-to-go. The thesis labels with near-optimal domain solvers
//! (exact h* being too slow for millions of states) and treats their error
//! as noise; the planner's registered solvers (`planner::solvers`:
//! blocksworld GoodTower, zenotravel GA) serve here as `solver:<name>`. Where
//! no solver serves the domain, A* with LM-cut gives optimal labels
//! (`optimal`) under a limit, and states it cannot solve within the limit are
//! left unlabelled (reported, not guessed).
//!
//! A state labelled twice keeps the smaller label ([`LabelStore`]): every
//! label is the cost of a real plan, so the smaller is the tighter upper
//! bound on h*.

use std::fmt;
use std::str::FromStr;

use planner::heuristics::LmCut;
use planner::search::{Limits, SearchStatus};
use planner::solvers::{self, SolverError};
use planner::state::{for_each_fact, is_goal};
use planner::successors::{apply, is_applicable};
use planner::task::OpId;
use planner::Task;
use serde::{Deserialize, Serialize};

use crate::hash::FxMap;
use crate::Error;

/// Who gave a label.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LabelSource {
    /// A* with LM-cut: exact h*.
    Optimal,
    /// A registered domain solver, by name: an upper bound on h*.
    Solver(String),
}

impl fmt::Display for LabelSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LabelSource::Optimal => f.write_str("optimal"),
            LabelSource::Solver(s) => write!(f, "solver:{s}"),
        }
    }
}

impl FromStr for LabelSource {
    type Err = String;
    fn from_str(s: &str) -> Result<LabelSource, String> {
        match s.strip_prefix("solver:") {
            _ if s == "optimal" => Ok(LabelSource::Optimal),
            Some(name) if !name.is_empty() => Ok(LabelSource::Solver(name.to_string())),
            _ => Err(format!("unknown label source `{s}`; expected optimal or solver:<name>")),
        }
    }
}

impl Serialize for LabelSource {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for LabelSource {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<LabelSource, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// A packed state of a task with its cost-to-go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabelledState {
    pub state: Vec<u64>,
    pub h_star: u64,
    pub source: LabelSource,
}

/// How to label states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabellerSettings {
    /// A registered solver (`planner::solvers::SOLVERS`); None: A* with LM-cut.
    pub solver: Option<String>,
    /// A*+LM-cut's limit in evaluations (deterministic).
    pub optimal_max_evaluations: Option<u64>,
    /// A*+LM-cut's limit in seconds.
    pub optimal_time_s: Option<f64>,
    /// The solvers' seed.
    pub seed: u64,
}

impl LabellerSettings {
    /// Optimal labels from A*+LM-cut with at most `max_evaluations` evaluations per state.
    pub fn optimal(max_evaluations: u64) -> LabellerSettings {
        LabellerSettings { solver: None, optimal_max_evaluations: Some(max_evaluations), optimal_time_s: None, seed: 0 }
    }

    /// Labels from the registered solver `name`.
    pub fn solver(name: &str) -> Result<LabellerSettings, Error> {
        solvers::by_name(name).ok_or_else(|| Error::Settings(SolverError::UnknownSolver(name.into()).to_string()))?;
        Ok(LabellerSettings { solver: Some(name.into()), optimal_max_evaluations: None, optimal_time_s: None, seed: 0 })
    }

    /// The registered solver of a domain (by the PDDL domain's name, as
    /// the planner's generators name them), else optimal labels with
    /// `max_evaluations`.
    pub fn for_domain(domain: &str, max_evaluations: u64) -> LabellerSettings {
        match solvers::for_domain(domain) {
            Some(s) => LabellerSettings { solver: Some(s.name.into()), ..LabellerSettings::optimal(max_evaluations) },
            None => LabellerSettings::optimal(max_evaluations),
        }
    }

    pub fn source(&self) -> LabelSource {
        match &self.solver {
            Some(s) => LabelSource::Solver(s.clone()),
            None => LabelSource::Optimal,
        }
    }
}

/// What labelling one state gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The state and every later state of the plan, with cost-to-go.
    Labelled(Vec<LabelledState>),
    /// No label: a limit was hit, the state is a dead end, or the solver's plan failed (why).
    Unlabelled(String),
}

/// Every state of `plan` from `start` (start first, the goal state last)
/// with its cost-to-go along the plan. The plan must be applicable and
/// reach the goal.
pub fn plan_labels(
    task: &Task,
    start: &[u64],
    plan: &[OpId],
    source: &LabelSource,
) -> Result<Vec<LabelledState>, Error> {
    let mut states = vec![start.to_vec()];
    let mut next = start.to_vec();
    for (i, &op) in plan.iter().enumerate() {
        let s = states.last().expect("starts with the start state");
        if op as usize >= task.operators.len() || !is_applicable(task, s, op) {
            return Err(Error::Input(format!("plan step {} is not applicable", i + 1)));
        }
        apply(task, s, op, &mut next);
        states.push(next.clone());
    }
    if !is_goal(task, states.last().expect("non-empty")) {
        return Err(Error::Input("the plan does not reach the goal".into()));
    }
    let mut to_go = 0u64;
    let mut out = Vec::with_capacity(states.len());
    for (i, s) in states.into_iter().enumerate().rev() {
        if i < plan.len() {
            to_go += task.operators[plan[i] as usize].cost as u64;
        }
        out.push(LabelledState { state: s, h_star: to_go, source: source.clone() });
    }
    out.reverse();
    Ok(out)
}

/// Labels `state` of `task` (and the states of its plan). Errors are
/// settings that cannot work (an unknown solver, one that does not handle
/// the domain); states that cannot be labelled are [`Outcome::Unlabelled`].
pub fn label_state(task: &Task, state: &[u64], settings: &LabellerSettings) -> Result<Outcome, Error> {
    let source = settings.source();
    let plan = match &settings.solver {
        Some(name) => match solvers::solve_task(name, task, state, settings.seed) {
            Ok(plan) => plan,
            Err(SolverError::Unsolvable(why)) => return Ok(Outcome::Unlabelled(format!("dead end: {why}"))),
            Err(e) => return Err(Error::Settings(format!("labeller solver:{name}: {e}"))),
        },
        None => {
            let mut from = task.clone();
            from.init.clear();
            for_each_fact(state, |f| from.init.push(f));
            let limits = Limits::new(settings.optimal_max_evaluations, settings.optimal_time_s, None);
            let r = planner::search::astar(&from, &mut LmCut::new(&from), limits);
            match r.status {
                SearchStatus::Solved => r.plan,
                s => return Ok(Outcome::Unlabelled(format!("A* with LM-cut: {}", s.as_str()))),
            }
        }
    };
    match plan_labels(task, state, &plan, &source) {
        Ok(l) => Ok(Outcome::Labelled(l)),
        Err(e) => Ok(Outcome::Unlabelled(format!("{source} gave a bad plan: {e}"))),
    }
}

/// Labelled states of one task, each state once with its smallest label.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(from = "Vec<LabelledState>", into = "Vec<LabelledState>")]
pub struct LabelStore {
    entries: Vec<LabelledState>,
    index: FxMap<Box<[u64]>, usize>,
}

impl From<Vec<LabelledState>> for LabelStore {
    fn from(v: Vec<LabelledState>) -> LabelStore {
        let mut s = LabelStore::default();
        for l in v {
            s.insert(l);
        }
        s
    }
}

impl From<LabelStore> for Vec<LabelledState> {
    fn from(s: LabelStore) -> Vec<LabelledState> {
        s.entries
    }
}

impl PartialEq for LabelStore {
    fn eq(&self, other: &LabelStore) -> bool {
        self.entries == other.entries
    }
}

impl LabelStore {
    /// Adds a label; a state already present keeps the smaller one. Returns
    /// the entry's index (stable: entries are never removed).
    pub fn insert(&mut self, l: LabelledState) -> usize {
        match self.index.get(l.state.as_slice()) {
            Some(&i) => {
                if l.h_star < self.entries[i].h_star {
                    self.entries[i] = l;
                }
                i
            }
            None => {
                self.index.insert(l.state.clone().into(), self.entries.len());
                self.entries.push(l);
                self.entries.len() - 1
            }
        }
    }

    pub fn position(&self, state: &[u64]) -> Option<usize> {
        self.index.get(state).copied()
    }

    pub fn get(&self, i: usize) -> &LabelledState {
        &self.entries[i]
    }

    pub fn entries(&self) -> &[LabelledState] {
        &self.entries
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}
