//! Pattern databases: built once by a correct breadth-first search of an
//! abstract space, stored as content-keyed artifacts, looked up by perfect
//! hashing.
//!
//! Each family builds its own PDBs beside its domain (`tiles::pdb`: sliding
//! tiles, additive, Korf & Felner's 0-1 BFS over (pattern tiles' cells,
//! blank's region), the entry the minimum over the blank; `pancake::pdb`:
//! location-based, additive, as the paper's code defines them;
//! `blocks::pdb`: the paper's blocksworld abstraction, unit costs, combined
//! by max). What is here knows no family:
//!
//! - [`rank`]: ranking of partial permutations (the perfect hash).
//! - [`shape`]: the key of the blocksworld abstraction (stack shapes and
//!   pattern blocks' places), for lookups and the builder.
//! - [`artifact`]: [`Pdb`] as bytes with a header and checksum, its key, and
//!   [`load_or_build`] through a [`PdbStore`].
//! - [`lookup`]: PDBs as heuristics: sums within a disjoint set, max across
//!   sets; per-PDB values as features.
//! - [`sets`]: the named pattern sets (Korf & Felner's, the paper's).

pub mod artifact;
pub mod lookup;
pub mod rank;
pub mod sets;
pub mod shape;

pub use artifact::{load_or_build, Abstraction, DirStore, MemStore, Pdb, PdbSpec, PdbStore, Provenance, Table};
pub use lookup::{Combine, PdbHeuristic};
pub use sets::PatternSet;

/// An entry no abstract path reaches (only possible when a pattern holds
/// every tile, where parity splits the space).
pub const UNREACHED: u8 = u8::MAX;
