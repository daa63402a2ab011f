//! A domain opened by name together with the network's inputs: one-hot
//! tiles (sliding-tile puzzles), or the PDB values of a pattern set (the
//! paper's 24-puzzle, 24-pancake and 15-blocksworld representations, any
//! board of those families). [`with_features`] hands both, statically
//! typed, to the work ([`WithFeatures`]): the learner, a test, or just the
//! input width. The farm's workers and `hfarm puzzle learn|test` use it.

use puzzles::blocks::Blocksworld;
use puzzles::pancake::Pancake;
use puzzles::registry::{pdb_heuristic, PdbSource, Registered};
use puzzles::tiles::SlidingTile;
use puzzles::Domain;

use crate::features::{BlocksPdbFeatures, Features, OneHotTiles, PancakePdbFeatures, PdbLookups, TilePdbFeatures};

/// Work that runs with a domain and its features.
pub trait WithFeatures {
    type Out;
    fn run<D: Domain, F: Features>(self, d: &D, features: &mut F) -> Result<Self::Out, String>;
}

/// The network's input width.
pub struct Width;

impl WithFeatures for Width {
    type Out = usize;
    fn run<D: Domain, F: Features>(self, _: &D, features: &mut F) -> Result<usize, String> {
        Ok(features.inputs())
    }
}

/// The sliding-tile puzzle `domain` names, or why not.
pub fn tiles(domain: &str) -> Result<SlidingTile, String> {
    match SlidingTile::from_name(domain) {
        Some(Ok(d)) => Ok(d),
        Some(Err(e)) => Err(e.to_string()),
        None => Err(format!(
            "`{domain}`: one-hot inputs need a sliding-tile puzzle (8-puzzle, 15-puzzle, 24-puzzle or WxH-puzzle); \
             give inputs = \"pdb\" (PDB values) for pancakes and blocksworld"
        )),
    }
}

/// The pattern set PDB inputs use on `domain`: `given`, else the paper's
/// (`marom-rosman`) where the domain has it, else the domain's first.
pub fn pattern_set(domain: &str, given: Option<&str>) -> Result<&'static str, String> {
    let sets: Vec<&str> = puzzles::pdb::sets::for_domain(domain).map(|s| s.name).collect();
    let chosen = match given {
        Some(name) => sets.iter().find(|s| **s == name).copied(),
        None => sets.iter().find(|s| **s == "marom-rosman").or(sets.first()).copied(),
    };
    chosen.ok_or_else(|| match given {
        Some(name) => format!("the {domain} has no pattern set `{name}`; it has: {}", sets.join(", ")),
        None => format!("the {domain} has no pattern set; PDB inputs need one (`puzzles::pdb::sets`)"),
    })
}

/// Opens `domain` with one-hot inputs (`pdb_set` None) or the PDB values
/// of the pattern set `pdb_set` (its PDBs from `src`), and runs `v`.
pub fn with_features<V: WithFeatures>(
    domain: &str,
    pdb_set: Option<&str>,
    src: PdbSource,
    v: V,
) -> Result<V::Out, String> {
    let Some(set) = pdb_set else {
        let d = tiles(domain)?;
        return v.run(&d, &mut OneHotTiles::new(&d));
    };
    fn lookups<D: Registered>(d: &D, set: &str, src: PdbSource) -> Result<PdbLookups, String> {
        let groups = PdbLookups::group_sizes(puzzles::pdb::sets::by_name(d.name(), set).map_err(|e| e.to_string())?);
        let (h, _) = pdb_heuristic(d, &format!("pdb:{set}"), src).map_err(|e| e.to_string())?;
        PdbLookups::new(h, groups).map_err(|e| e.to_string())
    }
    let err = |e: puzzles::PuzzleError| e.to_string();
    let shape = |e: crate::LikelyError| e.to_string();
    if let Some(d) = SlidingTile::from_name(domain) {
        let d = d.map_err(err)?;
        let mut f = TilePdbFeatures::new(&d, lookups(&d, set, src)?).map_err(shape)?;
        v.run(&d, &mut f)
    } else if let Some(d) = Pancake::from_name(domain) {
        let d = d.map_err(err)?;
        let mut f = PancakePdbFeatures::new(d.size(), lookups(&d, set, src)?).map_err(shape)?;
        v.run(&d, &mut f)
    } else if let Some(d) = Blocksworld::from_name(domain) {
        let d = d.map_err(err)?;
        let mut f = BlocksPdbFeatures::new(d.size(), lookups(&d, set, src)?).map_err(shape)?;
        v.run(&d, &mut f)
    } else {
        Err(format!("no PDB inputs for the domain `{domain}` (sliding tiles, N-pancake, N-blocksworld)"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use puzzles::pdb::MemStore;

    #[test]
    fn inputs_are_one_hot_or_a_pattern_sets_values() {
        let store = MemStore::default();
        let src = PdbSource { store: &store, threads: 1, cache: None };
        // One-hot: each of the 9 cells' tile as its row and column (the code's TwoDim).
        assert_eq!(with_features("8-puzzle", None, src, Width).unwrap(), 9 * (3 + 3));
        // The 4-4 set: two PDBs, their group's sum, and three tile features.
        assert_eq!(with_features("8-puzzle", Some("4-4"), src, Width).unwrap(), 2 + 1 + 3);
        let e = with_features("24-pancake", None, src, Width).unwrap_err();
        assert!(e.contains("one-hot inputs need a sliding-tile puzzle"), "{e}");
        let e = with_features("8-puzzle", Some("nope"), src, Width).unwrap_err();
        assert!(e.contains("nope"), "{e}");
    }
}
