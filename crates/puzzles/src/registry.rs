//! The domains by name, for the command line and the farm: [`FAMILIES`]
//! lists the puzzle families (each describes itself in its own file, as
//! `planner::generate::DomainInfo` does), [`by_name`] opens a domain
//! (`"15-puzzle"`, `"24-pancake"`) as a [`DynDomain`], which parses states,
//! walks, builds PDBs and solves, choosing the statically dispatched search
//! and heuristic once per call.
//!
//! A domain file implements [`Domain`](crate::Domain) and [`Registered`]
//! (its PDBs and its heuristics by name) and declares its `FAMILY`; those
//! traits and their helpers are in [`crate::family`], re-exported here.

pub use crate::family::{
    boxed, pdb_heuristic, Dyn, DynDomain, FamilyInfo, HeuristicVisitor, Opened, PdbCache, PdbSource, PdbUse,
    Registered, SolveReport,
};
use crate::PuzzleError;

/// Every puzzle family. Adding a puzzle: its file (a [`Domain`](crate::Domain), a
/// [`Registered`] and a `FAMILY`), `mod` in lib.rs, one line here.
pub static FAMILIES: &[&FamilyInfo] = &[&crate::tiles::FAMILY, &crate::pancake::FAMILY, &crate::blocks::FAMILY];

/// The domain named `name`, or an error listing the names known.
pub fn by_name(name: &str) -> Result<Box<dyn DynDomain>, PuzzleError> {
    for f in FAMILIES {
        if let Some(d) = (f.open)(name) {
            return d;
        }
    }
    let known: Vec<&str> = FAMILIES.iter().map(|f| f.names).collect();
    Err(PuzzleError::Unknown(format!("domain {name:?}: known are {}", known.join("; "))))
}

/// The number of cells of a named domain.
pub fn cells_of(name: &str) -> Option<usize> {
    by_name(name).ok().map(|d| d.size())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_open_the_right_domains_and_unknown_names_are_errors() {
        for (name, size) in [("8-puzzle", 9), ("15-puzzle", 16), ("24-puzzle", 25), ("24-pancake", 24)] {
            assert_eq!(by_name(name).unwrap().size(), size, "{name}");
        }
        assert_eq!(by_name("15-blocksworld").unwrap().size(), 15);
        let e = by_name("rubik").err().unwrap().to_string();
        assert!(e.contains("unknown domain \"rubik\"") && e.contains("N-pancake"), "{e}");
        assert!(by_name("14-puzzle").is_err());
    }

    #[test]
    fn every_family_lists_openable_examples() {
        for f in FAMILIES {
            for e in f.examples {
                let d = by_name(e).unwrap();
                assert_eq!(d.family().family, f.family);
                assert_eq!(d.name(), *e);
            }
        }
    }
}
