//! What a grid will cost before it runs, and how long an experiment has
//! left: CPU-hours and GPU-hours per job kind from a cost model calibrated
//! on this farm's finished jobs (`schema::metrics::measured_rates`), with
//! defaults measured on the reference machine (`cost_defaults.toml`) where
//! the farm has measured nothing alike yet.
//!
//! A job's cost is `units x seconds per unit`: one unit per generate, label
//! and evaluate job; a training's steps; a plan run's evaluations (its
//! budget, unless the farm measured how many runs of that kind really
//! use). A generate job never costs more than its tries x time limit (the
//! tries it may make in a row out of time, when it gives up after some).
//! The other seeds' kinds: a learner's iterations, a bootstrap's rounds,
//! one unit per other job (a test or baseline search capped by its time limit).
//!
//! Between the two, rates from `hfarm bench train-group` and `hfarm bench
//! plan-many` run on the machines that will do the work (`with_bench`):
//! the grouped rates, which are what GPU workers achieve (`hfarm worker
//! --train-group`, `--plan-group`), and which the reference machine's
//! defaults lack for GPUs.

use std::collections::{BTreeMap, HashMap};

use jobs::class::JobClass;
use jobs::grid::Model;
use jobs::{Job, JobKind, Resource};
use schema::metrics::Measured;
use serde::{Deserialize, Serialize};

/// The reference machine's figures (see the file's comments for their sources).
const DEFAULTS: &str = include_str!("cost_defaults.toml");

#[derive(Debug, Clone, Deserialize)]
struct Defaults {
    /// Seconds per job, by kind, then domain (`*` for any), then group (`*` for any).
    generate: BTreeMap<String, BTreeMap<String, f64>>,
    label: BTreeMap<String, f64>,
    evaluate: BTreeMap<String, f64>,
    /// Seconds per step, by resource class, then model.
    train: BTreeMap<String, BTreeMap<String, f64>>,
    /// Seconds per evaluation, by heuristic or model, then domain.
    plan: BTreeMap<String, BTreeMap<String, f64>>,
    /// The same for learned plan jobs on GPU workers.
    plan_gpu: BTreeMap<String, BTreeMap<String, f64>>,
    /// The other seeds' experiment kinds: seconds per unit by kind name,
    /// then `domain/group`, group, domain or `*` (the first that is there).
    per_unit: BTreeMap<String, BTreeMap<String, f64>>,
}

impl Defaults {
    /// Every registered model (`jobs::model`) has figures of its own under
    /// its cost group: seconds per training step on each resource class
    /// (`[train.cpu]`, `[train.gpu]`), per evaluation in a CPU search
    /// (`[plan.NAME]`), and, if it plans on a GPU, per evaluation there
    /// (`[plan_gpu.NAME]`). The catch-alls (`*`) are for classical
    /// heuristics and domains, never for a model.
    fn check_models(&self) -> Result<(), String> {
        let mut missing = vec![];
        for &m in Model::ALL {
            let key = m.cost_group();
            for resource in Resource::ALL {
                if !self.train.get(resource.as_str()).is_some_and(|t| t.contains_key(key)) {
                    missing.push(format!("[train.{}] {key}", resource.as_str()));
                }
            }
            if !self.plan.contains_key(key) {
                missing.push(format!("[plan.{key}]"));
            }
            if m.plans_on() == Resource::Gpu && !self.plan_gpu.contains_key(key) {
                missing.push(format!("[plan_gpu.{key}]"));
            }
        }
        if missing.is_empty() {
            Ok(())
        } else {
            Err(format!("registered models lack cost defaults: {}", missing.join(", ")))
        }
    }
}

/// Where a figure came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// This farm's finished jobs of the same class.
    Measured,
    /// A benchmark's rate on the target machines (`CostModel::with_bench`).
    Bench,
    /// The reference machine's defaults.
    Default,
}

/// Seconds per unit for every job class.
#[derive(Debug, Clone)]
pub struct CostModel {
    defaults: Defaults,
    /// Seconds per unit from benchmarks, by (kind, resource, group, domain or `*`).
    bench: HashMap<(JobKind, Resource, String, String), f64>,
    measured: HashMap<(JobKind, String, String), Measured>,
}

/// One line of `hfarm bench train-group --json` or `hfarm bench plan-many
/// --json`, as far as the cost model reads it.
#[derive(Debug, Deserialize)]
struct BenchLine {
    model: String,
    device: String,
    group_steps_per_s: Option<f64>,
    batched_evaluations_per_s: Option<f64>,
    /// plan-many's test instance, e.g. `Gripper { balls: 20 }`.
    problem: Option<String>,
}

impl CostModel {
    /// The reference machine's figures only.
    ///
    /// The figures are compiled in; a registered model without its own
    /// figures would be priced from another model's or a catch-all's, so it
    /// is refused here, naming what is missing (and by the test
    /// `every_registered_model_has_cost_defaults` before it ships).
    pub fn defaults() -> CostModel {
        let defaults: Defaults = toml::from_str(DEFAULTS).expect("cost_defaults.toml is valid (tested)");
        if let Err(e) = defaults.check_models() {
            panic!("cost_defaults.toml: {e} (every_registered_model_has_cost_defaults fails too)");
        }
        CostModel { defaults, bench: HashMap::new(), measured: HashMap::new() }
    }

    /// Adds the rates of benchmark output `text` (JSON objects, one per
    /// line, from `hfarm bench train-group --json` and `hfarm bench
    /// plan-many --json` on the machines that will run the grid): a
    /// training step of a model costs 1 / group_steps_per_s on that device,
    /// an evaluation 1 / batched_evaluations_per_s in that domain. `file`
    /// names the source in errors.
    pub fn with_bench(mut self, text: &str, file: &str) -> Result<CostModel, String> {
        for (i, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
            let at = format!("{file}:{}", i + 1);
            let b: BenchLine = serde_json::from_str(line).map_err(|e| {
                format!("{at}: {e} (expected the JSON line of `hfarm bench train-group|plan-many --json`)")
            })?;
            let resource =
                if b.device.to_ascii_lowercase().starts_with("cuda") { Resource::Gpu } else { Resource::Cpu };
            let positive = |what: &str, v: f64| {
                if v.is_finite() && v > 0.0 {
                    Ok(v)
                } else {
                    Err(format!("{at}: {what} is {v}; expected a positive rate"))
                }
            };
            if let Some(r) = b.group_steps_per_s {
                let r = positive("group_steps_per_s", r)?;
                self.bench.insert((JobKind::Train, resource, b.model.clone(), "*".into()), 1.0 / r);
            }
            if let Some(r) = b.batched_evaluations_per_s {
                let r = positive("batched_evaluations_per_s", r)?;
                // `Gripper { balls: 20 }` -> gripper
                let domain = b
                    .problem
                    .as_deref()
                    .and_then(|p| p.split(|c: char| !c.is_ascii_alphanumeric()).next())
                    .map(|d| d.to_ascii_lowercase())
                    .filter(|d| !d.is_empty())
                    .unwrap_or_else(|| "*".into());
                self.bench.insert((JobKind::Plan, resource, b.model.clone(), domain), 1.0 / r);
            }
            if b.group_steps_per_s.is_none() && b.batched_evaluations_per_s.is_none() {
                return Err(format!("{at}: neither group_steps_per_s nor batched_evaluations_per_s"));
            }
        }
        Ok(self)
    }

    fn bench_rate(&self, c: &JobClass) -> Option<f64> {
        let at = |domain: &str| self.bench.get(&(c.kind, c.resource, c.group.clone(), domain.to_string()));
        at(&c.domain).or_else(|| at("*")).copied()
    }

    /// Defaults overridden by what this farm measured.
    pub fn calibrated(measured: Vec<Measured>) -> CostModel {
        let mut m = CostModel::defaults();
        for r in measured {
            let key = (r.kind, r.domain.clone().unwrap_or_default(), r.group.clone().unwrap_or_default());
            m.measured.insert(key, r);
        }
        m
    }

    fn default_rate(&self, c: &JobClass) -> f64 {
        let d = &self.defaults;
        let by_domain = |m: &BTreeMap<String, f64>| m.get(&c.domain).or_else(|| m.get("*")).copied();
        let found = match c.kind {
            JobKind::Generate => {
                let split = d.generate.get(&c.group).or_else(|| d.generate.get("*"));
                split.and_then(by_domain)
            }
            JobKind::Label => by_domain(&d.label),
            JobKind::Evaluate => by_domain(&d.evaluate),
            JobKind::Train => {
                let class = d.train.get(c.resource.as_str()).or_else(|| d.train.get("*"));
                class.and_then(|m| m.get(&c.group).or_else(|| m.get("*")).copied())
            }
            JobKind::Plan => {
                let table = match c.resource {
                    Resource::Gpu => &d.plan_gpu,
                    Resource::Cpu => &d.plan,
                };
                table.get(&c.group).or_else(|| table.get("*")).and_then(by_domain)
            }
            // One statement with its completion.
            JobKind::Draw | JobKind::Noop => Some(0.0),
            JobKind::PuzzleLearn
            | JobKind::PuzzleSolve
            | JobKind::PuzzleTest
            | JobKind::PuzzleEfficiency
            | JobKind::GraphBootstrap
            | JobKind::GraphFold
            | JobKind::GraphBaseline => d.per_unit.get(c.kind.as_str()).and_then(|m| {
                m.get(&format!("{}/{}", c.domain, c.group))
                    .or_else(|| m.get(&c.group))
                    .or_else(|| m.get(&c.domain))
                    .or_else(|| m.get("*"))
                    .copied()
            }),
        };
        found.unwrap_or(1.0)
    }

    /// Seconds one job of class `c` takes, and where the figure came from.
    pub fn seconds(&self, c: &JobClass) -> (f64, Source) {
        let key = (c.kind, c.domain.clone(), c.group.clone());
        let (rate, units, source) = match (self.measured.get(&key), self.bench_rate(c)) {
            (Some(m), _) => (m.seconds, m.units_per_job.unwrap_or(c.units), Source::Measured),
            (None, Some(rate)) => (rate, c.units, Source::Bench),
            (None, None) => (self.default_rate(c), c.units, Source::Default),
        };
        let s = rate * units;
        (c.cap_s.map_or(s, |cap| s.min(cap)), source)
    }
}

/// The cost of one kind's jobs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct KindCost {
    pub jobs: usize,
    pub cpu_hours: f64,
    pub gpu_hours: f64,
    /// Jobs whose figure came from this farm's measurements.
    pub measured: usize,
}

/// A grid's projected cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Projection {
    pub by_kind: BTreeMap<JobKind, KindCost>,
    pub cpu_hours: f64,
    pub gpu_hours: f64,
}

impl Projection {
    pub fn add(&mut self, kind: JobKind, resource: Resource, jobs: usize, seconds: f64, source: Source) {
        let k = self.by_kind.entry(kind).or_default();
        k.jobs += jobs;
        if source == Source::Measured {
            k.measured += jobs;
        }
        let hours = seconds / 3600.0;
        match resource {
            Resource::Cpu => {
                k.cpu_hours += hours;
                self.cpu_hours += hours;
            }
            Resource::Gpu => {
                k.gpu_hours += hours;
                self.gpu_hours += hours;
            }
        }
    }
}

/// Seconds until work `left` (per resource class) is done on the live
/// workers' slots of each class (`slots`), the classes working side by side;
/// `Err(class)` when a class with work left has no live slot, so no time can
/// be given. Nothing left: 0.
pub fn eta(left: &BTreeMap<Resource, f64>, slots: impl Fn(Resource) -> i64) -> Result<f64, Resource> {
    let mut eta: f64 = 0.0;
    for (&class, seconds) in left {
        let n = slots(class);
        if n <= 0 {
            return Err(class);
        }
        eta = eta.max(seconds / n as f64);
    }
    Ok(eta)
}

/// Seconds of work left per resource class: the experiment's unfinished
/// jobs (`schema::metrics::remaining`) at the model's rates.
pub fn remaining_seconds(rows: &[schema::metrics::Remaining], model: &CostModel) -> BTreeMap<Resource, f64> {
    let mut out = BTreeMap::new();
    for r in rows {
        let (Ok(kind), Some(resource)) =
            (r.kind.parse::<JobKind>(), Resource::ALL.into_iter().find(|c| c.as_str() == r.resource))
        else {
            continue;
        };
        let class = JobClass {
            kind,
            domain: r.domain.clone(),
            group: r.group.clone(),
            resource,
            units: r.units,
            cap_s: r.cap_s,
        };
        *out.entry(resource).or_insert(0.0) += model.seconds(&class).0 * r.jobs as f64;
    }
    out
}

/// The projected cost of `jobs` (a grid's expansion).
pub fn project(jobs: &[Job], model: &CostModel) -> Projection {
    let mut p = Projection::default();
    for c in JobClass::of_all(jobs) {
        let (s, source) = model.seconds(&c);
        p.add(c.kind, c.resource, 1, s, source);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use jobs::grid::Grid;
    use jobs::spec::PlanHeuristic;
    use jobs::JobSpec;

    fn grid(text: &str) -> Vec<Job> {
        jobs::expand::expand(&Grid::parse(text, "g.toml").unwrap()).jobs
    }

    /// The slowest class decides; a class with work and no live slot gives no time.
    #[test]
    fn eta_is_the_slowest_class_over_its_slots() {
        let left = BTreeMap::from([(Resource::Cpu, 600.0), (Resource::Gpu, 100.0)]);
        let slots = |cpu: i64, gpu: i64| move |c: Resource| if c == Resource::Cpu { cpu } else { gpu };
        assert_eq!(eta(&left, slots(4, 1)), Ok(150.0));
        assert_eq!(eta(&left, slots(12, 1)), Ok(100.0));
        assert_eq!(eta(&left, slots(4, 0)), Err(Resource::Gpu));
        assert_eq!(eta(&BTreeMap::new(), slots(0, 0)), Ok(0.0));
    }

    /// Every model in the registry is priced from figures of its own in
    /// `cost_defaults.toml`, never from a catch-all: adding a model without
    /// them fails here (and `CostModel::defaults` refuses to load).
    #[test]
    fn every_registered_model_has_cost_defaults() {
        let d: Defaults = toml::from_str(DEFAULTS).unwrap();
        d.check_models().unwrap();
        for &m in Model::ALL {
            let mut train = d.train.clone();
            train.get_mut("gpu").unwrap().remove(m.cost_group());
            let e = Defaults { train, ..d.clone() }.check_models().unwrap_err();
            assert!(e.contains(&format!("[train.gpu] {}", m.cost_group())), "{e}");
            let mut plan = d.plan.clone();
            plan.remove(m.cost_group());
            let e = Defaults { plan, ..d.clone() }.check_models().unwrap_err();
            assert!(e.contains(&format!("[plan.{}]", m.cost_group())), "{e}");
        }
        let e = Defaults { plan_gpu: BTreeMap::new(), ..d.clone() }.check_models().unwrap_err();
        assert!(e.contains("[plan_gpu.nlm]") && !e.contains("[plan_gpu.linear]"), "{e}");
        CostModel::defaults();
    }

    const SMALL: &str = r#"
name = "small"
seeds = [1, 2]
[baselines]
heuristics = ["ff"]
[domains.gripper.train]
seeds = "1..2"
balls = [2]
[domains.gripper.validation]
seeds = "1..1"
balls = [2]
[domains.gripper.test]
seeds = "1..2"
balls = [20]
limits = { time_s = 10, tries = 3 }
[[learning]]
models = ["nlm"]
distributions = ["truncated"]
sigma = ["learn"]
bounds = ["lmcut"]
residuals = ["ff"]
steps = 1000
"#;

    #[test]
    fn the_defaults_parse_and_cover_every_kind() {
        let m = CostModel::defaults();
        assert!(!m.defaults.generate.is_empty() && !m.defaults.plan.is_empty());
        let p = project(&grid(SMALL), &m);
        for kind in [JobKind::Generate, JobKind::Label, JobKind::Train, JobKind::Evaluate, JobKind::Plan] {
            let k = &p.by_kind[&kind];
            assert!(k.jobs > 0 && k.cpu_hours + k.gpu_hours > 0.0, "{kind:?}: {k:?}");
            assert_eq!(k.measured, 0);
        }
        assert!(p.by_kind[&JobKind::Train].gpu_hours > 0.0 && p.by_kind[&JobKind::Train].cpu_hours == 0.0);
    }

    /// A planning sample of n test slots plans behind draws on every slot;
    /// the projection counts n slots' plan jobs, as when only n existed.
    #[test]
    fn a_planning_sample_projects_n_slots_of_planning() {
        let m = CostModel::defaults();
        let sample = SMALL.replace("seeds = \"1..2\"\nballs = [20]", "seeds = \"1..5\"\nballs = [20]\nplanning = 2");
        let few = SMALL.replace("seeds = \"1..2\"\nballs = [20]", "seeds = \"1..2\"\nballs = [20]\nplanning = 2");
        assert_ne!(sample, SMALL);
        let (sample, few) = (project(&grid(&sample), &m), project(&grid(&few), &m));
        let plan = |p: &Projection| p.by_kind[&JobKind::Plan].clone();
        assert_eq!((plan(&sample).jobs, plan(&few).jobs), (5 * 3, 2 * 3), "every slot has plan jobs");
        let (a, b) = (plan(&sample).cpu_hours + plan(&sample).gpu_hours, plan(&few).cpu_hours + plan(&few).gpu_hours);
        assert!(b > 0.0 && (a - b).abs() < 1e-9 * b, "{a} vs {b}");
        assert_eq!(sample.by_kind[&JobKind::Draw].jobs, 5);
        assert!(!few.by_kind.contains_key(&JobKind::Draw), "2 of 2 slots: no draws");
    }

    #[test]
    fn units_scale_the_cost_caps_bound_it_and_measurements_win() {
        let jobs = grid(SMALL);
        let train: Vec<&Job> = jobs.iter().filter(|j| j.spec.kind() == JobKind::Train).collect();
        let none = HashMap::new();
        let c = JobClass::of(train[0], &none);
        assert_eq!((c.group.as_str(), c.units), ("nlm", 1000.0));
        let measured = |kind: JobKind, group: &str, seconds: f64, units: Option<f64>| Measured {
            kind,
            domain: Some("gripper".into()),
            group: Some(group.into()),
            jobs: 3,
            seconds,
            units_per_job: units,
        };
        let m = CostModel::calibrated(vec![
            measured(JobKind::Train, "nlm", 0.5, None),
            measured(JobKind::Generate, "test", 1_000.0, None),
            measured(JobKind::Plan, "ff", 0.001, Some(200.0)),
        ]);
        assert_eq!(m.seconds(&c), (500.0, Source::Measured), "1000 steps at 0.5 s");
        let generate =
            jobs.iter().find(|j| matches!(&j.spec, JobSpec::Generate { split, .. } if split.as_str() == "test"));
        let g = JobClass::of(generate.unwrap(), &none);
        assert_eq!(m.seconds(&g), (30.0, Source::Measured), "never more than 3 tries x 10 s");
        let ff =
            jobs.iter().find(|j| matches!(&j.spec, JobSpec::Plan { heuristic: PlanHeuristic::Classical { .. }, .. }));
        let (s, _) = m.seconds(&JobClass::of(ff.unwrap(), &none));
        assert!((s - 0.2).abs() < 1e-12, "200 measured evaluations per run, not the budget: {s}");
        let p = project(&jobs, &m);
        assert_eq!(p.by_kind[&JobKind::Train].measured, 2);
        assert!((p.by_kind[&JobKind::Train].gpu_hours - 2.0 * 500.0 / 3600.0).abs() < 1e-9);
    }

    #[test]
    fn the_paper_grid_projects_its_trainings_by_hand_arithmetic() {
        let text = include_str!("../../../grids/ijcai24.toml");
        let jobs = grid(text);
        let p = project(&jobs, &CostModel::defaults());
        // 4 domains x 5 seeds: NLM 12 configurations x 100,000 steps at 0.0114 s,
        // HGN and linear 8 each x 40,000 steps at 0.0114 s and 0.005 s.
        let by_hand = 20.0 * (12.0 * 100_000.0 * 0.0114 + 8.0 * 40_000.0 * (0.0114 + 0.005)) / 3600.0;
        let train = &p.by_kind[&JobKind::Train];
        assert_eq!(train.jobs, 560);
        assert!((train.gpu_hours - by_hand).abs() < 1e-6, "{} vs {by_hand}", train.gpu_hours);
        // Every plan run at its whole budget: 82,800 runs (100 per domain
        // and configuration); the NLM's and HGN's on GPU workers, the
        // linear model's and the baselines' on CPU. Blocksworld (132 test
        // slots) and visitall (102) draw their 100 from the solved slots:
        // plan jobs on every slot, 207 per 400 the reserves of unsolved ones.
        let plan = &p.by_kind[&JobKind::Plan];
        assert_eq!(plan.jobs, 82_800 / 400 * (132 + 100 + 100 + 102));
        assert_eq!(p.by_kind[&JobKind::Draw].jobs, 132 + 102);
        assert!(plan.gpu_hours > 0.0 && plan.cpu_hours > 0.0, "{plan:?}");
        assert!(p.cpu_hours > plan.cpu_hours);
        assert!((p.gpu_hours - train.gpu_hours - plan.gpu_hours).abs() < 1e-6);
    }

    #[test]
    fn benchmark_rates_stand_between_measurements_and_defaults() {
        let jobs = grid(SMALL);
        let bench = concat!(
            r#"{"model":"nlm","device":"Cuda(0)","runs":8,"steps":100,"batch_size":256,"group_steps_per_s":800.0,"sequential_steps_per_s":90.0,"speedup":8.9}"#,
            "\n",
            r#"{"model":"nlm","device":"Cuda(0)","problem":"Gripper { balls: 20 }","searches":256,"budget":100,"batched_evaluations_per_s":20000.0,"single_evaluations_per_s":250.0,"speedup":80.0,"identical":256,"differing":0,"shared_passes":1,"single_passes":1}"#,
        );
        let m = CostModel::defaults().with_bench(bench, "rates.json").unwrap();
        let p = project(&jobs, &m);
        // 2 trainings x 1000 steps at 1/800 s; 2 x 2 learned plan runs x 10,000 evaluations at 1/20,000 s.
        let train = &p.by_kind[&JobKind::Train];
        assert!((train.gpu_hours - 2.0 * 1000.0 / 800.0 / 3600.0).abs() < 1e-12, "{train:?}");
        let learned = jobs
            .iter()
            .filter(|j| matches!(&j.spec, JobSpec::Plan { heuristic: PlanHeuristic::Learned { .. }, .. }))
            .count();
        let plan = &p.by_kind[&JobKind::Plan];
        assert!((plan.gpu_hours - learned as f64 * 10_000.0 / 20_000.0 / 3600.0).abs() < 1e-12, "{plan:?}");
        // The farm's own measurements still win.
        let measured = Measured {
            kind: JobKind::Train,
            domain: Some("gripper".into()),
            group: Some("nlm".into()),
            jobs: 1,
            seconds: 0.5,
            units_per_job: None,
        };
        let m = CostModel::calibrated(vec![measured]).with_bench(bench, "rates.json").unwrap();
        let train_job = jobs.iter().find(|j| j.spec.kind() == JobKind::Train).unwrap();
        assert_eq!(m.seconds(&JobClass::of(train_job, &HashMap::new())), (500.0, Source::Measured));
        // Bad lines say where and what was expected.
        let e = CostModel::defaults().with_bench("{\"model\":\"nlm\"}", "r.json").unwrap_err();
        assert!(e.starts_with("r.json:1: ") && e.contains("device"), "{e}");
        let e = CostModel::defaults()
            .with_bench(r#"{"model":"nlm","device":"Cpu","group_steps_per_s":0}"#, "r.json")
            .unwrap_err();
        assert!(e.contains("positive"), "{e}");
    }
}
