//! Grid files: strict parsing with key paths, and their expansion into jobs.

use jobs::expand::expand;
use jobs::grid::Grid;
use jobs::{JobKind, JobSpec};
use planner::generate::Params;

fn smoke_text() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/smoke.toml")).unwrap()
}

fn err(text: &str) -> String {
    Grid::parse(text, "g.toml").unwrap_err().to_string()
}

#[test]
fn smoke_grid_expands_into_generate_label_and_plan_jobs() {
    let grid = Grid::parse(&smoke_text(), "smoke.toml").unwrap();
    let e = expand(&grid);
    let c = e.counts();
    // gripper: 3x2 + 2x2 + 3x1 = 13 instances; blocksworld: the same shape.
    assert_eq!(c[&JobKind::Generate], 26);
    assert_eq!(c[&JobKind::Label], 26);
    // 2 planning instances drawn from the 3 test slots of each domain: 5 heuristics x 3 slots x 2
    // domains plan jobs, those of the slot not drawn to be skipped.
    assert_eq!(c[&JobKind::Draw], 6);
    assert_eq!(c[&JobKind::Plan], 30);
    assert!(!c.contains_key(&JobKind::Train));
    // Dependency order: every input appears before its consumer.
    let mut seen = std::collections::HashSet::new();
    for j in &e.jobs {
        for i in &j.inputs {
            assert!(seen.contains(i), "{:?} before its input", j.spec.kind());
        }
        assert!(seen.insert(j.key.clone()), "duplicate key");
    }
}

#[test]
fn keys_are_deterministic_and_shared_across_grids() {
    let a = expand(&Grid::parse(&smoke_text(), "a").unwrap());
    let b = expand(&Grid::parse(&smoke_text().replace("name = \"smoke\"", "name = \"other\""), "b").unwrap());
    let keys = |e: &jobs::expand::Expansion| e.jobs.iter().map(|j| j.key.clone()).collect::<Vec<_>>();
    assert_eq!(keys(&a), keys(&b), "the grid's name is not part of any job");
    // A grid that overlaps (one more test seed) reuses every common job.
    let bigger = expand(
        &Grid::parse(&smoke_text().replacen("seeds = \"1..3\"\nballs = [6]", "seeds = \"1..4\"\nballs = [6]", 1), "c")
            .unwrap(),
    );
    let big: std::collections::HashSet<_> = keys(&bigger).into_iter().collect();
    // Not the draws: one more slot to draw from changes the sample's order.
    let gen_a: Vec<_> = a
        .jobs
        .iter()
        .filter(|j| matches!(j.spec.kind(), JobKind::Generate | JobKind::Label))
        .map(|j| j.key.clone())
        .collect();
    assert!(gen_a.iter().all(|k| big.contains(k)));
    assert_eq!(bigger.counts()[&JobKind::Generate], 27);
}

#[test]
fn changing_a_parameter_changes_the_key() {
    let a = expand(&Grid::parse(&smoke_text(), "a").unwrap());
    let b = expand(
        &Grid::parse(
            &smoke_text().replace("time_s = 30\nmemory_mib = 1024\ntries", "time_s = 31\nmemory_mib = 1024\ntries"),
            "b",
        )
        .unwrap(),
    );
    let ga: Vec<_> = a.jobs.iter().filter(|j| j.spec.kind() == JobKind::Generate).map(|j| &j.key).collect();
    let gb: Vec<_> = b.jobs.iter().filter(|j| j.spec.kind() == JobKind::Generate).map(|j| &j.key).collect();
    assert!(ga.iter().zip(&gb).all(|(x, y)| x != y));
}

#[test]
fn learning_axes_cross_and_gaussians_are_shared_across_bounds() {
    let text = format!(
        "{}\n[[learning]]\nmodels = [\"linear\"]\ndistributions = [\"gaussian\", \"truncated\"]\nsigma = [\"learn\", \"fixed\"]\nbounds = [\"lmcut\", \"hmax\"]\nresiduals = [\"none\", \"ff\"]\nsteps = 100\n",
        smoke_text()
    );
    let e = expand(&Grid::parse(&text, "l").unwrap());
    let c = e.counts();
    // Per domain: gaussian 1x2x2 (bound ignored) + truncated 2x2x2 = 12 trainings, 1 seed.
    assert_eq!(c[&JobKind::Train], 2 * 12);
    // Evaluations: every (distribution, sigma, residual, bound) cell = 16 per domain.
    assert_eq!(c[&JobKind::Evaluate], 2 * 16);
    let train_inputs = e.jobs.iter().find(|j| j.spec.kind() == JobKind::Train).unwrap().inputs.len();
    assert_eq!(train_inputs, 10, "train and validation labels of the domain");
    assert!(e.jobs.iter().any(|j| matches!(j.spec, JobSpec::Train { bound: None, .. })));
}

#[test]
fn errors_name_the_key_path() {
    let e = err(&smoke_text().replace("balls = [6]", "balls = [6]\nbalss = 3"));
    assert!(e.contains("domains.gripper.test"), "{e}");
    assert!(e.contains("balss"), "{e}");
    let e = err(&smoke_text().replace("balls = [6]", "balls = \"9..x\""));
    assert!(e.contains("domains.gripper.test.balls"), "{e}");
    assert!(e.contains("range"), "{e}");
    let e = err(&smoke_text().replace("balls = [6]", "blocks = [6]"));
    assert!(e.contains("domains.gripper.test.blocks: does not apply to gripper"), "{e}");
    let e = err(&smoke_text().replace("[domains.gripper.test]", "[domains.gripper.test]\nlimits = { time_s = -1 }"));
    assert!(e.contains("domains.gripper.test.limits.time_s"), "{e}");
    let e = err(&smoke_text().replace("\"ff\", \"goalcount\"", "\"ff\", \"fancy\""));
    assert!(e.contains("baselines.heuristics[1]: unknown heuristic `fancy`"), "{e}");
    let e = err(&smoke_text()
        .replace("[domains.blocksworld.train]", "[domains.sokoban.train]\nseeds = 1\n[domains.blocksworld.train]"));
    assert!(e.contains("sokoban"), "{e}");
    let e = err("name = \"x\"\nseeds = [1]\ndomains = {}\n[limits.plan]\nmax_evaluation = 3\n");
    assert!(e.contains("limits.plan"), "{e}");
    let e = err("name = \"x\"\nseeds = [1\n");
    assert!(e.starts_with("g.toml:"), "{e}");
}

#[test]
fn visitall_heights_cross_sizes_and_are_optional() {
    let grid = |test: &str| {
        format!(
            "name = \"v\"\nseeds = [1]\n[domains.visitall.train]\nseeds = 1\nsize = 3\nratio = [1.0]\n\
             [domains.visitall.validation]\nseeds = 1\nsize = 3\nratio = [1.0]\n[domains.visitall.test]\n{test}\n"
        )
    };
    let g = Grid::parse(&grid("seeds = 1\nsize = \"5..6\"\nheight = [5, 7]\nratio = [0.5]"), "v.toml").unwrap();
    let combos = g.domains["visitall"].test.combinations("visitall");
    assert_eq!(combos.len(), 4);
    assert!(combos.contains(&Params::Visitall { size: 6, ratio: 0.5, height: Some(7) }));
    let square = Grid::parse(&grid("seeds = 1\nsize = 5\nratio = [0.5]"), "v.toml").unwrap();
    assert_eq!(
        square.domains["visitall"].test.combinations("visitall"),
        vec![Params::Visitall { size: 5, ratio: 0.5, height: None }]
    );
    let e = Grid::parse(&grid("seeds = 1\nsize = 5\nheight = 0\nratio = [0.5]"), "v.toml").unwrap_err().to_string();
    assert!(e.contains("domains.visitall.test") && e.contains("height"), "{e}");
}

#[test]
fn generator_seeds_differ_by_split_and_attempt() {
    use jobs::grid::generator_seed;
    use jobs::split::Split;
    let s = [
        generator_seed(Split::Train, 1, 0),
        generator_seed(Split::Test, 1, 0),
        generator_seed(Split::Train, 1, 1),
        generator_seed(Split::Train, 2, 0),
    ];
    let distinct: std::collections::HashSet<_> = s.iter().collect();
    assert_eq!(distinct.len(), 4);
    assert_eq!(generator_seed(Split::Train, 1, 0), s[0]);
}

#[test]
fn the_papers_grid_has_the_papers_size() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/ijcai24.toml")).unwrap();
    let e = expand(&Grid::parse(&text, "ijcai24.toml").unwrap());
    let c = e.counts();
    // Instances as IBM/pddlsl's generate_data.sh made them (test = its test2 split):
    // blocksworld 38x12 + 11x12 + 11x12, ferry 16x25 + 4x25 + 4x25, gripper 80x5 + 20x5 + 20x5,
    // visitall 70x3x2 + 17x3x2 + 17x3x2 (square test grids 6..8).
    let instances = (456 + 132 + 132) + (400 + 100 + 100) + (400 + 100 + 100) + (420 + 102 + 102);
    assert_eq!(instances, 2544);
    assert_eq!(c[&JobKind::Generate], instances);
    assert_eq!(c[&JobKind::Label], instances);
    // Trainings per domain and seed: NLM main 2 distributions x 2 sigma x 2 residuals = 8; HGN and
    // linear the same, 16; l in {hmax, blind}: truncated 2 (the Gaussian learn/ff run is NLM main's);
    // residual lmcut: Gaussian and truncated, 2. 28 x 4 domains x 5 seeds = 560.
    assert_eq!(c[&JobKind::Train], 4 * 5 * (8 + 16 + 2 + 2));
    // Evaluations, one per (training, bound): 8 + 16 + 4 (the shared Gaussian under hmax and blind) + 2.
    assert_eq!(c[&JobKind::Evaluate], 4 * 5 * (8 + 16 + 4 + 2));
    // Plans: 100 test instances per domain x (2 baselines + per seed one per training and one more,
    // N+clip, per Gaussian: NLM main 8 + 4, HGN and linear 16 + 8, l in {hmax, blind} 2 TN (their
    // Gaussian's N and N+clip are the main block's: the code clips at hLMcut whatever l, `clip`),
    // residual lmcut 2 + 1 = 41). 4 x 100 x (2 + 5 x 41) = 82,800 runs. The 100 of blocksworld (132
    // test slots) and visitall (102) are drawn from the solved slots, as the authors' plan2: plan jobs
    // on every slot behind a draw each, those of slots not drawn skipped; ferry and gripper plan all 100.
    let per_slot = 2 + 5 * (12 + 24 + 2 + 3);
    assert_eq!(c[&JobKind::Plan], (132 + 100 + 100 + 102) * per_slot);
    assert_eq!(c[&JobKind::Draw], 132 + 102);
    assert_eq!(e.jobs.len(), 96_320);
    // The authors' instances: their generators, every split from the same seeds, every slot tried;
    // their search and planning-time heuristics.
    for j in &e.jobs {
        if let jobs::JobSpec::Label { features, .. } = &j.spec {
            assert_eq!(*features, planner::heuristics::Definitions::Pyperplan, "the linear features as theirs");
        }
        if let jobs::JobSpec::Plan { planning, .. } = &j.spec {
            assert_eq!(planning.search, planner::search::Greedy::Pddlsl);
            assert_eq!(planning.heuristics, planner::heuristics::Definitions::Pyperplan);
        }
        if let jobs::JobSpec::Generate { instances, limits, .. } = &j.spec {
            assert_eq!(instances.generator, planner::generate::Generator::PddlGenerators);
            assert_eq!(instances.splits, jobs::grid::Splits::Shared);
            assert!(j.inputs.is_empty(), "no gate: every slot is tried");
            assert!(limits.give_up_after.is_none() && limits.skip_after_failed_seeds.is_none());
            assert!(limits.skip_predicted_over.is_none());
        }
    }
}

/// Every registered domain can be gridded from its descriptor alone: its
/// parameters are the split's keys, crossed in the descriptor's order, and
/// checked against the descriptor's ranges at their key paths.
#[test]
fn every_registered_domain_reads_its_parameters_from_its_descriptor() {
    use planner::generate::{Kind, DOMAINS};
    for d in DOMAINS {
        // Two values per parameter; `too_big` puts one parameter of the train split out of range.
        let grid = |too_big: Option<&str>| {
            let split = |name: &str| {
                let mut t = format!("[domains.{}.{name}]\nseeds = [1, 2]\n", d.name);
                for p in d.params {
                    let values = match (p.kind, too_big == Some(p.name) && name == "train") {
                        (Kind::Int { min, .. }, false) => format!("\"{}..{}\"", min.max(1), min.max(1) + 1),
                        (Kind::Int { max, .. }, true) => format!("{}", max + 1),
                        (Kind::Float { min, max }, false) => format!("[{min:?}, {max:?}]"),
                        (Kind::Float { max, .. }, true) => format!("{:?}", max + 1.0),
                    };
                    t.push_str(&format!("{} = {values}\n", p.name));
                }
                t
            };
            format!("name = \"all\"\nseeds = [1]\n{}{}{}", split("train"), split("validation"), split("test"))
        };
        let g = Grid::parse(&grid(None), "all.toml").unwrap_or_else(|e| panic!("{}: {e}", d.name));
        let combos = 1 << d.params.len();
        let params = g.domains[d.name].test.combinations(d.name);
        assert_eq!(params.len(), combos, "{}", d.name);
        assert!(params.iter().all(|p| p.domain() == d.name));
        assert_eq!(expand(&g).counts()[&JobKind::Generate], 3 * 2 * combos, "{}", d.name);
        for p in d.params {
            let e = err(&grid(Some(p.name)));
            assert!(e.contains(&format!("domains.{}.train.{}: must be", d.name, p.name)), "{e}");
        }
    }
    let e = err("name = \"x\"\nseeds = [1]\n[domains.sokoban.train]\nseeds = 1\n");
    assert!(
        e.contains(
            "domains.sokoban: unknown domain; expected one of blocksworld, ferry, gripper, visitall, zenotravel"
        ),
        "{e}"
    );
}

/// A learner's bound must be admissible, as the planner's registry says; a
/// residual base must be registered. Both are refused at their key.
#[test]
fn bounds_are_admissible_heuristics_and_residuals_registered_ones() {
    let learning = |bounds: &str, residuals: &str| {
        format!(
            "{}\n[[learning]]\nmodels = [\"linear\"]\ndistributions = [\"truncated\"]\nsigma = [\"learn\"]\nbounds = {bounds}\nresiduals = {residuals}\n",
            smoke_text()
        )
    };
    let g = Grid::parse(&learning("[\"lmcut\", \"hmax\", \"blind\"]", "[\"none\", \"ff\", \"hadd\"]"), "g").unwrap();
    let names: Vec<&str> = g.learning[0].bounds.iter().map(|b| b.name()).collect();
    assert_eq!(names, ["lmcut", "hmax", "blind"]);
    for b in &g.learning[0].bounds {
        assert!(planner::heuristics::info(b.name()).unwrap().admissible, "{b}");
    }
    let residuals: Vec<&str> = g.learning[0].residuals.iter().map(|r| r.as_str()).collect();
    assert_eq!(residuals, ["none", "ff", "hadd"]);
    assert_eq!(g.learning[0].residuals[0], jobs::grid::Residual::NONE);

    let e = err(&learning("[\"lmcut\", \"hadd\"]", "[\"ff\"]"));
    assert!(
        e.contains(
            "learning[0].bounds[1]: `hadd` is not admissible, so it cannot bound the truncated Gaussian; \
             expected one of blind, hmax, lmcut, lmcut-pyperplan"
        ),
        "{e}"
    );
    let e = err(&learning("[\"fancy\"]", "[\"ff\"]"));
    assert!(
        e.contains(
            "learning[0].bounds[0]: unknown heuristic `fancy`; expected one of blind, hmax, lmcut, lmcut-pyperplan"
        ),
        "{e}"
    );
    let e = err(&learning("[\"lmcut\"]", "[\"ff\", \"fancy\"]"));
    assert!(
        e.contains(
            "learning[0].residuals[1]: unknown heuristic `fancy`; expected one of blind, goalcount, hmax, hadd, ff, \
             lmcut, ff-pyperplan, lmcut-pyperplan, or none"
        ),
        "{e}"
    );
}

#[test]
fn plan_time_limits_may_be_none_and_limits_keep_their_json() {
    use jobs::grid::TimeLimit;
    let none = Grid::parse(
        &smoke_text().replace("max_evaluations = 10000\ntime_s = 30", "max_evaluations = 10000\ntime_s = \"none\""),
        "g.toml",
    );
    let none = none.unwrap_or_else(|e| panic!("{e}"));
    let limits = none.limits.plan.unwrap();
    assert_eq!(limits.time_s, TimeLimit::NONE);
    assert!(serde_json::to_string(&limits).unwrap().contains(r#""time_s":"none""#));
    // A limit serializes as the number it always did (job keys unchanged).
    let json = serde_json::to_string(&jobs::grid::PlanLimits::default()).unwrap();
    assert_eq!(json, r#"{"max_evaluations":10000,"time_s":600.0,"memory_mib":4096}"#);
    let e =
        err(&smoke_text()
            .replace("max_evaluations = 10000\ntime_s = 30", "max_evaluations = 10000\ntime_s = \"never\""));
    assert!(e.contains("limits.plan.time_s") && e.contains("\"none\""), "{e}");
}

#[test]
fn model_names_are_their_serialized_names() {
    use jobs::grid::Model;
    for m in [Model::Linear, Model::Nlm, Model::Hgn] {
        assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
    }
}
