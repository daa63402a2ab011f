//! Prints the WL features of states of one problem as JSON, for the
//! reference comparison (`tools/reference/wl_reference.py`): the states
//! (their atoms, static ones included), one dictionary built on all of them in order, every
//! state's (colour, count) pairs and each colour's iteration.
//!
//! Usage: `wl_features DOMAIN PROBLEM ITERATIONS STATES SEED`; the states are
//! a seeded random walk from the initial state on the unpruned grounding.

use wl::graph::Ilg;
use wl::refine::{features_train, initial_keys, mix, Dictionary, Scratch};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 {
        eprintln!("usage: wl_features DOMAIN PROBLEM ITERATIONS STATES SEED");
        std::process::exit(2);
    }
    let parse = |i: usize, what: &str| -> u64 {
        args[i].parse().unwrap_or_else(|_| {
            eprintln!("{what} must be a non-negative integer, not {:?}", args[i]);
            std::process::exit(2)
        })
    };
    let (iterations, n, seed) = (parse(3, "ITERATIONS") as usize, parse(4, "STATES") as usize, parse(5, "SEED"));
    let read = |p: &str| {
        std::fs::read_to_string(p).unwrap_or_else(|e| {
            eprintln!("cannot read {p}: {e}");
            std::process::exit(2)
        })
    };
    let (domain, problem) = (read(&args[1]), read(&args[2]));
    let task = wl::train::load_for_model(&domain, &problem, &args[2]).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(2)
    });
    let gen = planner::successors::SuccessorGenerator::new(&task);
    let mut s = planner::state::initial_state(&task);
    let mut next = s.clone();
    let mut ops = vec![];
    let mut rng = seed;
    let mut states = vec![s.clone()];
    while states.len() < n {
        gen.applicable(&task, &s, &mut ops);
        if ops.is_empty() {
            break;
        }
        rng = rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        planner::successors::apply(&task, &s, ops[(mix(rng) % ops.len() as u64) as usize], &mut next);
        std::mem::swap(&mut s, &mut next);
        states.push(s.clone());
    }
    let ilg = Ilg::new(&task);
    let keys = initial_keys(&ilg);
    let mut dict = Dictionary::new(iterations);
    let mut scratch = Scratch::default();
    let features: Vec<Vec<(u32, f64)>> =
        states.iter().map(|s| features_train(&ilg, &keys, s, &mut dict, &mut scratch)).collect();
    let mut layer = vec![0usize; dict.len()];
    for (t, entries) in dict.entries().iter().enumerate() {
        for &(_, c) in entries {
            layer[c as usize] = t;
        }
    }
    let atoms: Vec<Vec<(String, Vec<String>)>> = states
        .iter()
        .map(|s| {
            // Static atoms too: WLPlan (with `keep_statics`, its default)
            // reads them from the state like any other atom.
            let name = |a: &planner::task::GroundAtom| {
                let args = a.args.iter().map(|&o| task.objects[o as usize].clone()).collect();
                (task.predicates[a.predicate as usize].clone(), args)
            };
            let mut v: Vec<(String, Vec<String>)> = task.static_atoms.iter().map(name).collect();
            planner::state::for_each_fact(s, |f| {
                v.push(name(&task.facts[f as usize]));
            });
            v
        })
        .collect();
    println!("{}", serde_json::json!({ "states": atoms, "features": features, "layer": layer }));
}
