//! The grounded STRIPS task that search and heuristics work on.
//!
//! Facts are dense indices `0..num_facts`; an operator lists the facts it
//! needs true (`pre`), needs false (`neg_pre`, from negative preconditions),
//! adds and deletes. Static facts are compiled away by grounding, but kept in
//! `static_atoms` for consumers that want the full relational state (learned
//! heuristics read them as input predicates).

pub type FactId = u32;
pub type OpId = u32;

/// A ground atom: predicate index and object indices into [`Task::predicates`] / [`Task::objects`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GroundAtom {
    pub predicate: u32,
    pub args: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operator {
    /// `(action arg ...)`, as written in a plan file.
    pub name: String,
    pub pre: Vec<FactId>,
    pub neg_pre: Vec<FactId>,
    pub add: Vec<FactId>,
    pub del: Vec<FactId>,
    pub cost: u32,
}

#[derive(Debug, Clone)]
pub struct Task {
    pub domain_name: String,
    pub problem_name: String,
    pub objects: Vec<String>,
    pub predicates: Vec<String>,
    /// The fluent facts, sorted by name (predicate, then argument names) so indices are canonical.
    pub facts: Vec<GroundAtom>,
    /// Atoms of predicates that no action changes, true in every state.
    pub static_atoms: Vec<GroundAtom>,
    pub operators: Vec<Operator>,
    /// Fluent facts true in the initial state, in increasing id order.
    pub init: Vec<FactId>,
    pub goal: Vec<FactId>,
    /// Facts that must be false in a goal state (negative goals).
    pub goal_neg: Vec<FactId>,
    /// Set when grounding proved the goal unreachable even in the delete relaxation.
    pub unsolvable: Option<String>,
}

impl Task {
    pub fn num_facts(&self) -> usize {
        self.facts.len()
    }

    pub fn fact_name(&self, f: FactId) -> String {
        self.atom_name(&self.facts[f as usize])
    }

    pub fn atom_name(&self, a: &GroundAtom) -> String {
        let mut s = format!("({}", self.predicates[a.predicate as usize]);
        for &o in &a.args {
            s.push(' ');
            s.push_str(&self.objects[o as usize]);
        }
        s.push(')');
        s
    }

    /// The cheapest operator cost (the blind heuristic's value off the goal).
    pub fn min_action_cost(&self) -> u32 {
        self.operators.iter().map(|o| o.cost).min().unwrap_or(0)
    }

    /// True if every action costs 1 (all PDDL tasks we accept are unit-cost).
    pub fn is_unit_cost(&self) -> bool {
        self.operators.iter().all(|o| o.cost == 1)
    }
}
