//! The farm's first STRIPS-HGN ([`super::HgnBlocks::Relu`]), kept so that
//! models stored before the authors' blocks ([`super::Hgn`]) still load and
//! predict as they were trained: each block one Linear + ReLU, hyperedges
//! also read the global latent (senders before receivers), nodes sum both
//! their received and their sent hyperedges and read the global latent, the
//! global block averages, and the decoder is one linear layer. Its global
//! input is [log(1 + #nodes), log(1 + #edges)].

use tch::{nn, Tensor};

use super::stacked::StackedLinear;

use crate::encode::{hypergraph, HypergraphBatch};

pub struct ReluHgn {
    node_enc: StackedLinear,
    edge_enc: StackedLinear,
    global_enc: StackedLinear,
    edge_mlp: StackedLinear,
    node_mlp: StackedLinear,
    global_mlp: StackedLinear,
    decoder: StackedLinear,
    hidden: i64,
    steps: usize,
}

impl ReluHgn {
    /// One run (`seed`): a hypergraph batch has no run dimension to stack on.
    pub fn new(
        path: &nn::Path,
        hidden: i64,
        steps: usize,
        max_pre: i64,
        max_add: i64,
        outputs: i64,
        seed: u64,
    ) -> ReluHgn {
        let dense = |name: &str, input: i64, output: i64| StackedLinear::new(path, name, input, output, &[seed]);
        let h2 = 2 * hidden;
        ReluHgn {
            node_enc: dense("node_enc", hypergraph::NODE_FEATURES as i64, hidden),
            edge_enc: dense("edge_enc", hypergraph::EDGE_FEATURES as i64, hidden),
            global_enc: dense("global_enc", hypergraph::GLOBAL_FEATURES as i64, hidden),
            edge_mlp: dense("edge", h2 + (max_pre + max_add) * h2 + h2, hidden),
            node_mlp: dense("node", h2 + 2 * hidden + h2, hidden),
            global_mlp: dense("global", 2 * hidden + h2, hidden),
            decoder: dense("decoder", hidden, outputs),
            hidden,
            steps,
        }
    }

    pub fn dense(&self) -> Vec<&StackedLinear> {
        vec![
            &self.node_enc,
            &self.edge_enc,
            &self.global_enc,
            &self.edge_mlp,
            &self.node_mlp,
            &self.global_mlp,
            &self.decoder,
        ]
    }

    pub fn forward(&self, g: &HypergraphBatch) -> Tensor {
        let v0 = self.node_enc.forward(&g.nodes).relu();
        let e0 = self.edge_enc.forward(&g.edges).relu();
        let u0 = self.global_enc.forward(&g.globals).relu();
        let (mut v, mut e, mut u) = (v0.shallow_clone(), e0.shallow_clone(), u0.shallow_clone());
        for _ in 0..self.steps {
            let vi = Tensor::cat(&[&v0, &v], 1);
            let ei = Tensor::cat(&[&e0, &e], 1);
            let ui = Tensor::cat(&[&u0, &u], 1);
            (v, e, u) = self.block(g, &vi, &ei, &ui);
        }
        self.decoder.forward(&u)
    }

    /// One hypergraph block: edges, then nodes, then the global vector.
    fn block(&self, g: &HypergraphBatch, v: &Tensor, e: &Tensor, u: &Tensor) -> (Tensor, Tensor, Tensor) {
        let n_edges = e.size()[0];
        let padded = Tensor::cat(&[v, &v.zeros_like().narrow(0, 0, 1)], 0);
        let slots = |idx: &Tensor| padded.index_select(0, &idx.flatten(0, -1)).reshape([n_edges, -1]);
        let senders = slots(&g.senders);
        let receivers = slots(&g.receivers);
        let u_e = u.index_select(0, &g.edge_graph);
        let e_new = self.edge_mlp.forward(&Tensor::cat(&[e, &senders, &receivers, &u_e], 1)).relu();

        // Sum of incident edges per node, as receiver and as sender (the pad row is dropped).
        let aggregate = |idx: &Tensor| {
            let k = idx.size()[1];
            let src = e_new.unsqueeze(1).expand([n_edges, k, self.hidden], false).reshape([-1, self.hidden]);
            let zeros = Tensor::zeros([g.num_nodes + 1, self.hidden], (e_new.kind(), e_new.device()));
            zeros.index_add(0, &idx.flatten(0, -1), &src).narrow(0, 0, g.num_nodes)
        };
        let u_v = u.index_select(0, &g.node_graph);
        let v_new =
            self.node_mlp.forward(&Tensor::cat(&[v, &aggregate(&g.receivers), &aggregate(&g.senders), &u_v], 1)).relu();

        let mean = |x: &Tensor, graph: &Tensor, counts: &Tensor| {
            let zeros = Tensor::zeros([g.num_graphs, self.hidden], (x.kind(), x.device()));
            zeros.index_add(0, graph, x) / counts
        };
        let e_mean = mean(&e_new, &g.edge_graph, &g.edge_counts);
        let v_mean = mean(&v_new, &g.node_graph, &g.node_counts);
        let u_new = self.global_mlp.forward(&Tensor::cat(&[&e_mean, &v_mean, u], 1)).relu();
        (v_new, e_new, u_new)
    }
}
