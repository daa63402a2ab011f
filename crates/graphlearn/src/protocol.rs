//! The thesis's evaluation protocol (section 5): leave-one-out over the
//! problems of one domain. For each held-out problem, a network per
//! configuration (alpha in {2, 3, 4} x {MSE, LogMSE} x {with, without h_FF}:
//! 12 in the thesis) is trained on the samples of the other problems, and
//! A* with it runs on the held-out problem under time and node limits,
//! beside the baselines (A* with h_FF and with goal count). Results are
//! rows (problem, configuration, solved, cost, expansions, time) and IPC
//! score tables per configuration ([`crate::ipc`]).
//!
//! Samples come from a [`SampleSource`]: given per problem (for instance
//! from one bootstrap over all problems, or [`plan_samples`]), or from a
//! bootstrap per fold over that fold's training problems only. The first
//! shares the data between folds (cheap); the second keeps the held-out
//! problem from influencing which states the others' samples are (the
//! bootstrap's models choose them), at a bootstrap per fold. The thesis
//! does not say which it did.
//!
//! A fold ([`run_fold`]) is independent of the others: the unit of work a
//! farm job runs.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use planner::heuristics::{self, Heuristic};
use planner::search::{Limits, SearchResult};
use planner::state::initial_state;
use planner::successors::{apply, SuccessorGenerator};

use crate::adjust::ByValue;
use crate::adjust::{delta_sets, Adjusted, Adjustment, DeltaSets};
use crate::bootstrap::{Bootstrap, BootstrapSettings};
use crate::features::{ff_values, FeatureCounter, StateFeatures};
use crate::fit::{fit_stats, FitStats};
use crate::hash::mix;
use crate::heuristic::LearnedHeuristic;
use crate::ipc::{scores, RunRow, ScoreRow};
use crate::labels::{label_state, LabelStore, LabelledState, LabellerSettings, Outcome};
use crate::mlp::{Loss, TrainReport, TrainSettings, THESIS_DROPOUT, THESIS_HIDDEN};
use crate::model::{Example, Model, ModelSettings};
use crate::problem::{check_one_domain, Problem};
use crate::Error;
use planner::search::astar;

/// One learned configuration of the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Configuration {
    pub alpha: usize,
    pub loss: Loss,
    pub ff_input: bool,
}

impl Configuration {
    pub fn model_settings(&self, hidden: &[usize], dropout: &[f32]) -> ModelSettings {
        ModelSettings {
            alpha: self.alpha,
            loss: self.loss,
            ff_input: self.ff_input,
            hidden: hidden.to_vec(),
            dropout: dropout.to_vec(),
        }
    }

    /// `a3-logmse+ff` (as [`ModelSettings::name`]).
    pub fn name(&self) -> String {
        self.model_settings(&[], &[]).name()
    }
}

/// alphas x {MSE, LogMSE} x {without, with h_FF}: the thesis's grid for alphas {2, 3, 4}.
pub fn grid(alphas: &[usize]) -> Vec<Configuration> {
    let mut out = vec![];
    for &alpha in alphas {
        for loss in [Loss::Mse, Loss::LogMse] {
            for ff_input in [false, true] {
                out.push(Configuration { alpha, loss, ff_input });
            }
        }
    }
    out
}

/// How to run the protocol.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProtocolSettings {
    pub configurations: Vec<Configuration>,
    pub hidden: Vec<usize>,
    pub dropout: Vec<f32>,
    pub train: TrainSettings,
    /// The held-out search's limits: seconds and evaluated states.
    pub time_s: Option<f64>,
    pub max_evaluations: Option<u64>,
    /// Baseline heuristics for A*, by planner name.
    pub baselines: Vec<String>,
    pub seed: u64,
    /// Also search with each learned network adjusted by the Delta-sets of
    /// its fold's training samples (h_min, h_avg, h_shift: rows named
    /// `a3-logmse+ff:min`).
    #[serde(default)]
    pub adjustments: Vec<Adjustment>,
    /// The thesis's adjustment experiment (section 5.2.2, Figures
    /// 5.10/5.11): classical heuristics adjusted by the Delta-sets of their
    /// *values* over the fold's training samples (rows `goalcount:min`).
    #[serde(default)]
    pub value_adjustments: Vec<ValueAdjustment>,
}

/// A classical heuristic (by planner name) adjusted by value Delta-sets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ValueAdjustment {
    pub heuristic: String,
    pub mode: Adjustment,
}

impl ValueAdjustment {
    /// `goalcount:min`.
    pub fn name(&self) -> String {
        format!("{}:{}", self.heuristic, self.mode.name())
    }
}

impl ProtocolSettings {
    /// The thesis's grid and network, h_FF and goal count as baselines,
    /// 30 minutes per problem (the main experiment) and the 5-million-node
    /// limit of the adjustment experiment (counted here as evaluations).
    pub fn thesis() -> ProtocolSettings {
        ProtocolSettings {
            configurations: grid(&[2, 3, 4]),
            hidden: THESIS_HIDDEN.to_vec(),
            dropout: THESIS_DROPOUT.to_vec(),
            train: TrainSettings::default(),
            time_s: Some(1800.0),
            max_evaluations: Some(5_000_000),
            baselines: vec!["ff".into(), "goalcount".into()],
            seed: 0,
            adjustments: vec![],
            value_adjustments: vec![],
        }
    }

    fn limits(&self) -> Limits {
        Limits::new(self.max_evaluations, self.time_s, None)
    }
}

/// Where training samples come from.
#[derive(Debug, Clone)]
pub enum SampleSource {
    /// Labelled states per problem (same order as the problems).
    Given(Vec<Vec<LabelledState>>),
    /// A bootstrap per fold, over the fold's training problems.
    BootstrapPerFold(Box<BootstrapSettings>),
}

/// A fold's outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FoldResult {
    pub held_out: String,
    /// One row per configuration, then one per baseline.
    pub rows: Vec<RunRow>,
    /// Each configuration's training.
    pub training: Vec<(String, TrainReport)>,
    /// Each configuration's fit to its training samples (section 5.4.3).
    #[serde(default)]
    pub fits: Vec<(String, FitStats)>,
    /// Samples trained on.
    pub samples: usize,
}

/// The whole protocol's outcome.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ProtocolResult {
    pub folds: Vec<FoldResult>,
    pub rows: Vec<RunRow>,
    pub scores: Vec<ScoreRow>,
}

/// Labelled states of a problem from cheap plans: the plan from the initial
/// state and from the end of each of `walks` seeded random walks of
/// `walk_length` steps, every state of each plan with its cost-to-go.
/// States that cannot be labelled are skipped.
pub fn plan_samples(
    problem: &Problem,
    labeller: &LabellerSettings,
    walks: usize,
    walk_length: usize,
    seed: u64,
) -> Result<Vec<LabelledState>, Error> {
    let task = problem.task();
    let succ = SuccessorGenerator::new(task);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut store = LabelStore::default();
    let mut starts = vec![initial_state(task)];
    let mut ops = vec![];
    for _ in 0..walks {
        let mut s = initial_state(task);
        let mut next = s.clone();
        for _ in 0..walk_length {
            ops.clear();
            succ.applicable(task, &s, &mut ops);
            if ops.is_empty() {
                break;
            }
            apply(task, &s, ops[rng.gen_range(0..ops.len())], &mut next);
            std::mem::swap(&mut s, &mut next);
        }
        starts.push(s);
    }
    for s in starts {
        if store.position(&s).is_some() {
            continue;
        }
        if let Outcome::Labelled(plan) = label_state(task, &s, labeller)? {
            for l in plan {
                store.insert(l);
            }
        }
    }
    Ok(store.into())
}

/// Features of labelled states, counted once at the largest alpha needed.
struct Prepared {
    /// Per problem: (features, h*).
    per_problem: Vec<Vec<(StateFeatures, f64)>>,
}

fn prepare(problems: &[Problem], samples: &[Vec<LabelledState>], alpha: usize, ff: bool) -> Result<Prepared, Error> {
    let mut counter = FeatureCounter::new(alpha)?;
    let mut per_problem = vec![];
    for (p, list) in problems.iter().zip(samples) {
        let states: Vec<&[u64]> = list.iter().map(|l| l.state.as_slice()).collect();
        if let Some(s) = states.iter().find(|s| s.len() != p.words()) {
            return Err(Error::Input(format!(
                "a sample of {} has {} words, its states {}",
                p.name,
                s.len(),
                p.words()
            )));
        }
        let ffs = if ff { ff_values(p, &states) } else { vec![] };
        let mut out = vec![];
        for (i, l) in list.iter().enumerate() {
            out.push((StateFeatures { counts: counter.count(p, &l.state), ff: ffs.get(i).copied() }, l.h_star as f64));
        }
        per_problem.push(out);
    }
    Ok(Prepared { per_problem })
}

/// A row from a search.
fn row(problem: &Problem, configuration: &str, r: &SearchResult) -> RunRow {
    let solved = r.status == planner::search::SearchStatus::Solved;
    let plan_valid = solved.then(|| {
        let text = planner::plan::format_plan(problem.task(), &r.plan);
        planner::plan::parse_plan(&text, "plan").ok().is_some_and(|steps| {
            planner::validate::validate(&problem.loaded.domain, &problem.loaded.problem, &steps).is_ok()
        })
    });
    RunRow {
        problem: problem.name.clone(),
        configuration: configuration.to_string(),
        solved,
        status: r.status.as_str().to_string(),
        cost: r.cost,
        expansions: r.expansions,
        evaluations: r.evaluations,
        time_s: r.search_time.as_secs_f64(),
        plan_valid,
        states_with_unknown: 0,
        unknown_occurrences: 0,
        adjusted: 0,
        fallbacks: 0,
    }
}

/// A* with each baseline heuristic on `problem`.
pub fn run_baselines(problem: &Problem, settings: &ProtocolSettings) -> Result<Vec<RunRow>, Error> {
    let mut rows = vec![];
    for name in &settings.baselines {
        let mut h: Box<dyn Heuristic> = heuristics::by_name(name, problem.task()).ok_or_else(|| {
            Error::Settings(format!("unknown baseline `{name}`; expected one of {}", heuristics::NAMES.join(", ")))
        })?;
        let r = astar(problem.task(), h.as_mut(), settings.limits());
        rows.push(row(problem, name, &r));
    }
    Ok(rows)
}

/// Trains `model` on the examples of every problem but `held_out`, and
/// measures its fit to them.
fn train_config(
    problems: &[Problem],
    prepared: &Prepared,
    held_out: usize,
    model: &ModelSettings,
    settings: &ProtocolSettings,
    seed: u64,
) -> Result<(Model, Option<FitStats>), Error> {
    let mut restricted = vec![];
    for (p, list) in prepared.per_problem.iter().enumerate() {
        if p == held_out {
            continue;
        }
        for (f, h) in list {
            if model.ff_input && !f.ff.is_some_and(f64::is_finite) {
                continue;
            }
            let counts = f.counts.restrict(model.alpha);
            restricted.push((StateFeatures { counts, ff: f.ff }, *h));
        }
    }
    let examples: Vec<Example> = restricted.iter().map(|(f, h)| Example { features: f, h_star: *h }).collect();
    let trained = Model::fit(model, &settings.train, problems[0].graphs().symbols().clone(), &examples, seed)?;
    let mut pairs = Vec::with_capacity(restricted.len());
    for (f, h) in &restricted {
        pairs.push((*h, trained.predict(f)?.0));
    }
    Ok((trained, fit_stats(&pairs)))
}

fn run_fold_prepared(
    problems: &[Problem],
    samples: &[Vec<LabelledState>],
    prepared: &Prepared,
    held_out: usize,
    settings: &ProtocolSettings,
) -> Result<FoldResult, Error> {
    let problem = &problems[held_out];
    let mut rows = vec![];
    let mut training = vec![];
    let mut fits = vec![];
    for (c, config) in settings.configurations.iter().enumerate() {
        let ms = config.model_settings(&settings.hidden, &settings.dropout);
        let seed = mix(settings.seed, ((held_out as u64) << 16) | c as u64);
        let (model, fit) = train_config(problems, prepared, held_out, &ms, settings, seed)?;
        training.push((ms.name(), model.report.clone()));
        fits.extend(fit.map(|f| (ms.name(), f)));
        let mut h = LearnedHeuristic::new(&model, problem)?;
        let r = astar(problem.task(), &mut h, settings.limits());
        let mut rr = row(problem, &ms.name(), &r);
        rr.states_with_unknown = h.stats().states_with_unknown;
        rr.unknown_occurrences = h.stats().unknown_occurrences;
        rows.push(rr);
        if settings.adjustments.is_empty() {
            continue;
        }
        // The Delta-sets of this network over the fold's training samples.
        let mut sets = DeltaSets::new();
        for (p, list) in problems.iter().zip(samples).enumerate().filter(|(i, _)| *i != held_out).map(|(_, x)| x) {
            delta_sets(&mut LearnedHeuristic::new(&model, p)?, p.words(), list, &mut sets);
        }
        let table = sets.table();
        for &mode in &settings.adjustments {
            let mut h = Adjusted::new(LearnedHeuristic::new(&model, problem)?, &table, mode);
            let r = astar(problem.task(), &mut h, settings.limits());
            let mut rr = row(problem, &format!("{}:{}", ms.name(), mode.name()), &r);
            rr.states_with_unknown = h.inner().stats().states_with_unknown;
            rr.unknown_occurrences = h.inner().stats().unknown_occurrences;
            (rr.adjusted, rr.fallbacks) = (h.hits, h.misses);
            rows.push(rr);
        }
    }
    rows.extend(run_value_adjustments(problems, samples, held_out, settings)?);
    rows.extend(run_baselines(problem, settings)?);
    let samples = prepared.per_problem.iter().enumerate().filter(|(p, _)| *p != held_out).map(|(_, l)| l.len()).sum();
    Ok(FoldResult { held_out: problem.name.clone(), rows, training, fits, samples })
}

fn classical(name: &str, problem: &Problem) -> Result<Box<dyn Heuristic>, Error> {
    heuristics::by_name(name, problem.task()).ok_or_else(|| {
        Error::Settings(format!("unknown heuristic `{name}`; expected one of {}", heuristics::NAMES.join(", ")))
    })
}

/// The thesis's adjustment experiment on one fold: for each heuristic, the
/// Delta-sets of its values over the training samples of every problem but
/// `held_out` (section 5.2.2: "we use only data from other problems"), then
/// A* on `held_out` with each adjustment. A state whose value no training
/// sample had keeps the plain value; the row counts those fallbacks.
pub fn run_value_adjustments(
    problems: &[Problem],
    samples: &[Vec<LabelledState>],
    held_out: usize,
    settings: &ProtocolSettings,
) -> Result<Vec<RunRow>, Error> {
    let mut rows = vec![];
    let mut tables: Vec<(&str, crate::adjust::AdjustTable)> = vec![];
    for v in &settings.value_adjustments {
        if !tables.iter().any(|(h, _)| *h == v.heuristic) {
            let mut sets = DeltaSets::new();
            for (i, (p, list)) in problems.iter().zip(samples).enumerate() {
                if i != held_out {
                    delta_sets(&mut ByValue(classical(&v.heuristic, p)?), p.words(), list, &mut sets);
                }
            }
            tables.push((&v.heuristic, sets.table()));
        }
        let table = &tables.iter().find(|(h, _)| *h == v.heuristic).expect("made above").1;
        let problem = &problems[held_out];
        let mut h = Adjusted::new(ByValue(classical(&v.heuristic, problem)?), table, v.mode);
        let r = astar(problem.task(), &mut h, settings.limits());
        let mut rr = row(problem, &v.name(), &r);
        (rr.adjusted, rr.fallbacks) = (h.hits, h.misses);
        rows.push(rr);
    }
    Ok(rows)
}

fn max_needs(settings: &ProtocolSettings) -> Result<(usize, bool), Error> {
    let alpha = settings.configurations.iter().map(|c| c.alpha).max();
    let alpha = alpha.ok_or_else(|| Error::Settings("no configurations to evaluate".into()))?;
    Ok((alpha, settings.configurations.iter().any(|c| c.ff_input)))
}

/// The training samples of fold `held_out` under `source`, per problem (the
/// held-out problem's list empty).
pub fn fold_samples(
    problems: &[Problem],
    held_out: usize,
    source: &SampleSource,
) -> Result<Vec<Vec<LabelledState>>, Error> {
    match source {
        SampleSource::Given(s) => {
            if s.len() != problems.len() {
                return Err(Error::Input(format!("{} sample lists for {} problems", s.len(), problems.len())));
            }
            let mut s = s.clone();
            s[held_out].clear();
            Ok(s)
        }
        SampleSource::BootstrapPerFold(b) => {
            let others: Vec<Problem> =
                problems.iter().enumerate().filter(|(i, _)| *i != held_out).map(|(_, p)| p.clone()).collect();
            let mut boot = Bootstrap::new(b.as_ref().clone(), &others)?;
            boot.run(&others)?;
            let mut got = boot.samples().into_iter();
            Ok((0..problems.len())
                .map(|i| if i == held_out { vec![] } else { got.next().unwrap_or_default() })
                .collect())
        }
    }
}

/// One fold: trains every configuration without problem `held_out` and
/// searches it with each, and with the baselines.
pub fn run_fold(
    problems: &[Problem],
    source: &SampleSource,
    held_out: usize,
    settings: &ProtocolSettings,
) -> Result<FoldResult, Error> {
    check_one_domain(problems)?;
    if held_out >= problems.len() || problems.len() < 2 {
        return Err(Error::Input(format!(
            "fold {held_out} of {} problems: leave-one-out needs 2 or more",
            problems.len()
        )));
    }
    let (alpha, ff) = max_needs(settings)?;
    let samples = fold_samples(problems, held_out, source)?;
    let prepared = prepare(problems, &samples, alpha, ff)?;
    run_fold_prepared(problems, &samples, &prepared, held_out, settings)
}

/// Every fold, the rows and the IPC scores per configuration.
pub fn leave_one_out(
    problems: &[Problem],
    source: &SampleSource,
    settings: &ProtocolSettings,
) -> Result<ProtocolResult, Error> {
    check_one_domain(problems)?;
    let (alpha, ff) = max_needs(settings)?;
    // Given samples are counted once for all folds.
    let shared = match source {
        SampleSource::Given(s) => Some((s, prepare(problems, s, alpha, ff)?)),
        SampleSource::BootstrapPerFold(_) => None,
    };
    let mut folds = vec![];
    for held_out in 0..problems.len() {
        let fold = match &shared {
            Some((samples, p)) => {
                if problems.len() < 2 {
                    return Err(Error::Input("leave-one-out needs 2 or more problems".into()));
                }
                run_fold_prepared(problems, samples, p, held_out, settings)?
            }
            None => run_fold(problems, source, held_out, settings)?,
        };
        folds.push(fold);
    }
    let rows: Vec<RunRow> = folds.iter().flat_map(|f| f.rows.iter().cloned()).collect();
    let scores = scores(&rows);
    Ok(ProtocolResult { folds, rows, scores })
}
