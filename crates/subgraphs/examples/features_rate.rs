//! Features per second, from scratch and incrementally (the EOG), by alpha,
//! along seeded random walks on IPC blocksworld and zenotravel problems.
//!
//! ```text
//! cargo run --release -p subgraphs --example features_rate [-- MAX_ALPHA [STEPS [SECONDS]]]
//! ```
//!
//! Each method gets at most SECONDS (default 2) per problem and alpha.
//! "rooted" inserts an added atom with all its edges and lists the connected
//! sets through it; "edge-by-edge" is the thesis's AddVertex + AddEdge
//! sequence. Both derive each successor's EOG from a copy of its parent's;
//! "in-place" is rooted insertion applied to one EOG along the walk (what a
//! depth-first search with apply/undo pays). "local" derives each
//! successor's counts from its parent's without stored occurrences
//! (`LocalCounter::successor`: apply, then restore the graph).

use std::path::PathBuf;
use std::time::Duration;

use subgraphs::bench::{bench, random_walk};
use subgraphs::object_graph::{load, load_files, Loaded};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let arg = |i: usize, default: u64| -> Result<u64, String> {
        args.get(i)
            .map_or(Ok(default), |a| a.parse().map_err(|_| format!("argument {}: expected a number, got {a:?}", i + 1)))
    };
    let max_alpha = arg(0, 4)? as usize;
    let steps = arg(1, 200)? as usize;
    let budget = Duration::from_secs(arg(2, 2)?);
    let ipc = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../planner/tests/ipc");
    let problems = [
        ("blocks", "probBLOCKS-4-1.pddl"),
        ("zenotravel", "p01.pddl"),
        ("zenotravel", "p03.pddl"),
        ("ipc2002-zenotravel-strips-automatic", "instance-1.pddl"),
    ];
    println!(
        "{:<36} {:>5} {:>4} {:>7} {:>10} {:>10} {:>10} {:>10} {:>10} {:>6}",
        "problem", "alpha", "|V|", "occurr.", "scratch/s", "rooted/s", "in-place/s", "by-edge/s", "local/s", "graphs"
    );
    let mut loaded: Vec<(String, Loaded)> = vec![];
    for (dir, file) in problems {
        let name = format!("{}/{file}", dir.replace("-strips-automatic", ""));
        loaded.push((name, load_files(&ipc.join(dir).join("domain.pddl"), &ipc.join(dir).join(file))?));
    }
    // Larger graphs: the project's blocksworld generator (same four operators).
    let domain = planner::generate::domain_pddl("blocksworld").ok_or("no blocksworld domain")?;
    for blocks in [10, 20] {
        let problem = planner::generate::generate(&planner::generate::Params::Blocksworld { blocks }, 1)?;
        loaded.push((
            format!("generated blocksworld {blocks}"),
            load(domain, "blocksworld.pddl", &problem, "generated")?,
        ));
    }
    for (name, l) in loaded {
        let walk = random_walk(&l.task, steps, 42);
        let vertices = l.graphs.graph(l.task.init.iter().copied()).num_present();
        for alpha in 2..=max_alpha {
            let r = bench(&l.task, &l.graphs, alpha, &walk, budget)?;
            println!(
                "{:<36} {:>5} {:>4} {:>7} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>6}",
                name,
                alpha,
                vertices,
                r.occurrences,
                r.scratch_per_sec,
                r.rooted_per_sec,
                r.in_place_per_sec,
                r.edge_by_edge_per_sec,
                r.local_per_sec,
                r.distinct_graphs
            );
        }
    }
    Ok(())
}
