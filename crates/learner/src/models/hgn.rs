//! STRIPS-HGN (Shen et al. 2020) as the authors' code runs it: the
//! `hypergraph_nets` of guicho271828/STRIPS-HGN at 8e53645, built by IBM/pddlsl
//! `model_wrapper.py:204-216` (`EncodeProcessDecode`). File:line below are
//! that commit's `src/hypergraph_nets/`.
//!
//! - Every block is a two-layer MLP, Linear-LeakyReLU-Linear-LeakyReLU with
//!   torch's default negative slope 0.01, of width `hidden`
//!   (`models.py:27-37`).
//! - Encoder: one such MLP each for nodes, hyperedges and the global vector
//!   (`models.py:120-125`).
//! - Core, applied `steps` times to [encoded, latent] (`models.py:206-208`;
//!   latent0 first): hyperedges read themselves and their receivers' then
//!   their senders' latents in fixed slots (zero for padding), but not the
//!   global latent (`modules.py:33`, `blocks.py:62-80`, `broadcast.py:17-42`);
//!   nodes read the sum of the hyperedges they receive, then themselves, and
//!   neither the hyperedges they send nor the global latent (`modules.py:34`,
//!   `blocks.py:95-145`); the global vector reads the sums of the new
//!   hyperedges and of the new nodes, then itself (`modules.py:35-37`,
//!   `blocks.py:159-197`, `reducers.py:37-51`).
//! - Decoder: the MLP on the global latent of the last step, then a linear
//!   output layer without activation (`models.py:142-191`, `pred_mode=True`
//!   in `model_wrapper.py:262`).

use tch::{nn, Tensor};

use super::stacked::StackedLinear;
use super::{HgnBlocks, ModelInfo, Reads, Shape};

use crate::encode::{hypergraph, HypergraphBatch};

/// STRIPS-HGN with hidden size 32 and 4 recursion steps (`train_all.sh:88`),
/// its hyperedge slots sized from the training tasks (at least
/// `model_wrapper.py:222-223`'s 3 add effects and 7 preconditions, which the
/// code always used). A hypergraph batch is a disjoint union with no run
/// dimension, so it trains one run at a time. Learning rate 1e-3
/// (`train_all.sh:79`) and `train.py:74`'s default weight decay 0.0.
pub(super) static INFO: ModelInfo = ModelInfo {
    name: "hgn",
    reads: Reads::Hypergraph,
    stacks: false,
    learning_rate: 1e-3,
    weight_decay: 0.0,
    shape: |_, tasks| {
        let (p, a) =
            tasks.iter().map(|t| hypergraph::operator_sizes(t)).fold((7, 3), |x, y| (x.0.max(y.0), x.1.max(y.1)));
        Ok(Shape::Hgn { hidden: 32, steps: 4, max_preconditions: p, max_add_effects: a, blocks: HgnBlocks::StripsHgn })
    },
};

/// `make_mlp_model` (`models.py:27-37`).
struct Mlp2 {
    first: StackedLinear,
    second: StackedLinear,
}

impl Mlp2 {
    fn new(path: &nn::Path, input: i64, hidden: i64, seed: u64) -> Mlp2 {
        Mlp2 {
            first: StackedLinear::new(path, "0", input, hidden, &[seed]),
            second: StackedLinear::new(path, "1", hidden, hidden, &[seed]),
        }
    }

    /// tch's `leaky_relu` is torch's with its default slope 0.01, as
    /// `nn.LeakyReLU()` in the original.
    fn forward(&self, x: &Tensor) -> Tensor {
        self.second.forward(&self.first.forward(x).leaky_relu()).leaky_relu()
    }
}

pub struct Hgn {
    enc_node: Mlp2,
    enc_edge: Mlp2,
    enc_global: Mlp2,
    core_edge: Mlp2,
    core_node: Mlp2,
    core_global: Mlp2,
    dec_global: Mlp2,
    output: StackedLinear,
    hidden: i64,
    steps: usize,
}

impl Hgn {
    /// One run (`seed`): a hypergraph batch has no run dimension to stack on.
    /// `max_pre` and `max_add` are the sender and receiver slots
    /// (`sender_k`, `receiver_k`).
    pub fn new(path: &nn::Path, hidden: i64, steps: usize, max_pre: i64, max_add: i64, outputs: i64, seed: u64) -> Hgn {
        let h2 = 2 * hidden;
        let mlp = |name: &str, input: i64| Mlp2::new(&(path / name), input, hidden, seed);
        Hgn {
            enc_node: mlp("encoder_node", hypergraph::NODE_FEATURES as i64),
            enc_edge: mlp("encoder_edge", hypergraph::EDGE_FEATURES as i64),
            enc_global: mlp("encoder_global", hypergraph::GLOBAL_FEATURES as i64),
            // models.py:130: (latent + latent0) * (1 + receiver_k + sender_k).
            core_edge: mlp("core_edge", h2 * (1 + max_add + max_pre)),
            // models.py:132: received edges + (latent + latent0).
            core_node: mlp("core_node", hidden + h2),
            // models.py:134: edges + nodes + (latent + latent0).
            core_global: mlp("core_global", 2 * hidden + h2),
            dec_global: mlp("decoder_global", hidden),
            output: StackedLinear::new(path, "output", hidden, outputs, &[seed]),
            hidden,
            steps,
        }
    }

    pub fn dense(&self) -> Vec<&StackedLinear> {
        let mlps = [
            &self.enc_node,
            &self.enc_edge,
            &self.enc_global,
            &self.core_edge,
            &self.core_node,
            &self.core_global,
            &self.dec_global,
        ];
        let mut v: Vec<&StackedLinear> = mlps.iter().flat_map(|m| [&m.first, &m.second]).collect();
        v.push(&self.output);
        v
    }

    pub fn forward(&self, g: &HypergraphBatch) -> Tensor {
        let v0 = self.enc_node.forward(&g.nodes);
        let e0 = self.enc_edge.forward(&g.edges);
        let u0 = self.enc_global.forward(&g.globals);
        let (mut v, mut e, mut u) = (v0.shallow_clone(), e0.shallow_clone(), u0.shallow_clone());
        for _ in 0..self.steps {
            let vi = Tensor::cat(&[&v0, &v], 1);
            let ei = Tensor::cat(&[&e0, &e], 1);
            let ui = Tensor::cat(&[&u0, &u], 1);
            (v, e, u) = self.core(g, &vi, &ei, &ui);
        }
        self.output.forward(&self.dec_global.forward(&u))
    }

    /// One core step: hyperedges, then nodes, then the global vector.
    fn core(&self, g: &HypergraphBatch, v: &Tensor, e: &Tensor, u: &Tensor) -> (Tensor, Tensor, Tensor) {
        let n_edges = e.size()[0];
        // Padding slots point at an appended zero row (`nodes_with_zero_last`).
        let padded = Tensor::cat(&[v, &v.zeros_like().narrow(0, 0, 1)], 0);
        let slots = |idx: &Tensor| padded.index_select(0, &idx.flatten(0, -1)).reshape([n_edges, -1]);
        let e_new = self.core_edge.forward(&Tensor::cat(&[e, &slots(&g.receivers), &slots(&g.senders)], 1));

        // Sum of the hyperedges each node receives (the pad row is dropped).
        let k = g.receivers.size()[1];
        let src = e_new.unsqueeze(1).expand([n_edges, k, self.hidden], false).reshape([-1, self.hidden]);
        let zeros = Tensor::zeros([g.num_nodes + 1, self.hidden], (e_new.kind(), e_new.device()));
        let received = zeros.index_add(0, &g.receivers.flatten(0, -1), &src).narrow(0, 0, g.num_nodes);
        let v_new = self.core_node.forward(&Tensor::cat(&[&received, v], 1));

        let sum = |x: &Tensor, graph: &Tensor| {
            Tensor::zeros([g.num_graphs, self.hidden], (x.kind(), x.device())).index_add(0, graph, x)
        };
        let u_new =
            self.core_global.forward(&Tensor::cat(&[&sum(&e_new, &g.edge_graph), &sum(&v_new, &g.node_graph), u], 1));
        (v_new, e_new, u_new)
    }
}
