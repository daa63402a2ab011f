//! Tokenizer and s-expression reader with source positions.
//!
//! PDDL is an s-expression language: we first read the bytes into a tree of
//! lists and atoms, each carrying the line and column where it starts, so that
//! the structural parser (`parse.rs`) can report `file:line:column` for every
//! error. Names are lowercased here: PDDL is case-insensitive. Names end at
//! whitespace, parentheses, `;` (a comment to the end of the line) and before
//! a `?`, which always starts a variable: Fast Downward reads `(at?x?y)` as
//! `(at ?x ?y)`, and competition files rely on it.

use super::error::{ParseError, Pos};

/// One node of the s-expression tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SExpr {
    Atom(String, Pos),
    List(Vec<SExpr>, Pos),
}

impl SExpr {
    pub fn pos(&self) -> Pos {
        match self {
            SExpr::Atom(_, p) | SExpr::List(_, p) => *p,
        }
    }

    pub fn as_atom(&self) -> Option<&str> {
        match self {
            SExpr::Atom(s, _) => Some(s),
            SExpr::List(..) => None,
        }
    }

    pub fn as_list(&self) -> Option<&[SExpr]> {
        match self {
            SExpr::List(items, _) => Some(items),
            SExpr::Atom(..) => None,
        }
    }

    /// A short description used in "expected X, found Y" messages.
    pub fn describe(&self) -> String {
        match self {
            SExpr::Atom(s, _) => format!("`{s}`"),
            SExpr::List(items, _) => match items.first().and_then(SExpr::as_atom) {
                Some(head) => format!("a list starting with `{head}`"),
                None => "a list".to_string(),
            },
        }
    }
}

/// Maximum nesting depth: deeper input is rejected instead of risking the stack.
const MAX_DEPTH: usize = 256;

/// Reads exactly one top-level s-expression from `text` (trailing whitespace and
/// comments allowed, anything else is an error).
pub fn read_one(text: &str, file: &str) -> Result<SExpr, ParseError> {
    let mut reader = Reader { bytes: text.as_bytes(), at: 0, line: 1, col: 1, file };
    reader.skip_blank();
    if reader.at >= reader.bytes.len() {
        return Err(reader.error(reader.pos(), "expected `(define ...)`, found end of file"));
    }
    let expr = reader.read(0)?;
    reader.skip_blank();
    if reader.at < reader.bytes.len() {
        let is_define = expr.as_list().and_then(|items| items.first()).and_then(SExpr::as_atom) == Some("define");
        if !is_define {
            // `(in-package ...)` and the like before the definition.
            return Err(reader.error(expr.pos(), format!("expected `(define ...)`, found {}", expr.describe())));
        }
        return Err(reader.error(reader.pos(), "unexpected text after the closing parenthesis of `define`"));
    }
    Ok(expr)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    line: u32,
    col: u32,
    file: &'a str,
}

impl Reader<'_> {
    fn pos(&self) -> Pos {
        Pos { line: self.line, col: self.col }
    }

    fn error(&self, pos: Pos, msg: impl Into<String>) -> ParseError {
        ParseError::new(self.file, pos, msg)
    }

    fn bump(&mut self) {
        if self.bytes[self.at] == b'\n' {
            self.line += 1;
            self.col = 1;
        } else if self.bytes[self.at] & 0xC0 != 0x80 {
            // Count characters, not UTF-8 continuation bytes.
            self.col += 1;
        }
        self.at += 1;
    }

    fn skip_blank(&mut self) {
        while self.at < self.bytes.len() {
            match self.bytes[self.at] {
                b';' => {
                    while self.at < self.bytes.len() && self.bytes[self.at] != b'\n' {
                        self.bump();
                    }
                }
                c if c.is_ascii_whitespace() => self.bump(),
                _ => break,
            }
        }
    }

    fn read(&mut self, depth: usize) -> Result<SExpr, ParseError> {
        let start = self.pos();
        match self.bytes[self.at] {
            b'(' => {
                if depth >= MAX_DEPTH {
                    return Err(self.error(start, format!("lists nested deeper than {MAX_DEPTH} levels")));
                }
                self.bump();
                let mut items = Vec::new();
                loop {
                    self.skip_blank();
                    if self.at >= self.bytes.len() {
                        return Err(self.error(
                            self.pos(),
                            format!(
                                "expected `)` to close the list opened at {}:{}, found end of file",
                                start.line, start.col
                            ),
                        ));
                    }
                    if self.bytes[self.at] == b')' {
                        self.bump();
                        return Ok(SExpr::List(items, start));
                    }
                    items.push(self.read(depth + 1)?);
                }
            }
            b')' => Err(self.error(start, "unexpected `)` with no matching `(`")),
            _ => {
                let begin = self.at;
                while self.at < self.bytes.len() {
                    let c = self.bytes[self.at];
                    // `?` always starts a new name, as in Fast Downward's reader:
                    // competition files write `(aircraft?a)` for `(aircraft ?a)`.
                    if c.is_ascii_whitespace() || c == b'(' || c == b')' || c == b';' || (c == b'?' && self.at > begin)
                    {
                        break;
                    }
                    self.bump();
                }
                let raw = &self.bytes[begin..self.at];
                let word = std::str::from_utf8(raw).map_err(|_| self.error(start, "invalid UTF-8 in a name"))?;
                if let Some(bad) = word.chars().find(|c| c.is_control()) {
                    return Err(self.error(start, format!("unexpected control character {:?} in a name", bad)));
                }
                Ok(SExpr::Atom(word.to_lowercase(), start))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_nested_lists_with_positions() {
        let e = read_one("; comment\n(Define (X y)\n  (:Z))", "f").unwrap();
        let items = e.as_list().unwrap();
        assert_eq!(items[0].as_atom(), Some("define"));
        assert_eq!(items[2].pos(), Pos { line: 3, col: 3 });
    }

    #[test]
    fn unclosed_list_names_its_opening() {
        let err = read_one("(define (x)", "f.pddl").unwrap_err();
        assert!(err.to_string().contains("opened at 1:1"), "{err}");
        assert!(err.to_string().starts_with("f.pddl:1:12"), "{err}");
    }

    #[test]
    fn a_question_mark_starts_a_new_name() {
        let e = read_one("(and (aircraft?a) (at?x?y) (p ??z))", "f").unwrap();
        let atoms = |i: usize| -> Vec<String> {
            e.as_list().unwrap()[i].as_list().unwrap().iter().map(|a| a.as_atom().unwrap().to_string()).collect()
        };
        assert_eq!(atoms(1), ["aircraft", "?a"]);
        assert_eq!(atoms(2), ["at", "?x", "?y"]);
        assert_eq!(atoms(3), ["p", "?", "?z"]);
        assert_eq!(e.as_list().unwrap()[1].as_list().unwrap()[1].pos(), Pos { line: 1, col: 15 });
    }

    #[test]
    fn text_before_define_is_named() {
        let err = read_one("(in-package \"PDDL\")\n(define (domain x))", "f").unwrap_err().to_string();
        assert_eq!(err, "f:1:1: expected `(define ...)`, found a list starting with `in-package`");
    }

    #[test]
    fn stray_close_is_an_error() {
        assert!(read_one("(a))", "f").is_err());
        assert!(read_one(")", "f").is_err());
        assert!(read_one("", "f").is_err());
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = "(".repeat(100_000);
        assert!(read_one(&text, "f").is_err());
    }
}
