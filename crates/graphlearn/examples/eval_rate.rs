//! The per-node cost of the learned heuristic in A*: nanoseconds per
//! evaluation of the thesis's network (256-512-128-64-32) alone, and of the
//! whole heuristic (incremental F_alpha, scaling, network) inside the
//! planner's A*, beside A* with h_FF, on generated blocksworld problems.
//!
//! ```text
//! cargo run --release -p graphlearn --example eval_rate [-- ALPHA [BLOCKS...]]
//! ```
//!
//! "features" is the same heuristic with a one-unit network (its cost
//! besides the network: incremental counts, parent lookup, scaling),
//! "blind" the search's own cost per evaluation.
//!
//! The network is trained briefly (a few epochs) on plan samples of smaller
//! problems: the time per evaluation depends on the weights only through
//! the zeros ReLU leaves, which a trained network has as an untrained one does.

use std::time::Instant;

use graphlearn::features::{FeatureCounter, StateFeatures};
use graphlearn::labels::LabellerSettings;
use graphlearn::mlp::{kernels, Loss, TrainSettings, Workspace};
use graphlearn::model::Example;
use graphlearn::protocol::plan_samples;
use graphlearn::{LearnedHeuristic, Model, ModelSettings, Problem};
use planner::generate::{domain_pddl, generate, Params};
use planner::heuristics::by_name;
use planner::search::astar;
use planner::search::Limits;

/// Evaluations per search: the heuristic evaluates at most this many states.
const CAP: u64 = 20_000;

fn blocks(n: u32, seed: u64) -> Result<Problem, Box<dyn std::error::Error>> {
    let text = generate(&Params::Blocksworld { blocks: n }, seed)?;
    Ok(Problem::from_text(&format!("blocks-{n}-{seed}"), domain_pddl("blocksworld").ok_or("no domain")?, &text)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let alpha: usize = args.first().map_or(Ok(3), |a| a.parse()).map_err(|_| "ALPHA: expected a number")?;
    let sizes: Vec<u32> = if args.len() > 1 {
        args[1..].iter().map(|a| a.parse()).collect::<Result<_, _>>().map_err(|_| "BLOCKS: expected numbers")?
    } else {
        vec![8, 10, 12, 15]
    };
    println!("AVX2+FMA kernels: {}", kernels::fast_path());
    // Train the thesis's network briefly on plan samples of 6-9 block problems.
    let labeller = LabellerSettings::solver("blocksworld-goodtower")?;
    let training: Vec<Problem> = (0..8).map(|i| blocks(6 + i % 4, 1000 + i as u64)).collect::<Result<_, _>>()?;
    let mut counter = FeatureCounter::new(alpha)?;
    let mut feats = vec![];
    for (i, p) in training.iter().enumerate() {
        for l in plan_samples(p, &labeller, 10, 20, i as u64)? {
            feats.push((StateFeatures { counts: counter.count(p, &l.state), ff: None }, l.h_star as f64));
        }
    }
    let examples: Vec<Example> = feats.iter().map(|(f, h)| Example { features: f, h_star: *h }).collect();
    let settings = ModelSettings::thesis(alpha, Loss::LogMse, false);
    let train = TrainSettings { max_epochs: 5, ..TrainSettings::default() };
    let t = Instant::now();
    let model = Model::fit(&settings, &train, training[0].graphs().symbols().clone(), &examples, 1)?;
    println!(
        "trained {} on {} samples in {:.1} s: |F_{alpha}| = {}, {} parameters, validation LogMSE {:.3}",
        settings.name(),
        examples.len(),
        t.elapsed().as_secs_f64(),
        model.vocabulary.len(),
        model.net.num_params(),
        model.report.best_loss
    );
    // The network alone, on the training inputs, by batch size.
    let width = model.input_width();
    let mut rows = vec![];
    let mut row = vec![];
    for (f, _) in feats.iter().take(512) {
        graphlearn::features::input_row(&model.vocabulary, f, false, &mut row)?;
        model.scaling.apply(&mut row);
        rows.extend_from_slice(&row);
    }
    let n_rows = rows.len() / width;
    let mut ws = Workspace::default();
    for batch in [1usize, 4, 8, 16, 64] {
        let mut out = vec![0f32; batch];
        let reps = (200_000 / batch).max(50);
        let t = Instant::now();
        for r in 0..reps {
            let start = (r * batch) % (n_rows - batch + 1);
            model.net.infer_batch(&rows[start * width..(start + batch) * width], batch, &mut ws, &mut out);
            std::hint::black_box(&out);
        }
        let ns = t.elapsed().as_nanos() as f64 / (reps * batch) as f64;
        println!("network alone, batch {batch:>3}: {ns:>8.0} ns per state");
    }
    // The same features through a one-unit network: the heuristic's cost besides the network.
    let tiny_settings = ModelSettings { hidden: vec![1], dropout: vec![], ..settings.clone() };
    let tiny_train = TrainSettings { max_epochs: 1, ..TrainSettings::default() };
    let tiny = Model::fit(&tiny_settings, &tiny_train, training[0].graphs().symbols().clone(), &examples, 1)?;
    // Inside A*.
    println!(
        "\n{:<16} {:>10} {:>10} {:>8} {:>11} {:>10} {:>10} {:>8}",
        "problem", "heuristic", "evals", "solved", "ns/eval", "scratch", "increm.", "unknown"
    );
    for (i, &n) in sizes.iter().enumerate() {
        let p = blocks(n, 2000 + i as u64)?;
        let limits = Limits::new(Some(CAP), Some(60.0), None);
        let mut h = LearnedHeuristic::new(&model, &p)?;
        let r = astar(p.task(), &mut h, limits);
        let s = h.stats();
        println!(
            "{:<16} {:>10} {:>10} {:>8} {:>11.0} {:>10} {:>10} {:>8}",
            p.name,
            "learned",
            r.evaluations,
            r.status.as_str(),
            r.search_time.as_nanos() as f64 / r.evaluations.min(CAP) as f64,
            s.from_scratch,
            s.incremental,
            s.states_with_unknown
        );
        let mut h = LearnedHeuristic::new(&tiny, &p)?;
        let r = astar(p.task(), &mut h, limits);
        println!(
            "{:<16} {:>10} {:>10} {:>8} {:>11.0} {:>10} {:>10}",
            p.name,
            "features",
            r.evaluations,
            r.status.as_str(),
            r.search_time.as_nanos() as f64 / r.evaluations.min(CAP) as f64,
            h.stats().from_scratch,
            h.stats().incremental,
        );
        for name in ["ff", "blind"] {
            let mut ff = by_name(name, p.task()).ok_or("no such heuristic")?;
            let r = astar(p.task(), ff.as_mut(), limits);
            println!(
                "{:<16} {:>10} {:>10} {:>8} {:>11.0}",
                p.name,
                name,
                r.evaluations,
                r.status.as_str(),
                r.search_time.as_nanos() as f64 / r.evaluations.min(CAP) as f64
            );
        }
    }
    Ok(())
}
