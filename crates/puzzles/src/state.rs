//! The one state type every puzzle shares: a permutation-like array of at
//! most [`MAX_CELLS`] bytes, copied by value (34 bytes, no heap).
//!
//! What a byte means is the domain's business: a tile per cell (sliding
//! tiles, `cells[pos] = tile`), a pancake per location (pancakes), the block
//! each block stands on (blocksworld). Every domain's goal is the identity
//! `0 1 2 ... n-1`, as in the paper's code, so the goal test is one
//! comparison of two fixed-size arrays.

use std::fmt;

use crate::PuzzleError;

/// The largest state a domain may have (a 4x8 board, a 32-pancake stack).
/// Fixed so that states are `Copy` arrays, not vectors.
pub const MAX_CELLS: usize = 32;

/// A puzzle state. Unused cells beyond `len` are zero, so equality and
/// hashing of the whole struct are equality and hashing of the state.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct State {
    cells: [u8; MAX_CELLS],
    len: u8,
    /// A value the domain derives from `cells` and keeps in step while it
    /// applies operators (sliding tiles: the blank's cell), so it never
    /// changes equality. Zero where a domain has no use for it.
    aux: u8,
}

impl State {
    /// A state from its cells, unchecked: domains validate (see
    /// [`crate::Puzzle::state_from_cells`]).
    pub(crate) fn from_cells_unchecked(cells: &[u8], aux: u8) -> State {
        debug_assert!(cells.len() <= MAX_CELLS);
        let mut s = State { cells: [0; MAX_CELLS], len: cells.len() as u8, aux };
        s.cells[..cells.len()].copy_from_slice(cells);
        s
    }

    /// The identity `0 1 ... n-1`: every domain's goal.
    pub(crate) fn identity(n: usize) -> State {
        let mut s = State { cells: [0; MAX_CELLS], len: n as u8, aux: 0 };
        for (i, c) in s.cells[..n].iter_mut().enumerate() {
            *c = i as u8;
        }
        s
    }

    /// The state's bytes.
    #[inline]
    pub fn cells(&self) -> &[u8] {
        &self.cells[..self.len as usize]
    }

    #[inline]
    pub(crate) fn cells_mut(&mut self) -> &mut [u8; MAX_CELLS] {
        &mut self.cells
    }

    /// All [`MAX_CELLS`] bytes, zero beyond `len`: for lookups that want a
    /// fixed-size array (no bounds checks on `u8` indices masked to 31).
    #[inline]
    pub(crate) fn raw(&self) -> &[u8; MAX_CELLS] {
        &self.cells
    }

    #[inline]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub(crate) fn aux(&self) -> u8 {
        self.aux
    }

    #[inline]
    pub(crate) fn set_aux(&mut self, aux: u8) {
        self.aux = aux;
    }

    /// `inv[v] = i` where `cells[i] = v`: where each tile or pancake is.
    /// Only meaningful for permutations (sliding tiles, pancakes).
    #[inline]
    pub fn inverse(&self) -> [u8; MAX_CELLS] {
        let mut inv = [0u8; MAX_CELLS];
        for (i, &v) in self.cells().iter().enumerate() {
            inv[(v as usize) & (MAX_CELLS - 1)] = i as u8;
        }
        inv
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "State({self})")
    }
}

/// Space-separated cells, the form `hfarm puzzle solve` reads.
impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.cells().iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

/// Numbers separated by spaces, commas or both (`"1 0 2"`, `"1,0,2"`), the
/// count checked against `expected`. Values are checked by the domain.
pub fn parse_numbers(text: &str, expected: usize) -> Result<Vec<u8>, PuzzleError> {
    let mut out = Vec::with_capacity(expected);
    for word in text.split(|c: char| c.is_whitespace() || c == ',').filter(|w| !w.is_empty()) {
        let v: u8 =
            word.parse().map_err(|_| PuzzleError::BadState(format!("{word:?} is not a number from 0 to 255")))?;
        out.push(v);
    }
    if out.len() != expected {
        return Err(PuzzleError::BadState(format!("expected {expected} numbers, got {}", out.len())));
    }
    Ok(out)
}

/// Checks that `cells` is a permutation of `0..n`, naming the first fault.
pub fn check_permutation(cells: &[u8]) -> Result<(), PuzzleError> {
    let n = cells.len();
    let mut seen = [false; 256];
    for &c in cells {
        if c as usize >= n {
            return Err(PuzzleError::BadState(format!("{c} is out of range: values go from 0 to {}", n - 1)));
        }
        if seen[c as usize] {
            return Err(PuzzleError::BadState(format!("{c} appears twice")));
        }
        seen[c as usize] = true;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_accepts_spaces_and_commas_and_counts() {
        assert_eq!(parse_numbers("1 0,2", 3).unwrap(), vec![1, 0, 2]);
        assert_eq!(parse_numbers(" 1,  0 , 2 ", 3).unwrap(), vec![1, 0, 2]);
        assert!(parse_numbers("1 0", 3).unwrap_err().to_string().contains("expected 3 numbers, got 2"));
        assert!(parse_numbers("1 x 2", 3).unwrap_err().to_string().contains("\"x\""));
        assert!(parse_numbers("1 300 2", 3).is_err());
    }

    #[test]
    fn permutation_check_names_the_fault() {
        assert!(check_permutation(&[2, 0, 1]).is_ok());
        assert!(check_permutation(&[2, 0, 2]).unwrap_err().to_string().contains("2 appears twice"));
        assert!(check_permutation(&[3, 0, 1]).unwrap_err().to_string().contains("3 is out of range"));
    }

    #[test]
    fn inverse_and_display() {
        let s = State::from_cells_unchecked(&[2, 0, 1], 0);
        assert_eq!(&s.inverse()[..3], &[1, 2, 0]);
        assert_eq!(s.to_string(), "2 0 1");
        assert_eq!(State::identity(3).cells(), &[0, 1, 2]);
    }
}
