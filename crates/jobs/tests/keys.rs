//! A job's key is its identity in the database: every stored result hangs
//! on it. These literal keys pin the canonical form of literal specs, so a
//! renamed or reordered field, a changed default or a new serde attribute
//! cannot silently orphan every stored result. If one of these must change,
//! add a migration that says how stored keys map to the new ones.

use jobs::grid::{Bound, Distribution, Instances, Model, PlanLimits, Residual, Sigma};
use jobs::spec::PlanHeuristic;
use jobs::split::{SolveLimits, Split};
use jobs::{Job, JobKey, JobSpec, Resource};
use planner::generate::Params;

fn key(spec: JobSpec, inputs: &[&str]) -> String {
    Job::new(spec, inputs.iter().map(|k| JobKey(k.to_string())).collect()).key.0
}

#[test]
fn generate_keys_are_pinned() {
    let spec = JobSpec::Generate {
        domain: "gripper".into(),
        split: Split::Train,
        params: Params::Gripper { balls: 3 },
        seed: 1,
        limits: SolveLimits::default(),
        instances: Instances::default(),
    };
    assert_eq!(
        serde_json::to_string(&spec).unwrap(),
        r#"{"kind":"generate","domain":"gripper","split":"train","params":{"domain":"gripper","balls":3},"seed":1,"limits":{"time_s":300.0,"memory_mib":8192,"tries":20}}"#
    );
    assert_eq!(key(spec, &[]), "38e750a624a7c96adfad3b3d83e4bbd0");
    let visitall = JobSpec::Generate {
        domain: "visitall".into(),
        split: Split::Test,
        params: Params::Visitall { size: 4, ratio: 0.5, height: None },
        seed: 7,
        limits: SolveLimits {
            time_s: 60.0,
            memory_mib: 2048,
            tries: 5,
            give_up_after: None,
            skip_predicted_over: None,
            skip_after_failed_seeds: None,
            skip_after_easier_failed: true,
        },
        instances: Instances::default(),
    };
    assert_eq!(key(visitall, &[]), "f5e796434d9548eec80fc809f42aedaa");
}

#[test]
fn label_train_evaluate_and_plan_keys_are_pinned() {
    let gen = "0123456789abcdef0123456789abcdef";
    assert_eq!(
        key(JobSpec::Label { domain: "ferry".into(), split: Split::Validation, features: Default::default() }, &[gen]),
        "5292c7b134f257ee11103e14f4cb106b"
    );
    let train = JobSpec::Train {
        domain: "blocksworld".into(),
        model: Model::Nlm,
        distribution: Distribution::Truncated,
        sigma: Sigma::Learn,
        bound: Some(Bound::new("lmcut").unwrap()),
        residual: Residual::new("ff").unwrap(),
        seed: 3,
        steps: 40_000,
        train_instances: 400,
    };
    assert_eq!(
        serde_json::to_string(&train).unwrap(),
        r#"{"kind":"train","domain":"blocksworld","model":"nlm","distribution":"truncated","sigma":"learn","bound":"lmcut","residual":"ff","seed":3,"steps":40000,"train_instances":400}"#
    );
    assert_eq!(key(train, &[gen, "fedcba9876543210fedcba9876543210"]), "9d4274d8f253ef185934710e7a3135a2");
    assert_eq!(
        key(JobSpec::Evaluate { domain: "gripper".into(), bound: Bound::new("hmax").unwrap() }, &[gen]),
        "eb1a67aee1ca1c72b49b5bffdc7ec794"
    );
    let classical = JobSpec::Plan {
        domain: "gripper".into(),
        heuristic: PlanHeuristic::Classical { name: "ff".into() },
        limits: PlanLimits::default(),
        planning: Default::default(),
    };
    assert_eq!(
        serde_json::to_string(&classical).unwrap(),
        r#"{"kind":"plan","domain":"gripper","heuristic":{"source":"classical","name":"ff"},"limits":{"max_evaluations":10000,"time_s":600.0,"memory_mib":4096}}"#
    );
    assert_eq!(key(classical, &[gen]), "5561594cfef210ebd138fbe72c0289d6");
    let learned = JobSpec::Plan {
        domain: "gripper".into(),
        heuristic: PlanHeuristic::Learned { clip: Some(Bound::new("lmcut").unwrap()), model: None },
        limits: PlanLimits::default(),
        planning: Default::default(),
    };
    // Specs stored before plan jobs carried their model keep their keys.
    assert_eq!(key(learned, &[gen, gen]), "723f324efbeb777b7046295ede4f3991");
    let routed = JobSpec::Plan {
        domain: "gripper".into(),
        heuristic: PlanHeuristic::Learned { clip: None, model: Some(Model::Nlm) },
        limits: PlanLimits::default(),
        planning: Default::default(),
    };
    assert_eq!(
        serde_json::to_string(&routed).unwrap(),
        r#"{"kind":"plan","domain":"gripper","heuristic":{"source":"learned","model":"nlm"},"limits":{"max_evaluations":10000,"time_s":600.0,"memory_mib":4096}}"#
    );
    assert_eq!(routed.resource(), Resource::Gpu);
    let linear = JobSpec::Plan {
        domain: "gripper".into(),
        heuristic: PlanHeuristic::Learned { clip: None, model: Some(Model::Linear) },
        limits: PlanLimits::default(),
        planning: Default::default(),
    };
    assert_eq!(linear.resource(), Resource::Cpu);
}

#[test]
fn puzzle_and_graph_keys_are_pinned() {
    use jobs::graphlearn::{BootstrapParams, Configuration, Loss, NamedProblem, NetworkParams, SearchParams};
    use jobs::likely::{Preset, Rule, SearchLimits, TaskSource};
    let learn = JobSpec::PuzzleLearn {
        domain: "8-puzzle".into(),
        pdb_inputs: None,
        settings: Preset::Tiny,
        model: Rule::Quantile,
        iterations: 4,
        seed: 1,
        tasks: TaskSource::Uncertainty,
        limits: SearchLimits { time_s: None, max_generated: Some(200_000) },
    };
    assert_eq!(
        serde_json::to_string(&learn).unwrap(),
        r#"{"kind":"puzzle_learn","domain":"8-puzzle","settings":"tiny","model":"quantile","iterations":4,"seed":1,"limits":{"max_generated":200000}}"#
    );
    assert_eq!(key(learn, &[]), "794481daa033aee9468c84a6f386125e");
    let test = JobSpec::PuzzleTest {
        domain: "8-puzzle".into(),
        pdb_inputs: None,
        state: "1 2 5 4 0 3 6 8 7".into(),
        alpha: Some(0.95),
        limits: SearchLimits::default(),
    };
    assert_eq!(key(test, &["a", "b"]), "a62215c586e653004ff192c15664fed4");
    let configuration = Configuration { alpha: 3, loss: Loss::LogMse, ff_input: true };
    assert_eq!(configuration.name(), "a3-logmse+ff");
    let boot = JobSpec::GraphBootstrap {
        domain: "blocksworld".into(),
        domain_pddl: "(define (domain d))".into(),
        problems: vec![NamedProblem { name: "p1".into(), pddl: "(define (problem p1))".into() }],
        held_out: None,
        configuration,
        bootstrap: BootstrapParams { unit_expansions: Some(200), ..BootstrapParams::default() },
        network: NetworkParams::default(),
        seed: 1,
    };
    assert_eq!(
        serde_json::to_string(&boot).unwrap(),
        r#"{"kind":"graph_bootstrap","domain":"blocksworld","domain_pddl":"(define (domain d))","problems":[{"name":"p1","pddl":"(define (problem p1))"}],"held_out":null,"configuration":{"alpha":3,"loss":"log_mse","ff_input":true},"bootstrap":{"rounds":5,"unit_expansions":200,"enough_samples":5000,"label_max_evaluations":200000},"network":{},"seed":1}"#
    );
    let fold = JobSpec::GraphFold {
        domain: "blocksworld".into(),
        held_out: "p1".into(),
        configuration,
        adjustments: vec![],
        value_adjustments: vec![],
        network: NetworkParams { hidden: Some(vec![64, 32]), ..NetworkParams::default() },
        search: SearchParams::default(),
        seed: 1,
    };
    assert_eq!(key(fold, &["boot"]), "d151bb9eaf10638f6916d166729d1e1b");
}
