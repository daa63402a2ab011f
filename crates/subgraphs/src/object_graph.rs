//! The object graph G(s) of Definition 21.
//!
//! Vertices: one per constant (label 0), one per predicate symbol (its own
//! label 3, 4, ...), one per atom true in s (label 1) and one per goal atom
//! (label 2). Edges: each atom or goal atom to its predicate symbol, and to
//! each constant among its arguments (once per distinct constant: the graph
//! is simple and edges carry no argument position, so `(on a b)` and
//! `(on b a)` look alike, as in the thesis).
//!
//! As in the thesis, types become unary predicate symbols whose atoms are
//! true in every state, and static (rigid) atoms are included, with label 1
//! like any state atom. Goal atoms are the problem's positive goal literals,
//! static ones included (grounding drops those from `Task::goal`). Negative
//! goals are refused: the thesis compiles them away before building graphs.
//!
//! Labels of symbols are fixed per *domain* ([`DomainSymbols`]): the domain's
//! predicates in declaration order, then its types, so every problem of a
//! domain uses the same labels and feature graphs mean the same thing across
//! problems.
//!
//! Vertex ids are stable across the states of a task ([`TaskGraph`]): every
//! fluent fact owns a vertex slot, present exactly while the fact is true.

use planner::ground::{ground_with, GroundOptions};
use planner::pddl::{parse_domain, parse_problem, Domain, Problem};
use planner::state::for_each_fact;
use planner::task::FactId;
use planner::Task;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use crate::graph::{Graph, Label};
use crate::Error;

/// Label of constants.
pub const CONSTANT: Label = 0;
/// Label of atoms true in the state (fluent or static).
pub const ATOM: Label = 1;
/// Label of goal atoms.
pub const GOAL: Label = 2;
/// Label of the first predicate symbol.
pub const FIRST_SYMBOL: Label = 3;

/// The predicate symbols of a domain, which fix the labels 3.. of its object graphs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DomainSymbols {
    pub domain: String,
    /// Declared predicates, in declaration order: labels 3, 4, ...
    pub predicates: Vec<String>,
    /// Declared types but `object`, in order of first mention: the labels after the predicates'.
    pub types: Vec<String>,
}

impl DomainSymbols {
    pub fn of(domain: &Domain) -> Result<DomainSymbols, Error> {
        let predicates: Vec<String> = domain.predicates.iter().map(|p| p.name.clone()).collect();
        let mut types: Vec<String> = vec![];
        for (child, parent) in &domain.types {
            for t in [child, parent] {
                if t != "object" && !types.contains(t) {
                    types.push(t.clone());
                }
            }
        }
        let count = predicates.len() + types.len();
        let max = (Label::MAX - FIRST_SYMBOL) as usize;
        if count > max {
            return Err(Error::TooManySymbols { domain: domain.name.clone(), count, max });
        }
        Ok(DomainSymbols { domain: domain.name.clone(), predicates, types })
    }

    /// Number of labels k = |Psi| + 3.
    pub fn num_labels(&self) -> usize {
        FIRST_SYMBOL as usize + self.predicates.len() + self.types.len()
    }

    pub fn predicate_label(&self, name: &str) -> Option<Label> {
        self.predicates.iter().position(|p| p == name).map(|i| FIRST_SYMBOL + i as Label)
    }

    pub fn type_label(&self, name: &str) -> Option<Label> {
        self.types.iter().position(|t| t == name).map(|i| FIRST_SYMBOL + (self.predicates.len() + i) as Label)
    }

    /// What a label stands for, for people: `constant`, `atom`, `goal`, a predicate or `type:NAME`.
    pub fn describe(&self, label: Label) -> String {
        match label {
            CONSTANT => "constant".into(),
            ATOM => "atom".into(),
            GOAL => "goal".into(),
            l => {
                let i = (l - FIRST_SYMBOL) as usize;
                if let Some(p) = self.predicates.get(i) {
                    p.clone()
                } else if let Some(t) = self.types.get(i - self.predicates.len()) {
                    format!("type:{t}")
                } else {
                    format!("unknown label {l}")
                }
            }
        }
    }
}

/// The object graphs of one task's states: the part every state shares
/// (constants, symbols, static and type atoms, goal atoms) and a vertex slot
/// per fluent fact.
#[derive(Debug, Clone)]
pub struct TaskGraph {
    symbols: DomainSymbols,
    base: Graph,
    first_fact: u32,
    /// Neighbours of each fluent fact's vertex: its symbol, then its distinct arguments.
    fact_neighbours: Vec<Vec<u32>>,
}

/// A parsed and grounded problem with every atom kept, and its object-graph layout.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub domain: Domain,
    pub problem: Problem,
    pub task: Task,
    pub graphs: TaskGraph,
}

/// Parses and grounds a domain and problem (keeping irrelevant atoms, which
/// are part of the state) and lays out their object graphs. File names are
/// for error messages.
pub fn load(domain_text: &str, domain_file: &str, problem_text: &str, problem_file: &str) -> Result<Loaded, Error> {
    let domain = parse_domain(domain_text, domain_file).map_err(planner::LoadError::from)?;
    let problem = parse_problem(problem_text, problem_file, &domain).map_err(planner::LoadError::from)?;
    let task =
        ground_with(&domain, &problem, GroundOptions { prune_irrelevant: false }).map_err(planner::LoadError::from)?;
    let graphs = TaskGraph::new(&domain, &problem, &task)?;
    Ok(Loaded { domain, problem, task, graphs })
}

/// [`load`] from files.
pub fn load_files(domain: &std::path::Path, problem: &std::path::Path) -> Result<Loaded, Error> {
    let dt = planner::read_text(domain)?;
    let pt = planner::read_text(problem)?;
    load(&dt, &domain.display().to_string(), &pt, &problem.display().to_string())
}

impl TaskGraph {
    /// Lays out the object graphs of `task`, grounded from `domain` and
    /// `problem` (ground with `prune_irrelevant: false` to keep every atom of a state).
    pub fn new(domain: &Domain, problem: &Problem, task: &Task) -> Result<TaskGraph, Error> {
        let symbols = DomainSymbols::of(domain)?;
        if task.domain_name != domain.name {
            return Err(Error::Input(format!(
                "task of domain {} given with domain {}: ground the task from this domain",
                task.domain_name, domain.name
            )));
        }
        if let Some(l) = problem.goal.iter().find(|l| !l.positive && !l.atom.is_equality()) {
            let args: Vec<&str> = l.atom.args.iter().map(|a| a.name()).collect();
            return Err(Error::NegativeGoal {
                problem: problem.name.clone(),
                literal: format!("(not ({} {}))", l.atom.predicate, args.join(" ")),
            });
        }
        let mut g = Graph::new();
        // Constants: vertex i is task object i.
        for _ in &task.objects {
            g.add_vertex(CONSTANT);
        }
        let object: FxHashMap<&str, u32> =
            task.objects.iter().enumerate().map(|(i, o)| (o.as_str(), i as u32)).collect();
        let first_symbol = g.len() as u32;
        for l in 0..(symbols.num_labels() - FIRST_SYMBOL as usize) {
            g.add_vertex(FIRST_SYMBOL + l as Label);
        }
        let symbol_vertex = |label: Label| first_symbol + (label - FIRST_SYMBOL) as u32;
        // Task predicate index -> symbol vertex.
        let mut pred_vertex = vec![];
        for p in &task.predicates {
            let l = symbols
                .predicate_label(p)
                .ok_or_else(|| Error::Input(format!("task predicate {p} is not declared by domain {}", domain.name)))?;
            pred_vertex.push(symbol_vertex(l));
        }
        let neighbours = |sym: u32, args: &mut dyn Iterator<Item = u32>| -> Vec<u32> {
            let mut n = vec![sym];
            for a in args {
                if !n[1..].contains(&a) {
                    n.push(a);
                }
            }
            n
        };
        let add_atom = |g: &mut Graph, label: Label, n: &[u32]| {
            let v = g.add_vertex(label);
            for &u in n {
                g.add_edge(v, u);
            }
        };
        for a in &task.static_atoms {
            add_atom(&mut g, ATOM, &neighbours(pred_vertex[a.predicate as usize], &mut a.args.iter().copied()));
        }
        // Types, with their ancestors, as unary atoms true in every state.
        for obj in domain.constants.iter().chain(&problem.objects) {
            let Some(&o) = object.get(obj.name.as_str()) else { continue };
            let mut todo: Vec<&str> = obj.types.iter().map(String::as_str).collect();
            let mut seen: Vec<&str> = vec![];
            while let Some(t) = todo.pop() {
                if seen.contains(&t) {
                    continue;
                }
                seen.push(t);
                todo.extend(domain.types.iter().filter(|(c, _)| c == t).map(|(_, p)| p.as_str()));
            }
            for t in seen {
                if let Some(l) = symbols.type_label(t) {
                    add_atom(&mut g, ATOM, &[symbol_vertex(l), o]);
                }
            }
        }
        // Goal atoms: the problem's positive goals (static ones too).
        let mut goals: Vec<(u32, Vec<u32>)> = vec![];
        for l in problem.goal.iter().filter(|l| l.positive && !l.atom.is_equality()) {
            let p = task.predicates.iter().position(|p| *p == l.atom.predicate).ok_or_else(|| {
                Error::Input(format!("goal predicate {} is not declared by domain {}", l.atom.predicate, domain.name))
            })?;
            let mut args = vec![];
            for t in &l.atom.args {
                args.push(*object.get(t.name()).ok_or_else(|| {
                    Error::Input(format!("goal argument {} is not an object of problem {}", t.name(), problem.name))
                })?);
            }
            if !goals.contains(&(p as u32, args.clone())) {
                goals.push((p as u32, args));
            }
        }
        for (p, args) in &goals {
            add_atom(&mut g, GOAL, &neighbours(pred_vertex[*p as usize], &mut args.iter().copied()));
        }
        let first_fact = g.len() as u32;
        let mut fact_neighbours = vec![];
        for a in &task.facts {
            g.add_slot(ATOM);
            fact_neighbours.push(neighbours(pred_vertex[a.predicate as usize], &mut a.args.iter().copied()));
        }
        Ok(TaskGraph { symbols, base: g, first_fact, fact_neighbours })
    }

    pub fn symbols(&self) -> &DomainSymbols {
        &self.symbols
    }

    /// The graph with no fluent fact true.
    pub fn base(&self) -> &Graph {
        &self.base
    }

    pub fn num_facts(&self) -> usize {
        self.fact_neighbours.len()
    }

    /// The vertex slot of a fluent fact.
    pub fn fact_vertex(&self, f: FactId) -> u32 {
        self.first_fact + f
    }

    /// The vertices a fluent fact's vertex is joined to: its symbol, then its distinct arguments.
    pub fn fact_neighbours(&self, f: FactId) -> &[u32] {
        &self.fact_neighbours[f as usize]
    }

    /// G(s) for the state whose true fluent facts are `facts`.
    pub fn graph(&self, facts: impl IntoIterator<Item = FactId>) -> Graph {
        let mut g = self.base.clone();
        for f in facts {
            let v = self.fact_vertex(f);
            if g.insert(v) {
                for &u in self.fact_neighbours(f) {
                    g.add_edge(v, u);
                }
            }
        }
        g
    }

    /// G(s) for a packed state (see `planner::state`).
    pub fn graph_of_packed(&self, state: &[u64]) -> Graph {
        let mut facts = vec![];
        for_each_fact(state, |f| facts.push(f));
        self.graph(facts)
    }
}
