//! Training groups of runs as one stacked network (`Trainer::group`): a
//! run's curve does not depend on its group, runs resume from their own
//! checkpoints in any regrouping, and two trainings in one process do not
//! perturb each other.

mod common;

use learner::train::{Checkpoint, CheckpointTag, CurvePoint, Observer, Recorder, Trainer};
use learner::{Axes, Dataset, Family, LowerBound, ModelKind, ResidualBase, SigmaMode, TrainConfig};
use tch::Device;

fn config(seed: u64, steps: u64) -> TrainConfig {
    TrainConfig {
        validate_every: 10,
        batch_size: 32,
        train_instances: 4,
        ..TrainConfig::paper(ModelKind::Nlm, seed, steps)
    }
}

/// The eight learned-sigma NLM configurations of a seed: N or TN, bound
/// LM-cut or hmax, residual hFF or none.
fn members(seeds: &[u64], steps: u64) -> Vec<(Axes, TrainConfig)> {
    let mut out = vec![];
    for &seed in seeds {
        for family in [Family::Gaussian, Family::Truncated] {
            for lower in ["lmcut", "hmax"] {
                for residual in [Some("ff"), None] {
                    let axes = Axes {
                        model: ModelKind::Nlm,
                        family,
                        sigma: SigmaMode::Learn,
                        lower: Some(LowerBound::new(lower).unwrap()),
                        residual: residual.map(|r| ResidualBase::new(r).unwrap()),
                    };
                    out.push((axes, config(seed, steps)));
                }
            }
        }
    }
    out
}

fn data() -> Dataset {
    common::gripper(&[2, 3], 0..4)
}

fn train_group(members: Vec<(Axes, TrainConfig)>, data: &Dataset) -> Vec<Recorder> {
    let mut t = Trainer::group(members, data, data, Device::Cpu).unwrap();
    let mut recorders: Vec<Recorder> = (0..t.runs()).map(|_| Recorder::default()).collect();
    let mut observers: Vec<&mut dyn Observer> = recorders.iter_mut().map(|r| r as &mut dyn Observer).collect();
    for r in t.run_group(&mut observers) {
        r.unwrap();
    }
    recorders
}

fn assert_close(a: &[CurvePoint], b: &[CurvePoint], rel: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: curve lengths");
    for (p, q) in a.iter().zip(b) {
        assert_eq!(p.step, q.step);
        for (x, y, name) in [
            (p.val_mse, q.val_mse, "val_mse"),
            (p.val_nll, q.val_nll, "val_nll"),
            (p.train_nll, q.train_nll, "train_nll"),
        ] {
            assert!(
                (x - y).abs() <= rel * x.abs().max(y.abs()).max(1e-12),
                "{what}: {name} at step {}: {x} vs {y}",
                p.step
            );
        }
    }
}

#[test]
fn a_run_alone_and_in_a_group_of_eight_has_the_same_curve() {
    tch::set_num_threads(1);
    let data = data();
    let group = members(&[7], 30);
    let grouped = train_group(group.clone(), &data);
    for (k, member) in group.into_iter().enumerate().step_by(3) {
        let alone = train_group(vec![member], &data);
        let (a, g) = (&alone[0].curve, &grouped[k].curve);
        let first = |c: &[CurvePoint]| c[0].val_nll;
        assert!(
            (first(a) - first(g)).abs() <= 1e-6 * first(a).abs(),
            "run {k}: first validation NLL alone {} vs grouped {}",
            first(a),
            first(g)
        );
        assert_close(a, g, 1e-5, &format!("run {k}"));
    }
    // Different runs of the group really differ.
    assert_ne!(grouped[0].curve[0].val_nll, grouped[1].curve[0].val_nll);
}

/// Stops reporting (as a worker that dies would) once `after` steps are recorded.
struct DiesAt {
    inner: Recorder,
    after: u64,
}

impl Observer for DiesAt {
    fn on_validation(&mut self, p: &CurvePoint) -> Result<(), String> {
        if p.step > self.after {
            return Err("killed".into());
        }
        self.inner.on_validation(p)
    }
    fn on_checkpoint(&mut self, c: &Checkpoint) -> Result<(), String> {
        self.inner.on_checkpoint(c)
    }
}

#[test]
fn a_killed_group_resumes_each_run_from_its_own_checkpoint_in_a_new_grouping() {
    tch::set_num_threads(1);
    let data = data();
    let all: Vec<_> = members(&[3], 40).into_iter().take(4).collect();
    let whole = train_group(all.clone(), &data);

    // The group dies after step 20 ...
    let mut t = Trainer::group(all.clone(), &data, &data, Device::Cpu).unwrap();
    let mut dying: Vec<DiesAt> = (0..4).map(|_| DiesAt { inner: Recorder::default(), after: 20 }).collect();
    let mut observers: Vec<&mut dyn Observer> = dying.iter_mut().map(|d| d as &mut dyn Observer).collect();
    assert!(t.run_group(&mut observers).iter().all(|r| r.is_err()));
    // ... and its runs come back in another order and other groups: 3 and 1, then 0 and 2.
    for order in [[3usize, 1], [0, 2]] {
        let members: Vec<_> = order.iter().map(|&k| all[k].clone()).collect();
        let mut t = Trainer::group(members, &data, &data, Device::Cpu).unwrap();
        for (r, &k) in order.iter().enumerate() {
            let last = dying[k].inner.checkpoints.iter().find(|c| c.tag == CheckpointTag::Last).unwrap();
            assert_eq!(last.step, 20);
            t.resume_run(r, &last.bytes).unwrap();
        }
        let mut rest: Vec<Recorder> = (0..2).map(|_| Recorder::default()).collect();
        let mut observers: Vec<&mut dyn Observer> = rest.iter_mut().map(|r| r as &mut dyn Observer).collect();
        for r in t.run_group(&mut observers) {
            r.unwrap();
        }
        for (r, &k) in order.iter().enumerate() {
            let mut curve = dying[k].inner.curve.clone();
            curve.extend(rest[r].curve.iter().cloned());
            assert_close(&curve, &whole[k].curve, 1e-5, &format!("run {k} resumed"));
        }
    }
}

#[test]
fn two_trainings_in_one_process_do_not_perturb_each_other() {
    tch::set_num_threads(1);
    let data = data();
    let [a, b]: [(Axes, TrainConfig); 2] =
        members(&[1, 2], 30).into_iter().step_by(8).collect::<Vec<_>>().try_into().unwrap();
    let alone = train_group(vec![a.clone()], &data);
    let (ta, tb) = std::thread::scope(|s| {
        let ha = s.spawn(|| train_group(vec![a.clone()], &data));
        let hb = s.spawn(|| train_group(vec![b.clone()], &data));
        (ha.join().unwrap(), hb.join().unwrap())
    });
    let strip = |c: &[CurvePoint]| c.iter().map(|p| (p.step, p.val_mse, p.val_nll, p.train_nll)).collect::<Vec<_>>();
    assert_eq!(strip(&alone[0].curve), strip(&ta[0].curve), "seed 1 alone and beside seed 2");
    assert_ne!(strip(&ta[0].curve), strip(&tb[0].curve));
}
