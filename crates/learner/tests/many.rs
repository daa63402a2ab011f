//! Many searches sharing one network's forward passes give each search the
//! result it gets alone.

mod common;

use learner::many::gbfs_many;
use learner::train::{CheckpointTag, Recorder, Trainer};
use learner::{Axes, Family, LearnedHeuristic, LowerBound, ModelKind, Predictor, ResidualBase, SigmaMode, TrainConfig};
use planner::generate::{domain_pddl, generate, Params};
use planner::search::{gbfs, Limits};
use tch::Device;

#[test]
fn shared_forward_passes_give_each_search_its_own_result() {
    tch::set_num_threads(1);
    let data = common::gripper(&[2, 3], 0..4);
    let axes = Axes {
        model: ModelKind::Nlm,
        family: Family::Truncated,
        sigma: SigmaMode::Learn,
        lower: Some(LowerBound::new("lmcut").unwrap()),
        residual: Some(ResidualBase::new("ff").unwrap()),
    };
    let config = TrainConfig { validate_every: 40, batch_size: 64, ..TrainConfig::paper(ModelKind::Nlm, 1, 40) };
    let mut t = Trainer::new(axes, config, &data, &data, Device::Cpu).unwrap();
    let mut rec = Recorder::default();
    t.run(&mut rec).unwrap();
    let best = rec.checkpoints.iter().find(|c| c.tag == CheckpointTag::BestMse).unwrap();
    let predictor = Predictor::load(t.model_config().clone(), &best.bytes, Device::Cpu).unwrap();
    let domain = domain_pddl("gripper").unwrap();
    // Different sizes: the shared batches pad across instances.
    let problems: Vec<String> = [4u32, 5, 6, 7, 8, 9]
        .iter()
        .enumerate()
        .map(|(k, &b)| generate(&Params::Gripper { balls: b }, 100 + k as u64).unwrap())
        .collect();
    let limits = Limits::new(Some(300), None, None);
    let (many, passes) = gbfs_many(&predictor, domain, &problems, None, limits, Default::default()).unwrap();
    let mut alone_passes = 0;
    for (problem, shared) in problems.iter().zip(many) {
        let shared = shared.unwrap();
        let mut h = LearnedHeuristic::new(
            Predictor::load(t.model_config().clone(), &best.bytes, Device::Cpu).unwrap(),
            domain,
            problem,
            None,
        )
        .unwrap();
        let task = h.task().clone();
        let alone = gbfs(&task, &mut h, limits);
        alone_passes += h.forward_passes;
        assert_eq!(
            (shared.status, shared.evaluations, shared.expansions, &shared.plan),
            (alone.status, alone.evaluations, alone.expansions, &alone.plan)
        );
    }
    assert!(passes < alone_passes, "{passes} shared passes, {alone_passes} alone");
}
