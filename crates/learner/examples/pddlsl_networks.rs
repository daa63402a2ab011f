//! Our side of the oracle against the authors' networks
//! (`tools/reference/pddlsl_networks.py`, which runs this): for each model
//! (linear, NLM, STRIPS-HGN) a random batch in the authors' layout, our
//! initial weights in torch.nn.Linear's layout, our raw outputs, mu and sigma,
//! and the outputs and weights after a few AdamW steps, as one JSON file.
//!
//! cargo run -p learner --example pddlsl_networks -- OUT.json

#[path = "../tests/pddlsl/mod.rs"]
mod pddlsl;

use serde_json::{json, Value};

fn weights(net: &learner::models::Network) -> Value {
    let mut m = serde_json::Map::new();
    for (name, t) in net.export(0) {
        m.insert(name, json!({ "shape": t.size(), "data": pddlsl::values(&t) }));
    }
    Value::Object(m)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = std::env::args().nth(1).ok_or("usage: pddlsl_networks OUT.json")?;
    tch::set_num_threads(1);
    let mut cases = serde_json::Map::new();
    for (k, case) in pddlsl::cases().iter().enumerate() {
        let batch_json = pddlsl::make_batch(case, 100 + k as u64);
        let batch = pddlsl::batch(case, &batch_json);
        let (vs, net) = pddlsl::network(case);
        let initial = weights(&net);
        let checksums = pddlsl::checksums(&net);
        let (raw, mu, sigma) = pddlsl::forward(case, &net, &batch);
        let after = pddlsl::train_steps(case, &vs, &net, &batch);
        let kind = case.kind();
        cases.insert(
            case.name.to_string(),
            json!({
                "config": case.config,
                "outputs": case.outputs(),
                "seed": pddlsl::SEED,
                "learning_rate": kind.paper_learning_rate(),
                "weight_decay": kind.paper_weight_decay(),
                "clip": pddlsl::CLIP,
                "steps": pddlsl::STEPS,
                "parameters": net.parameters_per_run(),
                "checksums": checksums,
                "batch": batch_json,
                "weights": initial,
                "raw": pddlsl::values(&raw),
                "mu": pddlsl::values(&mu),
                "sigma": pddlsl::values(&sigma),
                "raw_after_steps": pddlsl::values(&after),
                "weights_after_steps": weights(&net),
            }),
        );
    }
    std::fs::write(&out, serde_json::to_string(&json!({ "models": cases }))?)?;
    eprintln!("wrote {out}");
    Ok(())
}
