//! Delta-set adjustments on training data: h_min never exceeds an h* of its
//! Delta-set, h_avg is the Delta-set's mean; Delta-set statistics by alpha.

mod common;

use std::collections::BTreeMap;

use common::{blocks, goodtower, quick_training, small_model};
use graphlearn::adjust::{delta_sets, feature_delta_stats, Adjusted, Adjustment, ByValue, DeltaSets, KeyedHeuristic};
use graphlearn::features::{FeatureCounter, StateFeatures};
use graphlearn::labels::LabelledState;
use graphlearn::mlp::Loss;
use graphlearn::model::Example;
use graphlearn::protocol::plan_samples;
use graphlearn::{LearnedHeuristic, Model, Problem};
use planner::heuristics::{by_name, Heuristic, StateBatch};

fn data() -> (Vec<Problem>, Vec<Vec<LabelledState>>) {
    let problems = blocks(&[5, 6, 7], 70);
    let samples =
        problems.iter().enumerate().map(|(i, p)| plan_samples(p, &goodtower(), 10, 15, i as u64).unwrap()).collect();
    (problems, samples)
}

/// Checks the tables of `make` (a keyed heuristic per problem) against the
/// Delta-sets recomputed here by hand from the keys.
fn check<'p, H: KeyedHeuristic>(
    problems: &'p [Problem],
    samples: &[Vec<LabelledState>],
    mut make: impl FnMut(&'p Problem) -> H,
) {
    let mut sets = DeltaSets::new();
    let mut by_key: BTreeMap<Vec<u64>, Vec<f64>> = BTreeMap::new();
    for (p, list) in problems.iter().zip(samples) {
        delta_sets(&mut make(p), p.words(), list, &mut sets);
        let mut h = make(p);
        for l in list {
            let (mut out, mut keys) = (vec![], vec![]);
            h.evaluate_keyed(StateBatch::new(&l.state, p.words()), &mut out, &mut keys);
            by_key.entry(keys[0].clone()).or_default().push(l.h_star as f64);
        }
    }
    assert_eq!(sets.len(), by_key.len());
    assert!(by_key.values().any(|v| v.len() > 1), "some Delta-set holds several states");
    let table = sets.table();
    for (p, list) in problems.iter().zip(samples) {
        let mut min = Adjusted::new(make(p), &table, Adjustment::Min);
        let mut avg = Adjusted::new(make(p), &table, Adjustment::Avg);
        let mut shift = Adjusted::new(make(p), &table, Adjustment::Shift);
        let mut plain = make(p);
        for l in list {
            let (mut out, mut keys) = (vec![], vec![]);
            plain.evaluate_keyed(StateBatch::new(&l.state, p.words()), &mut out, &mut keys);
            let hs = &by_key[&keys[0]];
            let h_min = min.evaluate(&l.state);
            assert!(h_min <= l.h_star as f64, "h_min {h_min} above h* {}", l.h_star);
            assert!(hs.iter().all(|&h| h_min <= h));
            assert_eq!(h_min, hs.iter().copied().fold(f64::INFINITY, f64::min));
            let mean = hs.iter().sum::<f64>() / hs.len() as f64;
            assert!((avg.evaluate(&l.state) - mean).abs() < 1e-9);
            let s = shift.evaluate(&l.state);
            assert!(s >= h_min && s <= hs.iter().copied().fold(0.0, f64::max));
        }
        assert!(min.hits > 0 && min.misses == 0, "every training state has its Delta-set");
    }
}

#[test]
fn goal_count_adjustments_bound_and_average_h_star() {
    let (problems, samples) = data();
    check(&problems, &samples, |p| ByValue(by_name("goalcount", p.task()).unwrap()));
}

#[test]
fn learned_heuristic_adjustments_bound_and_average_h_star() {
    let (problems, samples) = data();
    let settings = small_model(2, Loss::Mse, false);
    let mut counter = FeatureCounter::new(2).unwrap();
    let feats: Vec<(StateFeatures, f64)> = problems
        .iter()
        .zip(&samples)
        .flat_map(|(p, l)| {
            l.iter()
                .map(|l| (StateFeatures { counts: counter.count(p, &l.state), ff: None }, l.h_star as f64))
                .collect::<Vec<_>>()
        })
        .collect();
    let examples: Vec<Example> = feats.iter().map(|(f, h)| Example { features: f, h_star: *h }).collect();
    let model =
        Model::fit(&settings, &quick_training(20), problems[0].graphs().symbols().clone(), &examples, 1).unwrap();
    check(&problems, &samples, |p| LearnedHeuristic::new(&model, p).unwrap());
}

/// F_alpha is a sub-vector of F_(alpha+1): Delta-sets only split as alpha
/// grows, so the weighted mean range and deviation cannot grow.
#[test]
fn delta_set_statistics_shrink_with_alpha() {
    let (problems, samples) = data();
    let stats: Vec<_> = (1..=3).map(|a| feature_delta_stats(&problems, &samples, a).unwrap()).collect();
    for w in stats.windows(2) {
        assert!(w[1].feature_len > w[0].feature_len);
        assert!(w[1].groups >= w[0].groups);
        assert!(w[1].mean_range <= w[0].mean_range + 1e-12, "{stats:?}");
        assert!(w[1].mean_std <= w[0].mean_std + 1e-12, "{stats:?}");
    }
    assert_eq!(stats[0].samples as usize, samples.iter().map(Vec::len).sum::<usize>());
    assert!(stats[0].mean_range > 0.0, "alpha 1 only counts objects and atoms");
}
