//! Solving test tasks with a final network (the code's
//! `TestAdmissibility` / `SolveTestData`) and the paper's suboptimality
//! table columns (Table 7: time, generated, suboptimality, % optimal).
//!
//! The paper's tests run without a time limit; a caller may pass limits,
//! and unsolved tasks are then reported as such. Aggregates: time and
//! generated nodes are means over every task attempted, suboptimality
//! (mean of cost / optimal - 1, the code's `sumSubOpt / n - 1`) over the
//! solved ones, % optimal over every task.

use puzzles::search::{ida_star, Limits, Status};
use puzzles::{Domain, State};
use serde::Serialize;

use crate::features::Features;
use crate::heuristic::{LearnedHeuristic, Rule};
use crate::nn::{Ffnn, Outputs};
use crate::LikelyError;

/// A test task: a start state and its optimal cost.
#[derive(Debug, Clone, PartialEq)]
pub struct TestTask {
    pub start: State,
    pub optimal: u32,
}

/// One task solved under one rule.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestResult {
    pub task: usize,
    /// The test alpha; None for the "plan with yhat" rule (the N/A rows).
    pub alpha: Option<f64>,
    pub status: Status,
    pub cost: Option<u32>,
    pub optimal: u32,
    pub generated: u64,
    pub expanded: u64,
    pub seconds: f64,
}

/// Solves every task with IDA* under `rule`.
pub fn solve_tests<D: Domain, F: Features>(
    d: &D,
    ffnn: &Ffnn,
    features: &mut F,
    tasks: &[TestTask],
    rule: Rule,
    limits: &Limits,
) -> Result<Vec<TestResult>, LikelyError> {
    let alpha = match rule {
        Rule::Mean => None,
        Rule::Quantile { alpha, .. } => Some(alpha),
    };
    let mut out = Vec::with_capacity(tasks.len());
    for (i, t) in tasks.iter().enumerate() {
        let mut h = LearnedHeuristic::new(ffnn, &mut *features, rule)?;
        let r = ida_star(d, &t.start, &mut h, limits);
        out.push(TestResult {
            task: i,
            alpha,
            status: r.status,
            cost: r.cost,
            optimal: t.optimal,
            generated: r.generated,
            expanded: r.expanded,
            seconds: r.elapsed.as_secs_f64(),
        });
    }
    Ok(out)
}

/// The paper's test: a 2-output network under each test alpha
/// ([`Rule::test`]: the quantile under sigma_a), a 1-output network under
/// [`Rule::Mean`] (then `alphas` is ignored).
pub fn solve_for_alphas<D: Domain, F: Features>(
    d: &D,
    ffnn: &Ffnn,
    features: &mut F,
    tasks: &[TestTask],
    alphas: &[f64],
    limits: &Limits,
) -> Result<Vec<TestResult>, LikelyError> {
    if ffnn.outputs() == Outputs::Mean {
        return solve_tests(d, ffnn, features, tasks, Rule::Mean, limits);
    }
    let mut out = Vec::new();
    for &a in alphas {
        if !(a > 0.0 && a < 1.0) {
            return Err(LikelyError::Settings(format!("test alpha {a} is not in (0, 1)")));
        }
        out.extend(solve_tests(d, ffnn, features, tasks, Rule::test(a), limits)?);
    }
    Ok(out)
}

/// One row of the paper's suboptimality tables.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TableRow {
    pub alpha: Option<f64>,
    pub tasks: usize,
    pub solved: usize,
    /// Mean seconds per task.
    pub time: f64,
    /// Mean generated nodes per task.
    pub generated: f64,
    /// Mean of cost / optimal - 1 over solved tasks (a fraction: 0.0221 is
    /// the paper's 2.21%); None when none was solved.
    pub suboptimality: Option<f64>,
    /// Percentage of tasks solved at their optimal cost.
    pub optimal_pct: f64,
}

/// Table rows, one per alpha in the order they first appear.
pub fn table(results: &[TestResult]) -> Vec<TableRow> {
    let mut keys: Vec<Option<f64>> = Vec::new();
    for r in results {
        if !keys.iter().any(|k| k.map(f64::to_bits) == r.alpha.map(f64::to_bits)) {
            keys.push(r.alpha);
        }
    }
    keys.into_iter()
        .map(|alpha| {
            let rows: Vec<&TestResult> =
                results.iter().filter(|r| r.alpha.map(f64::to_bits) == alpha.map(f64::to_bits)).collect();
            let n = rows.len() as f64;
            let solved: Vec<(u32, u32)> = rows.iter().filter_map(|r| r.cost.map(|c| (c, r.optimal))).collect();
            let ratio = |(c, o): (u32, u32)| {
                if o == 0 {
                    if c == 0 {
                        1.0
                    } else {
                        f64::INFINITY
                    }
                } else {
                    c as f64 / o as f64
                }
            };
            let suboptimality =
                (!solved.is_empty()).then(|| solved.iter().map(|&p| ratio(p)).sum::<f64>() / solved.len() as f64 - 1.0);
            TableRow {
                alpha,
                tasks: rows.len(),
                solved: solved.len(),
                time: rows.iter().map(|r| r.seconds).sum::<f64>() / n,
                generated: rows.iter().map(|r| r.generated as f64).sum::<f64>() / n,
                suboptimality,
                optimal_pct: 100.0 * solved.iter().filter(|(c, o)| c == o).count() as f64 / n,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(alpha: Option<f64>, cost: Option<u32>, optimal: u32, generated: u64) -> TestResult {
        TestResult {
            task: 0,
            alpha,
            status: if cost.is_some() { Status::Solved } else { Status::NodeLimit },
            cost,
            optimal,
            generated,
            expanded: generated / 2,
            seconds: 1.0,
        }
    }

    #[test]
    fn table_columns() {
        let rs = vec![
            result(Some(0.95), Some(50), 50, 100),
            result(Some(0.95), Some(55), 50, 300),
            result(Some(0.5), Some(60), 50, 10),
            result(Some(0.5), None, 50, 1000),
            result(None, Some(0), 0, 0),
        ];
        let t = table(&rs);
        assert_eq!(t.len(), 3);
        assert_eq!((t[0].alpha, t[0].tasks, t[0].solved), (Some(0.95), 2, 2));
        assert!((t[0].suboptimality.unwrap() - 0.05).abs() < 1e-12);
        assert_eq!(t[0].optimal_pct, 50.0);
        assert_eq!(t[0].generated, 200.0);
        assert!((t[1].suboptimality.unwrap() - 0.2).abs() < 1e-12);
        assert_eq!((t[1].solved, t[1].optimal_pct, t[1].generated), (1, 0.0, 505.0));
        assert_eq!((t[2].alpha, t[2].suboptimality, t[2].optimal_pct), (None, Some(0.0), 100.0));
    }
}
