//! What the oracle against the authors' networks shares between the example
//! that exports our side (`examples/pddlsl_networks.rs`) and the test that
//! replays the recorded result (`tests/pddlsl_networks.rs`): the cases, the
//! batches in the authors' layout (JSON), and the few optimiser steps both
//! sides take. `tools/reference/pddlsl_networks.py` is the other side.
#![allow(dead_code)]

use learner::config::{Family, ModelConfig, SigmaMode};
use learner::encode::{Batch, HypergraphBatch, RelationalBatch, Vocabulary};
use learner::models::{HgnBlocks, Network, Shape, NLM_HIDDEN};
use learner::optim::AdamW;
use learner::predictor::{head, outputs, Side};
use learner::ModelKind;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};
use tch::{nn, Device, Kind, Tensor};

/// Gradient-norm clip of every run (`train.py:75`, Lightning's
/// `gradient_clip_val`, `train.py:200`).
pub const CLIP: f64 = 0.1;
/// Optimiser steps each side takes on the batch.
pub const STEPS: usize = 3;
/// Initialisation seed of our networks.
pub const SEED: u64 = 7;

pub struct Case {
    pub name: &'static str,
    pub config: ModelConfig,
}

impl Case {
    pub fn outputs(&self) -> i64 {
        outputs(&self.config)
    }
    pub fn kind(&self) -> ModelKind {
        self.config.model
    }
}

fn config(shape: Shape) -> ModelConfig {
    ModelConfig {
        model: shape.kind(),
        family: Family::Gaussian,
        sigma: SigmaMode::Learn,
        lower: None,
        residual: None,
        shape,
    }
}

/// The NLM reads predicates of every arity 0..3 (and a type), so that every
/// expansion, reduction and permutation is exercised.
pub fn cases() -> Vec<Case> {
    let vocabulary = Vocabulary {
        predicates: vec![("p".into(), 0), ("q".into(), 1), ("r".into(), 1), ("s".into(), 2), ("t".into(), 3)],
        types: vec!["thing".into()],
    };
    vec![
        Case { name: "linear", config: config(Shape::Linear { features: learner::encode::NUM_FEATURES }) },
        Case { name: "nlm", config: config(Shape::Nlm { vocabulary, depth: 5, hidden: NLM_HIDDEN }) },
        Case {
            name: "hgn",
            config: config(Shape::Hgn {
                hidden: 32,
                steps: 4,
                max_preconditions: 7,
                max_add_effects: 3,
                blocks: HgnBlocks::StripsHgn,
            }),
        },
    ]
}

fn dense(shape: &[i64], data: Vec<f64>) -> Value {
    json!({ "shape": shape, "data": data })
}

fn tensor(v: &Value) -> Tensor {
    let shape: Vec<i64> = serde_json::from_value(v["shape"].clone()).expect("a shape");
    let data: Vec<f32> = serde_json::from_value(v["data"].clone()).expect("data");
    Tensor::from_slice(&data).reshape(shape.as_slice())
}

fn ints(v: &Value) -> Vec<i64> {
    serde_json::from_value(v.clone()).expect("integers")
}

/// A small random batch for `case`, in the authors' layout: NLM inputs per
/// arity padded with zeros and the objects of each sample; hypergraphs
/// merged as `merge_hypergraphs_tuple` does (absolute node indices, -1 for
/// padding slots).
pub fn make_batch(case: &Case, seed: u64) -> Value {
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    match &case.config.shape {
        Shape::Linear { features } => {
            let b = 5;
            let data = (0..b * features).map(|_| rng.gen_range(0..20) as f64 / 2.0).collect();
            json!({ "features": dense(&[b as i64, *features as i64], data) })
        }
        Shape::Nlm { vocabulary, .. } => {
            let objects = [4usize, 2, 3];
            let o = *objects.iter().max().expect("samples");
            let inputs: Vec<Value> = vocabulary
                .features()
                .iter()
                .enumerate()
                .map(|(r, &f)| {
                    if f == 0 {
                        return Value::Null;
                    }
                    let mut data = vec![];
                    for &n in &objects {
                        for cell in 0..o.pow(r as u32) {
                            // Row-major object indices of this cell.
                            let valid = (0..r).all(|k| (cell / o.pow(k as u32)) % o < n);
                            data.extend((0..f).map(|_| f64::from(u8::from(valid && rng.gen_bool(0.4)))));
                        }
                    }
                    let mut shape = vec![objects.len() as i64];
                    shape.extend(std::iter::repeat_n(o as i64, r));
                    shape.push(f as i64);
                    dense(&shape, data)
                })
                .collect();
            json!({ "objects": objects, "inputs": inputs })
        }
        Shape::Hgn { max_preconditions, max_add_effects, .. } => {
            let (n_node, n_edge) = ([9usize, 6], [7usize, 5]);
            let (mut nodes, mut edges, mut globals, mut senders, mut receivers) =
                (vec![], vec![], vec![], vec![], vec![]);
            let mut offset = 0i64;
            for (&n, &m) in n_node.iter().zip(&n_edge) {
                nodes.extend((0..2 * n).map(|_| f64::from(u8::from(rng.gen_bool(0.4)))));
                globals.extend([n as f64, m as f64]);
                for _ in 0..m {
                    let pre = rng.gen_range(1..=*max_preconditions).min(n);
                    let add = rng.gen_range(1..=*max_add_effects).min(n);
                    for (k, slots, out) in
                        [(pre, *max_preconditions, &mut senders), (add, *max_add_effects, &mut receivers)]
                    {
                        let mut s: Vec<i64> =
                            rand::seq::index::sample(&mut rng, n, k).into_iter().map(|i| offset + i as i64).collect();
                        s.sort_unstable();
                        s.resize(slots, -1);
                        out.extend(s);
                    }
                    edges.extend([1.0, pre as f64, add as f64]);
                }
                offset += n as i64;
            }
            let e = n_edge.iter().sum::<usize>() as i64;
            json!({
                "nodes": dense(&[n_node.iter().sum::<usize>() as i64, 2], nodes),
                "edges": dense(&[e, 3], edges),
                "globals": dense(&[n_node.len() as i64, 2], globals),
                "senders": { "shape": [e, *max_preconditions as i64], "data": senders },
                "receivers": { "shape": [e, *max_add_effects as i64], "data": receivers },
                "n_node": n_node,
                "n_edge": n_edge,
            })
        }
    }
}

/// Our batch from the authors' layout.
pub fn batch(case: &Case, v: &Value) -> Batch {
    match &case.config.shape {
        Shape::Linear { .. } => Batch::Features(tensor(&v["features"])),
        Shape::Nlm { .. } => {
            let objects = ints(&v["objects"]);
            let o = *objects.iter().max().expect("samples");
            let inputs = v["inputs"].as_array().expect("inputs").iter().map(|t| (!t.is_null()).then(|| tensor(t)));
            let valid: Vec<bool> = objects.iter().flat_map(|&n| (0..o).map(move |j| j < n)).collect();
            Batch::Relational(RelationalBatch {
                inputs: inputs.collect(),
                valid: Tensor::from_slice(&valid).reshape([objects.len() as i64, o]),
                objects: o,
            })
        }
        Shape::Hgn { .. } => {
            let (n_node, n_edge) = (ints(&v["n_node"]), ints(&v["n_edge"]));
            let num_nodes: i64 = n_node.iter().sum();
            // Ours pads with the index of an appended zero row, theirs with -1 (the last row).
            let slots = |s: &Value| {
                let data: Vec<i64> = ints(&s["data"]).into_iter().map(|i| if i < 0 { num_nodes } else { i }).collect();
                Tensor::from_slice(&data).reshape(ints(&s["shape"]).as_slice())
            };
            let graph_of = |counts: &[i64]| {
                let g: Vec<i64> =
                    counts.iter().enumerate().flat_map(|(k, &c)| std::iter::repeat_n(k as i64, c as usize)).collect();
                Tensor::from_slice(&g)
            };
            let per_graph = |counts: &[i64]| {
                Tensor::from_slice(&counts.iter().map(|&c| c.max(1) as f32).collect::<Vec<_>>()).reshape([-1, 1])
            };
            Batch::Hypergraph(HypergraphBatch {
                nodes: tensor(&v["nodes"]),
                edges: tensor(&v["edges"]),
                globals: tensor(&v["globals"]),
                senders: slots(&v["senders"]),
                receivers: slots(&v["receivers"]),
                node_graph: graph_of(&n_node),
                edge_graph: graph_of(&n_edge),
                num_nodes,
                num_graphs: n_node.len() as i64,
                node_counts: per_graph(&n_node),
                edge_counts: per_graph(&n_edge),
            })
        }
    }
}

/// Our network for `case`, initialised from [`SEED`].
pub fn network(case: &Case) -> (nn::VarStore, Network) {
    let vs = nn::VarStore::new(Device::Cpu);
    let net = Network::new(&vs.root(), &case.config.shape, case.outputs(), &[SEED]).expect("a network");
    (vs, net)
}

/// Raw outputs [B, outputs], and mu and sigma as the predictor reads them.
pub fn forward(case: &Case, net: &Network, batch: &Batch) -> (Tensor, Tensor, Tensor) {
    let out = net.forward(batch).expect("a forward pass");
    let b = out.size()[0] as usize;
    let side = Side::new(&vec![f64::NAN; b], &vec![0.0; b], Device::Cpu);
    let d = head(&case.config, &out, &side);
    (out.detach(), d.mu.detach(), d.sigma.detach())
}

/// [`STEPS`] AdamW steps (the model's learning rate and weight decay, clip
/// [`CLIP`]) on the loss mean(out^2); the raw outputs afterwards.
pub fn train_steps(case: &Case, vs: &nn::VarStore, net: &Network, batch: &Batch) -> Tensor {
    let kind = case.kind();
    let mut opt =
        AdamW::new(vs.variables().into_iter().collect(), 1, kind.paper_learning_rate(), kind.paper_weight_decay());
    for _ in 0..STEPS {
        opt.zero_grad();
        net.forward(batch).expect("a forward pass").square().mean(Kind::Float).backward();
        opt.step(CLIP);
    }
    net.forward(batch).expect("a forward pass").detach()
}

pub fn values(t: &Tensor) -> Vec<f64> {
    Vec::<f64>::try_from(t.to_kind(Kind::Double).flatten(0, -1)).expect("values")
}

/// Sum and sum of squares of each exported variable (what the fixture
/// records of our initial weights, to tell an initialisation change from a
/// network change).
pub fn checksums(net: &Network) -> Value {
    let mut m = serde_json::Map::new();
    for (name, t) in net.export(0) {
        let t = t.to_kind(Kind::Double);
        m.insert(name, json!([t.sum(Kind::Double).double_value(&[]), t.square().sum(Kind::Double).double_value(&[])]));
    }
    Value::Object(m)
}
