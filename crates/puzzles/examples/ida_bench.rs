//! IDA* + Manhattan distance on 15-puzzle instances, printed exactly as
//! `tools/reference/ida15.c` prints them, so that `tools/reference/ida-bench`
//! can compare node counts (which must be equal) and node rates.
//!
//! Usage: ida_bench FILE  (one instance per line, 16 numbers)

use std::time::Instant;

use puzzles::search::{ida_star, Limits};
use puzzles::tiles::{Manhattan, SlidingTile};
use puzzles::Domain;

fn main() {
    let path = std::env::args().nth(1).unwrap_or_else(|| {
        eprintln!("usage: ida_bench FILE");
        std::process::exit(2)
    });
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    let d = SlidingTile::new(4, 4).unwrap();
    let (mut generated, mut expanded, mut seconds, mut k) = (0u64, 0u64, 0f64, 0);
    for line in text.lines() {
        let Ok(s) = d.parse_state(line) else { continue };
        let t0 = Instant::now();
        let r = ida_star(&d, &s, &mut Manhattan::new(&d), &Limits::default());
        let t = t0.elapsed().as_secs_f64();
        k += 1;
        let cost = r.cost.map_or(-1, |c| c as i64);
        println!("instance {k} cost {cost} generated {} expanded {} seconds {t:.3}", r.generated, r.expanded);
        generated += r.generated;
        expanded += r.expanded;
        seconds += t;
    }
    println!(
        "total instances {k} generated {generated} expanded {expanded} seconds {seconds:.3} nodes_per_second {:.0}",
        generated as f64 / seconds
    );
}
