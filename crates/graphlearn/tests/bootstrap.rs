//! Algorithm 1: rounds, checkpoints that resume exactly, determinism under expansion limits.

mod common;

use common::{blocks, goodtower, quick_training, small_model};
use graphlearn::bootstrap::{Bootstrap, BootstrapSettings, StopReason};
use graphlearn::labels::LabellerSettings;
use graphlearn::mlp::Loss;
use graphlearn::sampling::SearchLimit;

fn settings(labeller: LabellerSettings) -> BootstrapSettings {
    BootstrapSettings {
        model: small_model(2, Loss::LogMse, true),
        train: quick_training(40),
        limit_unit: SearchLimit::Expansions(15),
        labeller,
        enough_samples: 100_000,
        max_rounds: 3,
        plan_states_as_samples: false,
        seed: 9,
    }
}

#[test]
fn rounds_resume_from_a_checkpoint_exactly_and_are_deterministic() {
    let problems = blocks(&[5, 6, 6], 30);
    let mut a = Bootstrap::new(settings(goodtower()), &problems).unwrap();
    let r1 = a.round(&problems).unwrap();
    assert_eq!(r1.round, 1);
    assert!(r1.training.is_none(), "round 1 searches blind");
    assert_eq!(r1.limit, SearchLimit::Expansions(15));
    for p in &r1.problems {
        assert!(p.expansions <= 15 && p.expanded > 0 && p.new_samples == p.expanded, "{p:?}");
    }
    assert_eq!(r1.samples, a.num_samples());
    // Checkpoint after round 1; resume in a fresh value.
    let text = a.to_json();
    let mut b = Bootstrap::from_json(&text).unwrap();
    assert!(b == a);
    let r2a = a.round(&problems).unwrap();
    let r2b = b.round(&problems).unwrap();
    assert_eq!(r2a.limit, SearchLimit::Expansions(30));
    assert!(r2a.training.is_some());
    assert!(r2a.samples > r1.samples);
    // Same samples, same model, same reports (times aside).
    let strip = |mut r: graphlearn::bootstrap::RoundReport| {
        r.seconds = 0.0;
        if let Some(t) = r.training.as_mut() {
            t.seconds = 0.0;
        }
        r
    };
    assert_eq!(strip(r2a.clone()), strip(r2b));
    let weights = |b: &Bootstrap| b.model().map(|m| (m.net.clone(), m.vocabulary.clone(), m.scaling.clone()));
    assert!(weights(&a) == weights(&b));
    assert_eq!(a.samples(), b.samples());
    // And a bootstrap run from scratch with the same settings agrees.
    let mut c = Bootstrap::new(settings(goodtower()), &problems).unwrap();
    c.round(&problems).unwrap();
    let r2c = c.round(&problems).unwrap();
    assert_eq!(strip(r2a), strip(r2c));
    assert!(weights(&c) == weights(&a));
    // Every sample's label is the cost-to-go of a solver plan from it.
    for (p, samples) in problems.iter().zip(a.samples()) {
        for s in samples {
            assert_eq!(s.source.to_string(), "solver:blocksworld-goodtower");
            let plan = planner::solvers::solve_task("blocksworld-goodtower", p.task(), &s.state, 0).unwrap();
            assert!(s.h_star <= plan.len() as u64);
        }
    }
    // The third round is the last (max_rounds), and no round follows.
    let r3 = a.round(&problems).unwrap();
    assert_eq!(r3.stopped, Some(StopReason::MaxRounds));
    assert!(a.round(&problems).is_err());
    // A checkpoint is refused for other problems.
    let other = blocks(&[5, 6, 6], 31);
    assert!(b.round(&other).is_err());
    let model = a.train_final(&problems).unwrap();
    assert_eq!(model.settings.name(), "a2-logmse+ff");
}

#[test]
fn optimal_labels_and_stopping_when_all_are_solved() {
    let problems = blocks(&[4, 4], 40);
    let mut s = settings(LabellerSettings::optimal(50_000));
    s.limit_unit = SearchLimit::Expansions(200);
    s.max_rounds = 5;
    let mut b = Bootstrap::new(s, &problems).unwrap();
    let reports = b.run(&problems).unwrap();
    let last = reports.last().unwrap();
    assert_eq!(last.stopped, Some(StopReason::AllSolved), "{reports:?}");
    assert!(last.problems.iter().all(|p| p.solved));
    // Optimal labels are h*: A* with LM-cut from the state agrees.
    for (p, samples) in problems.iter().zip(b.samples()) {
        assert!(!samples.is_empty());
        for l in samples.iter().take(10) {
            assert_eq!(l.source.to_string(), "optimal");
            let mut t = p.task().clone();
            t.init.clear();
            planner::state::for_each_fact(&l.state, |f| t.init.push(f));
            let r = planner::search::astar(&t, &mut planner::heuristics::LmCut::new(&t), Default::default());
            assert_eq!(r.cost, Some(l.h_star));
        }
    }
}
