//! Object graphs of real IPC problems, and the EOG against counts from
//! scratch along random walks and a small search.

use std::collections::{BTreeSet, VecDeque};
use std::path::PathBuf;

use planner::state::initial_state;
use planner::successors::{apply, SuccessorGenerator};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use subgraphs::bench::{random_walk, walk_states};
use subgraphs::incremental::{AddMode, Workspace};
use subgraphs::object_graph::{load, load_files, Loaded};
use subgraphs::{Counter, Eog, Error, Form, LocalCounter};

fn ipc(dir: &str, problem: &str) -> Loaded {
    let base = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../planner/tests/ipc").join(dir);
    load_files(&base.join("domain.pddl"), &base.join(problem)).unwrap()
}

fn problems() -> Vec<(&'static str, Loaded)> {
    vec![
        ("blocks-4-1", ipc("blocks", "probBLOCKS-4-1.pddl")),
        ("zenotravel-p01", ipc("zenotravel", "p01.pddl")),
        ("zenotravel-p03", ipc("zenotravel", "p03.pddl")),
        ("zenotravel-typed-1", ipc("ipc2002-zenotravel-strips-automatic", "instance-1.pddl")),
    ]
}

/// Thesis, Example 4.1 (zenotravel pfile1): 13 constants, 8 predicate
/// symbols (labels 3-10), 23 initial atoms (rigid ones included) and 3
/// goals; every atom is joined to its symbol and its arguments.
#[test]
fn zenotravel_pfile1_object_graph_is_the_thesis_example() {
    for (dir, file) in [("zenotravel", "p01.pddl"), ("ipc2002-zenotravel-strips-automatic", "instance-1.pddl")] {
        let l = ipc(dir, file);
        let g = l.graphs.graph(l.task.init.iter().copied());
        assert_eq!(g.num_present(), 13 + 8 + 23 + 3, "{dir}");
        // 10 binary atoms in the state and 3 in the goal (3 edges each), 13 unary (2 each).
        assert_eq!(g.num_edges(), 13 * 3 + 13 * 2, "{dir}");
        assert_eq!(l.graphs.symbols().num_labels(), 11);
        let labels: BTreeSet<u16> = (0..g.len() as u32).filter(|&v| g.is_present(v)).map(|v| g.label(v)).collect();
        assert_eq!(labels, (0..=10).collect());
    }
    // Untyped (types as predicates) and typed (types as declared) encodings
    // name their symbols in the same order here, so their features agree.
    let untyped = ipc("zenotravel", "p01.pddl");
    let typed = ipc("ipc2002-zenotravel-strips-automatic", "instance-1.pddl");
    assert_eq!(typed.graphs.symbols().types, ["aircraft", "person", "city", "flevel"]);
    for alpha in 1..=4 {
        let mut c = Counter::new(alpha).unwrap();
        let a = c.count(&untyped.graphs.graph(untyped.task.init.iter().copied()));
        let b = c.count(&typed.graphs.graph(typed.task.init.iter().copied()));
        assert_eq!(a, b, "alpha {alpha}");
    }
}

#[test]
fn negative_goals_are_refused_with_a_reason() {
    let domain = "(define (domain d) (:predicates (p ?x) (q ?x))
        (:action a :parameters (?x) :precondition (p ?x) :effect (and (q ?x) (not (p ?x)))))";
    let problem = "(define (problem pr) (:domain d) (:objects o) (:init (p o)) (:goal (and (q o) (not (p o)))))";
    let err = load(domain, "d.pddl", problem, "p.pddl").unwrap_err();
    assert!(matches!(err, Error::NegativeGoal { .. }), "{err}");
    assert!(err.to_string().contains("(not (p o))") && err.to_string().contains("compile"), "{err}");
}

/// Incremental counts equal counts from scratch at every state of seeded
/// random walks, for alpha 2..=4, in both insertion modes, and after undo.
#[test]
fn eog_matches_scratch_along_random_walks() {
    for (name, l) in problems() {
        for alpha in 2..=4 {
            for mode in [AddMode::Rooted, AddMode::EdgeByEdge] {
                let steps = if mode == AddMode::EdgeByEdge && alpha == 4 { 25 } else { 60 };
                let walk = random_walk(&l.task, steps, 1000 + alpha as u64);
                assert!(walk.len() >= steps.min(20), "{name}: the walk got stuck");
                let states = walk_states(&l.task, &walk);
                let mut ws = Workspace::new(alpha).unwrap().with_mode(mode);
                let mut counter = Counter::new(alpha).unwrap();
                let mut eog = Eog::for_state(&l.graphs, states[0].iter().copied(), &mut ws);
                for (i, &op) in walk.iter().enumerate() {
                    let before = eog.counts(&ws);
                    let mut next = eog.successor(&l.graphs, &l.task.operators[op as usize], &mut ws);
                    let want = counter.count(&l.graphs.graph(states[i + 1].iter().copied()));
                    assert_eq!(next.counts(&ws), want, "{name}, alpha {alpha}, {mode:?}, step {i}");
                    assert_eq!(next.num_occurrences() as u64, want.total());
                    // Undo in place gives the parent's counts back.
                    let change = next.apply(&l.graphs, &l.task.operators[op as usize], &mut ws);
                    assert!(change.removed.is_empty() && change.added.is_empty(), "applying twice changes nothing");
                    let change = {
                        let mut again = eog.clone();
                        let c = again.apply(&l.graphs, &l.task.operators[op as usize], &mut ws);
                        again.undo(&l.graphs, &c, &mut ws);
                        assert_eq!(again.counts(&ws), before, "{name}, alpha {alpha}, undo of step {i}");
                        c
                    };
                    // The change is exactly the difference between the two states.
                    let (a, b): (BTreeSet<u32>, BTreeSet<u32>) =
                        (states[i].iter().copied().collect(), states[i + 1].iter().copied().collect());
                    let mut removed = change.removed.clone();
                    let mut added = change.added.clone();
                    removed.sort_unstable();
                    added.sort_unstable();
                    assert_eq!(removed, a.difference(&b).copied().collect::<Vec<_>>(), "{name}, step {i}");
                    assert_eq!(added, b.difference(&a).copied().collect::<Vec<_>>(), "{name}, step {i}");
                    eog = next;
                }
            }
        }
    }
}

/// A breadth-first search in which each node keeps its own EOG, derived
/// from its parent's: every generated node's counts equal those from scratch.
#[test]
fn eog_per_search_node_matches_scratch() {
    for (name, l) in problems() {
        let alpha = 3;
        let mut ws = Workspace::new(alpha).unwrap();
        let mut counter = Counter::new(alpha).unwrap();
        let succ = SuccessorGenerator::new(&l.task);
        let init = initial_state(&l.task);
        let mut seen = std::collections::HashSet::new();
        seen.insert(init.clone());
        let root = Eog::for_state(&l.graphs, l.task.init.iter().copied(), &mut ws);
        let mut open = VecDeque::from([(init, root)]);
        let mut ops = vec![];
        let mut next = vec![0; planner::state::words_for(l.task.num_facts())];
        let mut generated = 0;
        while let Some((state, eog)) = open.pop_front() {
            if generated > 300 {
                break;
            }
            succ.applicable(&l.task, &state, &mut ops);
            for &op in &ops {
                apply(&l.task, &state, op, &mut next);
                if !seen.insert(next.clone()) {
                    continue;
                }
                let child = eog.successor(&l.graphs, &l.task.operators[op as usize], &mut ws);
                assert_eq!(child.counts(&ws), counter.count(&l.graphs.graph_of_packed(&next)), "{name}");
                generated += 1;
                open.push_back((next.clone(), child));
            }
        }
        assert!(generated > 20, "{name}: only {generated} nodes");
    }
}

/// Blocksworld problems of several sizes from the project's generator.
fn generated_blocks(sizes: &[u32], seed: u64) -> Vec<Loaded> {
    let domain = planner::generate::domain_pddl("blocksworld").unwrap();
    sizes
        .iter()
        .map(|&n| {
            let params = planner::generate::Params::Blocksworld { blocks: n };
            let problem = planner::generate::generate(&params, seed + n as u64).unwrap();
            load(domain, "blocksworld.pddl", &problem, "generated.pddl").unwrap()
        })
        .collect()
}

/// Distinct feature graphs over the states of random walks (Table 5.1 of
/// the thesis reports 11/26/57/139 for blocks and 12/36/107/343 for
/// zenotravel at alpha 2..5; printed with --nocapture). Asserted: F_alpha's
/// graphs are exactly F_(alpha+1)'s graphs of at most alpha vertices, and
/// none has two vertices of one symbol label or an edge inside a label
/// class, which object graphs cannot contain.
#[test]
fn table_5_1_feature_graph_counts() {
    let mut rng = ChaCha8Rng::seed_from_u64(51);
    let sets: Vec<(&str, Vec<Loaded>)> = vec![
        ("blocks (generated, 3-7 blocks)", generated_blocks(&[3, 4, 5, 6, 7], 5)),
        (
            "zenotravel p01-p03",
            vec![ipc("zenotravel", "p01.pddl"), ipc("zenotravel", "p02.pddl"), ipc("zenotravel", "p03.pddl")],
        ),
    ];
    for (name, problems) in sets {
        let mut per_alpha: Vec<BTreeSet<Form>> = vec![];
        for alpha in 2..=5 {
            let mut counter = Counter::new(alpha).unwrap();
            let mut graphs = BTreeSet::new();
            for l in &problems {
                for w in 0..3 {
                    let walk = random_walk(&l.task, 40, rng.gen::<u64>() ^ w);
                    for s in walk_states(&l.task, &walk).iter().step_by(4) {
                        graphs.extend(counter.count(&l.graphs.graph(s.iter().copied())).iter().map(|(f, _)| f));
                    }
                }
            }
            for f in &graphs {
                let labels = f.labels();
                let symbols = labels.iter().filter(|&&x| x >= 3).count();
                let distinct: BTreeSet<_> = labels.iter().filter(|&&x| x >= 3).collect();
                assert_eq!(symbols, distinct.len(), "{name}: {f} has a symbol label twice");
                assert!(f.edges().iter().all(|&(i, j)| labels[i] != labels[j]), "{name}: {f} joins equal labels");
            }
            per_alpha.push(graphs);
        }
        for a in 0..per_alpha.len() - 1 {
            let smaller: BTreeSet<Form> =
                per_alpha[a + 1].iter().copied().filter(|f| f.num_vertices() <= a + 2).collect();
            assert_eq!(per_alpha[a], smaller, "{name}: F_{} vs F_{}", a + 2, a + 3);
        }
        let sizes: Vec<usize> = per_alpha.iter().map(BTreeSet::len).collect();
        println!("Table 5.1, {name}: distinct feature graphs for alpha 2..5: {sizes:?}");
    }
}

/// Counts-only incremental updates: along random walks, and per node of a
/// breadth-first search (each node keeps only its count vector).
#[test]
fn local_counter_matches_scratch() {
    for (name, l) in problems() {
        for alpha in 2..=4 {
            let mut lc = LocalCounter::new(&l.graphs, alpha).unwrap();
            let mut counter = Counter::new(alpha).unwrap();
            let walk = random_walk(&l.task, 60, 77 + alpha as u64);
            let states = walk_states(&l.task, &walk);
            lc.set_state(&l.graphs, states[0].iter().copied());
            let mut counts = lc.count();
            for (i, &op) in walk.iter().enumerate() {
                let op = &l.task.operators[op as usize];
                let succ = lc.successor(&l.graphs, &counts, op);
                let want = counter.count(&l.graphs.graph(states[i + 1].iter().copied()));
                assert_eq!(lc.counts(&succ), want, "{name}, alpha {alpha}, step {i}");
                // successor() left the current state alone.
                assert_eq!(lc.graph(), &l.graphs.graph(states[i].iter().copied()), "{name}, step {i}");
                lc.apply(&l.graphs, &mut counts, op);
                assert_eq!(counts, succ);
            }
        }
        // Search: jump to each expanded node's state, derive its children.
        let alpha = 3;
        let mut lc = LocalCounter::new(&l.graphs, alpha).unwrap();
        let mut counter = Counter::new(alpha).unwrap();
        let succ = SuccessorGenerator::new(&l.task);
        let init = initial_state(&l.task);
        lc.set_state(&l.graphs, l.task.init.iter().copied());
        let root = lc.count();
        let mut seen = std::collections::HashSet::from([init.clone()]);
        let mut open = VecDeque::from([(init, root)]);
        let (mut ops, mut next, mut generated) = (vec![], vec![0; planner::state::words_for(l.task.num_facts())], 0);
        while let Some((state, counts)) = open.pop_front() {
            if generated > 200 {
                break;
            }
            let mut facts = vec![];
            planner::state::for_each_fact(&state, |f| facts.push(f));
            lc.set_state(&l.graphs, facts);
            succ.applicable(&l.task, &state, &mut ops);
            for &op in &ops {
                apply(&l.task, &state, op, &mut next);
                if seen.insert(next.clone()) {
                    let child = lc.successor(&l.graphs, &counts, &l.task.operators[op as usize]);
                    assert_eq!(lc.counts(&child), counter.count(&l.graphs.graph_of_packed(&next)), "{name}");
                    generated += 1;
                    open.push_back((next.clone(), child));
                }
            }
        }
    }
}
