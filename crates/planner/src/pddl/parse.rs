//! From s-expressions to the lifted AST, with checks that name the offending
//! construct and its position.
//!
//! Supported: `:strips`, `:typing` (hierarchies, `either` in parameter lists),
//! `:negative-preconditions`, `:equality`, constants, conjunctions of literals in
//! preconditions, goals and effects. Everything else is refused by name.

use std::collections::{HashMap, HashSet};

use super::ast::*;
use super::error::{ParseError, Pos};
use super::sexpr::{read_one, SExpr};

/// Requirements we understand. Others are accepted only if their constructs are
/// never used (many IPC files declare `:adl` for plain STRIPS content), since we
/// refuse each unsupported construct where it appears.
const KNOWN_REQUIREMENTS: &[&str] = &[":strips", ":typing", ":negative-preconditions", ":equality"];

/// Constructs we refuse, with the name the user will recognise.
fn unsupported_construct(head: &str) -> Option<&'static str> {
    Some(match head {
        "or" => "disjunctive preconditions (`or`)",
        "imply" => "implications (`imply`)",
        "exists" => "existential quantifiers (`exists`)",
        "forall" => "universal quantifiers (`forall`)",
        "when" => "conditional effects (`when`)",
        "increase" | "decrease" | "assign" | "scale-up" | "scale-down" => "numeric effects / action costs",
        ">" | "<" | ">=" | "<=" => "numeric comparisons (numeric fluents)",
        "preference" => "preferences",
        "probabilistic" => "probabilistic effects (PPDDL)",
        "oneof" => "non-deterministic effects (`oneof`)",
        _ => return None,
    })
}

struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err<T>(&self, pos: Pos, msg: impl Into<String>) -> Result<T, ParseError> {
        Err(ParseError::new(self.file, pos, msg))
    }

    fn list<'e>(&self, e: &'e SExpr, what: &str) -> Result<&'e [SExpr], ParseError> {
        match e {
            SExpr::List(items, _) => Ok(items),
            SExpr::Atom(..) => self.err(e.pos(), format!("expected {what}, found {}", e.describe())),
        }
    }

    fn atom<'e>(&self, e: &'e SExpr, what: &str) -> Result<&'e str, ParseError> {
        match e {
            SExpr::Atom(s, _) => Ok(s),
            SExpr::List(..) => self.err(e.pos(), format!("expected {what}, found {}", e.describe())),
        }
    }

    fn name<'e>(&self, e: &'e SExpr, what: &str) -> Result<&'e str, ParseError> {
        let s = self.atom(e, what)?;
        if s.starts_with('?') || s.starts_with(':') || s == "-" {
            return self.err(e.pos(), format!("expected {what}, found `{s}`"));
        }
        Ok(s)
    }

    /// `(define (KIND NAME) sections...)` → (name, sections).
    fn define<'e>(&self, root: &'e SExpr, kind: &str) -> Result<(&'e str, &'e [SExpr]), ParseError> {
        let items = self.list(root, "`(define ...)`")?;
        match items.first().and_then(SExpr::as_atom) {
            Some("define") => {}
            _ => return self.err(root.pos(), "expected `(define ...)`"),
        }
        let Some(header) = items.get(1) else {
            return self.err(root.pos(), format!("expected `({kind} NAME)` after `define`"));
        };
        let h = self.list(header, &format!("`({kind} NAME)`"))?;
        if h.len() != 2 || h[0].as_atom() != Some(kind) {
            let other = if kind == "domain" { "problem" } else { "domain" };
            if h.first().and_then(SExpr::as_atom) == Some(other) {
                return self.err(
                    header.pos(),
                    format!(
                        "expected a {kind} file, found a {other} file (are the DOMAIN and PROBLEM arguments swapped?)"
                    ),
                );
            }
            return self.err(header.pos(), format!("expected `({kind} NAME)`"));
        }
        let name = self.name(&h[1], &format!("a {kind} name"))?;
        Ok((name, &items[2..]))
    }

    /// A section `(:keyword ...)`: returns the keyword and its body.
    fn section<'e>(&self, e: &'e SExpr) -> Result<(&'e str, &'e [SExpr]), ParseError> {
        let items = self.list(e, "a section such as `(:predicates ...)`")?;
        match items.first().and_then(SExpr::as_atom) {
            Some(k) if k.starts_with(':') => Ok((k, &items[1..])),
            _ => self.err(e.pos(), format!("expected a section such as `(:predicates ...)`, found {}", e.describe())),
        }
    }

    /// A typed list: `a b - t c - (either u v) d` (untyped names get `object`).
    fn typed_list(&self, items: &[SExpr], vars: bool, what: &str) -> Result<Vec<TypedName>, ParseError> {
        let mut out = Vec::new();
        let mut pending: Vec<(String, Pos)> = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let e = &items[i];
            if e.as_atom() == Some("-") {
                let Some(t) = items.get(i + 1) else {
                    return self.err(e.pos(), "expected a type after `-`");
                };
                if pending.is_empty() {
                    return self.err(e.pos(), format!("expected {what} before `-`"));
                }
                let types = self.type_spec(t)?;
                for (name, pos) in pending.drain(..) {
                    out.push(TypedName { name, types: types.clone(), pos });
                }
                i += 2;
                continue;
            }
            let s = self.atom(e, what)?;
            if vars != s.starts_with('?') || s.starts_with(':') || s == "?" {
                return self.err(e.pos(), format!("expected {what}, found `{s}`"));
            }
            pending.push((s.to_string(), e.pos()));
            i += 1;
        }
        for (name, pos) in pending {
            out.push(TypedName { name, types: vec!["object".into()], pos });
        }
        Ok(out)
    }

    fn type_spec(&self, e: &SExpr) -> Result<Vec<String>, ParseError> {
        match e {
            SExpr::Atom(..) => Ok(vec![self.name(e, "a type name")?.to_string()]),
            SExpr::List(items, pos) => {
                if items.first().and_then(SExpr::as_atom) != Some("either") || items.len() < 2 {
                    return self.err(*pos, "expected a type name or `(either TYPE ...)`");
                }
                items[1..].iter().map(|t| self.name(t, "a type name").map(str::to_string)).collect()
            }
        }
    }

    fn term(&self, e: &SExpr) -> Result<Term, ParseError> {
        let s = self.atom(e, "a variable or an object name")?;
        if s == "?" || s.starts_with(':') || s == "-" {
            return self.err(e.pos(), format!("expected a variable or an object name, found `{s}`"));
        }
        Ok(if s.starts_with('?') { Term::Var(s.to_string()) } else { Term::Const(s.to_string()) })
    }

    fn atom_expr(&self, e: &SExpr, items: &[SExpr]) -> Result<Atom, ParseError> {
        let predicate = self.atom(&items[0], "a predicate name")?;
        if predicate.starts_with('?') || predicate.starts_with(':') {
            return self.err(items[0].pos(), format!("expected a predicate name, found `{predicate}`"));
        }
        if let Some(nested) = items[1..].iter().find(|a| a.as_list().is_some()) {
            return self.err(
                nested.pos(),
                format!(
                    "unsupported construct `({predicate} ...)` with a nested list: expected an atom, \
                     a predicate applied to variables or objects"
                ),
            );
        }
        let args = items[1..].iter().map(|a| self.term(a)).collect::<Result<Vec<_>, _>>()?;
        Ok(Atom { predicate: predicate.to_string(), args, pos: e.pos() })
    }

    /// A conjunction of literals: `(and l...)`, a single literal, or `()`.
    /// `effect` only changes the wording of messages.
    fn conjunction(&self, e: &SExpr, out: &mut Vec<Literal>, effect: bool) -> Result<(), ParseError> {
        let items = self.list(e, if effect { "an effect" } else { "a condition" })?;
        let Some(head) = items.first() else { return Ok(()) };
        let Some(head_name) = head.as_atom() else {
            return self.err(head.pos(), format!("expected a predicate name or `and`, found {}", head.describe()));
        };
        if head_name == "and" {
            for item in &items[1..] {
                self.conjunction(item, out, effect)?;
            }
            return Ok(());
        }
        out.push(self.literal(e, effect)?);
        Ok(())
    }

    fn literal(&self, e: &SExpr, effect: bool) -> Result<Literal, ParseError> {
        let items = self.list(e, "a literal")?;
        let Some(head) = items.first() else {
            return self.err(e.pos(), "expected a literal, found `()`");
        };
        let head_name = self.atom(head, "a predicate name")?;
        if let Some(what) = unsupported_construct(head_name) {
            return self.err(e.pos(), format!("unsupported construct: {what}"));
        }
        if head_name == "and" {
            return self.err(e.pos(), "nested `and` is only allowed at the top of a conjunction");
        }
        if head_name == "not" {
            if items.len() != 2 {
                return self.err(e.pos(), "expected exactly one atom inside `not`");
            }
            let inner = self.list(&items[1], "an atom inside `not`")?;
            let Some(inner_head) = inner.first() else {
                return self.err(items[1].pos(), "expected an atom inside `not`, found `()`");
            };
            let inner_name = self.atom(inner_head, "a predicate name")?;
            if let Some(what) = unsupported_construct(inner_name) {
                return self.err(items[1].pos(), format!("unsupported construct: {what}"));
            }
            if inner_name == "not" || inner_name == "and" {
                return self.err(items[1].pos(), format!("unsupported construct: `{inner_name}` inside `not`"));
            }
            let atom = self.atom_expr(&items[1], inner)?;
            if effect && atom.is_equality() {
                return self.err(atom.pos, "equality cannot be an effect");
            }
            return Ok(Literal { atom, positive: false });
        }
        let atom = self.atom_expr(e, items)?;
        if effect && atom.is_equality() {
            return self.err(atom.pos, "equality cannot be an effect");
        }
        Ok(Literal { atom, positive: true })
    }
}

/// Parses a domain file's text. `file` is used in error messages.
pub fn parse_domain(text: &str, file: &str) -> Result<Domain, ParseError> {
    let cx = Ctx { file };
    let root = read_one(text, file)?;
    let (name, sections) = cx.define(&root, "domain")?;
    let mut domain = Domain {
        name: name.to_string(),
        requirements: vec![],
        types: vec![],
        constants: vec![],
        predicates: vec![],
        actions: vec![],
    };
    let mut seen = HashSet::new();
    for s in sections {
        let (key, body) = cx.section(s)?;
        if key != ":action" && !seen.insert(key.to_string()) {
            return cx.err(s.pos(), format!("duplicate section `{key}`"));
        }
        match key {
            ":requirements" => {
                for r in body {
                    let r = cx.atom(r, "a requirement such as `:strips`")?;
                    domain.requirements.push(r.to_string());
                }
            }
            ":types" => {
                for t in cx.typed_list(body, false, "a type name")? {
                    if t.types.len() != 1 {
                        return cx.err(t.pos, "unsupported construct: `either` as a supertype in `:types`");
                    }
                    if t.name == "object" {
                        continue;
                    }
                    domain.types.push((t.name, t.types[0].clone()));
                }
            }
            ":constants" => domain.constants = cx.typed_list(body, false, "a constant name")?,
            ":predicates" => {
                for p in body {
                    let items = cx.list(p, "a predicate declaration `(name ?x ...)`")?;
                    let Some(head) = items.first() else {
                        return cx.err(p.pos(), "expected a predicate declaration, found `()`");
                    };
                    let pname = cx.name(head, "a predicate name")?;
                    let params = cx.typed_list(&items[1..], true, "a variable such as `?x`")?;
                    domain.predicates.push(PredicateDecl { name: pname.to_string(), params, pos: p.pos() });
                }
            }
            ":action" => domain.actions.push(parse_action(&cx, s, body)?),
            ":functions" => return cx.err(s.pos(), "unsupported construct: numeric fluents / action costs (`:functions`)"),
            ":derived" => return cx.err(s.pos(), "unsupported construct: derived predicates (`:derived`)"),
            ":durative-action" => return cx.err(s.pos(), "unsupported construct: durative actions"),
            ":constraints" => return cx.err(s.pos(), "unsupported construct: constraints (`:constraints`)"),
            other => return cx.err(s.pos(), format!("unknown domain section `{other}`; expected :requirements, :types, :constants, :predicates or :action")),
        }
    }
    check_domain(&cx, &domain)?;
    Ok(domain)
}

fn parse_action(cx: &Ctx, s: &SExpr, body: &[SExpr]) -> Result<ActionSchema, ParseError> {
    let Some(name) = body.first() else {
        return cx.err(s.pos(), "expected an action name after `:action`");
    };
    let name = cx.name(name, "an action name")?.to_string();
    let mut action = ActionSchema { name, parameters: vec![], precondition: vec![], effect: vec![], pos: s.pos() };
    let mut i = 1;
    let mut seen = HashSet::new();
    while i < body.len() {
        let key = cx.atom(&body[i], "`:parameters`, `:precondition` or `:effect`")?;
        let Some(value) = body.get(i + 1) else {
            return cx.err(body[i].pos(), format!("expected a value after `{key}`"));
        };
        if !seen.insert(key) {
            return cx.err(body[i].pos(), format!("duplicate `{key}` in action `{}`", action.name));
        }
        match key {
            ":parameters" => {
                let items = cx.list(value, "a parameter list `(?x - type ...)`")?;
                action.parameters = cx.typed_list(items, true, "a variable such as `?x`")?;
            }
            ":precondition" => cx.conjunction(value, &mut action.precondition, false)?,
            ":effect" => cx.conjunction(value, &mut action.effect, true)?,
            other => {
                return cx.err(
                    body[i].pos(),
                    format!("unknown action key `{other}`; expected :parameters, :precondition or :effect"),
                )
            }
        }
        i += 2;
    }
    Ok(action)
}

/// Name resolution and arity checks, so that grounding never meets an unknown name.
fn check_domain(cx: &Ctx, d: &Domain) -> Result<(), ParseError> {
    for r in &d.requirements {
        if !KNOWN_REQUIREMENTS.contains(&r.as_str()) && !r.starts_with(':') {
            return cx.err(Pos::default(), format!("`{r}` is not a requirement (requirements start with `:`)"));
        }
    }
    let mut types: HashSet<&str> = d.types.iter().map(|(t, _)| t.as_str()).collect();
    types.insert("object");
    let check_types = |tn: &TypedName| -> Result<(), ParseError> {
        for t in &tn.types {
            if !types.contains(t.as_str()) {
                return cx.err(tn.pos, format!("unknown type `{t}` for `{}`", tn.name));
            }
        }
        Ok(())
    };
    for (t, parent) in &d.types {
        if !types.contains(parent.as_str()) {
            return cx.err(Pos::default(), format!("type `{t}` has an undeclared supertype `{parent}`"));
        }
    }
    // Type cycles would make subtype checks loop.
    let parents: HashMap<&str, &str> = d.types.iter().map(|(t, p)| (t.as_str(), p.as_str())).collect();
    for (t, _) in &d.types {
        let mut cur = t.as_str();
        for _ in 0..=parents.len() {
            match parents.get(cur) {
                Some(p) => cur = p,
                None => break,
            }
        }
        if parents.contains_key(cur) {
            return cx.err(Pos::default(), format!("the type hierarchy has a cycle through `{t}`"));
        }
    }
    let mut constants = HashSet::new();
    for c in &d.constants {
        check_types(c)?;
        constants.insert(c.name.as_str());
    }
    let mut arity: HashMap<&str, usize> = HashMap::new();
    for p in &d.predicates {
        for v in &p.params {
            check_types(v)?;
        }
        if p.name == "=" {
            return cx.err(p.pos, "`=` is built in and cannot be declared");
        }
        if arity.insert(&p.name, p.params.len()).is_some() {
            return cx.err(p.pos, format!("predicate `{}` is declared twice", p.name));
        }
    }
    let mut action_names = HashSet::new();
    for a in &d.actions {
        if !action_names.insert(a.name.as_str()) {
            return cx.err(a.pos, format!("action `{}` is defined twice", a.name));
        }
        let mut vars = HashSet::new();
        for p in &a.parameters {
            check_types(p)?;
            if !vars.insert(p.name.as_str()) {
                return cx.err(p.pos, format!("parameter `{}` appears twice in action `{}`", p.name, a.name));
            }
        }
        for lit in a.precondition.iter().chain(&a.effect) {
            check_atom(
                cx,
                &lit.atom,
                &arity,
                &|t: &Term| match t {
                    Term::Var(v) => vars.contains(v.as_str()),
                    Term::Const(c) => constants.contains(c.as_str()),
                },
                &format!("action `{}`", a.name),
            )?;
        }
    }
    Ok(())
}

fn check_atom(
    cx: &Ctx,
    atom: &Atom,
    arity: &HashMap<&str, usize>,
    known: &dyn Fn(&Term) -> bool,
    place: &str,
) -> Result<(), ParseError> {
    let expected = if atom.is_equality() {
        2
    } else {
        match arity.get(atom.predicate.as_str()) {
            Some(&n) => n,
            None => return cx.err(atom.pos, format!("undeclared predicate `{}` in {place}", atom.predicate)),
        }
    };
    if atom.args.len() != expected {
        return cx.err(
            atom.pos,
            format!(
                "predicate `{}` takes {expected} argument(s), found {} in {place}",
                atom.predicate,
                atom.args.len()
            ),
        );
    }
    for t in &atom.args {
        if !known(t) {
            let what = match t {
                Term::Var(_) => "variable (not a parameter)",
                Term::Const(_) => "object or constant",
            };
            return cx.err(atom.pos, format!("unknown {what} `{}` in {place}", t.name()));
        }
    }
    Ok(())
}

/// Parses a problem file's text against its domain.
pub fn parse_problem(text: &str, file: &str, domain: &Domain) -> Result<Problem, ParseError> {
    let cx = Ctx { file };
    let root = read_one(text, file)?;
    let (name, sections) = cx.define(&root, "problem")?;
    let mut problem =
        Problem { name: name.to_string(), domain: String::new(), objects: vec![], init: vec![], goal: vec![] };
    let mut seen = HashSet::new();
    let mut has_goal = false;
    for s in sections {
        let (key, body) = cx.section(s)?;
        if !seen.insert(key.to_string()) {
            return cx.err(s.pos(), format!("duplicate section `{key}`"));
        }
        match key {
            ":domain" => {
                let [d] = body else { return cx.err(s.pos(), "expected `(:domain NAME)`") };
                problem.domain = cx.name(d, "a domain name")?.to_string();
            }
            ":requirements" => {}
            ":objects" => problem.objects = cx.typed_list(body, false, "an object name")?,
            ":init" => {
                for fact in body {
                    let items = cx.list(fact, "an initial fact `(predicate object ...)`")?;
                    let Some(head) = items.first() else {
                        return cx.err(fact.pos(), "expected an initial fact, found `()`");
                    };
                    let head_name = cx.atom(head, "a predicate name")?;
                    if head_name == "=" && items.len() == 3 && items[1].as_list().is_some() {
                        return cx.err(
                            fact.pos(),
                            "unsupported construct: numeric fluents / action costs (`=` on a function)",
                        );
                    }
                    if head_name == "not" {
                        return cx.err(
                            fact.pos(),
                            "negative initial facts are not allowed: the initial state is closed-world",
                        );
                    }
                    if head_name == "at"
                        && items.len() == 3
                        && items[1].as_atom().is_some_and(|a| a.parse::<f64>().is_ok())
                    {
                        return cx.err(fact.pos(), "unsupported construct: timed initial literals");
                    }
                    let atom = cx.atom_expr(fact, items)?;
                    if let Some(t) = atom.args.iter().find(|t| matches!(t, Term::Var(_))) {
                        return cx
                            .err(fact.pos(), format!("initial facts must be ground, found variable `{}`", t.name()));
                    }
                    problem.init.push(atom);
                }
            }
            ":goal" => {
                let [g] = body else { return cx.err(s.pos(), "expected `(:goal CONDITION)`") };
                cx.conjunction(g, &mut problem.goal, false)?;
                if let Some(l) = problem.goal.iter().find(|l| l.atom.args.iter().any(|t| matches!(t, Term::Var(_)))) {
                    return cx.err(l.atom.pos, "goal atoms must be ground (quantifiers are not supported)");
                }
                has_goal = true;
            }
            ":metric" => return cx.err(s.pos(), "unsupported construct: action costs / metrics (`:metric`)"),
            ":constraints" => return cx.err(s.pos(), "unsupported construct: constraints (`:constraints`)"),
            other => {
                return cx.err(
                    s.pos(),
                    format!("unknown problem section `{other}`; expected :domain, :objects, :init or :goal"),
                )
            }
        }
    }
    if !has_goal {
        return cx.err(root.pos(), "the problem has no `(:goal ...)` section");
    }
    check_problem(&cx, &problem, domain)?;
    Ok(problem)
}

fn check_problem(cx: &Ctx, p: &Problem, d: &Domain) -> Result<(), ParseError> {
    let mut types: HashSet<&str> = d.types.iter().map(|(t, _)| t.as_str()).collect();
    types.insert("object");
    let mut objects: HashSet<&str> = d.constants.iter().map(|c| c.name.as_str()).collect();
    let constants = objects.clone();
    for o in &p.objects {
        for t in &o.types {
            if !types.contains(t.as_str()) {
                return cx.err(o.pos, format!("unknown type `{t}` for object `{}`", o.name));
            }
        }
        if o.types.len() != 1 {
            return cx.err(o.pos, format!("object `{}` must have a single type, not `either`", o.name));
        }
        if !objects.insert(&o.name) && !constants.contains(o.name.as_str()) {
            return cx.err(o.pos, format!("object `{}` is declared twice", o.name));
        }
    }
    let arity: HashMap<&str, usize> = d.predicates.iter().map(|p| (p.name.as_str(), p.params.len())).collect();
    let known = |t: &Term| objects.contains(t.name());
    for a in &p.init {
        if a.is_equality() {
            return cx.err(a.pos, "`=` cannot appear in the initial state");
        }
        check_atom(cx, a, &arity, &known, "the initial state")?;
    }
    for l in &p.goal {
        check_atom(cx, &l.atom, &arity, &known, "the goal")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOMAIN: &str = "(define (domain d) (:requirements :strips :typing)
        (:types block - object)
        (:predicates (on ?x ?y - block) (clear ?x - block))
        (:action move :parameters (?x ?y - block)
          :precondition (and (clear ?x) (clear ?y) (not (= ?x ?y)))
          :effect (and (on ?x ?y) (not (clear ?y)))))";

    fn err_domain(text: &str) -> String {
        parse_domain(text, "d.pddl").unwrap_err().to_string()
    }

    #[test]
    fn parses_a_typed_domain() {
        let d = parse_domain(DOMAIN, "d.pddl").unwrap();
        assert_eq!(d.actions[0].parameters.len(), 2);
        assert_eq!(d.actions[0].precondition.len(), 3);
        assert!(!d.actions[0].precondition[2].positive);
        assert_eq!(d.types, vec![("block".to_string(), "object".to_string())]);
    }

    #[test]
    fn refuses_unsupported_constructs_by_name() {
        let text = DOMAIN.replace("(clear ?x) (clear ?y)", "(or (clear ?x) (clear ?y))");
        assert!(err_domain(&text).contains("disjunctive preconditions"));
        let text = DOMAIN.replace("(on ?x ?y) (not", "(when (clear ?x) (on ?x ?y)) (not");
        assert!(err_domain(&text).contains("conditional effects"));
        let text = DOMAIN.replace("(on ?x ?y) (not", "(increase (total-cost) 1) (not");
        assert!(err_domain(&text).contains("action costs"));
        let text = DOMAIN.replace("(:types", "(:functions (total-cost)) (:types");
        assert!(err_domain(&text).contains("numeric fluents"));
        let text = DOMAIN.replace("(:types", "(:derived (clear ?x) (clear ?x)) (:types");
        assert!(err_domain(&text).contains("derived predicates"));
    }

    #[test]
    fn errors_carry_line_and_column() {
        let text = "(define (domain d)\n  (:predicates (p ?x))\n  (:action a :parameters (?x) :precondition (q ?x) :effect (p ?x)))";
        let e = err_domain(text);
        assert!(e.starts_with("d.pddl:3:"), "{e}");
        assert!(e.contains("undeclared predicate `q`"), "{e}");
    }

    #[test]
    fn problem_checks_objects_and_arity() {
        let d = parse_domain(DOMAIN, "d.pddl").unwrap();
        let p = "(define (problem p) (:domain d) (:objects a b - block) (:init (clear a)) (:goal (on a c)))";
        let e = parse_problem(p, "p.pddl", &d).unwrap_err().to_string();
        assert!(e.contains("unknown object or constant `c`"), "{e}");
        let p = "(define (problem p) (:domain d) (:objects a b - block) (:init (clear a b)) (:goal (on a b)))";
        let e = parse_problem(p, "p.pddl", &d).unwrap_err().to_string();
        assert!(e.contains("takes 1 argument"), "{e}");
    }

    #[test]
    fn swapped_files_are_explained() {
        let e = err_domain("(define (problem p) (:domain d) (:goal (and)))");
        assert!(e.contains("swapped"), "{e}");
    }
}
