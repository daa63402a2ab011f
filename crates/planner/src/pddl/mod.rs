//! PDDL input: reading domain and problem files into a lifted AST.

pub mod ast;
pub mod error;
pub mod parse;
pub mod sexpr;

pub use ast::*;
pub use error::{ParseError, Pos};
pub use parse::{parse_domain, parse_problem};
