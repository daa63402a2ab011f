//! Permutation puzzles for hfarm's second task family (Marom & Rosman,
//! ICAPS 2020): sliding tiles, pancakes and the paper's blocksworld as
//! compact states, with IDA* and A*, Manhattan distance and the gap
//! heuristic, and pattern databases built by a correct 0-1 breadth-first
//! search, stored as content-keyed artifacts.
//!
//! - [`state`]: [`State`], a fixed 32-byte array (plus length and a cached
//!   byte), `Copy`, every domain's goal the identity;
//! - [`domain`]: the [`Domain`] trait (operators, in-place apply returning
//!   the reverse operator); [`tiles`], [`pancake`], [`blocks`] implement it,
//!   each with its PDB builder;
//! - [`family`]: what a family implements beyond it ([`family::Registered`]:
//!   PDBs and heuristics by name; its `FAMILY`) and [`DynDomain`];
//! - [`heuristic`]: the [`Heuristic`] trait searches take (incremental
//!   updates per move);
//! - [`search`]: IDA* (the paper's), A*, breadth-first distances;
//! - [`walk`]: seeded random walks from the goal without immediate reversal;
//! - [`pdb`]: pattern databases (artifact bytes, store, lookups,
//!   named pattern sets);
//! - [`registry`]: domains by name behind [`DynDomain`], for the command line;
//! - [`instances`]: benchmark sets (Korf's 100); [`bench`] solves one and
//!   checks the published optimal costs.
//!
//! Pure library: no I/O except the PDB store's directory.

pub mod bench;
pub mod blocks;
mod board;
pub mod domain;
pub mod family;
mod fxhash;
pub mod heuristic;
pub mod instances;
pub mod pancake;
pub mod pdb;
pub mod registry;
pub mod search;
pub mod state;
pub mod tiles;
pub mod walk;

pub use domain::Domain;
pub use heuristic::Heuristic;
pub use registry::{by_name, DynDomain, FAMILIES};
pub use state::State;

/// Anything that can go wrong, with the reason in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PuzzleError {
    #[error("bad state: {0}")]
    BadState(String),
    #[error("{0}")]
    BadDomain(String),
    #[error("unknown {0}")]
    Unknown(String),
    #[error("bad pattern: {0}")]
    BadPattern(String),
    #[error("bad PDB artifact: {0}")]
    BadArtifact(String),
    #[error("{0}")]
    TooLarge(String),
    #[error("{0}")]
    Io(String),
}
