//! The heuristic's fast path (static atoms' first iterations precomputed
//! per task, `refine::StaticPart`) gives exactly the model's prediction on
//! the plain feature vector, on states the training never saw (unseen
//! colours included), for 1 to 3 iterations, on domains whose graphs are
//! mostly static atoms (miconic's `above`, rovers' `visible`).

use std::path::Path;
use std::sync::Arc;

use planner::heuristics::Heuristic;
use planner::search::Limits;
use wl::graph::{Ilg, Nodes};
use wl::refine::{features, initial_keys, mix, Scratch};
use wl::train::{load_for_model, train, TrainOptions, TrainingProblem};
use wl::WlHeuristic;

fn walk(task: &planner::Task, n: usize, seed: u64) -> Vec<Vec<u64>> {
    let gen = planner::successors::SuccessorGenerator::new(task);
    let mut s = planner::state::initial_state(task);
    let (mut next, mut ops, mut out, mut rng) = (s.clone(), vec![], vec![s.clone()], seed);
    while out.len() < n {
        gen.applicable(task, &s, &mut ops);
        if ops.is_empty() {
            break;
        }
        rng = rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        planner::successors::apply(task, &s, ops[(mix(rng) % ops.len() as u64) as usize], &mut next);
        std::mem::swap(&mut s, &mut next);
        out.push(s.clone());
    }
    out
}

#[test]
fn fast_path_equals_the_dot_product_of_features_and_weights() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/ipc2023-learning");
    for domain in ["miconic", "rovers", "blocksworld"] {
        let set = wl::benchmark::load(&dir, domain).unwrap();
        let dt = set.domain_pddl().unwrap();
        let training = set.training();
        let problems: Vec<TrainingProblem<'_>> =
            training.iter().take(4).map(|p| TrainingProblem { file: p.path, text: p.text }).collect();
        let test = set.testing("easy")[0];
        let task = load_for_model(dt, test.text, test.path).unwrap();
        let states = walk(&task, 60, 7);
        for iterations in 1..=3 {
            let opts = TrainOptions {
                kind: wl::model::Kind::Ridge,
                iterations,
                lambda: 1.0,
                limits: Limits::new(None, Some(5.0), Some(1024)),
            };
            let model = Arc::new(train(dt, &problems, opts, &mut |_| {}).unwrap());
            let ilg = Ilg::new(&task);
            let keys = initial_keys(&ilg);
            let mut h = WlHeuristic::new(model.clone(), &task).unwrap();
            let mut scratch = Scratch::default();
            let mut unseen = 0;
            let mut nodes = Nodes::default();
            for s in &states {
                let f = features(&ilg, &keys, s, &model.dictionary, &mut scratch);
                let want = model.bias + f.iter().map(|&(c, n)| n * model.weights[c as usize]).sum::<f64>();
                let got = h.evaluate(s);
                assert!((got - want).abs() <= 1e-9 * want.abs().max(1.0), "{domain} k={iterations}: {got} vs {want}");
                ilg.nodes(s, &mut nodes);
                let all = (ilg.num_objects + nodes.atoms.len()) * (iterations + 1);
                unseen += usize::from((f.iter().map(|x| x.1).sum::<f64>() as usize) < all);
            }
            // The check covered states with unseen colours (test problems are bigger than training ones).
            assert!(unseen > 0, "{domain} k={iterations}: no unseen colours met");
        }
    }
}
