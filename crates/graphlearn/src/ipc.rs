//! Coverage and IPC scores (thesis, section 5): for a criterion R (time,
//! plan length, expansions), IPC_R(A, P) = 0 if A did not solve P, else
//! R*/R_A with R* the best value among the compared configurations;
//! scores are summed over problems. (The thesis's time score is this plain
//! ratio, not the IPC 2014 log score.) Where both the best and ours are 0
//! (an initial state that is a goal: no expansions, cost 0) the score is 1.
//!
//! A run whose plan failed validation counts as not solved.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// One search on one problem by one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRow {
    pub problem: String,
    pub configuration: String,
    pub solved: bool,
    /// How the search ended (`solved`, `time_limit`, `evaluation_limit`, ...).
    pub status: String,
    pub cost: Option<u64>,
    pub expansions: u64,
    pub evaluations: u64,
    /// Search time in seconds (the heuristic's set-up and training excluded).
    pub time_s: f64,
    /// The plan checked by the planner's validator against the PDDL (None: not checked).
    pub plan_valid: Option<bool>,
    /// Learned heuristics: evaluated states with graphs training never saw, and their occurrences.
    #[serde(default)]
    pub states_with_unknown: u64,
    #[serde(default)]
    pub unknown_occurrences: u64,
    /// Adjusted heuristics (`a3-mse:min`, `goalcount:min`): evaluated states
    /// whose Delta-set the table held, and those whose it did not, which
    /// fell back to the plain heuristic's value. Both 0 for other rows.
    #[serde(default)]
    pub adjusted: u64,
    #[serde(default)]
    pub fallbacks: u64,
}

impl RunRow {
    /// Solved with a plan that did not fail validation.
    pub fn counts(&self) -> bool {
        self.solved && self.plan_valid != Some(false)
    }
}

/// Coverage and summed IPC scores of one configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScoreRow {
    pub configuration: String,
    /// Problems solved.
    pub coverage: usize,
    /// Problems attempted.
    pub problems: usize,
    pub time: f64,
    pub length: f64,
    pub expansions: f64,
}

/// best/ours, 1 when ours is no worse (including both 0).
pub fn ratio(best: f64, ours: f64) -> f64 {
    if ours <= best {
        1.0
    } else {
        best / ours
    }
}

/// Scores per configuration, in order of first appearance in `rows`. Each
/// (problem, configuration) should appear once; a later row replaces an earlier one.
pub fn scores(rows: &[RunRow]) -> Vec<ScoreRow> {
    let mut configs: Vec<&str> = vec![];
    let mut runs: BTreeMap<(&str, &str), &RunRow> = BTreeMap::new();
    let mut problems: Vec<&str> = vec![];
    for r in rows {
        if !configs.contains(&r.configuration.as_str()) {
            configs.push(&r.configuration);
        }
        if !problems.contains(&r.problem.as_str()) {
            problems.push(&r.problem);
        }
        runs.insert((&r.problem, &r.configuration), r);
    }
    let mut out: Vec<ScoreRow> = configs
        .iter()
        .map(|c| ScoreRow {
            configuration: c.to_string(),
            coverage: 0,
            problems: 0,
            time: 0.0,
            length: 0.0,
            expansions: 0.0,
        })
        .collect();
    for p in &problems {
        let solved: Vec<&RunRow> =
            configs.iter().filter_map(|c| runs.get(&(*p, *c)).copied()).filter(|r| r.counts()).collect();
        let best = |f: fn(&RunRow) -> f64| solved.iter().map(|r| f(r)).fold(f64::INFINITY, f64::min);
        let time = |r: &RunRow| r.time_s;
        let length = |r: &RunRow| r.cost.unwrap_or(0) as f64;
        let expansions = |r: &RunRow| r.expansions as f64;
        let (bt, bl, be) = (best(time), best(length), best(expansions));
        for (i, c) in configs.iter().enumerate() {
            let Some(r) = runs.get(&(*p, *c)) else { continue };
            out[i].problems += 1;
            if r.counts() {
                out[i].coverage += 1;
                out[i].time += ratio(bt, time(r));
                out[i].length += ratio(bl, length(r));
                out[i].expansions += ratio(be, expansions(r));
            }
        }
    }
    out
}

/// The scores as an aligned text table.
pub fn format_scores(scores: &[ScoreRow]) -> String {
    let w = scores.iter().map(|s| s.configuration.len()).max().unwrap_or(0).max(13);
    let mut s =
        format!("{:<w$} {:>9} {:>8} {:>8} {:>10}\n", "configuration", "coverage", "time", "length", "expansions");
    for r in scores {
        s.push_str(&format!(
            "{:<w$} {:>5}/{:<3} {:>8.2} {:>8.2} {:>10.2}\n",
            r.configuration, r.coverage, r.problems, r.time, r.length, r.expansions
        ));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(problem: &str, config: &str, solved: bool, cost: u64, expansions: u64, time_s: f64) -> RunRow {
        RunRow {
            problem: problem.into(),
            configuration: config.into(),
            solved,
            status: if solved { "solved" } else { "time_limit" }.into(),
            cost: solved.then_some(cost),
            expansions,
            evaluations: expansions * 3,
            time_s,
            plan_valid: solved.then_some(true),
            states_with_unknown: 0,
            unknown_occurrences: 0,
            adjusted: 0,
            fallbacks: 0,
        }
    }

    #[test]
    fn scores_are_best_over_ours_summed_over_problems() {
        let rows = vec![
            row("p1", "a", true, 10, 100, 1.0),
            row("p1", "b", true, 20, 50, 4.0),
            row("p2", "a", false, 0, 999, 9.0),
            row("p2", "b", true, 7, 0, 0.5),
            row("p3", "a", false, 0, 5, 1.0),
            row("p3", "b", false, 0, 5, 1.0),
        ];
        let s = scores(&rows);
        assert_eq!(s.len(), 2);
        let (a, b) = (&s[0], &s[1]);
        assert_eq!((a.configuration.as_str(), a.coverage, a.problems), ("a", 1, 3));
        assert_eq!((b.coverage, b.problems), (2, 3));
        // p1: a has the best length and time, b the best expansions.
        assert_eq!(a.length, 1.0);
        assert_eq!(a.time, 1.0);
        assert_eq!(a.expansions, 0.5);
        // b: p1 length 10/20, time 1/4, expansions 1; p2 all 1 (alone; 0 expansions).
        assert_eq!(b.length, 1.5);
        assert_eq!(b.time, 1.25);
        assert_eq!(b.expansions, 2.0);
        // A plan that failed validation does not count.
        let mut bad = rows.clone();
        bad[1].plan_valid = Some(false);
        let s = scores(&bad);
        assert_eq!((s[0].expansions, s[1].coverage), (1.0, 1));
        assert!(format_scores(&s).contains("b"));
        assert_eq!(ratio(0.0, 0.0), 1.0);
        assert_eq!(ratio(2.0, 8.0), 0.25);
    }
}
