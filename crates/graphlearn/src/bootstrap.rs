//! Algorithm 1 of the thesis (adopted from Arfaee, Zilles & Holte): the
//! bootstrap that makes the training states follow the distribution of the
//! states a search with the learned heuristic expands.
//!
//! Each [`Bootstrap::round`] with limit L (L = 1, 2, ... times a unit):
//!
//! 1. train the network on every labelled sample so far (in the first
//!    round there are none, and the blind heuristic searches instead);
//! 2. run the sampling search ([`crate::sampling`], IDA* as in the thesis)
//!    with that heuristic on every training problem under L units;
//! 3. label each newly expanded state (domain solver or A*+LM-cut, see
//!    [`crate::labels`]), skipping states that cannot be labelled (counted);
//! 4. stop when there are enough samples, when every problem was solved
//!    within the limit, or after `max_rounds`.
//!
//! The unit is seconds (the thesis: minutes) or expansions; with expansions
//! (and an evaluation limit on optimal labelling) a bootstrap is
//! deterministic: the same settings give the same samples and models. The
//! whole state is serde-serialisable, so a farm job can run one round,
//! store the checkpoint and hand it to the next job. Seeds of each round's
//! training derive from the settings' seed and the round number.
//!
//! By default only expanded states become training samples, as in the
//! thesis; the other states of each labelling plan are kept as labels (so
//! that a later expanded state on such a plan needs no new solve) and
//! become samples too with `plan_states_as_samples`.

use std::collections::BTreeSet;
use std::time::Instant;

use planner::heuristics::{self, Heuristic};
use serde::{Deserialize, Serialize};

use crate::features::{ff_values, FeatureCounter, StateFeatures};
use crate::hash::{mix, FxMap};
use crate::heuristic::LearnedHeuristic;
use crate::labels::{label_state, LabelStore, LabelledState, LabellerSettings, Outcome};
use crate::mlp::{TrainReport, TrainSettings};
use crate::model::{Example, Model, ModelSettings};
use crate::problem::{check_one_domain, Problem};
use crate::sampling::{ida_star, SearchLimit};
use crate::Error;

/// How to bootstrap.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BootstrapSettings {
    pub model: ModelSettings,
    pub train: TrainSettings,
    /// Round L searches each problem under L times this.
    pub limit_unit: SearchLimit,
    pub labeller: LabellerSettings,
    /// Stop once at least this many samples are labelled.
    pub enough_samples: usize,
    /// Stop after this many rounds.
    pub max_rounds: u32,
    /// Train on every state of the labelling plans, not only expanded ones.
    #[serde(default)]
    pub plan_states_as_samples: bool,
    pub seed: u64,
}

/// Why a bootstrap stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    EnoughSamples,
    AllSolved,
    MaxRounds,
}

/// One problem in one round.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemRound {
    pub problem: String,
    pub solved: bool,
    pub expansions: u64,
    /// Distinct states expanded.
    pub expanded: usize,
    /// Expanded states that became samples this round.
    pub new_samples: usize,
    /// Expanded states that could not be labelled this round.
    pub unlabelled: usize,
}

/// What a round did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundReport {
    /// L, 1-based.
    pub round: u32,
    pub limit: SearchLimit,
    /// Training before the searches (None in the first round: blind search).
    pub training: Option<TrainReport>,
    pub problems: Vec<ProblemRound>,
    /// Samples after the round.
    pub samples: usize,
    pub stopped: Option<StopReason>,
    pub seconds: f64,
}

/// The bootstrap's whole state between rounds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Bootstrap {
    settings: BootstrapSettings,
    problems: Vec<String>,
    /// Rounds completed.
    round: u32,
    /// Per problem: every labelled state.
    labels: Vec<LabelStore>,
    /// Per problem: the entries of `labels` that are training samples.
    samples: Vec<BTreeSet<usize>>,
    /// Per problem: expanded states that could not be labelled (not retried).
    unlabelled: Vec<BTreeSet<Vec<u64>>>,
    /// The model trained at the start of the last round.
    model: Option<Model>,
    stopped: Option<StopReason>,
    history: Vec<RoundReport>,
    /// Features per (problem, label entry); recomputed after a reload.
    #[serde(skip)]
    features: Vec<FxMap<usize, StateFeatures>>,
}

impl PartialEq for Bootstrap {
    fn eq(&self, o: &Bootstrap) -> bool {
        (&self.settings, &self.problems, self.round, &self.labels, &self.samples, &self.unlabelled)
            == (&o.settings, &o.problems, o.round, &o.labels, &o.samples, &o.unlabelled)
            && (&self.model, self.stopped, &self.history) == (&o.model, o.stopped, &o.history)
    }
}

impl Bootstrap {
    /// A bootstrap over `problems` (one domain), before its first round.
    pub fn new(settings: BootstrapSettings, problems: &[Problem]) -> Result<Bootstrap, Error> {
        check_one_domain(problems)?;
        settings.train.check()?;
        if settings.max_rounds == 0 {
            return Err(Error::Settings("max_rounds must be at least 1".into()));
        }
        let n = problems.len();
        Ok(Bootstrap {
            settings,
            problems: problems.iter().map(|p| p.name.clone()).collect(),
            round: 0,
            labels: vec![LabelStore::default(); n],
            samples: vec![BTreeSet::new(); n],
            unlabelled: vec![BTreeSet::new(); n],
            model: None,
            stopped: None,
            history: vec![],
            features: vec![],
        })
    }

    pub fn settings(&self) -> &BootstrapSettings {
        &self.settings
    }

    /// Rounds completed.
    pub fn rounds(&self) -> u32 {
        self.round
    }

    pub fn stopped(&self) -> Option<StopReason> {
        self.stopped
    }

    pub fn history(&self) -> &[RoundReport] {
        &self.history
    }

    /// The model the last round searched with (None before round 2).
    pub fn model(&self) -> Option<&Model> {
        self.model.as_ref()
    }

    /// Number of training samples.
    pub fn num_samples(&self) -> usize {
        self.samples.iter().map(BTreeSet::len).sum()
    }

    /// The training samples, per problem, in the order they were added.
    pub fn samples(&self) -> Vec<Vec<LabelledState>> {
        self.samples.iter().zip(&self.labels).map(|(s, l)| s.iter().map(|&i| l.get(i).clone()).collect()).collect()
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a bootstrap serialises")
    }

    pub fn from_json(text: &str) -> Result<Bootstrap, Error> {
        let b: Bootstrap =
            serde_json::from_str(text).map_err(|e| Error::Model(format!("bootstrap checkpoint: {e}")))?;
        let n = b.problems.len();
        if b.labels.len() != n || b.samples.len() != n || b.unlabelled.len() != n {
            return Err(Error::Model("bootstrap checkpoint: per-problem lists of different lengths".into()));
        }
        for (s, l) in b.samples.iter().zip(&b.labels) {
            if s.iter().any(|&i| i >= l.len()) {
                return Err(Error::Model("bootstrap checkpoint: a sample names no label".into()));
            }
        }
        Ok(b)
    }

    fn check_problems(&self, problems: &[Problem]) -> Result<(), Error> {
        let names: Vec<&str> = problems.iter().map(|p| p.name.as_str()).collect();
        if names != self.problems.iter().map(String::as_str).collect::<Vec<_>>() {
            return Err(Error::Input(format!("the bootstrap runs on problems {:?}, given {:?}", self.problems, names)));
        }
        Ok(())
    }

    /// Trains a model on every sample so far (seeded by `salt`).
    fn train(&mut self, problems: &[Problem], salt: u64) -> Result<Model, Error> {
        let alpha = self.settings.model.alpha;
        let ff = self.settings.model.ff_input;
        self.features.resize_with(problems.len(), FxMap::default);
        let mut counter = FeatureCounter::new(alpha)?;
        for (p, problem) in problems.iter().enumerate() {
            let missing: Vec<usize> =
                self.samples[p].iter().copied().filter(|i| !self.features[p].contains_key(i)).collect();
            let states: Vec<&[u64]> = missing.iter().map(|&i| self.labels[p].get(i).state.as_slice()).collect();
            let ffs = if ff { ff_values(problem, &states) } else { vec![] };
            for (k, (&i, s)) in missing.iter().zip(&states).enumerate() {
                let f = StateFeatures { counts: counter.count(problem, s), ff: ffs.get(k).copied() };
                self.features[p].insert(i, f);
            }
        }
        let mut examples = vec![];
        for p in 0..problems.len() {
            for &i in &self.samples[p] {
                let f = &self.features[p][&i];
                if ff && !f.ff.is_some_and(f64::is_finite) {
                    continue; // a relaxed dead end has no h_FF input (and no finite label)
                }
                examples.push(Example { features: f, h_star: self.labels[p].get(i).h_star as f64 });
            }
        }
        let symbols = problems[0].graphs().symbols().clone();
        Model::fit(&self.settings.model, &self.settings.train, symbols, &examples, mix(self.settings.seed, salt))
    }

    /// Runs round L = rounds() + 1 over `problems` (the same list, in the
    /// same order, as at [`Bootstrap::new`]).
    pub fn round(&mut self, problems: &[Problem]) -> Result<RoundReport, Error> {
        if let Some(s) = self.stopped {
            return Err(Error::Input(format!("the bootstrap has stopped ({s:?}); no more rounds")));
        }
        self.check_problems(problems)?;
        let start = Instant::now();
        let l = self.round + 1;
        let limit = self.settings.limit_unit.times(l as u64);
        let training = if self.num_samples() > 0 {
            let m = self.train(problems, l as u64)?;
            let r = m.report.clone();
            self.model = Some(m);
            Some(r)
        } else {
            None
        };
        let mut reports = vec![];
        let mut all_solved = true;
        for (p, problem) in problems.iter().enumerate() {
            let task = problem.task();
            let sampled = match &self.model {
                Some(m) => ida_star(task, &mut LearnedHeuristic::new(m, problem)?, limit),
                None => {
                    let mut blind: Box<dyn Heuristic> = heuristics::by_name("blind", task).expect("registered");
                    ida_star(task, blind.as_mut(), limit)
                }
            };
            all_solved &= sampled.solved;
            let mut pr = ProblemRound {
                problem: problem.name.clone(),
                solved: sampled.solved,
                expansions: sampled.expansions,
                expanded: sampled.expanded.len(),
                new_samples: 0,
                unlabelled: 0,
            };
            for s in sampled.expanded {
                let entry = match self.labels[p].position(&s) {
                    Some(i) => i,
                    None if self.unlabelled[p].contains(&s) => continue,
                    None => match label_state(task, &s, &self.settings.labeller)? {
                        Outcome::Labelled(plan) => {
                            let mut first = None;
                            for ls in plan {
                                let i = self.labels[p].insert(ls);
                                first.get_or_insert(i);
                                if self.settings.plan_states_as_samples && self.samples[p].insert(i) {
                                    pr.new_samples += 1;
                                }
                            }
                            first.expect("a plan has its start state")
                        }
                        Outcome::Unlabelled(_) => {
                            pr.unlabelled += 1;
                            self.unlabelled[p].insert(s);
                            continue;
                        }
                    },
                };
                if self.samples[p].insert(entry) {
                    pr.new_samples += 1;
                }
            }
            reports.push(pr);
        }
        self.round = l;
        let samples = self.num_samples();
        self.stopped = if samples >= self.settings.enough_samples {
            Some(StopReason::EnoughSamples)
        } else if all_solved {
            Some(StopReason::AllSolved)
        } else if l >= self.settings.max_rounds {
            Some(StopReason::MaxRounds)
        } else {
            None
        };
        let report = RoundReport {
            round: l,
            limit,
            training,
            problems: reports,
            samples,
            stopped: self.stopped,
            seconds: start.elapsed().as_secs_f64(),
        };
        self.history.push(report.clone());
        Ok(report)
    }

    /// Runs rounds until the bootstrap stops; returns their reports.
    pub fn run(&mut self, problems: &[Problem]) -> Result<Vec<RoundReport>, Error> {
        let mut out = vec![];
        while self.stopped.is_none() {
            out.push(self.round(problems)?);
        }
        Ok(out)
    }

    /// A model trained on every sample collected (the bootstrap's product).
    pub fn train_final(&mut self, problems: &[Problem]) -> Result<Model, Error> {
        self.check_problems(problems)?;
        if self.num_samples() == 0 {
            return Err(Error::Input("no samples collected yet: run a round first".into()));
        }
        self.train(problems, u64::MAX)
    }
}
