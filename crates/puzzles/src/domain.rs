//! The [`Domain`] trait: what a puzzle is to search, walks and pattern
//! databases. Statically dispatched (searches are generic over it), so a
//! move costs an inlined function call, not a virtual one.

use std::fmt;

use crate::state::{parse_numbers, State};
use crate::PuzzleError;

/// A unit-cost permutation puzzle whose operators all have reverse
/// operators, with the identity as its one goal.
///
/// Because every operator has a reverse, the same operators serve forward
/// search, backward walks from the goal (the paper's E^rev(s) = E(s)) and
/// breadth-first searches from the goal.
pub trait Domain: Send + Sync {
    /// An operator: small, `Copy`, compared for parent pruning.
    type Op: Copy + Eq + fmt::Debug + Send + Sync + 'static;
    /// The operators applicable in a state, in the paper's code's order. A
    /// value that does not borrow the state: searches apply and undo moves
    /// while they iterate.
    type Ops: Iterator<Item = Self::Op>;

    /// The name on the command line (`"15-puzzle"`).
    fn name(&self) -> &str;
    /// Cells in a state.
    fn size(&self) -> usize;
    /// One line on what the operators are, for listings.
    fn operators(&self) -> String;
    /// The goal: the identity, in every domain of this crate.
    fn goal(&self) -> &State;

    /// The goal test, as the paper's code does it: every cell equal to the
    /// goal's.
    #[inline]
    fn is_goal(&self, s: &State) -> bool {
        s == self.goal()
    }

    /// A state from its cells, checked (length, values, solvability),
    /// naming the first fault.
    fn state_from_cells(&self, cells: &[u8]) -> Result<State, PuzzleError>;

    /// A state from text: [`Domain::size`] numbers separated by spaces or
    /// commas.
    fn parse_state(&self, text: &str) -> Result<State, PuzzleError> {
        self.state_from_cells(&parse_numbers(text, self.size())?)
    }

    /// The operators applicable in `s`.
    fn ops(&self, s: &State) -> Self::Ops;

    /// Applies `op` to `s` in place and returns its reverse: applying that
    /// undoes the move exactly.
    fn apply(&self, s: &mut State, op: Self::Op) -> Self::Op;

    /// Undoes `op`, which [`Domain::apply`] applied and answered `back` to.
    /// The default applies `back`; a domain may know a cheaper way.
    #[inline]
    fn undo(&self, s: &mut State, op: Self::Op, back: Self::Op) {
        let _ = op;
        self.apply(s, back);
    }

    /// How a plan shows `op` applied in `s` (sliding tiles: the tile that
    /// moves; pancakes: the flip; blocksworld: block and destination).
    fn op_label(&self, s: &State, op: Self::Op) -> String;

    /// Every successor of `s` with the operator reaching it. Allocates: for
    /// walks and learners, not for search.
    fn successors(&self, s: &State) -> Vec<(Self::Op, State)> {
        self.ops(s)
            .map(|op| {
                let mut c = *s;
                self.apply(&mut c, op);
                (op, c)
            })
            .collect()
    }
}

/// The states along a plan, `start` first and the state after the last
/// operator last (`plan.len() + 1` states).
pub fn replay<D: Domain>(d: &D, start: &State, plan: &[D::Op]) -> Vec<State> {
    let mut s = *start;
    let mut out = Vec::with_capacity(plan.len() + 1);
    out.push(s);
    for &op in plan {
        d.apply(&mut s, op);
        out.push(s);
    }
    out
}
