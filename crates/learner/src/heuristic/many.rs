//! Many greedy searches with one learned heuristic, their evaluations
//! shared: each search runs the planner's own GBFS on a thread of its own,
//! and the states that all of them ask to evaluate go through the network
//! in one forward pass. One batch waits for every live search to be waiting
//! (none is computing), so batches are as large as they can be and a slow
//! search never misses one.
//!
//! A search's result equals what it gives alone (`LearnedHeuristic::new`),
//! since values are rounded past the last bits a batch's composition can
//! change (`heuristic::estimates`); `hfarm bench plan-many` counts any that
//! differ.

use std::collections::HashMap;
use std::sync::mpsc;
use std::sync::Arc;

use planner::pddl::Domain;
use planner::search::{Limits, SearchResult};

use super::{estimates, LearnedHeuristic, SearchMode};
use crate::config::LowerBound;
use crate::encode::{InstanceInput, StateInput};
use crate::prepare::parse_domain;
use crate::{LearnError, Predictor};

/// States one search asks to evaluate, with their classical side values.
struct Request {
    search: usize,
    states: Vec<StateInput>,
    lows: Vec<f64>,
    ress: Vec<f64>,
    clip: bool,
}

enum Msg {
    Register(usize, Arc<InstanceInput>),
    Evaluate(Request),
    Done,
}

/// A search's line to the shared network.
pub(crate) struct Client {
    search: usize,
    tx: mpsc::Sender<Msg>,
    rx: mpsc::Receiver<Vec<f64>>,
}

impl Client {
    pub(crate) fn register(&self, instance: Arc<InstanceInput>) {
        let _ = self.tx.send(Msg::Register(self.search, instance));
    }

    /// Waits for the shared forward pass that includes `states`.
    pub(crate) fn estimates(&self, states: Vec<StateInput>, lows: Vec<f64>, ress: Vec<f64>, clip: bool) -> Vec<f64> {
        let n = states.len();
        if self.tx.send(Msg::Evaluate(Request { search: self.search, states, lows, ress, clip })).is_err() {
            return vec![f64::NAN; n];
        }
        self.rx.recv().unwrap_or_else(|_| vec![f64::NAN; n])
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.tx.send(Msg::Done);
    }
}

/// One search of [`gbfs_many`]: its result (or why it could not start).
pub type Outcome = Result<SearchResult, LearnError>;

/// Runs GBFS on every problem with the model `predictor` (of a domain whose
/// PDDL is `domain_pddl`), all at once, evaluations shared. Returns each
/// search's outcome in order and the number of shared forward passes.
pub fn gbfs_many(
    predictor: &Predictor,
    domain_pddl: &str,
    problems: &[String],
    clip: Option<LowerBound>,
    limits: Limits,
    mode: SearchMode,
) -> Result<(Vec<Outcome>, u64), LearnError> {
    let domain = parse_domain(domain_pddl)?;
    let (tx, rx) = mpsc::channel::<Msg>();
    let mut replies = vec![];
    let mut clients = vec![];
    for search in 0..problems.len() {
        let (rtx, rrx) = mpsc::channel();
        replies.push(rtx);
        clients.push(Client { search, tx: tx.clone(), rx: rrx });
    }
    drop(tx);
    let config = predictor.config.clone();
    std::thread::scope(|scope| {
        let handles: Vec<_> = clients
            .into_iter()
            .zip(problems)
            .map(|(client, problem)| {
                let config = config.clone();
                scope.spawn(move || -> Outcome {
                    let mut h = LearnedHeuristic::shared(config, client, domain_pddl, problem, clip)?;
                    h.use_definitions(mode.definitions);
                    let task = h.task().clone();
                    Ok(mode.greedy.run(&task, &mut h, limits))
                })
            })
            .collect();
        // `serve` owns the reply lines: if it panics (a forward pass that
        // cannot get memory), they close with it and the waiting searches
        // stop instead of waiting forever for the scope to end.
        let passes = serve(predictor, &domain, rx, replies, problems.len());
        let outcomes = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err(LearnError::Internal("a search panicked".into()))))
            .collect();
        Ok((outcomes, passes))
    })
}

/// The shared network's side: gathers requests until every live search is
/// waiting, answers them from one forward pass; returns the passes made.
fn serve(
    predictor: &Predictor,
    domain: &Domain,
    rx: mpsc::Receiver<Msg>,
    replies: Vec<mpsc::Sender<Vec<f64>>>,
    n: usize,
) -> u64 {
    let mut instances: HashMap<usize, Arc<InstanceInput>> = HashMap::new();
    let mut live = n;
    let mut passes = 0;
    let mut pending: Vec<Request> = vec![];
    while live > 0 {
        match rx.recv() {
            Ok(Msg::Register(search, instance)) => {
                instances.insert(search, instance);
            }
            Ok(Msg::Evaluate(r)) => pending.push(r),
            Ok(Msg::Done) => live -= 1,
            Err(_) => break,
        }
        if live == 0 || pending.len() < live {
            continue;
        }
        // Every live search waits: one pass per clip setting (one in practice).
        for clip in [false, true] {
            let group: Vec<&Request> = pending.iter().filter(|p| p.clip == clip).collect();
            if group.is_empty() {
                continue;
            }
            let mut pairs: Vec<(&InstanceInput, &StateInput)> = vec![];
            let (mut lows, mut ress) = (vec![], vec![]);
            for r in &group {
                let instance = &instances[&r.search];
                pairs.extend(r.states.iter().map(|s| (&**instance, s)));
                lows.extend_from_slice(&r.lows);
                ress.extend_from_slice(&r.ress);
            }
            let values = estimates(predictor, domain, &pairs, &lows, &ress, clip);
            passes += 1;
            let mut offset = 0;
            for r in &group {
                let _ = replies[r.search].send(values[offset..offset + r.states.len()].to_vec());
                offset += r.states.len();
            }
        }
        pending.clear();
    }
    passes
}
