//! Random walks from the goal, as the paper's code makes its test tasks
//! (`SearchDomain.Generate(steps)`): `steps` moves, each chosen uniformly
//! among the operators that do not undo the previous move.
//!
//! The paper's code draws from `new Random()`, seeded by the clock, so its
//! tasks cannot be made again; here the stream is ChaCha8 seeded with the
//! seed (stable across platforms and versions, as the planner's
//! generators), so (domain, steps, seed) always gives the same state.
//! Where the only applicable move undoes the previous one (never in these
//! domains at their paper sizes) the walk takes it rather than stop.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::domain::Domain;
use crate::state::State;

/// The state after a `steps`-move walk from the goal drawn from `rng`.
pub fn random_walk_with<D: Domain, R: Rng>(d: &D, steps: u32, rng: &mut R) -> State {
    let mut s = *d.goal();
    let mut undo: Option<D::Op> = None;
    let mut choices: Vec<D::Op> = Vec::new();
    for _ in 0..steps {
        choices.clear();
        choices.extend(d.ops(&s).filter(|&op| Some(op) != undo));
        if choices.is_empty() {
            choices.extend(undo);
        }
        let op = choices[rng.gen_range(0..choices.len())];
        undo = Some(d.apply(&mut s, op));
    }
    s
}

/// The state after a `steps`-move walk from the goal, from `seed`.
pub fn random_walk<D: Domain>(d: &D, steps: u32, seed: u64) -> State {
    random_walk_with(d, steps, &mut ChaCha8Rng::seed_from_u64(seed))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tiles::SlidingTile;

    #[test]
    fn walks_are_reproducible_and_never_step_straight_back() {
        let d = SlidingTile::new(4, 4).unwrap();
        assert_eq!(random_walk(&d, 100, 7), random_walk(&d, 100, 7));
        assert_ne!(random_walk(&d, 100, 7), random_walk(&d, 100, 8));
        // Two steps without reversal never return to the goal.
        for seed in 0..50 {
            assert_ne!(&random_walk(&d, 2, seed), d.goal());
        }
        assert_eq!(&random_walk(&d, 0, 1), d.goal());
    }
}
