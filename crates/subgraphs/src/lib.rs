//! Trunda's subgraph-count state features (thesis, chapter 4): the labelled
//! object graph of a PDDL state and goal, and the number of occurrences of
//! each small connected induced subgraph in it.
//!
//! - [`object_graph`]: G(s) of Definition 21 for a grounded task and a state.
//! - [`canonical`]: canonical forms of labelled graphs on at most six
//!   vertices; their printed form names a feature.
//! - [`enumerate`]: every connected induced subgraph of at most alpha
//!   vertices, once each (ESU), and F_alpha from scratch.
//! - [`vocabulary`]: the frozen, ordered list of feature graphs seen in
//!   training, mapping counts to a fixed-length vector.
//! - [`incremental`]: the Extended Object Graph (section 4.5), which updates
//!   F_alpha when an operator is applied instead of recounting.
//! - [`local`]: the same updates without stored occurrences (only counts
//!   per search node), by listing the connected sets through each changed vertex.
//! - [`bench`]: features per second from scratch and incrementally.

pub mod bench;
pub mod canonical;
pub mod counts;
pub mod enumerate;
pub mod graph;
pub mod incremental;
pub mod local;
pub mod object_graph;
pub mod vocabulary;

pub use canonical::{Canonicalizer, Form};
pub use counts::Counts;
pub use enumerate::{features_from_scratch, Counter, Enumerator};
pub use graph::Graph;
pub use incremental::Eog;
pub use local::LocalCounter;
pub use object_graph::{DomainSymbols, TaskGraph};
pub use vocabulary::Vocabulary;

/// What can go wrong building features.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("alpha must be between 1 and {max} (the largest feature graph supported), got {0}", max = canonical::MAX_VERTICES)]
    Alpha(usize),
    #[error(
        "problem {problem}: negative goal {literal}: the object graph (Trunda, Definition 21) encodes positive goals \
         only; compile negative goals away first (for example with a complementary predicate that the actions keep \
         up to date)"
    )]
    NegativeGoal { problem: String, literal: String },
    #[error("domain {domain}: {count} predicate symbols and types, but labels hold at most {max}")]
    TooManySymbols { domain: String, count: usize, max: usize },
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Load(#[from] planner::LoadError),
}
