//! Korf's 100 15-puzzle instances with a heuristic (default: the 7-8 PDB),
//! one line per instance and a closing total: `hfarm puzzle bench` without
//! the command line's dependencies.
//!
//! Usage: korf100 PDB_DIR [HEURISTIC] [THREADS]

use puzzles::pdb::DirStore;
use puzzles::registry::{PdbCache, PdbSource};
use puzzles::search::SearchKind;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(dir) = args.get(1) else {
        eprintln!("usage: korf100 PDB_DIR [HEURISTIC] [THREADS]");
        std::process::exit(2)
    };
    let heuristic = args.get(2).map_or("pdb:korf-felner-7-8", |s| s.as_str());
    let threads = args.get(3).and_then(|t| t.parse().ok()).unwrap_or(2);
    let d = puzzles::by_name("15-puzzle").expect("a registered domain");
    let store = DirStore::new(dir);
    let cache = PdbCache::default();
    let src = PdbSource { store: &store, threads, cache: Some(&cache) };
    let set = puzzles::instances::korf100();
    let totals = puzzles::bench::run_set(d.as_ref(), &set, heuristic, SearchKind::IdaStar, src, |l| {
        println!(
            "#{:<3} cost {:>2} (optimal {}) h0 {:>2} generated {:>11} expanded {:>11} {:.3} s",
            l.instance,
            l.cost.map_or(-1, |c| c as i64),
            l.optimal,
            l.initial_h,
            l.generated,
            l.expanded,
            l.time_s
        );
    })
    .unwrap_or_else(|e| {
        eprintln!("error: {e}");
        std::process::exit(2)
    });
    println!("{}", serde_json::to_string(&totals).expect("serialisable"));
}
