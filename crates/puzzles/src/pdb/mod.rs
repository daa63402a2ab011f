//! Pattern databases: built once by a correct breadth-first search of an
//! abstract space, stored as content-keyed artifacts, looked up by perfect
//! hashing.
//!
//! - [`rank`]: ranking of partial permutations (the perfect hash).
//! - [`tiles`]: sliding tiles, additive (Korf & Felner): 0-1 BFS over
//!   (pattern tiles' cells, blank's region), the entry the minimum over the
//!   blank.
//! - [`pancake`]: location-based pancake PDBs, additive, as the paper's code
//!   defines them (0-1 BFS).
//! - [`blocks`]: the paper's blocksworld abstraction (stack shapes and
//!   pattern blocks' places), unit costs, combined by max.
//! - [`artifact`]: [`Pdb`] as bytes with a header and checksum, its key, and
//!   [`load_or_build`] through a [`PdbStore`].
//! - [`lookup`]: PDBs as heuristics: sums within a disjoint set, max across
//!   sets; per-PDB values as features.
//! - [`sets`]: the named pattern sets (Korf & Felner's, the paper's).

pub mod artifact;
pub mod blocks;
pub mod lookup;
pub mod pancake;
pub mod rank;
pub mod sets;
pub mod tiles;

pub use artifact::{load_or_build, Abstraction, DirStore, MemStore, Pdb, PdbSpec, PdbStore, Provenance, Table};
pub use lookup::{Combine, PdbHeuristic};
pub use sets::PatternSet;

/// An entry no abstract path reaches (only possible when a pattern holds
/// every tile, where parity splits the space).
pub const UNREACHED: u8 = u8::MAX;
