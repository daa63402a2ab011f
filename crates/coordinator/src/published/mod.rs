//! Published numbers beside ours: `hfarm report EXPERIMENT --against ijcai24`.
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
//!   is preferred, then one without a bound, then any.
//! - *Verdict*: with their std s > 0, z = (ours - mean) / s and ours is
//!   within when |z| <= 2. Where they printed a std of 0 or none (hFF and
//!   hLMcut, ratios printed as 1 or 0, linear planning's ±0) there is no z,
//!   and ours is within when it could round to what they printed: |ours -
//!   mean| <= half a unit in the mean's last printed digit plus twice half a
//!   unit in the std's (a printed ratio counts two decimals).
//! - A published cell without a row or column of ours is counted apart:
//!   "N of M cells within 2 std; K published cells without a result of ours".
//!
//! Map: [`fixture`] (the TOML schema, checked when read; printed values and
//! their rounding) · [`matching`] (published cell to our report's row;
//! [`compare`]) · [`verdict`] (z, within/outside, the tallies) · [`render`].

mod fixture;
mod matching;
mod render;
mod verdict;

#[cfg(test)]
mod testdata;

pub use fixture::{load, parse, Config, Published, PublishedRow, PublishedTable, Value, BUILT_IN, IJCAI24};
pub use matching::{check_table, compare, Compared, Comparison};
pub use render::render;
pub use verdict::{Ours, Summary, Verdict, OUTSIDE};
