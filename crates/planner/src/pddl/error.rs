//! Errors for PDDL input: every one names the file, line and column.

use std::fmt;

/// A 1-based line and column in a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// A problem with PDDL input, located in its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    pub file: String,
    pub pos: Pos,
    pub message: String,
}

impl ParseError {
    pub fn new(file: &str, pos: Pos, message: impl Into<String>) -> Self {
        ParseError { file: file.to_string(), pos, message: message.into() }
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.pos.line, self.pos.col, self.message)
    }
}
