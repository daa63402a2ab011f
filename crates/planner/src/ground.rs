//! Grounding by relaxed reachability.
//!
//! A Datalog-style fixpoint: starting from the initial atoms, an action
//! instance is reachable when all its positive preconditions are reachable
//! atoms (negative preconditions are ignored, as in the delete relaxation,
//! except on static predicates where they are decided exactly), and its add
//! effects become reachable atoms. Evaluation is semi-naive: each new atom is
//! joined only against the atoms known so far, so every instance is found when
//! its last precondition appears. Only reachable facts and operators are
//! emitted; static predicates (changed by no action) are compiled away.

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::pddl::{Atom, Domain, Literal, Problem, Term};
use crate::task::{GroundAtom, Operator, Task};

/// Grounding failed because of something in the input the parser could not see.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct GroundError(pub String);

/// Upper bound on reachable action instances, so a pathological input fails
/// with a message instead of exhausting memory.
const MAX_GROUND_ACTIONS: usize = 20_000_000;

/// An argument of a lifted atom after name resolution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Arg {
    Param(usize),
    Object(u32),
}

#[derive(Debug, Clone)]
struct LAtom {
    pred: u32,
    args: Vec<Arg>,
}

struct LAction {
    name: String,
    /// Allowed objects per parameter (from its type).
    domains: Vec<Vec<u32>>,
    allowed: Vec<Vec<bool>>,
    /// Positive preconditions on any predicate: the join body.
    body: Vec<LAtom>,
    /// For each body atom used as trigger, the order to join the others in.
    join_orders: Vec<Vec<usize>>,
    /// `(a, b, equal?)` constraints.
    equalities: Vec<(Arg, Arg, bool)>,
    /// Negative preconditions on static predicates: decided during grounding.
    neg_static: Vec<LAtom>,
    neg_fluent: Vec<LAtom>,
    add: Vec<LAtom>,
    del: Vec<LAtom>,
}

struct Names {
    objects: Vec<String>,
    object_index: FxHashMap<String, u32>,
    predicates: Vec<String>,
    pred_index: FxHashMap<String, u32>,
}

/// How to ground.
#[derive(Debug, Clone, Copy)]
pub struct GroundOptions {
    /// Drop facts and operators that cannot matter for the goal (see [`prune_irrelevant`]).
    /// Consumers that need every fluent atom of a state (learners reading
    /// relational states) turn this off.
    pub prune_irrelevant: bool,
}

impl Default for GroundOptions {
    fn default() -> Self {
        GroundOptions { prune_irrelevant: true }
    }
}

/// Grounds a parsed domain and problem into a STRIPS task, irrelevant parts pruned.
pub fn ground(domain: &Domain, problem: &Problem) -> Result<Task, GroundError> {
    ground_with(domain, problem, GroundOptions::default())
}

/// Grounds with explicit options.
pub fn ground_with(domain: &Domain, problem: &Problem, options: GroundOptions) -> Result<Task, GroundError> {
    // Types: each type's set of subtypes (itself included).
    let mut type_index: FxHashMap<&str, usize> = FxHashMap::default();
    type_index.insert("object", 0);
    for (t, _) in &domain.types {
        let n = type_index.len();
        type_index.entry(t.as_str()).or_insert(n);
    }
    let mut parent = vec![usize::MAX; type_index.len()];
    for (t, p) in &domain.types {
        parent[type_index[t.as_str()]] = type_index[p.as_str()];
    }
    let is_subtype = |mut t: usize, of: usize| -> bool {
        for _ in 0..=parent.len() {
            if t == of {
                return true;
            }
            if t == usize::MAX || parent[t] == usize::MAX {
                return false;
            }
            t = parent[t];
        }
        false
    };

    // Objects: domain constants, then problem objects (a redeclared constant keeps its index).
    let mut names = Names {
        objects: vec![],
        object_index: FxHashMap::default(),
        predicates: vec![],
        pred_index: FxHashMap::default(),
    };
    let mut object_type: Vec<usize> = vec![];
    for o in domain.constants.iter().chain(&problem.objects) {
        if names.object_index.contains_key(&o.name) {
            continue;
        }
        names.object_index.insert(o.name.clone(), names.objects.len() as u32);
        names.objects.push(o.name.clone());
        object_type.push(type_index[o.types[0].as_str()]);
    }
    for p in &domain.predicates {
        names.pred_index.insert(p.name.clone(), names.predicates.len() as u32);
        names.predicates.push(p.name.clone());
    }
    let objects_of = |types: &[String]| -> Vec<u32> {
        let ts: Vec<usize> = types.iter().map(|t| type_index[t.as_str()]).collect();
        (0..names.objects.len() as u32)
            .filter(|&o| ts.iter().any(|&t| is_subtype(object_type[o as usize], t)))
            .collect()
    };

    // Which predicates some action changes.
    let mut fluent = vec![false; names.predicates.len()];
    for a in &domain.actions {
        for e in &a.effect {
            fluent[names.pred_index[&e.atom.predicate] as usize] = true;
        }
    }

    let actions: Vec<LAction> = domain.actions.iter().map(|a| lower_action(a, &names, &fluent, &objects_of)).collect();

    // The fixpoint.
    let mut atoms = AtomStore::default();
    let mut queue: VecDeque<u32> = VecDeque::new();
    for a in &problem.init {
        let ga = resolve_ground(a, &names);
        if let Some(id) = atoms.insert(ga) {
            queue.push_back(id);
        }
    }
    let init_atoms: FxHashSet<u32> = (0..atoms.atoms.len() as u32).collect();
    let mut triggers: Vec<Vec<(usize, usize)>> = vec![vec![]; names.predicates.len()];
    for (ai, a) in actions.iter().enumerate() {
        for (bi, b) in a.body.iter().enumerate() {
            triggers[b.pred as usize].push((ai, bi));
        }
    }
    let mut instances: FxHashSet<(u32, Vec<u32>)> = FxHashSet::default();
    let mut instance_list: Vec<(u32, Vec<u32>)> = vec![];
    let mut new_bindings: Vec<Vec<u32>> = vec![];

    // Actions with no positive precondition are reachable from the start.
    for (ai, a) in actions.iter().enumerate() {
        if a.body.is_empty() {
            new_bindings.clear();
            let binding = vec![u32::MAX; a.domains.len()];
            complete(a, &atoms, &init_atoms, binding, &[], &mut new_bindings);
            for b in new_bindings.drain(..) {
                fire(ai, a, b, &mut atoms, &mut queue, &mut instances, &mut instance_list)?;
            }
        }
    }
    while let Some(atom_id) = queue.pop_front() {
        let atom = atoms.atoms[atom_id as usize].clone();
        for &(ai, bi) in &triggers[atom.predicate as usize] {
            let a = &actions[ai];
            let mut binding = vec![u32::MAX; a.domains.len()];
            if !unify(&a.body[bi], &atom, &mut binding, a) {
                continue;
            }
            new_bindings.clear();
            complete(a, &atoms, &init_atoms, binding, &a.join_orders[bi], &mut new_bindings);
            for b in new_bindings.drain(..) {
                fire(ai, a, b, &mut atoms, &mut queue, &mut instances, &mut instance_list)?;
            }
        }
    }

    let mut task = build_task(domain, problem, &names, &fluent, &actions, &atoms, &init_atoms, instance_list)?;
    if options.prune_irrelevant {
        prune_irrelevant(&mut task);
    }
    Ok(task)
}

fn resolve_ground(a: &Atom, names: &Names) -> GroundAtom {
    GroundAtom {
        predicate: names.pred_index[&a.predicate],
        args: a.args.iter().map(|t| names.object_index[t.name()]).collect(),
    }
}

fn lower_action(
    a: &crate::pddl::ActionSchema,
    names: &Names,
    fluent: &[bool],
    objects_of: &dyn Fn(&[String]) -> Vec<u32>,
) -> LAction {
    let params: FxHashMap<&str, usize> = a.parameters.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect();
    let arg = |t: &Term| match t {
        Term::Var(v) => Arg::Param(params[v.as_str()]),
        Term::Const(c) => Arg::Object(names.object_index[c.as_str()]),
    };
    let latom = |at: &Atom| LAtom { pred: names.pred_index[&at.predicate], args: at.args.iter().map(arg).collect() };
    let domains: Vec<Vec<u32>> = a.parameters.iter().map(|p| objects_of(&p.types)).collect();
    let allowed = domains
        .iter()
        .map(|d| {
            let mut v = vec![false; names.objects.len()];
            for &o in d {
                v[o as usize] = true;
            }
            v
        })
        .collect();
    let mut body = vec![];
    let mut equalities = vec![];
    let mut neg_static = vec![];
    let mut neg_fluent = vec![];
    for Literal { atom, positive } in &a.precondition {
        if atom.is_equality() {
            equalities.push((arg(&atom.args[0]), arg(&atom.args[1]), *positive));
        } else if *positive {
            body.push(latom(atom));
        } else if fluent[names.pred_index[&atom.predicate] as usize] {
            neg_fluent.push(latom(atom));
        } else {
            neg_static.push(latom(atom));
        }
    }
    let join_orders = (0..body.len()).map(|t| join_order(&body, t, a.parameters.len())).collect();
    let (add, del) = a.effect.iter().partition::<Vec<_>, _>(|l| l.positive);
    LAction {
        name: a.name.clone(),
        domains,
        allowed,
        body,
        join_orders,
        equalities,
        neg_static,
        neg_fluent,
        add: add.into_iter().map(|l| latom(&l.atom)).collect(),
        del: del.into_iter().map(|l| latom(&l.atom)).collect(),
    }
}

/// Greedy join order after binding `trigger`: next the atom sharing the most
/// already-bound parameters (fewest candidates), ties by position.
fn join_order(body: &[LAtom], trigger: usize, nparams: usize) -> Vec<usize> {
    let mut bound = vec![false; nparams];
    let mark = |bound: &mut Vec<bool>, at: &LAtom| {
        for a in &at.args {
            if let Arg::Param(p) = a {
                bound[*p] = true;
            }
        }
    };
    mark(&mut bound, &body[trigger]);
    let mut rest: Vec<usize> = (0..body.len()).filter(|&i| i != trigger).collect();
    let mut order = vec![];
    while !rest.is_empty() {
        let score = |i: usize| {
            let args = &body[i].args;
            let unbound = args.iter().filter(|a| matches!(a, Arg::Param(p) if !bound[*p])).count();
            (unbound, usize::MAX - (args.len() - unbound))
        };
        let (k, _) = rest.iter().enumerate().min_by_key(|(_, &i)| score(i)).expect("non-empty");
        let i = rest.remove(k);
        mark(&mut bound, &body[i]);
        order.push(i);
    }
    order
}

/// Binds `pattern` to `atom`; false if they conflict.
fn unify(pattern: &LAtom, atom: &GroundAtom, binding: &mut [u32], a: &LAction) -> bool {
    for (arg, &obj) in pattern.args.iter().zip(&atom.args) {
        match *arg {
            Arg::Object(o) => {
                if o != obj {
                    return false;
                }
            }
            Arg::Param(p) => {
                if binding[p] == u32::MAX {
                    if !a.allowed[p][obj as usize] {
                        return false;
                    }
                    binding[p] = obj;
                } else if binding[p] != obj {
                    return false;
                }
            }
        }
    }
    true
}

/// Joins the remaining body atoms in `order`, then enumerates unbound
/// parameters by type, then checks equality and static negative constraints.
fn complete(
    a: &LAction,
    atoms: &AtomStore,
    init_atoms: &FxHashSet<u32>,
    binding: Vec<u32>,
    order: &[usize],
    out: &mut Vec<Vec<u32>>,
) {
    let Some((&next, rest)) = order.split_first() else {
        enumerate_free(a, atoms, init_atoms, binding, 0, out);
        return;
    };
    let pattern = &a.body[next];
    // Pick the smallest candidate list among the bound positions.
    let mut best: Option<&[u32]> = None;
    for (pos, arg) in pattern.args.iter().enumerate() {
        let obj = match *arg {
            Arg::Object(o) => o,
            Arg::Param(p) if binding[p] != u32::MAX => binding[p],
            _ => continue,
        };
        let list = atoms.by_arg.get(&(pattern.pred, pos as u32, obj)).map(Vec::as_slice).unwrap_or(&[]);
        if best.is_none_or(|b| list.len() < b.len()) {
            best = Some(list);
        }
    }
    let candidates = best.unwrap_or_else(|| atoms.by_pred.get(pattern.pred as usize).map(Vec::as_slice).unwrap_or(&[]));
    for &id in candidates {
        let mut b = binding.clone();
        if unify(pattern, &atoms.atoms[id as usize], &mut b, a) {
            complete(a, atoms, init_atoms, b, rest, out);
        }
    }
}

fn enumerate_free(
    a: &LAction,
    atoms: &AtomStore,
    init_atoms: &FxHashSet<u32>,
    mut binding: Vec<u32>,
    from: usize,
    out: &mut Vec<Vec<u32>>,
) {
    if let Some(p) = (from..binding.len()).find(|&p| binding[p] == u32::MAX) {
        for &o in &a.domains[p] {
            binding[p] = o;
            enumerate_free(a, atoms, init_atoms, binding.clone(), p + 1, out);
        }
        return;
    }
    let value = |arg: Arg| match arg {
        Arg::Param(p) => binding[p],
        Arg::Object(o) => o,
    };
    for &(x, y, equal) in &a.equalities {
        if (value(x) == value(y)) != equal {
            return;
        }
    }
    for n in &a.neg_static {
        let ga = GroundAtom { predicate: n.pred, args: n.args.iter().map(|&x| value(x)).collect() };
        if atoms.get(&ga).is_some_and(|id| init_atoms.contains(&id)) {
            return;
        }
    }
    out.push(binding);
}

fn instantiate(at: &LAtom, binding: &[u32]) -> GroundAtom {
    GroundAtom {
        predicate: at.pred,
        args: at
            .args
            .iter()
            .map(|a| match *a {
                Arg::Param(p) => binding[p],
                Arg::Object(o) => o,
            })
            .collect(),
    }
}

fn fire(
    ai: usize,
    a: &LAction,
    binding: Vec<u32>,
    atoms: &mut AtomStore,
    queue: &mut VecDeque<u32>,
    instances: &mut FxHashSet<(u32, Vec<u32>)>,
    list: &mut Vec<(u32, Vec<u32>)>,
) -> Result<(), GroundError> {
    let key = (ai as u32, binding);
    if instances.contains(&key) {
        return Ok(());
    }
    for eff in &a.add {
        if let Some(id) = atoms.insert(instantiate(eff, &key.1)) {
            queue.push_back(id);
        }
    }
    instances.insert(key.clone());
    list.push(key);
    if list.len() > MAX_GROUND_ACTIONS {
        return Err(GroundError(format!(
            "more than {MAX_GROUND_ACTIONS} reachable action instances; the task is too large to ground"
        )));
    }
    Ok(())
}

/// Interned ground atoms with indexes for joins.
#[derive(Default)]
struct AtomStore {
    atoms: Vec<GroundAtom>,
    ids: FxHashMap<GroundAtom, u32>,
    by_pred: Vec<Vec<u32>>,
    by_arg: FxHashMap<(u32, u32, u32), Vec<u32>>,
}

impl AtomStore {
    /// Returns the new id, or None if the atom was known.
    fn insert(&mut self, a: GroundAtom) -> Option<u32> {
        if self.ids.contains_key(&a) {
            return None;
        }
        let id = self.atoms.len() as u32;
        if self.by_pred.len() <= a.predicate as usize {
            self.by_pred.resize(a.predicate as usize + 1, vec![]);
        }
        self.by_pred[a.predicate as usize].push(id);
        for (pos, &o) in a.args.iter().enumerate() {
            self.by_arg.entry((a.predicate, pos as u32, o)).or_default().push(id);
        }
        self.ids.insert(a.clone(), id);
        self.atoms.push(a);
        Some(id)
    }

    fn get(&self, a: &GroundAtom) -> Option<u32> {
        self.ids.get(a).copied()
    }
}

#[allow(clippy::too_many_arguments)]
fn build_task(
    domain: &Domain,
    problem: &Problem,
    names: &Names,
    fluent: &[bool],
    actions: &[LAction],
    atoms: &AtomStore,
    init_atoms: &FxHashSet<u32>,
    mut instances: Vec<(u32, Vec<u32>)>,
) -> Result<Task, GroundError> {
    // Canonical numbering: facts and operators sorted by their names
    // (predicate or action name, then argument names), as Fast Downward's
    // translator orders atoms and operators. Besides making ids independent
    // of declaration order, this matters for LM-cut: its value depends on how
    // ties between equally expensive preconditions are broken, and following
    // Fast Downward's order reproduces its values far more often.
    let atom_key = |a: &GroundAtom| {
        let args: Vec<&str> = a.args.iter().map(|&o| names.objects[o as usize].as_str()).collect();
        (names.predicates[a.predicate as usize].as_str(), args)
    };
    let mut facts: Vec<GroundAtom> = atoms.atoms.iter().filter(|a| fluent[a.predicate as usize]).cloned().collect();
    facts.sort_by_cached_key(|a| atom_key(a));
    let fact_id: FxHashMap<&GroundAtom, u32> = facts.iter().enumerate().map(|(i, a)| (a, i as u32)).collect();
    let mut static_atoms: Vec<GroundAtom> = init_atoms
        .iter()
        .map(|&id| &atoms.atoms[id as usize])
        .filter(|a| !fluent[a.predicate as usize])
        .cloned()
        .collect();
    static_atoms.sort();

    instances.sort_by_cached_key(|(ai, binding)| {
        let args: Vec<&str> = binding.iter().map(|&o| names.objects[o as usize].as_str()).collect();
        (actions[*ai as usize].name.as_str(), args)
    });
    let mut operators = Vec::with_capacity(instances.len());
    for (ai, binding) in &instances {
        let a = &actions[*ai as usize];
        let ids = |list: &[LAtom]| -> Vec<u32> {
            let mut v: Vec<u32> =
                list.iter().filter_map(|at| fact_id.get(&instantiate(at, binding)).copied()).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let pre = ids(&a.body.iter().filter(|b| fluent[b.pred as usize]).cloned().collect::<Vec<_>>());
        let neg_pre = ids(&a.neg_fluent);
        if neg_pre.iter().any(|f| pre.binary_search(f).is_ok()) {
            continue; // p and not p: never applicable
        }
        let add = ids(&a.add);
        let mut del = ids(&a.del);
        // PDDL semantics: deletes first, then adds; an atom both added and deleted stays true.
        del.retain(|f| add.binary_search(f).is_err());
        // An effect that changes nothing (adds only what it needs, deletes nothing) is dropped.
        if del.is_empty() && add.iter().all(|f| pre.binary_search(f).is_ok()) {
            continue;
        }
        let mut name = format!("({}", a.name);
        for &o in binding {
            name.push(' ');
            name.push_str(&names.objects[o as usize]);
        }
        name.push(')');
        operators.push(Operator { name, pre, neg_pre, add, del, cost: 1 });
    }

    let mut init: Vec<u32> =
        init_atoms.iter().filter_map(|&id| fact_id.get(&atoms.atoms[id as usize]).copied()).collect();
    init.sort_unstable();

    let mut goal = vec![];
    let mut goal_neg = vec![];
    let mut unsolvable = None;
    for l in &problem.goal {
        if l.atom.is_equality() {
            let same = l.atom.args[0].name() == l.atom.args[1].name();
            if same != l.positive {
                unsolvable = Some(format!("goal equality {} is false", describe_literal(l)));
            }
            continue;
        }
        let ga = resolve_ground(&l.atom, names);
        match (fact_id.get(&ga), l.positive) {
            (Some(&f), true) => goal.push(f),
            (Some(&f), false) => goal_neg.push(f),
            (None, true) => {
                let is_static_true = atoms.get(&ga).is_some_and(|id| init_atoms.contains(&id));
                if !is_static_true {
                    unsolvable =
                        Some(format!("goal {} is unreachable even ignoring delete effects", describe_literal(l)));
                }
            }
            (None, false) => {
                let is_true = atoms.get(&ga).is_some_and(|id| init_atoms.contains(&id));
                if is_true && !fluent[ga.predicate as usize] {
                    unsolvable = Some(format!("goal {} contradicts a static fact", describe_literal(l)));
                }
            }
        }
    }
    goal.sort_unstable();
    goal.dedup();
    goal_neg.sort_unstable();
    goal_neg.dedup();
    if goal.iter().any(|f| goal_neg.binary_search(f).is_ok()) {
        unsolvable = Some("the goal requires a fact to be both true and false".into());
    }

    Ok(Task {
        domain_name: domain.name.clone(),
        problem_name: problem.name.clone(),
        objects: names.objects.clone(),
        predicates: names.predicates.clone(),
        facts,
        static_atoms,
        operators,
        init,
        goal,
        goal_neg,
        unsolvable,
    })
}

/// Removes what cannot matter for reaching the goal (as Fast Downward's and
/// pyperplan's translators do): a fact is relevant if it is a goal or a
/// (negative) precondition of a relevant operator; an operator is relevant
/// if it adds or deletes a relevant fact. Irrelevant facts would only split
/// states that are the same for the goal (visitall's visited non-goal cells
/// multiply the state space by 2^cells), and irrelevant operators can be
/// dropped from any plan without making it invalid or costlier.
pub fn prune_irrelevant(task: &mut Task) {
    let n = task.num_facts();
    let mut affecting: Vec<Vec<u32>> = vec![vec![]; n];
    for (i, op) in task.operators.iter().enumerate() {
        for &f in op.add.iter().chain(&op.del) {
            affecting[f as usize].push(i as u32);
        }
    }
    let mut relevant_fact = vec![false; n];
    let mut relevant_op = vec![false; task.operators.len()];
    let mut queue: Vec<u32> = vec![];
    for &f in task.goal.iter().chain(&task.goal_neg) {
        if !std::mem::replace(&mut relevant_fact[f as usize], true) {
            queue.push(f);
        }
    }
    while let Some(f) = queue.pop() {
        for &o in &affecting[f as usize] {
            if std::mem::replace(&mut relevant_op[o as usize], true) {
                continue;
            }
            let op = &task.operators[o as usize];
            for &g in op.pre.iter().chain(&op.neg_pre) {
                if !std::mem::replace(&mut relevant_fact[g as usize], true) {
                    queue.push(g);
                }
            }
        }
    }
    // Renumber the relevant facts, keeping their (name) order.
    let mut new_id = vec![u32::MAX; n];
    let mut facts = Vec::new();
    for (f, atom) in task.facts.iter().enumerate() {
        if relevant_fact[f] {
            new_id[f] = facts.len() as u32;
            facts.push(atom.clone());
        }
    }
    let map = |list: &[u32]| -> Vec<u32> {
        list.iter().filter(|&&f| relevant_fact[f as usize]).map(|&f| new_id[f as usize]).collect()
    };
    let operators = task
        .operators
        .iter()
        .zip(&relevant_op)
        .filter(|(_, &r)| r)
        .map(|(op, _)| Operator {
            name: op.name.clone(),
            pre: map(&op.pre),
            neg_pre: map(&op.neg_pre),
            add: map(&op.add),
            del: map(&op.del),
            cost: op.cost,
        })
        .filter(|op| !op.del.is_empty() || op.add.iter().any(|f| op.pre.binary_search(f).is_err()))
        .collect();
    task.init = map(&task.init);
    task.goal = map(&task.goal);
    task.goal_neg = map(&task.goal_neg);
    task.facts = facts;
    task.operators = operators;
}

fn describe_literal(l: &Literal) -> String {
    let mut s = format!("({}", l.atom.predicate);
    for t in &l.atom.args {
        s.push(' ');
        s.push_str(t.name());
    }
    s.push(')');
    if l.positive {
        s
    } else {
        format!("(not {s})")
    }
}
