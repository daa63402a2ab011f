//! From a grid to the DAG of jobs.
//!
//! `[[likely]]` and `[[graphlearn]]` blocks expand in their own submodules
//! ([`likely`], [`graphlearn`]); the rest is the paper's pipeline:
//!
//! generate -> label -> (train -> evaluate, plan). Baseline plan jobs read
//! only the generated test instance (and its draw, where the grid plans a
//! sample of the test slots: [`planning_slots`]). A slot's generate job waits for the
//! same seed's next easier slot ([`difficulty_gate`]) and is skipped when
//! that one has no instance; where the split's limits ask for it
//! (`skip_after_failed_seeds`), it also waits for the same size's previous
//! seeds, and the worker skips it when they all ended without one. Jobs
//! come out in dependency order, each once: the key makes duplicates (a
//! Gaussian model asked for under several bounds, an instance two grids
//! share) the same job.

pub(crate) mod graphlearn;
pub(crate) mod likely;

use std::collections::{BTreeMap, HashSet};

use planner::generate::{Params, Value};

use crate::grid::{Bound, Distribution, Grid};
use crate::spec::{Job, JobKind, JobSpec, PlanHeuristic};
use crate::split::Split;
use crate::JobKey;

/// The jobs of a grid, in dependency order.
#[derive(Debug, Default)]
pub struct Expansion {
    pub jobs: Vec<Job>,
}

impl Expansion {
    fn add(&mut self, seen: &mut HashSet<JobKey>, job: Job) -> JobKey {
        let key = job.key.clone();
        if seen.insert(key.clone()) {
            self.jobs.push(job);
        }
        key
    }

    /// Number of jobs per kind.
    pub fn counts(&self) -> BTreeMap<JobKind, usize> {
        let mut m = BTreeMap::new();
        for j in &self.jobs {
            *m.entry(j.spec.kind()).or_insert(0) += 1;
        }
        m
    }
}

/// A test slot that plan jobs run on, behind its draw where the grid plans
/// a sample of the test slots.
struct PlanningSlot {
    draw: Option<JobKey>,
    instance: JobKey,
}

impl PlanningSlot {
    /// A plan job's inputs: the model's train job (a learned heuristic),
    /// the draw, the instance last.
    fn inputs(&self, model: Option<&JobKey>) -> Vec<JobKey> {
        model.into_iter().chain(&self.draw).chain([&self.instance]).cloned().collect()
    }
}

/// The test slots that get plan jobs. Every slot when the grid plans them
/// all, or asks for at least as many as there are. Otherwise a sample of
/// `n` *solved* slots, as the authors drew their planning instances from
/// the test instances that exist (`docs/pddlsl-code-vs-paper.md`): the
/// slots are ranked in a fixed order (a digest of their keys, so the same
/// grid always ranks them alike), a chain of draw jobs walks that order
/// once generation has ended (each reads the previous one's count), and
/// the first `n` slots with an instance are drawn. Every slot gets plan
/// jobs; those of a slot not drawn are skipped, so an unsolved slot gives
/// its place to the next solved one instead of leaving the sample short.
fn planning_slots(
    out: &mut Expansion,
    seen: &mut HashSet<JobKey>,
    domain: &str,
    keys: &[JobKey],
    n: Option<usize>,
) -> Vec<PlanningSlot> {
    // A seed listed twice is one instance: its first position.
    let mut once = HashSet::new();
    let slots: Vec<&JobKey> = keys.iter().filter(|k| once.insert(*k)).collect();
    let n = match n {
        Some(0) => return vec![],
        Some(n) if n < slots.len() => n,
        _ => return slots.into_iter().map(|k| PlanningSlot { draw: None, instance: k.clone() }).collect(),
    };
    let mut ranked: Vec<(JobKey, usize)> =
        slots.iter().enumerate().map(|(i, k)| (JobKey::of(&("planning-sample", k.as_str()), &[]), i)).collect();
    ranked.sort();
    let mut draws: Vec<Option<JobKey>> = vec![None; slots.len()];
    let mut previous: Option<JobKey> = None;
    for (rank, (_, i)) in ranked.into_iter().enumerate() {
        let inputs: Vec<JobKey> = [slots[i].clone()].into_iter().chain(previous.take()).collect();
        // Both fit: a grid expands into at most MAX_JOBS jobs.
        let spec = JobSpec::Draw { domain: domain.to_string(), n: n as u32, rank: rank as u32 };
        let key = out.add(seen, Job::new(spec, inputs));
        draws[i] = Some(key.clone());
        previous = Some(key);
    }
    // Generation order among the slots, for readable listings.
    slots.into_iter().zip(draws).map(|(k, draw)| PlanningSlot { draw, instance: k.clone() }).collect()
}

/// The slot a combination's slots wait for (same seed): the latest earlier
/// combination that is no harder, i.e. no larger in every parameter that
/// makes instances harder as it grows (`Param::harder_as_it_grows`) and
/// equal in the others. When that slot ends without an instance (every try
/// unsolved within the limits), the harder one is skipped without trying:
/// a generate job needs its inputs (`Needs::All`). The rule is the same on
/// every run, whatever the order in which workers finish.
fn difficulty_gate(combos: &[Params], c: usize) -> Option<usize> {
    let info = combos[c].info();
    let (b, params) = (combos[c].values(), info.params);
    (0..c).rev().find(|&a| {
        let a = combos[a].values();
        let mut smaller = false;
        for p in params {
            let (x, y) = (a.get(p.name), b.get(p.name));
            match (p.harder_as_it_grows, as_f64(x), as_f64(y)) {
                (true, Some(x), Some(y)) if x <= y => smaller |= x < y,
                (false, _, _) if x == y => {}
                (_, None, None) => {}
                _ => return false,
            }
        }
        smaller
    })
}

fn as_f64(v: Option<Value>) -> Option<f64> {
    match v? {
        Value::Int(n) => Some(n as f64),
        Value::Float(x) => Some(x),
    }
}

pub fn expand(grid: &Grid) -> Expansion {
    let mut out = Expansion::default();
    let mut seen = HashSet::new();
    let default_solve = grid.limits.generate.unwrap_or_default();
    let plan_limits = grid.limits.plan.unwrap_or_default();
    for (domain, spec) in &grid.domains {
        let mut generated: BTreeMap<Split, Vec<JobKey>> = BTreeMap::new();
        let mut labels: BTreeMap<Split, Vec<JobKey>> = BTreeMap::new();
        for split in Split::ALL {
            let s = spec.split(split);
            let limits = s.limits.unwrap_or(default_solve);
            let combos = s.combinations(domain);
            // Generate keys by combination, then seed: a slot waits for its gate's.
            let mut keys: Vec<Vec<JobKey>> = vec![];
            for (c, &params) in combos.iter().enumerate() {
                let gate = difficulty_gate(&combos, c).filter(|_| limits.skip_after_easier_failed);
                let mut row = vec![];
                for (k, &seed) in s.seeds.0.iter().enumerate() {
                    let mut inputs = gate.map(|g| vec![keys[g][k].clone()]).unwrap_or_default();
                    // The cross-seed rule: after the gate, the same size's
                    // previous seeds, nearest first (`SolveLimits::skip_after_failed_seeds`).
                    if let (Some(n), true) = (limits.skip_after_failed_seeds, gate.is_some()) {
                        inputs.extend(row[k.saturating_sub(n as usize)..k].iter().rev().cloned());
                    }
                    let instances = grid.instances;
                    let spec = JobSpec::Generate { domain: domain.clone(), split, params, seed, limits, instances };
                    let g = Job::new(spec, inputs);
                    let gk = out.add(&mut seen, g);
                    row.push(gk.clone());
                    let features = grid.planning.heuristics;
                    let l = Job::new(JobSpec::Label { domain: domain.clone(), split, features }, vec![gk.clone()]);
                    let lk = out.add(&mut seen, l);
                    generated.entry(split).or_default().push(gk);
                    labels.entry(split).or_default().push(lk);
                }
                keys.push(row);
            }
        }
        let test_instances = generated.get(&Split::Test).cloned().unwrap_or_default();
        let planning = planning_slots(&mut out, &mut seen, domain, &test_instances, spec.test.planning);

        if let Some(b) = &grid.baselines {
            for name in &b.heuristics {
                for slot in &planning {
                    let spec = JobSpec::Plan {
                        domain: domain.clone(),
                        heuristic: PlanHeuristic::Classical { name: name.clone() },
                        limits: plan_limits,
                        planning: grid.planning,
                    };
                    out.add(&mut seen, Job::new(spec, slot.inputs(None)));
                }
            }
        }

        let mut train_inputs = labels.get(&Split::Train).cloned().unwrap_or_default();
        train_inputs.extend(labels.get(&Split::Validation).cloned().unwrap_or_default());
        let test_labels = labels.get(&Split::Test).cloned().unwrap_or_default();
        for l in &grid.learning {
            for &model in &l.models {
                for &distribution in &l.distributions {
                    for &sigma in &l.sigma {
                        for &residual in &l.residuals {
                            for &bound in &l.bounds {
                                for &seed in &grid.seeds.0 {
                                    let train = JobSpec::Train {
                                        domain: domain.clone(),
                                        model,
                                        distribution,
                                        sigma,
                                        // The Gaussian's training ignores the bound: one job serves all bounds.
                                        bound: (distribution == Distribution::Truncated).then_some(bound),
                                        residual,
                                        seed,
                                        steps: l.steps,
                                        train_instances: l.train_instances,
                                    };
                                    let tk = out.add(&mut seen, Job::new(train, train_inputs.clone()));
                                    let mut eval_inputs = vec![tk.clone()];
                                    eval_inputs.extend(test_labels.iter().cloned());
                                    let eval = JobSpec::Evaluate { domain: domain.clone(), bound };
                                    out.add(&mut seen, Job::new(eval, eval_inputs));
                                    // Table 2 compares N, N+clip and TN: a Gaussian model
                                    // plans with mu and with mu clipped to the bound.
                                    let estimates: Vec<Option<Bound>> = match distribution {
                                        Distribution::Gaussian => vec![None, Some(l.clip.unwrap_or(bound))],
                                        Distribution::Truncated => vec![None],
                                    };
                                    for clip in estimates {
                                        for slot in &planning {
                                            let plan = JobSpec::Plan {
                                                domain: domain.clone(),
                                                heuristic: PlanHeuristic::Learned { clip, model: Some(model) },
                                                limits: plan_limits,
                                                planning: grid.planning,
                                            };
                                            out.add(&mut seen, Job::new(plan, slot.inputs(Some(&tk))));
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
    let mut add = |job: Job| out.add(&mut seen, job);
    for b in &grid.likely {
        likely::expand(b, &mut add);
    }
    for b in &grid.graphlearn {
        graphlearn::expand(b, &mut add);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gates(combos: &[Params]) -> Vec<Option<usize>> {
        (0..combos.len()).map(|c| difficulty_gate(combos, c)).collect()
    }

    #[test]
    fn a_slot_waits_for_the_same_seeds_next_easier_slot() {
        let gripper: Vec<Params> = [20, 30, 40].map(|balls| Params::Gripper { balls }).to_vec();
        assert_eq!(gates(&gripper), [None, Some(0), Some(1)]);
        // Two growing parameters: the latest earlier slot no larger in both.
        let ferry: Vec<Params> = [(10, 10), (10, 15), (15, 10), (15, 15)]
            .map(|(locations, cars)| Params::Ferry { locations, cars })
            .to_vec();
        assert_eq!(gates(&ferry), [None, Some(0), Some(0), Some(2)]);
        // A parameter that does not make instances harder separates chains.
        let visitall: Vec<Params> = [(5, 0.5), (5, 1.0), (6, 0.5), (6, 1.0)]
            .map(|(size, ratio)| Params::Visitall { size, ratio, height: None })
            .to_vec();
        assert_eq!(gates(&visitall), [None, None, Some(0), Some(1)]);
    }

    #[test]
    fn with_the_cross_seed_rule_a_gated_slot_also_waits_for_the_same_sizes_previous_seeds() {
        let grid = Grid::parse(
            r#"
name = "peers"
seeds = [1]
[domains.gripper.train]
seeds = "1..4"
balls = [2, 3]
limits = { skip_after_failed_seeds = 2 }
[domains.gripper.validation]
seeds = "1..1"
balls = [2]
[domains.gripper.test]
seeds = "1..1"
balls = [2]
"#,
            "peers.toml",
        )
        .unwrap();
        let e = expand(&grid);
        let slot = |balls: u32, seed: u64| {
            e.jobs
                .iter()
                .find(|j| {
                    matches!(&j.spec, JobSpec::Generate { split: Split::Train, params: Params::Gripper { balls: b }, seed: s, .. }
                        if *b == balls && *s == seed)
                })
                .unwrap()
        };
        // The split's easiest size has no gate, hence no peers: always tried.
        assert!((1..=4).all(|seed| slot(2, seed).inputs.is_empty()));
        // Then the gate first, the previous seeds nearest first, at most 2.
        assert_eq!(slot(3, 1).inputs, [slot(2, 1).key.clone()]);
        assert_eq!(slot(3, 2).inputs, [slot(2, 2).key.clone(), slot(3, 1).key.clone()]);
        assert_eq!(slot(3, 4).inputs, [slot(2, 4).key.clone(), slot(3, 3).key.clone(), slot(3, 2).key.clone()]);
        let size = crate::grid::size(&grid);
        let inputs: usize = e.jobs.iter().map(|j| j.inputs.len()).sum();
        assert!(size.inputs >= inputs as u64, "{size:?} < {inputs}");
    }

    /// A sample of the test slots: a chain of draws over every slot in a
    /// fixed order, plan jobs on every slot behind its draw; without a
    /// sample (or asking for as many as there are) no draws at all.
    #[test]
    fn a_planning_sample_draws_every_test_slot_in_a_chain_and_plans_behind_the_draws() {
        let text = |planning: usize| {
            format!(
                r#"
name = "sample"
[domains.gripper.train]
seeds = "1..2"
balls = [2]
[domains.gripper.validation]
seeds = "1..1"
balls = [2]
[domains.gripper.test]
seeds = "1..5"
balls = [4]
planning = {planning}
[baselines]
heuristics = ["ff"]
"#
            )
        };
        let grid = Grid::parse(&text(3), "sample.toml").unwrap();
        let e = expand(&grid);
        let of = |kind: JobKind| e.jobs.iter().filter(move |j| j.spec.kind() == kind);
        let tests: Vec<&JobKey> = of(JobKind::Generate)
            .filter(|j| matches!(j.spec, JobSpec::Generate { split: Split::Test, .. }))
            .map(|j| &j.key)
            .collect();
        let draws: Vec<&Job> = of(JobKind::Draw).collect();
        assert_eq!((tests.len(), draws.len()), (5, 5));
        // In rank order, each after the one before: its slot, then the previous draw.
        for (rank, d) in draws.iter().enumerate() {
            assert_eq!(d.spec, JobSpec::Draw { domain: "gripper".into(), n: 3, rank: rank as u32 });
            assert!(tests.contains(&&d.inputs[0]));
            match rank {
                0 => assert_eq!(d.inputs.len(), 1),
                _ => assert_eq!(d.inputs[1..], [draws[rank - 1].key.clone()]),
            }
        }
        let drawn: HashSet<&JobKey> = draws.iter().map(|d| &d.inputs[0]).collect();
        assert_eq!(drawn.len(), 5, "every slot drawn once");
        // A plan job per slot, behind that slot's draw.
        let plans: Vec<&Job> = of(JobKind::Plan).collect();
        assert_eq!(plans.len(), 5);
        for p in &plans {
            let d = draws.iter().find(|d| d.key == p.inputs[0]).expect("a draw first");
            assert_eq!(p.inputs[1..], [d.inputs[0].clone()], "then the draw's own slot");
        }
        let size = crate::grid::size(&grid);
        let inputs: usize = e.jobs.iter().map(|j| j.inputs.len()).sum();
        assert!(size.jobs >= e.jobs.len() as u64 && size.inputs >= inputs as u64, "{size:?}");
        // Asking for none: neither draws nor plan jobs.
        let e = expand(&Grid::parse(&text(0), "sample.toml").unwrap());
        assert_eq!((e.counts().get(&JobKind::Draw), e.counts().get(&JobKind::Plan)), (None, None));
        // Asking for every slot: no draws, plan jobs read the instance alone.
        for n in [5, 9] {
            let e = expand(&Grid::parse(&text(n), "sample.toml").unwrap());
            assert_eq!(e.counts().get(&JobKind::Draw), None);
            let plans: Vec<&Job> = e.jobs.iter().filter(|j| j.spec.kind() == JobKind::Plan).collect();
            assert_eq!(plans.len(), 5);
            assert!(plans.iter().all(|p| p.inputs.len() == 1 && tests.contains(&&p.inputs[0])));
        }
    }

    /// The code's splits: every split draws from the same (parameters,
    /// seed) instances, so a validation slot is the training slot of the
    /// same parameters and seed, try for try; by default they differ.
    #[test]
    fn under_shared_splits_a_validation_instance_is_the_training_instance_of_its_parameters_and_seed() {
        let text = |splits: &str| {
            format!(
                r#"
name = "splits"
[instances]
splits = "{splits}"
[domains.gripper.train]
seeds = "1..6"
balls = [2, 4]
[domains.gripper.validation]
seeds = "2..3"
balls = [2, 4]
[domains.gripper.test]
seeds = "1..2"
balls = [6]
limits = {{ skip_after_easier_failed = false }}
"#
            )
        };
        for (splits, shared) in [("shared", true), ("disjoint", false)] {
            let grid = Grid::parse(&text(splits), "splits.toml").unwrap();
            let e = expand(&grid);
            let slots = |split: Split| -> Vec<(Params, u64, crate::grid::Instances, &Job)> {
                e.jobs
                    .iter()
                    .filter_map(|j| match &j.spec {
                        JobSpec::Generate { split: s, params, seed, instances, .. } if *s == split => {
                            Some((*params, *seed, *instances, j))
                        }
                        _ => None,
                    })
                    .collect()
            };
            let (train, validation) = (slots(Split::Train), slots(Split::Validation));
            assert_eq!((train.len(), validation.len()), (12, 4));
            for (params, seed, instances, _) in &validation {
                let (.., t) = train.iter().find(|(p, s, ..)| p == params && s == seed).expect("a training slot");
                let JobSpec::Generate { instances: ti, .. } = &t.spec else { unreachable!() };
                assert_eq!(instances, ti);
                for attempt in 0..20 {
                    let (v, t) = (
                        instances.splits.generator_seed(Split::Validation, *seed, attempt),
                        instances.splits.generator_seed(Split::Train, *seed, attempt),
                    );
                    assert_eq!(v == t, shared, "{splits}: try {attempt} of seed {seed}");
                    let (vp, tp) = (planner::generate::generate(params, v), planner::generate::generate(params, t));
                    assert_eq!(vp == tp, shared, "{splits}: the problems of try {attempt} of seed {seed}");
                    if shared {
                        assert_eq!(v, seed * 1000 + u64::from(attempt), "the code's seed rule");
                    }
                }
            }
            // Without the gate every test slot is tried on its own.
            assert!(slots(Split::Test).iter().all(|(.., j)| j.inputs.is_empty()));
            // The default serializes as before: old keys hold.
            let json = serde_json::to_string(&train[0].3.spec).unwrap();
            assert_eq!(json.contains("instances"), shared, "{json}");
        }
        // The authors' generators: the same problem text in both splits, and
        // a domain they do not make is refused at its key.
        let theirs = text("shared").replace("[instances]\n", "[instances]\ngenerator = \"pddl-generators\"\n");
        let e = expand(&Grid::parse(&theirs, "splits.toml").unwrap());
        let texts: Vec<(Split, String)> = e
            .jobs
            .iter()
            .filter_map(|j| match &j.spec {
                JobSpec::Generate { split, params, seed, instances, .. } if *seed == 2 && *split != Split::Test => {
                    assert_eq!(instances.generator, planner::generate::Generator::PddlGenerators);
                    let g = instances.splits.generator_seed(*split, *seed, 0);
                    Some((*split, planner::generate::generate_with(params, g, instances.generator).unwrap()))
                }
                _ => None,
            })
            .collect();
        let (train, validation): (Vec<_>, Vec<_>) = texts.iter().partition(|(s, _)| *s == Split::Train);
        assert_eq!(train.iter().map(|t| &t.1).collect::<Vec<_>>(), validation.iter().map(|t| &t.1).collect::<Vec<_>>());
        let zeno = "name = \"z\"\n[instances]\ngenerator = \"pddl-generators\"\n[domains.zenotravel.train]\nseeds = 1\ncities = 2\nplanes = 1\npersons = 1\n[domains.zenotravel.validation]\nseeds = 1\ncities = 2\nplanes = 1\npersons = 1\n[domains.zenotravel.test]\nseeds = 1\ncities = 2\nplanes = 1\npersons = 1\n";
        let e = Grid::parse(zeno, "z.toml").unwrap_err().to_string();
        assert!(e.contains("instances.generator: pddl-generators does not make zenotravel problems"), "{e}");
        let e = Grid::parse(&theirs.replace("pddl-generators", "ipc"), "g.toml").unwrap_err().to_string();
        assert!(e.contains("instances.generator") && e.contains("pddl-generators"), "{e}");
        let many = text("shared").replace("balls = [6]\n", "balls = [6]\nlimits = { tries = 1000 }\n");
        let many = many.replace("limits = { skip_after_easier_failed = false }\n", "");
        let e = Grid::parse(&many, "splits.toml").unwrap_err().to_string();
        assert!(e.contains("domains.gripper.test.limits.tries: with instances.splits = \"shared\""), "{e}");
    }
}
