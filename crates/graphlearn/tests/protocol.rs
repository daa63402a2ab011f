//! Leave-one-out end to end on small generated blocksworld problems.

mod common;

use common::{blocks, goodtower, quick_training};
use graphlearn::bootstrap::BootstrapSettings;
use graphlearn::mlp::Loss;
use graphlearn::protocol::{
    grid, leave_one_out, plan_samples, run_fold, Configuration, ProtocolSettings, SampleSource,
};
use graphlearn::sampling::SearchLimit;
use graphlearn::ModelSettings;

fn settings(configurations: Vec<Configuration>) -> ProtocolSettings {
    ProtocolSettings {
        configurations,
        hidden: vec![16, 8],
        dropout: vec![0.1],
        train: quick_training(30),
        time_s: Some(20.0),
        max_evaluations: Some(50_000),
        baselines: vec!["ff".into(), "goalcount".into()],
        seed: 3,
        adjustments: vec![],
        value_adjustments: vec![],
    }
}

#[test]
fn leave_one_out_runs_end_to_end() {
    let problems = blocks(&[4, 5, 5, 6, 6], 80);
    let samples =
        problems.iter().enumerate().map(|(i, p)| plan_samples(p, &goodtower(), 6, 10, i as u64).unwrap()).collect();
    let configs = grid(&[2]);
    assert_eq!(configs.len(), 4);
    assert_eq!(grid(&[2, 3, 4]).len(), 12, "the thesis's 12 networks");
    let result = leave_one_out(&problems, &SampleSource::Given(samples), &settings(configs)).unwrap();
    assert_eq!(result.folds.len(), 5);
    assert_eq!(result.rows.len(), 5 * (4 + 2));
    for r in &result.rows {
        assert!(r.solved, "{r:?}");
        assert_eq!(r.plan_valid, Some(true), "{r:?}");
    }
    let names: Vec<&str> = result.scores.iter().map(|s| s.configuration.as_str()).collect();
    assert_eq!(names, ["a2-mse", "a2-mse+ff", "a2-logmse", "a2-logmse+ff", "ff", "goalcount"]);
    for s in &result.scores {
        assert_eq!((s.coverage, s.problems), (5, 5));
        assert!(s.length <= 5.0 && s.length > 0.0);
    }
    // Each fold trained on the other four problems only.
    for (i, f) in result.folds.iter().enumerate() {
        assert_eq!(f.held_out, problems[i].name);
        assert_eq!(f.training.len(), 4);
        assert!(f.rows.iter().all(|r| r.problem == problems[i].name));
    }
    // Rows and scores serialise for a farm's result tables.
    let text = serde_json::to_string(&result.rows).unwrap();
    assert!(text.contains("\"configuration\":\"a2-logmse+ff\""));
}

/// A fold with the Delta-set adjustments searches once more per
/// adjustment, each row named after its network and adjustment.
#[test]
fn a_fold_searches_with_each_adjustment() {
    use graphlearn::adjust::Adjustment;
    let problems = blocks(&[4, 5, 5, 6], 81);
    let samples =
        problems.iter().enumerate().map(|(i, p)| plan_samples(p, &goodtower(), 6, 10, i as u64).unwrap()).collect();
    let mut s = settings(vec![Configuration { alpha: 2, loss: Loss::Mse, ff_input: false }]);
    s.adjustments = vec![Adjustment::Min, Adjustment::Avg, Adjustment::Shift];
    s.baselines = vec![];
    let fold = run_fold(&problems, &SampleSource::Given(samples), 3, &s).unwrap();
    let names: Vec<&str> = fold.rows.iter().map(|r| r.configuration.as_str()).collect();
    assert_eq!(names, ["a2-mse", "a2-mse:min", "a2-mse:avg", "a2-mse:shift"]);
    for r in &fold.rows {
        assert!(r.solved && r.plan_valid == Some(true), "{r:?}");
    }
}

#[test]
fn a_fold_can_bootstrap_its_own_samples() {
    let problems = blocks(&[4, 5, 5], 90);
    let boot = BootstrapSettings {
        model: ModelSettings { alpha: 2, loss: Loss::LogMse, ff_input: false, hidden: vec![16, 8], dropout: vec![] },
        train: quick_training(20),
        limit_unit: SearchLimit::Expansions(10),
        labeller: goodtower(),
        enough_samples: 60,
        max_rounds: 3,
        plan_states_as_samples: true,
        seed: 1,
    };
    let configs = vec![Configuration { alpha: 2, loss: Loss::LogMse, ff_input: false }];
    let fold = run_fold(&problems, &SampleSource::BootstrapPerFold(Box::new(boot)), 0, &settings(configs)).unwrap();
    assert_eq!(fold.rows.len(), 3);
    assert!(fold.samples > 0);
    assert!(fold.rows.iter().all(|r| r.solved && r.plan_valid == Some(true)));
    // Bad settings are refused with a reason.
    let mut bad = settings(vec![]);
    assert!(run_fold(&problems, &SampleSource::Given(vec![vec![]; 3]), 0, &bad).is_err());
    bad.configurations = grid(&[2]);
    bad.baselines = vec!["nope".into()];
    assert!(run_fold(&problems, &SampleSource::Given(vec![vec![]; 3]), 0, &bad).is_err());
}

/// The thesis's adjustment experiment (section 5.2.2): goal count and hFF
/// adjusted by the Delta-sets of their values over the other problems'
/// samples. Every evaluated state is either adjusted or a counted fallback;
/// a held-out problem larger than every training problem has goal counts
/// no training sample had, so it falls back; and goal count, admissible on
/// the samples, gives h_min = h_shift (the thesis's remark), so both
/// searches are the same search. The fold's networks' fit is measured too.
#[test]
fn a_fold_adjusts_classical_heuristics_by_their_values() {
    use graphlearn::adjust::Adjustment;
    use graphlearn::protocol::ValueAdjustment;
    let problems = blocks(&[4, 5, 5, 9], 82);
    let samples =
        problems.iter().enumerate().map(|(i, p)| plan_samples(p, &goodtower(), 6, 10, i as u64).unwrap()).collect();
    let mut s = settings(vec![Configuration { alpha: 2, loss: Loss::LogMse, ff_input: false }]);
    s.baselines = vec!["goalcount".into()];
    s.adjustments = vec![Adjustment::Min];
    let modes = [Adjustment::Min, Adjustment::Avg, Adjustment::Shift];
    s.value_adjustments = ["goalcount", "ff"]
        .iter()
        .flat_map(|h| modes.map(|mode| ValueAdjustment { heuristic: h.to_string(), mode }))
        .collect();
    let source = SampleSource::Given(samples);
    let fold = run_fold(&problems, &source, 3, &s).unwrap();
    let names: Vec<&str> = fold.rows.iter().map(|r| r.configuration.as_str()).collect();
    assert_eq!(
        names,
        [
            "a2-logmse",
            "a2-logmse:min",
            "goalcount:min",
            "goalcount:avg",
            "goalcount:shift",
            "ff:min",
            "ff:avg",
            "ff:shift",
            "goalcount"
        ]
    );
    let row = |n: &str| fold.rows.iter().find(|r| r.configuration == n).unwrap();
    for r in &fold.rows[1..8] {
        assert_eq!(r.adjusted + r.fallbacks, r.evaluations, "every evaluation adjusted or counted: {r:?}");
        if r.solved {
            assert_eq!(r.plan_valid, Some(true), "{r:?}");
        }
    }
    for r in [row("goalcount"), row("a2-logmse")] {
        assert_eq!((r.adjusted, r.fallbacks), (0, 0), "not adjusted: {r:?}");
    }
    // 9 blocks against training problems of 4 and 5: its initial goal count
    // (up to 9 unmet goals) is beyond every training sample's.
    assert!(row("goalcount:min").fallbacks > 0, "{:?}", row("goalcount:min"));
    let (min, shift) = (row("goalcount:min"), row("goalcount:shift"));
    assert_eq!(
        (min.status.as_str(), min.cost, min.expansions, min.evaluations, min.fallbacks),
        (shift.status.as_str(), shift.cost, shift.expansions, shift.evaluations, shift.fallbacks),
        "goal count is admissible on the samples: h_min = h_shift"
    );
    // The network's fit to its training samples.
    assert_eq!(fold.fits.len(), 1);
    let (name, fit) = &fold.fits[0];
    assert_eq!((name.as_str(), fit.n as usize), ("a2-logmse", fold.samples));
    assert!(fit.mae >= 0.0 && fit.p80_abs >= 0.0 && fit.ratio_max >= fit.ratio_mean && fit.ratio_mean >= 1.0);
    assert_eq!(fit.by_target.iter().map(|t| t.n).sum::<u64>(), fit.n);
    // An unknown heuristic is refused by name.
    s.value_adjustments = vec![ValueAdjustment { heuristic: "nope".into(), mode: Adjustment::Min }];
    let e = run_fold(&problems, &source, 0, &s).unwrap_err().to_string();
    assert!(e.contains("nope"), "{e}");
}
