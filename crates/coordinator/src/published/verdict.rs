//! The verdict arithmetic: ours against their mean and std, and the tallies.

use schema::reports::Cell;
use serde::Serialize;

use super::fixture::Value;

/// A number as our reports print it (render, matching and the likely
/// comparison write theirs and ours the same way).
pub(crate) fn num(v: f64) -> String {
    Cell::Num(Some(v)).text()
}

/// Ours for one published cell.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ours {
    pub mean: f64,
    pub std: Option<f64>,
    pub seeds: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Ours within their mean ± 2 std (or, without a std, their rounding).
    Within,
    Outside,
    /// A published cell without a result of ours.
    NoResult,
    /// A cell of ours without a published counterpart (`pddlsl-runs` lists them).
    OursOnly,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Cells with a result of ours.
    pub compared: usize,
    /// Of those, within their mean ± 2 std.
    pub within: usize,
    /// Published cells without a result of ours.
    pub missing: usize,
    /// Compared cells whose published std is 0 or absent (judged by rounding).
    pub without_std: usize,
    /// Cells of ours without a published counterpart.
    #[serde(skip_serializing_if = "is_zero")]
    pub ours_only: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Summary {
    /// Counts one cell: its verdict, and whether it had a z.
    pub fn add(&mut self, verdict: Verdict, z: Option<f64>) {
        match verdict {
            Verdict::NoResult => self.missing += 1,
            Verdict::OursOnly => self.ours_only += 1,
            v => {
                self.compared += 1;
                self.within += usize::from(v == Verdict::Within);
                self.without_std += usize::from(z.is_none());
            }
        }
    }

    pub fn line(&self) -> String {
        let mut s = format!(
            "{} of {} cells within 2 std; {} published cells without a result of ours",
            self.within, self.compared, self.missing
        );
        if self.ours_only > 0 {
            s += &format!("; {} cells of ours without a published one", self.ours_only);
        }
        s
    }

    /// The line of a comparison with their per-run results (`pddlsl-runs`).
    pub fn runs_line(&self) -> String {
        format!(
            "{} of {} cells within 2 std; {} cells of theirs without a result of ours; {} of ours without a run of theirs",
            self.within, self.compared, self.missing, self.ours_only
        )
    }
}

/// The marker of a cell outside their mean ± 2 std.
pub const OUTSIDE: &str = "✗";

/// Ours against their value: with their std s > 0, z = (ours - mean) / s and
/// ours is within when |z| <= 2. With a std of 0 or none there is no z, and
/// ours is within when it could round to what they wrote: |ours - mean| <=
/// the mean's rounding plus twice the std's ([`Value`] carries both).
pub(crate) fn judge(ours: f64, theirs: &Value) -> (Option<f64>, Verdict, Option<String>) {
    match theirs.std {
        Some(s) if s > 0.0 => {
            let z = (ours - theirs.mean) / s;
            (Some(z), if z.abs() <= 2.0 { Verdict::Within } else { Verdict::Outside }, None)
        }
        std => {
            let slack = theirs.mean_rounding + 2.0 * theirs.std_rounding;
            let verdict = if (ours - theirs.mean).abs() <= slack { Verdict::Within } else { Verdict::Outside };
            let note = if std.is_some() { "their std is 0" } else { "no published std" };
            (None, verdict, Some(format!("{note}: judged by their rounding, ±{}", num(slack))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn std_zero_is_said_and_never_divided_by() {
        let v = Value::parse("964±0", "evaluations").unwrap();
        let (z, verdict, note) = judge(965.0, &v);
        assert_eq!((z, verdict), (None, Verdict::Within), "within the printed rounding (±1.5)");
        assert!(note.unwrap().contains("std is 0"));
        assert_eq!(judge(970.0, &v).1, Verdict::Outside);
        let v = Value::parse(".3±.0", "mse").unwrap();
        assert_eq!(judge(0.39, &v).1, Verdict::Within, ".3±.0: mean within .05, std below .05");
        assert_eq!(judge(0.5, &v).1, Verdict::Outside);
    }
}
