//! Builds (or loads) one PDB into a directory store and prints its key,
//! size, value histogram and build time: the PDB half of `hfarm puzzle pdb`
//! without the command line's dependencies.
//!
//! Usage: pdb_build DOMAIN PATTERN DIR [THREADS]   (PATTERN: 1,2,3 or 1-7)

use std::time::Instant;

use puzzles::pdb::{load_or_build, sets::parse_pattern, DirStore};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 4 {
        eprintln!("usage: pdb_build DOMAIN PATTERN DIR [THREADS]");
        std::process::exit(2);
    }
    let fail = |e: puzzles::PuzzleError| -> ! {
        eprintln!("error: {e}");
        std::process::exit(2)
    };
    let d = puzzles::by_name(&args[1]).unwrap_or_else(|e| fail(e));
    let pattern = parse_pattern(&args[2]).unwrap_or_else(|e| fail(e));
    let threads = args.get(4).and_then(|t| t.parse().ok()).unwrap_or(2);
    let spec = d.pdb_spec(&pattern).unwrap_or_else(|e| fail(e));
    let t0 = Instant::now();
    let (pdb, provenance) =
        load_or_build(&DirStore::new(&args[3]), &spec, || d.build_pdb(&pattern, threads)).unwrap_or_else(|e| fail(e));
    println!("key {}", spec.key());
    println!("spec {}", spec.describe());
    println!("{provenance:?} in {:.2} s with {threads} threads", t0.elapsed().as_secs_f64());
    println!("entries {} bytes {} max {} mean {:.3}", pdb.entries(), pdb.table_bytes(), pdb.max_value(), pdb.mean());
    println!("histogram {:?}", pdb.histogram());
}
