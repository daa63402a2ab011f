//! The [`Heuristic`] trait the searches take, and the trivial ones.
//!
//! Values are integers (the paper rounds h and plans with max(h, 0)): a
//! learned heuristic clamps and rounds before it answers.

use crate::domain::Domain;
use crate::state::State;

/// A heuristic for domain `D`. `&mut self`: a heuristic may keep scratch
/// buffers (a network's activations) or caches.
pub trait Heuristic<D: Domain + ?Sized> {
    /// h(s).
    fn h(&mut self, s: &State) -> u32;

    /// h of the state that `op` leads to from `parent` (whose value is
    /// `parent_h`), when the heuristic can tell from the move alone
    /// (Manhattan distance, the gap heuristic: O(1) updates). Searches call
    /// it before applying `op`, and evaluate the child with [`Heuristic::h`]
    /// when it answers `None` (the default).
    #[inline]
    fn h_move(&mut self, parent: &State, op: D::Op, parent_h: u32) -> Option<u32> {
        let _ = (parent, op, parent_h);
        None
    }
}

impl<D: Domain + ?Sized, H: Heuristic<D> + ?Sized> Heuristic<D> for &mut H {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        (**self).h(s)
    }
    #[inline]
    fn h_move(&mut self, parent: &State, op: D::Op, parent_h: u32) -> Option<u32> {
        (**self).h_move(parent, op, parent_h)
    }
}

impl<D: Domain + ?Sized, H: Heuristic<D> + ?Sized> Heuristic<D> for Box<H> {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        (**self).h(s)
    }
    #[inline]
    fn h_move(&mut self, parent: &State, op: D::Op, parent_h: u32) -> Option<u32> {
        (**self).h_move(parent, op, parent_h)
    }
}

/// h = 0: blind search.
#[derive(Debug, Clone, Copy, Default)]
pub struct Zero;

impl<D: Domain + ?Sized> Heuristic<D> for Zero {
    #[inline]
    fn h(&mut self, _: &State) -> u32 {
        0
    }
    #[inline]
    fn h_move(&mut self, _: &State, _: D::Op, _: u32) -> Option<u32> {
        Some(0)
    }
}

/// The larger of two heuristics' values (admissible when both are).
#[derive(Debug, Clone)]
pub struct Max<A, B>(pub A, pub B);

impl<D: Domain + ?Sized, A: Heuristic<D>, B: Heuristic<D>> Heuristic<D> for Max<A, B> {
    #[inline]
    fn h(&mut self, s: &State) -> u32 {
        self.0.h(s).max(self.1.h(s))
    }
}
