//! From s-expressions to the lifted AST, with checks that name the offending
//! construct and its position.
//!
//! Supported: `:strips`, `:typing` (hierarchies, `either` in parameter lists),
//! `:negative-preconditions`, `:equality`, constants, conjunctions of literals in
//! preconditions, goals and effects. Everything else is refused by name.
//!
//! What Fast Downward reads, we read the same way: a supertype used in
//! `:types` without a declaration of its own is a type whose parent is
//! `object`; negative initial facts only restate the closed world. What is not
//! PDDL is refused with its position: a problem without `(:domain NAME)` or
//! naming another domain, and initial or goal atoms whose objects do not have
//! the types their predicate declares.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use super::ast::*;
use super::error::{ParseError, Pos};
use super::sexpr::{read_one, SExpr};

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
    /// The positions of the arguments of every atom read, by the atom's
    /// position (unique in a file): checks made once the whole file is read
    /// point at the offending argument itself.
    arg_pos: RefCell<HashMap<Pos, Vec<Pos>>>,
}

impl<'a> Ctx<'a> {
    fn new(file: &'a str) -> Self {
        Ctx { file, arg_pos: RefCell::default() }
    }

    /// Where the `i`th argument of `atom` was written (the atom's position if unknown).
    fn arg_pos(&self, atom: &Atom, i: usize) -> Pos {
        self.arg_pos.borrow().get(&atom.pos).and_then(|v| v.get(i).copied()).unwrap_or(atom.pos)
    }

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
        self.arg_pos.borrow_mut().insert(e.pos(), items[1..].iter().map(SExpr::pos).collect());
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
    let cx = Ctx::new(file);
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
    let mut type_decls = vec![];
    let mut seen = HashSet::new();
    for s in sections {
        let (key, body) = cx.section(s)?;
        if key != ":action" && !seen.insert(key.to_string()) {
            return cx.err(s.pos(), format!("duplicate section `{key}`"));
        }
        match key {
            ":requirements" => domain.requirements = cx.requirements(body)?,
            ":types" => type_decls = cx.type_decls(body)?,
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
    domain.types = resolve_types(&cx, &type_decls)?;
    check_domain(&cx, &domain)?;
    Ok(domain)
}

/// One `NAME - PARENT` of `(:types ...)`, with where each was written.
struct TypeDecl {
    name: String,
    pos: Pos,
    parent: String,
    parent_pos: Pos,
}

impl Ctx<'_> {
    /// `(:requirements :strips ...)`: every one must be a `:keyword`. Those we
    /// do not support are accepted here: we refuse their constructs where used.
    fn requirements(&self, body: &[SExpr]) -> Result<Vec<String>, ParseError> {
        let mut out = Vec::new();
        for r in body {
            let name = self.atom(r, "a requirement such as `:strips`")?;
            if !name.starts_with(':') || name.len() == 1 {
                return self.err(r.pos(), format!("expected a requirement such as `:strips`, found `{name}`"));
            }
            out.push(name.to_string());
        }
        Ok(out)
    }

    /// The body of `(:types ...)`: `a b - parent c ...` (no parent means `object`).
    fn type_decls(&self, items: &[SExpr]) -> Result<Vec<TypeDecl>, ParseError> {
        let mut out = Vec::new();
        let mut pending: Vec<(String, Pos)> = Vec::new();
        let mut i = 0;
        while i < items.len() {
            let e = &items[i];
            if e.as_atom() == Some("-") {
                let Some(t) = items.get(i + 1) else {
                    return self.err(e.pos(), "expected a supertype after `-`");
                };
                if pending.is_empty() {
                    return self.err(e.pos(), "expected a type name before `-`");
                }
                if t.as_list().is_some() {
                    return self.err(t.pos(), "unsupported construct: `either` as a supertype in `:types`");
                }
                let parent = self.name(t, "a supertype name")?;
                for (name, pos) in pending.drain(..) {
                    out.push(TypeDecl { name, pos, parent: parent.to_string(), parent_pos: t.pos() });
                }
                i += 2;
                continue;
            }
            let name = self.name(e, "a type name")?;
            pending.push((name.to_string(), e.pos()));
            i += 1;
        }
        for (name, pos) in pending {
            out.push(TypeDecl { name, pos, parent: "object".into(), parent_pos: pos });
        }
        Ok(out)
    }
}

/// The type hierarchy as `(type, parent)` pairs, in declaration order.
///
/// As in Fast Downward, a supertype that is not declared on its own
/// (`(:types truck - vehicle)` with no `vehicle - ...`) is a type whose parent
/// is `object`; these come after the declared types. A type may be repeated
/// with the same parent, or once with `object` (the default) and once with
/// another: the specific parent wins, as `object` is everyone's ancestor anyway.
fn resolve_types(cx: &Ctx, decls: &[TypeDecl]) -> Result<Vec<(String, String)>, ParseError> {
    // type -> (parent, where the parent was written, where the type was declared)
    let mut parent: HashMap<&str, (&str, Pos, Pos)> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for d in decls {
        if d.name == "object" {
            if d.parent != "object" {
                return cx
                    .err(d.pos, format!("`object` is the root type: expected no supertype, found `{}`", d.parent));
            }
            continue;
        }
        match parent.get(d.name.as_str()) {
            None => {
                parent.insert(&d.name, (&d.parent, d.parent_pos, d.pos));
                order.push(&d.name);
            }
            Some(&(p, _, _)) if p == d.parent || d.parent == "object" => {}
            Some(&("object", _, pos)) => {
                parent.insert(&d.name, (&d.parent, d.parent_pos, pos));
            }
            Some(&(p, ppos, _)) => {
                return cx.err(
                    d.parent_pos,
                    format!(
                        "type `{}` already has the supertype `{p}` (at {}:{}): expected one supertype per type, \
                         found `{}`",
                        d.name, ppos.line, ppos.col, d.parent
                    ),
                )
            }
        }
    }
    let mut types: Vec<(String, String)> = order.iter().map(|&t| (t.to_string(), parent[t].0.to_string())).collect();
    let mut implicit: Vec<&str> = Vec::new();
    for &t in &order {
        let p = parent[t].0;
        if p != "object" && !parent.contains_key(p) && !implicit.contains(&p) {
            implicit.push(p);
        }
    }
    types.extend(implicit.iter().map(|&t| (t.to_string(), "object".to_string())));
    // A cycle would make subtype checks loop.
    for &t in &order {
        let mut cur = t;
        for _ in 0..=parent.len() {
            match parent.get(cur) {
                Some(&(p, _, _)) => cur = p,
                None => break,
            }
        }
        if parent.contains_key(cur) {
            let (_, _, pos) = parent[t];
            return cx.err(
                pos,
                format!("the type hierarchy has a cycle through `{t}`: expected every type to descend from `object`"),
            );
        }
    }
    Ok(types)
}

/// Subtype tests on a domain's type hierarchy (checked acyclic).
struct TypeTree<'a> {
    parent: HashMap<&'a str, &'a str>,
}

impl<'a> TypeTree<'a> {
    fn new(d: &'a Domain) -> Self {
        TypeTree { parent: d.types.iter().map(|(t, p)| (t.as_str(), p.as_str())).collect() }
    }

    fn is_type(&self, t: &str) -> bool {
        t == "object" || self.parent.contains_key(t)
    }

    fn is_subtype(&self, t: &str, of: &str) -> bool {
        if of == "object" {
            return true;
        }
        let mut cur = t;
        loop {
            if cur == of {
                return true;
            }
            match self.parent.get(cur) {
                Some(&p) => cur = p,
                None => return false,
            }
        }
    }
}

/// `t` or `(either t u)`, as written in messages.
fn describe_types(types: &[String]) -> String {
    match types {
        [t] => format!("`{t}`"),
        _ => format!("`(either {})`", types.join(" ")),
    }
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
    let tree = TypeTree::new(d);
    let check_types = |tn: &TypedName| -> Result<(), ParseError> {
        for t in &tn.types {
            if !tree.is_type(t) {
                return cx.err(
                    tn.pos,
                    format!("unknown type `{t}` for `{}`: expected a type declared in `:types`", tn.name),
                );
            }
        }
        Ok(())
    };
    let mut constants = HashSet::new();
    for c in &d.constants {
        check_types(c)?;
        if c.types.len() != 1 {
            return cx.err(c.pos, format!("constant `{}` must have a single type, not `either`", c.name));
        }
        if !constants.insert(c.name.as_str()) {
            return cx.err(c.pos, format!("constant `{}` is declared twice", c.name));
        }
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
    for (i, t) in atom.args.iter().enumerate() {
        if !known(t) {
            let what = match t {
                Term::Var(_) => "variable (not a parameter)",
                Term::Const(_) => "object or constant",
            };
            return cx.err(cx.arg_pos(atom, i), format!("unknown {what} `{}` in {place}", t.name()));
        }
    }
    Ok(())
}

/// Parses a problem file's text against its domain.
pub fn parse_problem(text: &str, file: &str, domain: &Domain) -> Result<Problem, ParseError> {
    let cx = Ctx::new(file);
    let root = read_one(text, file)?;
    let (name, sections) = cx.define(&root, "problem")?;
    let mut problem =
        Problem { name: name.to_string(), domain: String::new(), objects: vec![], init: vec![], goal: vec![] };
    let mut seen = HashSet::new();
    let mut has_goal = false;
    let mut has_init = false;
    let mut has_domain = false;
    // Negative initial facts: closed-world anyway, kept only to check they contradict nothing.
    let mut init_false: Vec<Atom> = vec![];
    for s in sections {
        let (key, body) = cx.section(s)?;
        if !seen.insert(key.to_string()) {
            return cx.err(s.pos(), format!("duplicate section `{key}`"));
        }
        match key {
            ":domain" => {
                let [d] = body else {
                    return cx.err(s.pos(), format!("expected `(:domain {})`", domain.name));
                };
                problem.domain = cx.name(d, "a domain name")?.to_string();
                if problem.domain != domain.name {
                    return cx.err(
                        d.pos(),
                        format!(
                            "the problem is for domain `{}`, but the domain file defines `{}`: expected `(:domain {})`",
                            problem.domain, domain.name, domain.name
                        ),
                    );
                }
                has_domain = true;
            }
            ":requirements" => {
                cx.requirements(body)?;
            }
            ":objects" => problem.objects = cx.typed_list(body, false, "an object name")?,
            ":init" => {
                has_init = true;
                for fact in body {
                    let (atom, positive) = init_fact(&cx, fact)?;
                    if positive {
                        problem.init.push(atom);
                    } else {
                        init_false.push(atom);
                    }
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
    if !has_domain {
        // Where it belongs: right after `(problem NAME)`.
        let at = sections.first().map_or(root.pos(), SExpr::pos);
        return cx.err(
            at,
            format!(
                "the problem does not say which domain it is for: expected `(:domain {})` after `(problem {name})`",
                domain.name
            ),
        );
    }
    if !has_init {
        return cx
            .err(root.pos(), "the problem has no `(:init ...)` section: expected the initial state, even if empty");
    }
    if !has_goal {
        return cx.err(root.pos(), "the problem has no `(:goal ...)` section");
    }
    check_problem(&cx, &problem, &init_false, domain)?;
    Ok(problem)
}

/// One element of `(:init ...)`: a ground atom, or a negated one (`positive` false).
fn init_fact(cx: &Ctx, fact: &SExpr) -> Result<(Atom, bool), ParseError> {
    let items = cx.list(fact, "an initial fact `(predicate object ...)`")?;
    let Some(head) = items.first() else {
        return cx.err(fact.pos(), "expected an initial fact, found `()`");
    };
    let head_name = cx.atom(head, "a predicate name")?;
    if head_name == "=" && items.len() == 3 && items[1].as_list().is_some() {
        return cx.err(fact.pos(), "unsupported construct: numeric fluents / action costs (`=` on a function)");
    }
    if head_name == "at" && items.len() == 3 && items[1].as_atom().is_some_and(|a| a.parse::<f64>().is_ok()) {
        return cx.err(fact.pos(), "unsupported construct: timed initial literals");
    }
    let (e, items, positive) = if head_name == "not" {
        let [_, inner] = items else {
            return cx.err(fact.pos(), "expected exactly one atom inside `not`");
        };
        let inner_items = cx.list(inner, "an atom inside `not`")?;
        if inner_items.is_empty() {
            return cx.err(inner.pos(), "expected an atom inside `not`, found `()`");
        }
        (inner, inner_items, false)
    } else {
        (fact, items, true)
    };
    let atom = cx.atom_expr(e, items)?;
    if let Some(i) = atom.args.iter().position(|t| matches!(t, Term::Var(_))) {
        return cx.err(
            cx.arg_pos(&atom, i),
            format!("initial facts must be ground: expected an object, found variable `{}`", atom.args[i].name()),
        );
    }
    Ok((atom, positive))
}

fn check_problem(cx: &Ctx, p: &Problem, init_false: &[Atom], d: &Domain) -> Result<(), ParseError> {
    let tree = TypeTree::new(d);
    let mut object_type: HashMap<&str, &str> =
        d.constants.iter().map(|c| (c.name.as_str(), c.types[0].as_str())).collect();
    let mut declared = HashSet::new();
    for o in &p.objects {
        for t in &o.types {
            if !tree.is_type(t) {
                return cx.err(
                    o.pos,
                    format!(
                        "unknown type `{t}` for object `{}`: expected a type declared in the domain's `:types`",
                        o.name
                    ),
                );
            }
        }
        if o.types.len() != 1 {
            return cx.err(o.pos, format!("object `{}` must have a single type, not `either`", o.name));
        }
        if !declared.insert(o.name.as_str()) {
            return cx.err(o.pos, format!("object `{}` is declared twice", o.name));
        }
        // Redeclaring a domain constant is tolerated, with the same type.
        match object_type.get(o.name.as_str()) {
            Some(&t) if t != o.types[0] => {
                return cx.err(
                    o.pos,
                    format!(
                        "object `{}` is a constant of type `{t}` in the domain: expected the same type, found `{}`",
                        o.name, o.types[0]
                    ),
                )
            }
            Some(_) => {}
            None => {
                object_type.insert(&o.name, &o.types[0]);
            }
        }
    }
    let predicates: HashMap<&str, &PredicateDecl> = d.predicates.iter().map(|p| (p.name.as_str(), p)).collect();
    let arity: HashMap<&str, usize> = d.predicates.iter().map(|p| (p.name.as_str(), p.params.len())).collect();
    let known = |t: &Term| object_type.contains_key(t.name());
    // Every argument's object must have (a subtype of) the type its predicate declares.
    let check_types = |a: &Atom, place: &str| -> Result<(), ParseError> {
        let Some(decl) = predicates.get(a.predicate.as_str()) else { return Ok(()) };
        for (i, (t, param)) in a.args.iter().zip(&decl.params).enumerate() {
            let ot = object_type[t.name()];
            if !param.types.iter().any(|pt| tree.is_subtype(ot, pt)) {
                return cx.err(
                    cx.arg_pos(a, i),
                    format!(
                        "argument {} of `{}` must be of type {}, found `{}` of type `{ot}` in {place}",
                        i + 1,
                        a.predicate,
                        describe_types(&param.types),
                        t.name()
                    ),
                );
            }
        }
        Ok(())
    };
    let mut init = HashSet::new();
    for a in &p.init {
        if a.is_equality() {
            return cx.err(a.pos, "`=` cannot appear in the initial state");
        }
        check_atom(cx, a, &arity, &known, "the initial state")?;
        check_types(a, "the initial state")?;
        init.insert((&a.predicate, &a.args));
    }
    for a in init_false {
        if a.is_equality() {
            return cx.err(a.pos, "`=` cannot appear in the initial state");
        }
        check_atom(cx, a, &arity, &known, "the initial state")?;
        check_types(a, "the initial state")?;
        if init.contains(&(&a.predicate, &a.args)) {
            let args: Vec<&str> = a.args.iter().map(Term::name).collect();
            return cx.err(
                a.pos,
                format!(
                    "`({} {})` is listed both as true and as false in the initial state",
                    a.predicate,
                    args.join(" ")
                ),
            );
        }
    }
    for l in &p.goal {
        check_atom(cx, &l.atom, &arity, &known, "the goal")?;
        if !l.atom.is_equality() {
            check_types(&l.atom, "the goal")?;
        }
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
