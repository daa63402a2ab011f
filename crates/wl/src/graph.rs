//! The instance learning graph (ILG) of Chen, Trevizan & Thiébaux (ICAPS
//! 2024): a node per object and per proposition that is true in the state or
//! a goal; an edge between a proposition and each of its arguments, labelled
//! by the argument's position. Object nodes share one colour; a
//! proposition's colour is its predicate and one of three descriptions:
//! a true non-goal fact, an unachieved goal, an achieved goal.
//!
//! The graph of a state is the task's fixed part (objects, static atoms,
//! goal atoms) plus the true non-goal fluent facts, so [`Ilg`] precomputes
//! every atom's arguments and predicate once per task and [`Ilg::nodes`]
//! only lists which atoms are present and their colours.
//!
//! Static atoms are part of the relational state (the paper's graphs are of
//! the PDDL state, which holds them). Two differences from WLPlan, both
//! because grounding has compiled the information away: a static goal atom
//! is a plain true fact here (WLPlan: an achieved goal), and domain
//! constants are ordinary objects (WLPlan can give them their own colours;
//! its default does not). Negative goals are not told apart (the track has
//! none).

use planner::task::{FactId, GroundAtom};
use planner::Task;

/// What a proposition node is, in the state and the goal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Description {
    /// True, not a goal.
    Fact = 0,
    /// A goal, false in the state.
    UnachievedGoal = 1,
    /// A goal, true in the state.
    AchievedGoal = 2,
}

/// A task's ILG, everything but the state.
#[derive(Debug, Clone)]
pub struct Ilg {
    pub num_objects: usize,
    /// Predicate names, indexed as the task's.
    pub predicates: Vec<String>,
    /// Every atom: static atoms first (`0..num_static`), then fluent fact `f` at `num_static + f`.
    atom_pred: Vec<u32>,
    args_start: Vec<u32>,
    args: Vec<u32>,
    num_static: usize,
    /// Fluent facts that are goals (marked), and the goal list.
    is_goal: Vec<bool>,
    goal: Vec<FactId>,
}

/// The atoms present in one state's graph and their descriptions.
#[derive(Debug, Default, Clone)]
pub struct Nodes {
    /// Atom indices of [`Ilg`].
    pub atoms: Vec<u32>,
    pub descriptions: Vec<Description>,
}

impl Ilg {
    pub fn new(task: &Task) -> Ilg {
        let mut g = Ilg {
            num_objects: task.objects.len(),
            predicates: task.predicates.clone(),
            atom_pred: vec![],
            args_start: vec![0],
            args: vec![],
            num_static: task.static_atoms.len(),
            is_goal: vec![false; task.facts.len()],
            goal: task.goal.clone(),
        };
        let mut push = |a: &GroundAtom| {
            g.atom_pred.push(a.predicate);
            g.args.extend_from_slice(&a.args);
            g.args_start.push(g.args.len() as u32);
        };
        task.static_atoms.iter().for_each(&mut push);
        task.facts.iter().for_each(&mut push);
        for &f in &task.goal {
            g.is_goal[f as usize] = true;
        }
        g
    }

    /// Static atoms are atoms `0..num_static()`, first in every [`Nodes`].
    pub fn num_static(&self) -> usize {
        self.num_static
    }

    pub fn num_atoms(&self) -> usize {
        self.atom_pred.len()
    }

    pub fn predicate(&self, atom: u32) -> u32 {
        self.atom_pred[atom as usize]
    }

    /// The atom's arguments (object indices), in position order.
    pub fn args(&self, atom: u32) -> &[u32] {
        &self.args[self.args_start[atom as usize] as usize..self.args_start[atom as usize + 1] as usize]
    }

    /// The proposition nodes of `state`'s graph: static atoms, goals (achieved
    /// or not) and true non-goal facts, written into `out`.
    pub fn nodes(&self, state: &[u64], out: &mut Nodes) {
        out.atoms.clear();
        out.descriptions.clear();
        for a in 0..self.num_static as u32 {
            out.atoms.push(a);
            out.descriptions.push(Description::Fact);
        }
        for &f in &self.goal {
            out.atoms.push(self.num_static as u32 + f);
            out.descriptions.push(if planner::state::has(state, f) {
                Description::AchievedGoal
            } else {
                Description::UnachievedGoal
            });
        }
        planner::state::for_each_fact(state, |f| {
            if !self.is_goal[f as usize] {
                out.atoms.push(self.num_static as u32 + f);
                out.descriptions.push(Description::Fact);
            }
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const DOMAIN: &str = "(define (domain bw) (:requirements :strips)
      (:predicates (on ?x ?y) (ontable ?x) (clear ?x) (handempty) (holding ?x) (block ?x))
      (:action pickup :parameters (?x) :precondition (and (block ?x) (clear ?x) (ontable ?x) (handempty))
        :effect (and (holding ?x) (not (clear ?x)) (not (ontable ?x)) (not (handempty))))
      (:action putdown :parameters (?x) :precondition (holding ?x)
        :effect (and (clear ?x) (ontable ?x) (handempty) (not (holding ?x))))
      (:action stack :parameters (?x ?y) :precondition (and (holding ?x) (clear ?y))
        :effect (and (on ?x ?y) (clear ?x) (handempty) (not (holding ?x)) (not (clear ?y))))
      (:action unstack :parameters (?x ?y) :precondition (and (block ?x) (on ?x ?y) (clear ?x) (handempty))
        :effect (and (holding ?x) (clear ?y) (not (on ?x ?y)) (not (clear ?x)) (not (handempty)))))";
    pub(crate) const PROBLEM: &str = "(define (problem p) (:domain bw) (:objects a b c)
      (:init (block a) (block b) (block c) (ontable a) (ontable b) (on c a) (clear b) (clear c) (handempty))
      (:goal (and (on a b) (on b c))))";

    #[test]
    fn nodes_are_statics_goals_and_true_non_goal_facts() {
        let task = planner::label::load(DOMAIN, PROBLEM, false).unwrap();
        let g = Ilg::new(&task);
        assert_eq!(g.num_objects, 3);
        let s = planner::state::initial_state(&task);
        let mut n = Nodes::default();
        g.nodes(&s, &mut n);
        // 3 static (block ?x), 2 goals, 6 true fluent facts (none a goal).
        assert_eq!(n.atoms.len(), 3 + 2 + 6);
        assert_eq!(n.descriptions.iter().filter(|&&d| d == Description::UnachievedGoal).count(), 2);
        assert_eq!(n.descriptions.iter().filter(|&&d| d == Description::AchievedGoal).count(), 0);
        // An atom's arguments in position order: (on c a) is c then a.
        let on_c_a = n
            .atoms
            .iter()
            .copied()
            .find(|&a| task.predicates[g.predicate(a) as usize] == "on" && task.objects[g.args(a)[0] as usize] == "c")
            .unwrap();
        let names: Vec<&str> = g.args(on_c_a).iter().map(|&o| task.objects[o as usize].as_str()).collect();
        assert_eq!(names, ["c", "a"]);
    }
}
