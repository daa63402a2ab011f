//! The two heuristics that need no relaxation.

use super::{per_state_heuristic, HeuristicInfo};
use crate::state::has;
use crate::task::Task;

pub static BLIND: HeuristicInfo = HeuristicInfo {
    name: "blind",
    description: "0 at a goal state, else the cheapest action cost",
    admissible: true,
    detects_dead_ends: false,
    build: |task| Box::new(Blind::new(task)),
};

pub static GOALCOUNT: HeuristicInfo = HeuristicInfo {
    name: "goalcount",
    description: "the number of unsatisfied goal literals",
    admissible: false,
    detects_dead_ends: false,
    build: |task| Box::new(GoalCount::new(task)),
};

/// The number of goal literals a state does not satisfy.
pub struct GoalCount {
    goal: Vec<u32>,
    goal_neg: Vec<u32>,
}

impl GoalCount {
    pub fn new(task: &Task) -> Self {
        GoalCount { goal: task.goal.clone(), goal_neg: task.goal_neg.clone() }
    }

    pub fn unmet(&self, state: &[u64]) -> usize {
        self.goal.iter().filter(|&&f| !has(state, f)).count() + self.goal_neg.iter().filter(|&&f| has(state, f)).count()
    }

    pub fn value(&self, state: &[u64]) -> f64 {
        self.unmet(state) as f64
    }
}
per_state_heuristic!(GoalCount, GOALCOUNT);

/// 0 at a goal state, else the cheapest action cost.
pub struct Blind {
    goals: GoalCount,
    min_cost: f64,
}

impl Blind {
    pub fn new(task: &Task) -> Self {
        Blind { goals: GoalCount::new(task), min_cost: task.min_action_cost() as f64 }
    }

    pub fn value(&self, state: &[u64]) -> f64 {
        if self.goals.unmet(state) == 0 {
            0.0
        } else {
            self.min_cost
        }
    }
}
per_state_heuristic!(Blind, BLIND);
