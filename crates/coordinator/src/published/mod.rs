//! Published numbers beside ours: `hfarm report EXPERIMENT --against ijcai24`
//! (or `--against pddlsl-runs`; for `[[likely]]` experiments, `--against
//! marom-rosman`: [`likely`]; for `[[graphlearn]]` experiments, `--against
//! trunda`: [`trunda`]).
//!
//! A published fixture (`reports/published/ijcai24.toml`, embedded here) holds
//! a paper's tables cell by cell, as printed ("mean±std"), each row named with
//! our axes (domain, model, distribution, sigma, residual, bound, estimate).
//! [`compare`] matches every published cell to the row of one of our report
//! tables (`schema::reports::table`) with the same configuration and puts
//! ours beside theirs, with z = (ours - theirs) / their std and a marker where
//! ours falls outside their mean ± 2 std. All pure functions: no database.
//!
//! The rules, in one place:
//! - *Which cells*: those of the report's kind (accuracy or planning) that
//!   pass the report's filter (a published baseline, having no model, passes a
//!   model filter as ours does); by default only rows not marked
//!   `repeats = "T"` (a configuration printed again in another table is
//!   compared once, with table T); with a table id, that table's rows only.
//! - *Matching*: every axis equal. The bound may differ only where the value
//!   does not depend on it: a Gaussian's MSE and NLL, and planning with the
//!   Gaussian's unclipped mean (estimate N); there the row with the same bound
//!   is preferred, then one without a bound, then any. Where no row has
//!   their bound, one bounded by its pyperplan counterpart stands for it
//!   (`lmcut-pyperplan` for `lmcut`: the l their truncated-Gaussian runs read).
//! - *Verdict*: with their std s > 0, z = (ours - mean) / s and ours is
//!   within when |z| <= 2. Where they printed a std of 0 or none (hFF and
//!   hLMcut, ratios printed as 1 or 0, linear planning's ±0) there is no z,
//!   and ours is within when it could round to what they printed: |ours -
//!   mean| <= half a unit in the mean's last printed digit plus twice half a
//!   unit in the std's (a printed ratio counts two decimals).
//! - A published cell without a row or column of ours is counted apart:
//!   "N of M cells within 2 std; K published cells without a result of ours".
//!
//! `--against pddlsl-runs` puts the same report beside the authors' per-run
//! results instead ([`runs`]: every run of `results_training.ods` and
//! `results_training2.ods`, IBM/pddlsl): per cell (split, checkpoint,
//! configuration, metric) their mean, sample std and n over seeds, ours, z
//! and the same verdict; their names are mapped onto ours in [`mapping`].
//! There a std of 0 (every seed the same value) leaves no z, and ours is
//! within only when it equals their mean to the sheets' 15 significant digits.
//! Cells of ours that no cell of theirs matched are listed too ("ours only").
//!
//! Map: [`fixture`] (the TOML schema, checked when read; printed values and
//! their rounding) · [`runs`] (the per-run CSV fixtures) · [`mapping`] (their
//! names onto ours) · [`matching`] (a published cell to our report's row;
//! [`compare`], [`compare_runs`]) · [`verdict`] (z, within/outside, the
//! tallies) · [`render`] · [`Against`] (what `--against` names).

mod fixture;
pub mod likely;
pub mod mapping;
mod matching;
mod render;
pub mod runs;
pub mod trunda;
mod verdict;

#[cfg(test)]
mod testdata;

use schema::reports::{Filter, Report, Table};

pub use fixture::{load, parse, Config, Published, PublishedRow, PublishedTable, Value, BUILT_IN, IJCAI24};
pub use matching::{check_runs, check_table, compare, compare_runs, Compared, Comparison, RunCompared, RunsComparison};
pub use render::{render, render_runs, runs_summary};
pub use verdict::{Ours, Summary, Verdict, OUTSIDE};

use crate::report::Format;

/// What `--against` names: published tables (`ijcai24`, or a fixture's
/// path) or the authors' per-run results (`pddlsl-runs`).
#[derive(Debug, Clone)]
pub enum Against {
    Tables(Published),
    Runs(runs::Runs),
    /// Marom & Rosman's supplement, Tables 7-12 (`marom-rosman`).
    Likely(likely::Supplement),
    /// Trunda's thesis, chapter 5 (`trunda`).
    Thesis(trunda::Thesis),
}

/// A comparison of either kind.
#[derive(Debug, Clone)]
pub enum Outcome {
    Tables(Comparison),
    Runs(RunsComparison),
    Likely(likely::LikelyComparison),
    Thesis(trunda::ThesisComparison),
}

impl Against {
    /// `pddlsl-runs`, a built-in table's name, or the path of a fixture file.
    pub fn load(name_or_path: &str) -> Result<Against, String> {
        if name_or_path == runs::NAME {
            return runs::load().map(Against::Runs);
        }
        if name_or_path == likely::NAME {
            return likely::load().map(Against::Likely);
        }
        if name_or_path == trunda::NAME {
            return trunda::load().map(Against::Thesis);
        }
        load(name_or_path).map(Against::Tables)
    }

    /// Refuses a table kind it cannot compare, or a published table (for
    /// `pddlsl-runs`: their split) it does not have.
    pub fn check(&self, kind: Table, only: Option<&str>) -> Result<(), String> {
        match self {
            Against::Tables(p) => check_table(p, kind, only),
            Against::Runs(r) => check_runs(r, kind, only),
            Against::Likely(s) => likely::check(s, kind, only),
            Against::Thesis(t) => trunda::check(t, kind, only),
        }
    }

    pub fn compare(&self, report: &Report, filter: &Filter, only: Option<&str>) -> Result<Outcome, String> {
        match self {
            Against::Tables(p) => compare(p, report, filter, only).map(Outcome::Tables),
            Against::Runs(r) => compare_runs(r, report, filter, only).map(Outcome::Runs),
            Against::Likely(s) => likely::compare(s, report, filter, only).map(Outcome::Likely),
            Against::Thesis(t) => trunda::compare(t, report, filter, only).map(Outcome::Thesis),
        }
    }
}

impl Outcome {
    pub fn render(&self, format: Format) -> Result<String, String> {
        match self {
            Outcome::Tables(c) => render(c, format),
            Outcome::Runs(c) => render_runs(c, format),
            Outcome::Likely(c) => likely::render(c, format),
            Outcome::Thesis(c) => trunda::render(c, format),
        }
    }

    /// The summary, as Markdown ends with it.
    pub fn summary(&self) -> String {
        match self {
            Outcome::Tables(c) => c.summary.line(),
            Outcome::Runs(c) => runs_summary(c).trim_end().to_string(),
            Outcome::Likely(c) => c.summary.line(),
            Outcome::Thesis(c) => c.summary.line(),
        }
    }
}
