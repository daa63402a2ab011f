//! Blocksworld states drawn uniformly at random, as the Slaney–Thiébaux
//! `bwstates` generator does.
//!
//! A state of n labelled blocks is a set of towers. Let a(n) count them; the
//! tower holding a fixed block has some size k: choose its other k-1 blocks and
//! an order of all k, and the rest is any state of n-k blocks, so
//! a(n) = sum_k C(n-1,k-1) k! a(n-k). Drawing k with probability proportional
//! to its term, then the blocks and their order uniformly, and recursing,
//! gives every state the same probability. With b(n) = a(n)/n! the weights are
//! k b(n-k) / (n b(n)), and n b(n) = sum_k k b(n-k): small floats, no overflow.

use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{DomainInfo, Param, ParamValues, Params};

pub static DOMAIN: DomainInfo = DomainInfo {
    name: "blocksworld",
    description: "stacking blocks; initial and goal states uniform (Slaney & Thiébaux)",
    pddl: include_str!("../../domains/blocksworld.pddl"),
    params: &[Param::int("blocks", "number of blocks", 1, 1000).harder_as_it_grows()],
    build: |v| Ok(Params::Blocksworld { blocks: v.int("blocks")? }),
    values: |p| match *p {
        Params::Blocksworld { blocks } => ParamValues::new().with("blocks", blocks),
        _ => unreachable!("blocksworld's descriptor given {p:?}"),
    },
    generate: |v, seed, rng| Ok(generate(v.int("blocks")?, seed, rng)),
};

/// Returns towers, each listed bottom to top, over blocks `0..n`.
pub fn random_state(n: usize, rng: &mut ChaCha8Rng) -> Vec<Vec<usize>> {
    let mut b = vec![1.0f64; n + 1];
    for m in 1..=n {
        b[m] = (1..=m).map(|k| k as f64 * b[m - k]).sum::<f64>() / m as f64;
    }
    let mut remaining: Vec<usize> = (0..n).collect();
    let mut towers = vec![];
    while !remaining.is_empty() {
        let m = remaining.len();
        let total = m as f64 * b[m];
        let mut x = rng.gen::<f64>() * total;
        let mut k = m;
        for kk in 1..=m {
            let w = kk as f64 * b[m - kk];
            if x < w {
                k = kk;
                break;
            }
            x -= w;
        }
        // The tower holds the first remaining block and k-1 others, in random order.
        let first = remaining.remove(0);
        remaining.shuffle(rng);
        let mut tower: Vec<usize> = remaining.drain(..k - 1).collect();
        tower.push(first);
        tower.shuffle(rng);
        remaining.sort_unstable();
        towers.push(tower);
    }
    towers
}

pub fn generate(n: u32, seed: u64, rng: &mut ChaCha8Rng) -> String {
    let n = n as usize;
    let init = random_state(n, rng);
    let goal = random_state(n, rng);
    let name = |i: usize| format!("b{}", i + 1);
    let mut s = format!("(define (problem blocksworld-{n}-s{seed})\n  (:domain blocksworld)\n  (:objects");
    for i in 0..n {
        s.push(' ');
        s.push_str(&name(i));
    }
    s.push_str(")\n  (:init\n    (handempty)");
    for t in &init {
        s.push_str(&format!("\n    (ontable {})", name(t[0])));
        for w in t.windows(2) {
            s.push_str(&format!("\n    (on {} {})", name(w[1]), name(w[0])));
        }
        s.push_str(&format!("\n    (clear {})", name(*t.last().expect("towers are non-empty"))));
    }
    // As in the IPC generator, the goal lists `on` facts only.
    s.push_str(")\n  (:goal (and");
    for t in &goal {
        for w in t.windows(2) {
            s.push_str(&format!("\n    (on {} {})", name(w[1]), name(w[0])));
        }
    }
    s.push_str(")))\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use std::collections::HashMap;

    #[test]
    fn three_blocks_states_are_uniform() {
        // a(3) = 13 states; each should come up about 1/13 of the time.
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut counts: HashMap<Vec<Vec<usize>>, usize> = HashMap::new();
        let draws = 26_000;
        for _ in 0..draws {
            let mut st = random_state(3, &mut rng);
            st.sort();
            *counts.entry(st).or_default() += 1;
        }
        assert_eq!(counts.len(), 13);
        for (st, c) in counts {
            assert!((1700..2300).contains(&c), "{st:?} drawn {c} times of {draws}");
        }
    }

    #[test]
    fn every_block_appears_once() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let towers = random_state(30, &mut rng);
        let mut all: Vec<usize> = towers.concat();
        all.sort_unstable();
        assert_eq!(all, (0..30).collect::<Vec<_>>());
    }
}
