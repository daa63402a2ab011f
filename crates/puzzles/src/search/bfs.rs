//! Breadth-first distances from the goal over a whole (small) state space.
//! Every operator has a reverse, so the distance from the goal is the
//! distance to it: the true h* of every state, the reference the tests
//! check heuristics and searches against.

use std::collections::VecDeque;

use crate::domain::Domain;
use crate::fxhash::FxHashMap;
use crate::state::State;
use crate::PuzzleError;

/// h* of every state that reaches the goal, or an error past `max_states`.
pub fn distances_from_goal<D: Domain>(d: &D, max_states: usize) -> Result<FxHashMap<State, u32>, PuzzleError> {
    let mut dist = FxHashMap::default();
    let mut queue = VecDeque::new();
    dist.insert(*d.goal(), 0);
    queue.push_back(*d.goal());
    while let Some(s) = queue.pop_front() {
        let g = dist[&s];
        for op in d.ops(&s) {
            let mut c = s;
            d.apply(&mut c, op);
            if let std::collections::hash_map::Entry::Vacant(e) = dist.entry(c) {
                e.insert(g + 1);
                if dist.len() > max_states {
                    return Err(PuzzleError::TooLarge(format!("the {} has more than {max_states} states", d.name())));
                }
                queue.push_back(c);
            }
        }
    }
    Ok(dist)
}
