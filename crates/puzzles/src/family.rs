//! What a puzzle family implements and the helpers it uses, apart from
//! the list of families ([`crate::registry`]): the families depend on it,
//! and it names no family (only the sliding-tile board, which reflections
//! use). [`FamilyInfo`] (each family's `FAMILY`), [`Registered`] (its PDBs
//! and its heuristics by name, which [`pdb_heuristic`] serves),
//! [`PdbSource`] and [`PdbCache`] (where PDBs come from), and [`DynDomain`]
//! with [`Dyn`], which turns any `Registered` domain into an object-safe
//! one, so the dynamic layer is written once (and the two traits' method
//! names never meet on one type).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

use crate::board::SlidingTile;
use crate::domain::{replay, Domain};
use crate::heuristic::Heuristic;
use crate::pdb::artifact::{load_or_build, Abstraction, Pdb, PdbSpec, PdbStore, Provenance, Table};
use crate::pdb::{sets, PdbHeuristic};
use crate::search::{astar, ida_star, Limits, SearchKind, SearchResult, Status};
use crate::state::State;
use crate::PuzzleError;

/// A family of puzzles, one per domain file.
#[derive(Debug)]
pub struct FamilyInfo {
    pub family: &'static str,
    /// The names it answers to, for listings and errors.
    pub names: &'static str,
    pub description: &'static str,
    /// The sizes the paper (or the literature) uses.
    pub examples: &'static [&'static str],
    /// Heuristics by name, with a line each (`pdb` and `pdb:SET` for all).
    pub heuristics: &'static [(&'static str, &'static str)],
    /// The admissible heuristic the farm finds optimal costs with (test
    /// tasks' solve jobs, `hfarm puzzle test --walks`): the fastest measured
    /// on the paper's sizes.
    pub optimal_heuristic: &'static str,
    /// The domain for a name of this family, None if the name is not one.
    pub open: fn(&str) -> Option<Opened>,
}

/// A domain opened by name, or why the name is wrong for its family.
pub type Opened = Result<Box<dyn DynDomain>, PuzzleError>;

/// Where PDBs come from: a store to load from and save to, the threads a
/// build may use, and optionally a cache of PDBs already in memory (so that
/// solving many states reads each PDB once).
#[derive(Clone, Copy)]
pub struct PdbSource<'a> {
    pub store: &'a dyn PdbStore,
    pub threads: usize,
    pub cache: Option<&'a PdbCache>,
}

/// PDBs in memory by key, shared across solves.
#[derive(Debug, Default)]
pub struct PdbCache {
    map: Mutex<HashMap<String, Arc<Pdb>>>,
}

impl PdbCache {
    fn get(&self, key: &str) -> Option<Arc<Pdb>> {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned()
    }

    fn put(&self, key: String, pdb: Arc<Pdb>) {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).insert(key, pdb);
    }
}

/// One PDB a solve used: its key, and whether it was loaded or built.
#[derive(Debug, Clone, Serialize)]
pub struct PdbUse {
    pub key: String,
    pub pattern: Vec<u8>,
    pub entries: u64,
    pub built: bool,
    pub seconds: f64,
}

/// What `hfarm puzzle solve` prints.
#[derive(Debug, Clone, Serialize)]
pub struct SolveReport {
    pub domain: String,
    pub start: String,
    pub heuristic: String,
    pub search: SearchKind,
    pub status: Status,
    pub cost: Option<u32>,
    pub plan_length: usize,
    /// The operators, as the domain labels them (tiles moved, flips, moves).
    pub plan: Vec<String>,
    pub initial_h: u32,
    pub generated: u64,
    pub expanded: u64,
    pub iterations: u32,
    /// Search time (PDB loading or building excluded; see `pdbs`).
    pub time_s: f64,
    pub nodes_per_second: f64,
    pub pdbs: Vec<PdbUse>,
}

/// What the registry needs of a domain beyond [`Domain`]: its family, its
/// PDBs, and its heuristics by name.
pub trait Registered: Domain + Clone + Sized + 'static {
    const FAMILY: &'static FamilyInfo;
    /// The abstraction of this domain's PDBs.
    const ABSTRACTION: Abstraction;

    /// Checks a PDB pattern for this domain, naming the fault.
    fn check_pdb_pattern(&self, pattern: &[u8]) -> Result<(), PuzzleError>;

    /// Builds a PDB's table (may take minutes for large patterns).
    fn build_pdb_table(&self, pattern: &[u8], threads: usize) -> Result<Table, PuzzleError>;

    /// The board to mirror states on, for reflected PDB lookups.
    fn mirror_board(&self) -> Option<SlidingTile> {
        None
    }

    /// Hands `v` the heuristic `name` names, statically typed (PDBs loaded
    /// or built from `pdbs`).
    fn visit_heuristic<V: HeuristicVisitor<Self>>(
        &self,
        name: &str,
        pdbs: PdbSource,
        v: V,
    ) -> Result<V::Out, PuzzleError>;

    /// The spec of this domain's PDB of `pattern`.
    fn pdb_spec(&self, pattern: &[u8]) -> Result<PdbSpec, PuzzleError> {
        self.check_pdb_pattern(pattern)?;
        Ok(PdbSpec { domain: self.name().to_string(), abstraction: Self::ABSTRACTION, pattern: pattern.to_vec() })
    }

    /// Builds the PDB of `pattern`.
    fn build_pdb(&self, pattern: &[u8], threads: usize) -> Result<Pdb, PuzzleError> {
        let spec = self.pdb_spec(pattern)?;
        Ok(Pdb { spec, table: self.build_pdb_table(pattern, threads)? })
    }
}

/// Something to do with a heuristic whose type only the domain knows (a
/// generic closure, which Rust closures cannot be).
pub trait HeuristicVisitor<D: Domain> {
    type Out;
    fn visit<H: Heuristic<D>>(self, h: &mut H, pdbs: Vec<PdbUse>) -> Self::Out;
}

/// A domain behind an object-safe interface.
pub trait DynDomain: Send + Sync {
    fn name(&self) -> &str;
    fn family(&self) -> &'static FamilyInfo;
    fn size(&self) -> usize;
    fn operators(&self) -> String;
    fn goal(&self) -> State;
    fn parse_state(&self, text: &str) -> Result<State, PuzzleError>;
    /// A `steps`-move random walk from the goal (see [`crate::walk`]).
    fn random_walk(&self, steps: u32, seed: u64) -> State;
    /// The abstraction of this domain's PDBs.
    fn abstraction(&self) -> Abstraction;
    /// The spec of this domain's PDB of `pattern` (checked).
    fn pdb_spec(&self, pattern: &[u8]) -> Result<PdbSpec, PuzzleError>;
    /// Builds a PDB (may take minutes for large patterns).
    fn build_pdb(&self, pattern: &[u8], threads: usize) -> Result<Pdb, PuzzleError>;
    /// h of `state` under the named heuristic.
    fn heuristic_value(&self, state: &State, heuristic: &str, pdbs: PdbSource) -> Result<u32, PuzzleError>;
    /// Solves from `start` (see [`SolveReport`]).
    fn solve(
        &self,
        start: &State,
        heuristic: &str,
        search: SearchKind,
        limits: &Limits,
        pdbs: PdbSource,
    ) -> Result<SolveReport, PuzzleError>;
}

/// A [`Registered`] domain as a [`DynDomain`].
#[derive(Debug, Clone)]
pub struct Dyn<D>(pub D);

/// Boxes a domain for the registry (a family's `open`).
pub fn boxed<D: Registered>(d: Result<D, PuzzleError>) -> Result<Box<dyn DynDomain>, PuzzleError> {
    d.map(|d| Box::new(Dyn(d)) as Box<dyn DynDomain>)
}

struct ValueOf<'a>(&'a State);

impl<D: Domain> HeuristicVisitor<D> for ValueOf<'_> {
    type Out = u32;
    fn visit<H: Heuristic<D>>(self, h: &mut H, _: Vec<PdbUse>) -> u32 {
        h.h(self.0)
    }
}

struct SolveIn<'a, D> {
    d: &'a D,
    start: &'a State,
    search: SearchKind,
    limits: &'a Limits,
}

impl<D: Domain> HeuristicVisitor<D> for SolveIn<'_, D> {
    type Out = (SearchResult<D::Op>, Vec<PdbUse>);
    fn visit<H: Heuristic<D>>(self, h: &mut H, pdbs: Vec<PdbUse>) -> Self::Out {
        let r = match self.search {
            SearchKind::IdaStar => ida_star(self.d, self.start, h, self.limits),
            SearchKind::AStar => astar(self.d, self.start, h, self.limits),
        };
        (r, pdbs)
    }
}

impl<D: Registered> DynDomain for Dyn<D> {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn family(&self) -> &'static FamilyInfo {
        D::FAMILY
    }
    fn size(&self) -> usize {
        self.0.size()
    }
    fn operators(&self) -> String {
        self.0.operators()
    }
    fn goal(&self) -> State {
        *self.0.goal()
    }
    fn parse_state(&self, text: &str) -> Result<State, PuzzleError> {
        self.0.parse_state(text)
    }
    fn random_walk(&self, steps: u32, seed: u64) -> State {
        crate::walk::random_walk(&self.0, steps, seed)
    }
    fn abstraction(&self) -> Abstraction {
        D::ABSTRACTION
    }
    fn pdb_spec(&self, pattern: &[u8]) -> Result<PdbSpec, PuzzleError> {
        self.0.pdb_spec(pattern)
    }
    fn build_pdb(&self, pattern: &[u8], threads: usize) -> Result<Pdb, PuzzleError> {
        self.0.build_pdb(pattern, threads)
    }
    fn heuristic_value(&self, state: &State, heuristic: &str, pdbs: PdbSource) -> Result<u32, PuzzleError> {
        self.0.visit_heuristic(heuristic, pdbs, ValueOf(state))
    }
    fn solve(
        &self,
        start: &State,
        heuristic: &str,
        search: SearchKind,
        limits: &Limits,
        pdbs: PdbSource,
    ) -> Result<SolveReport, PuzzleError> {
        let d = &self.0;
        let v = SolveIn { d, start, search, limits };
        let (r, uses) = d.visit_heuristic(heuristic, pdbs, v)?;
        Ok(report(d, start, heuristic, search, r, uses))
    }
}

/// Whether `name` asks for PDBs: `pdb`, `pdb:SET` or `pdb:PATTERNS`.
pub(crate) fn is_pdb(name: &str) -> bool {
    name == "pdb" || name.starts_with("pdb:")
}

/// The PDB heuristic `name` names for `d`, its PDBs loaded or built.
pub fn pdb_heuristic<D: Registered>(
    d: &D,
    name: &str,
    src: PdbSource,
) -> Result<(PdbHeuristic, Vec<PdbUse>), PuzzleError> {
    let arg = name.strip_prefix("pdb").unwrap_or_default().trim_start_matches(':');
    // A set's name first: `4-4` names the 8-puzzle's set, not a pattern.
    let named = sets::for_domain(d.name()).any(|s| s.name == arg);
    let (groups, reflect): (Vec<Vec<Vec<u8>>>, bool) =
        if arg.is_empty() || named || !arg.starts_with(|c: char| c.is_ascii_digit()) {
            let set = if arg.is_empty() {
                sets::for_domain(d.name()).next().ok_or_else(|| {
                    PuzzleError::Unknown(format!(
                        "default pattern set: the {} has none; give patterns, e.g. pdb:1,2,3/4,5,6",
                        d.name()
                    ))
                })?
            } else {
                sets::by_name(d.name(), arg)?
            };
            (set.groups.iter().map(|g| g.iter().map(|p| p.to_vec()).collect()).collect(), set.reflect)
        } else {
            (sets::parse_groups(arg)?, false)
        };
    let mut loaded: HashMap<Vec<u8>, Arc<Pdb>> = HashMap::new();
    let mut uses = Vec::new();
    for pattern in groups.iter().flatten() {
        if loaded.contains_key(pattern) {
            continue;
        }
        let spec = d.pdb_spec(pattern)?;
        let key = spec.key();
        let t0 = Instant::now();
        let (pdb, built) = match src.cache.and_then(|c| c.get(&key)) {
            Some(pdb) => (pdb, false),
            None => {
                let (pdb, provenance) = load_or_build(src.store, &spec, || d.build_pdb(pattern, src.threads))?;
                let pdb = Arc::new(pdb);
                if let Some(c) = src.cache {
                    c.put(key.clone(), pdb.clone());
                }
                (pdb, provenance != Provenance::Loaded)
            }
        };
        uses.push(PdbUse {
            key,
            pattern: pattern.clone(),
            entries: pdb.entries(),
            built,
            seconds: t0.elapsed().as_secs_f64(),
        });
        loaded.insert(pattern.clone(), pdb);
    }
    let groups = groups.iter().map(|g| g.iter().map(|p| loaded[p].clone()).collect()).collect();
    let mirror = if reflect { d.mirror_board() } else { None };
    Ok((PdbHeuristic::new(groups, mirror), uses))
}

/// The error for a heuristic name a domain does not know.
pub(crate) fn unknown_heuristic<D: Registered>(d: &D, name: &str) -> PuzzleError {
    let mut known: Vec<String> = D::FAMILY.heuristics.iter().map(|(n, _)| n.to_string()).collect();
    known.extend(sets::for_domain(d.name()).map(|s| format!("pdb:{}", s.name)));
    PuzzleError::Unknown(format!("heuristic {name:?} for the {}: known are {}", d.name(), known.join(", ")))
}

/// A search's result as a report.
fn report<D: Domain>(
    d: &D,
    start: &State,
    heuristic: &str,
    search: SearchKind,
    r: SearchResult<D::Op>,
    pdbs: Vec<PdbUse>,
) -> SolveReport {
    let states = replay(d, start, &r.plan);
    let plan = r.plan.iter().zip(&states).map(|(&op, s)| d.op_label(s, op)).collect();
    let secs = r.elapsed.as_secs_f64();
    SolveReport {
        domain: d.name().to_string(),
        start: start.to_string(),
        heuristic: heuristic.to_string(),
        search,
        status: r.status,
        cost: r.cost,
        plan_length: r.plan.len(),
        plan,
        initial_h: r.initial_h,
        generated: r.generated,
        expanded: r.expanded,
        iterations: r.iterations,
        time_s: secs,
        nodes_per_second: if secs > 0.0 { r.generated as f64 / secs } else { 0.0 },
        pdbs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A set whose name starts with a digit (the 8-puzzle's `4-4`) is that
    /// set, not a pattern list.
    #[test]
    fn pattern_sets_are_found_by_name_before_patterns() {
        let d = SlidingTile::new(3, 3).unwrap();
        let store = crate::pdb::MemStore::default();
        let src = PdbSource { store: &store, threads: 1, cache: None };
        let (named, _) = pdb_heuristic(&d, "pdb:4-4", src).unwrap();
        let (default, _) = pdb_heuristic(&d, "pdb", src).unwrap();
        assert_eq!(named.maxima().len(), 2);
        for seed in 0..20 {
            let s = crate::walk::random_walk(&d, 40, seed);
            assert_eq!(named.value(&s), default.value(&s));
        }
    }
}
