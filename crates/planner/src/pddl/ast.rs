//! The lifted PDDL task as parsed: names are lowercased strings, every item
//! keeps its source position for later error messages.

use super::error::Pos;

/// A name with its declared type(s). More than one type means `(either ...)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedName {
    pub name: String,
    pub types: Vec<String>,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Term {
    /// `?x`, stored with its question mark.
    Var(String),
    Const(String),
}

impl Term {
    pub fn name(&self) -> &str {
        match self {
            Term::Var(s) | Term::Const(s) => s,
        }
    }
}

/// `(predicate term ...)`; the predicate `=` is equality.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    pub predicate: String,
    pub args: Vec<Term>,
    pub pos: Pos,
}

impl Atom {
    pub fn is_equality(&self) -> bool {
        self.predicate == "="
    }
}

/// An atom or its negation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Literal {
    pub atom: Atom,
    pub positive: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PredicateDecl {
    pub name: String,
    pub params: Vec<TypedName>,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ActionSchema {
    pub name: String,
    pub parameters: Vec<TypedName>,
    /// A conjunction of literals (equality allowed).
    pub precondition: Vec<Literal>,
    /// Add effects are positive literals, delete effects negative ones.
    pub effect: Vec<Literal>,
    pub pos: Pos,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    pub name: String,
    pub requirements: Vec<String>,
    /// `(name, parent)`; every type but `object` has exactly one parent.
    pub types: Vec<(String, String)>,
    pub constants: Vec<TypedName>,
    pub predicates: Vec<PredicateDecl>,
    pub actions: Vec<ActionSchema>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub name: String,
    pub domain: String,
    pub objects: Vec<TypedName>,
    /// Ground atoms true initially (closed world: everything else is false).
    pub init: Vec<Atom>,
    /// A conjunction of ground literals.
    pub goal: Vec<Literal>,
}
