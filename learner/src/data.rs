//! Labelled data as the farm stores it: per instance, the problem and the
//! states of its optimal plan with h* and classical heuristic values.

use serde::{Deserialize, Serialize};

use crate::config::Classical;

/// One labelled state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Every true atom, static ones included, as "(pred a b)".
    pub atoms: Vec<String>,
    pub h_star: f64,
    pub lmcut: Option<f64>,
    pub hmax: Option<f64>,
    pub blind: Option<f64>,
    pub ff: Option<f64>,
    pub goalcount: Option<f64>,
    pub deletes_ignored: Option<f64>,
    pub mean_deletes_ignored: Option<f64>,
}

impl Sample {
    pub fn value(&self, h: Classical) -> Option<f64> {
        match h {
            Classical::Lmcut => self.lmcut,
            Classical::Hmax => self.hmax,
            Classical::Blind => self.blind,
            Classical::Ff => self.ff,
        }
    }
}

/// An instance and its labelled states.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LabelledInstance {
    /// Where it came from (a job key), for error messages.
    pub name: String,
    pub problem_pddl: String,
    pub samples: Vec<Sample>,
}

/// A domain and its labelled instances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    pub domain_pddl: String,
    pub instances: Vec<LabelledInstance>,
}

impl Dataset {
    pub fn num_samples(&self) -> usize {
        self.instances.iter().map(|i| i.samples.len()).sum()
    }
}

/// Splits "(pred a b)" into its predicate and arguments.
pub fn parse_atom(atom: &str) -> Option<(&str, Vec<&str>)> {
    let inner = atom.trim().strip_prefix('(')?.strip_suffix(')')?;
    let mut parts = inner.split_whitespace();
    let pred = parts.next()?;
    Some((pred, parts.collect()))
}
