//! Table 5.1 explained: the thesis's |F_alpha| for blocks (11, 26, 57, 139
//! for alpha 2..5) is the number of feature graphs that the states of its
//! 27 IPC problems contain *without* the predicate symbols' single-vertex
//! graphs (one vertex per symbol in every G(s), so each counts 1 in every
//! state and carries nothing). With them the vocabulary holds 5 more (the
//! 4-operator domain's on, ontable, clear, handempty, holding): 16, 31,
//! 62, 144.
//!
//! The states: every state of the GoodTower plans from the problems'
//! initial states. The counts are those of every reachable state, not of
//! this sample: up to alpha 3 every graph that a reachable state of the
//! domain can hold occurs (no two holding or handempty atoms, no ontable
//! goal in these problems), and 40 random walks of 60 steps per problem
//! (9,575 states, `examples/feature_graphs.rs`) add no graph at alpha 4
//! or 5 either.
//!
//! Zenotravel does not fit the same way (not tested here, measured with
//! `feature_graphs 40 60 zenotravel`: the 20 IPC 2002 problems, 25,545
//! states): all graphs 22/46/102/263 for alpha 2..5, without the 8 symbol
//! singletons 14/38/94/255, the thesis's 12/36/107/343. Ours have two more
//! at alpha 2 and 3 and fewer at 4 and 5, so neither another subtraction
//! nor more samples closes it; the cause (how the thesis's Zenotravel graphs
//! treat its static atoms, or states ours never reach) is not established.

mod common;

use common::goodtower;
use graphlearn::adjust::feature_delta_stats;
use graphlearn::protocol::plan_samples;
use graphlearn::Problem;

/// The first 27 problems of `benchmarks/ipc/blocks` by size and index (the
/// order of api.planning.domains' collection 112, which the thesis took them from).
fn first_27() -> Vec<Problem> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../benchmarks/ipc/blocks");
    let domain = std::fs::read_to_string(format!("{dir}/domain.pddl")).unwrap();
    let mut out = vec![];
    for n in 4..=13 {
        for i in 0..3 {
            let path = format!("{dir}/probBLOCKS-{n}-{i}.pddl");
            if let Ok(text) = std::fs::read_to_string(&path) {
                out.push(Problem::from_text(&format!("probBLOCKS-{n}-{i}"), &domain, &text).unwrap());
            }
        }
    }
    out.truncate(27);
    out
}

#[test]
fn table_5_1_counts_feature_graphs_without_the_symbol_singletons() {
    let problems = first_27();
    assert_eq!(problems.len(), 27);
    assert_eq!(problems.last().unwrap().name, "probBLOCKS-13-0");
    let samples: Vec<_> =
        problems.iter().enumerate().map(|(i, p)| plan_samples(p, &goodtower(), 0, 0, i as u64).unwrap()).collect();
    let mut ours = vec![];
    for alpha in 2..=5 {
        let s = feature_delta_stats(&problems, &samples, alpha).unwrap();
        ours.push((s.feature_len, s.feature_len_thesis.unwrap()));
    }
    assert_eq!(ours, [(16, 11), (31, 26), (62, 57), (144, 139)], "thesis, Table 5.1: 11, 26, 57, 139");
}
