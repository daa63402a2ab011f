//! `hfarm features`: Trunda's subgraph-count features of the initial state
//! (the number of occurrences of each connected induced subgraph of at most
//! alpha vertices in the object graph; crate `subgraphs`).

use std::path::PathBuf;

use anyhow::{Context, Result};
use subgraphs::object_graph::load_files;
use subgraphs::Counter;

#[derive(clap::Args)]
pub struct Args {
    /// The PDDL domain file.
    pub domain: PathBuf,
    /// The PDDL problem file.
    pub problem: PathBuf,
    /// Largest feature graph, in vertices (1 to 6).
    #[arg(long)]
    pub alpha: usize,
    /// Print `{"alpha": A, "features": {FORM: COUNT, ...}}`, where FORM is the
    /// feature graph's canonical form (`L0,L1,L3|0-1,1-2`: vertex labels, then edges).
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> Result<()> {
    let mut counter = Counter::new(args.alpha)?;
    let loaded = load_files(&args.domain, &args.problem)
        .with_context(|| format!("cannot build the object graph of {}", args.problem.display()))?;
    let graph = loaded.graphs.graph(loaded.task.init.iter().copied());
    let counts = counter.count(&graph);
    if args.json {
        let features: serde_json::Map<String, serde_json::Value> =
            counts.iter().map(|(form, n)| (form.to_string(), serde_json::json!(n))).collect();
        println!("{}", serde_json::json!({ "alpha": args.alpha, "features": features }));
    } else {
        let symbols = loaded.graphs.symbols();
        println!(
            "{} vertices, {} edges; {} occurrences of {} feature graphs (alpha {})",
            graph.num_present(),
            graph.num_edges(),
            counts.total(),
            counts.len(),
            args.alpha
        );
        for (form, n) in counts.iter() {
            let labels: Vec<String> = form.labels().into_iter().map(|l| symbols.describe(l)).collect();
            println!("{n:>8}  {form:<32} [{}]", labels.join(", "));
        }
    }
    Ok(())
}
