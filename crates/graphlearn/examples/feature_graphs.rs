//! Table 5.1's question: which feature graphs the first 27 IPC blocks
//! problems' states contain, per alpha, and how many remain under other
//! definitions of |F_alpha| (without the predicate symbols' singletons,
//! without graphs whose count is the same in every sample, ...).
//!
//! ```text
//! cargo run --release -p graphlearn --example feature_graphs [-- WALKS LENGTH [zenotravel]]
//! ```
//!
//! With `zenotravel`, the 20 IPC 2002 Zenotravel problems instead (labels by
//! the genetic-algorithm solver).
//!
//! States: every state of the GoodTower plans from each problem's initial
//! state and from the ends of WALKS seeded random walks of LENGTH steps.

use std::collections::BTreeMap;

use graphlearn::features::FeatureCounter;
use graphlearn::labels::LabellerSettings;
use graphlearn::protocol::plan_samples;
use graphlearn::Problem;
use subgraphs::{Counts, Vocabulary};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (walks, length) = (args.first().copied().unwrap_or(10), args.get(1).copied().unwrap_or(20));
    let zeno = std::env::args().any(|a| a == "zenotravel");
    let dir = if zeno {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../benchmarks/ipc/zenotravel")
    } else {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../benchmarks/ipc/blocks")
    };
    let domain = std::fs::read_to_string(format!("{dir}/domain.pddl"))?;
    let mut names = vec![];
    if zeno {
        names.extend((1..=20).map(|i| format!("p{i:02}")));
    } else {
        for n in 4..=17 {
            for i in 0..3 {
                let name = format!("probBLOCKS-{n}-{i}");
                if std::path::Path::new(&format!("{dir}/{name}.pddl")).exists() {
                    names.push(name);
                }
            }
        }
        names.truncate(27);
    }
    let labeller = LabellerSettings::solver(if zeno { "zenotravel-ga" } else { "blocksworld-goodtower" })?;
    let mut counter = FeatureCounter::new(5)?;
    let mut all: Vec<Counts> = vec![];
    let mut symbols = None;
    for (i, name) in names.iter().enumerate() {
        let text = std::fs::read_to_string(format!("{dir}/{name}.pddl"))?;
        let p = Problem::from_text(name, &domain, &text)?;
        symbols.get_or_insert_with(|| p.graphs().symbols().clone());
        for l in plan_samples(&p, &labeller, walks, length, i as u64)? {
            all.push(counter.count(&p, &l.state));
        }
    }
    let symbols = symbols.ok_or("no problems")?;
    println!("{} problems, {} states; symbols {:?}", names.len(), all.len(), symbols.predicates);
    for alpha in 2..=5 {
        let vocab = Vocabulary::build(symbols.clone(), alpha, all.iter())?;
        let mut constant = 0;
        let mut by_size: BTreeMap<usize, usize> = BTreeMap::new();
        let mut symbol_singletons = 0;
        for &g in vocab.graphs() {
            *by_size.entry(g.num_vertices()).or_default() += 1;
            let first = all[0].get(g);
            if all.iter().all(|c| c.get(g) == first) {
                constant += 1;
                if alpha == 5 {
                    println!("  constant: {g} = {first}");
                }
            }
            if g.num_vertices() == 1 && g.labels()[0] >= 3 {
                symbol_singletons += 1;
            }
        }
        println!(
            "alpha {alpha}: |F| = {} by size {:?}; symbol singletons {symbol_singletons}; constant over the states {constant}",
            vocab.len(),
            by_size
        );
        if alpha <= 3 {
            for g in vocab.graphs() {
                println!("    {g}");
            }
        }
    }
    Ok(())
}
