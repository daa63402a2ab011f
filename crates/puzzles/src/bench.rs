//! Solving a benchmark set and checking it against the published optimal
//! costs: what `hfarm puzzle bench` and `examples/korf100.rs` print.

use serde::Serialize;

use crate::instances::Instance;
use crate::registry::{DynDomain, PdbSource};
use crate::search::{Limits, SearchKind};
use crate::PuzzleError;

/// One instance solved.
#[derive(Debug, Clone, Serialize)]
pub struct BenchLine {
    pub instance: u32,
    pub cost: Option<u32>,
    pub optimal: u32,
    pub initial_h: u32,
    pub generated: u64,
    pub expanded: u64,
    pub time_s: f64,
}

impl BenchLine {
    pub fn optimal_found(&self) -> bool {
        self.cost == Some(self.optimal)
    }
}

/// The whole set.
#[derive(Debug, Clone, Serialize)]
pub struct BenchTotals {
    pub instances: usize,
    pub heuristic: String,
    pub search: SearchKind,
    pub generated: u64,
    pub expanded: u64,
    /// Search time, PDB loading excluded.
    pub time_s: f64,
    pub nodes_per_second: f64,
    /// Instances solved at another cost than the published one.
    pub not_optimal: Vec<u32>,
}

/// Solves `set` on `d` with `heuristic`, handing each result to `each`.
/// PDBs are loaded (or built) before the first search, so instance times
/// are search times.
pub fn run_set(
    d: &dyn DynDomain,
    set: &[Instance],
    heuristic: &str,
    search: SearchKind,
    src: PdbSource,
    mut each: impl FnMut(&BenchLine),
) -> Result<BenchTotals, PuzzleError> {
    d.heuristic_value(&d.goal(), heuristic, src)?;
    let mut t = BenchTotals {
        instances: set.len(),
        heuristic: heuristic.to_string(),
        search,
        generated: 0,
        expanded: 0,
        time_s: 0.0,
        nodes_per_second: 0.0,
        not_optimal: Vec::new(),
    };
    for x in set {
        let start = d.parse_state(&x.cells.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(" "))?;
        let r = d.solve(&start, heuristic, search, &Limits::default(), src)?;
        let line = BenchLine {
            instance: x.id,
            cost: r.cost,
            optimal: x.optimal,
            initial_h: r.initial_h,
            generated: r.generated,
            expanded: r.expanded,
            time_s: r.time_s,
        };
        if !line.optimal_found() {
            t.not_optimal.push(x.id);
        }
        t.generated += r.generated;
        t.expanded += r.expanded;
        t.time_s += r.time_s;
        each(&line);
    }
    t.nodes_per_second = if t.time_s > 0.0 { t.generated as f64 / t.time_s } else { 0.0 };
    Ok(t)
}
