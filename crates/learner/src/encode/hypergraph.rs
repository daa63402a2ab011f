//! STRIPS-HGN's input (Shen et al. 2020): the grounded task as a hypergraph.
//! Nodes are facts, with features [true in the state, true in the goal];
//! each operator is a hyperedge from its preconditions (senders, at most
//! `max_preconditions`, padded) to its add effects (receivers, at most
//! `max_add_effects`), with features [cost, #preconditions, #add effects];
//! the graph's global input is [log(1 + #nodes), log(1 + #edges)].
//! A batch is the disjoint union of its samples' graphs.

use planner::Task;
use tch::{Device, Tensor};

use crate::shape::HgnBlocks;
use crate::LearnError;

pub const NODE_FEATURES: usize = 2;
pub const EDGE_FEATURES: usize = 3;
pub const GLOBAL_FEATURES: usize = 2;

/// An instance prepared for the HGN.
pub struct HypergraphInstance {
    num_nodes: usize,
    goal: Vec<u32>,
    /// [edges x max_pre] node indices, `u32::MAX` for padding.
    senders: Vec<u32>,
    /// [edges x max_add].
    receivers: Vec<u32>,
    edge_features: Vec<f32>,
    max_pre: usize,
    max_add: usize,
}

impl HypergraphInstance {
    pub fn new(task: &Task, max_pre: usize, max_add: usize, name: &str) -> Result<Self, LearnError> {
        let mut senders = Vec::with_capacity(task.operators.len() * max_pre);
        let mut receivers = Vec::with_capacity(task.operators.len() * max_add);
        let mut edge_features = Vec::with_capacity(task.operators.len() * EDGE_FEATURES);
        for op in &task.operators {
            if op.pre.len() > max_pre || op.add.len() > max_add {
                return Err(LearnError::Input(format!(
                    "{name}: operator {} has {} preconditions and {} add effects; this HGN takes at most {max_pre} and {max_add}",
                    op.name,
                    op.pre.len(),
                    op.add.len()
                )));
            }
            senders.extend(op.pre.iter().copied().chain(std::iter::repeat(u32::MAX)).take(max_pre));
            receivers.extend(op.add.iter().copied().chain(std::iter::repeat(u32::MAX)).take(max_add));
            edge_features.extend([op.cost as f32, op.pre.len() as f32, op.add.len() as f32]);
        }
        Ok(HypergraphInstance {
            num_nodes: task.facts.len(),
            goal: task.goal.clone(),
            senders,
            receivers,
            edge_features,
            max_pre,
            max_add,
        })
    }

    fn num_edges(&self) -> usize {
        self.edge_features.len() / EDGE_FEATURES
    }
}

/// The largest numbers of preconditions and add effects of a task's operators.
pub fn operator_sizes(task: &Task) -> (usize, usize) {
    task.operators.iter().fold((0, 0), |(p, a), o| (p.max(o.pre.len()), a.max(o.add.len())))
}

/// A disjoint union of graphs. Padding slots point at node index
/// `num_nodes` (a zero row the model appends).
pub struct HypergraphBatch {
    pub nodes: Tensor,
    pub edges: Tensor,
    pub globals: Tensor,
    /// [E, max_pre] and [E, max_add], int64.
    pub senders: Tensor,
    pub receivers: Tensor,
    /// Graph of each node / edge, int64.
    pub node_graph: Tensor,
    pub edge_graph: Tensor,
    pub num_nodes: i64,
    pub num_graphs: i64,
    /// Nodes and edges per graph (for means), [B, 1].
    pub node_counts: Tensor,
    pub edge_counts: Tensor,
}

impl HypergraphBatch {
    pub fn new(items: &[(&HypergraphInstance, &[u32])], blocks: HgnBlocks, device: Device) -> HypergraphBatch {
        let total_nodes: usize = items.iter().map(|(g, _)| g.num_nodes).sum();
        let (max_pre, max_add) = items.first().map(|(g, _)| (g.max_pre, g.max_add)).unwrap_or((1, 1));
        let mut nodes = vec![0f32; total_nodes * NODE_FEATURES];
        let (mut senders, mut receivers, mut edges) = (vec![], vec![], vec![]);
        let (mut node_graph, mut edge_graph, mut globals) = (vec![], vec![], vec![]);
        let (mut node_counts, mut edge_counts) = (vec![], vec![]);
        let pad = total_nodes as i64;
        let mut offset = 0usize;
        for (k, (g, facts)) in items.iter().enumerate() {
            for &f in *facts {
                nodes[(offset + f as usize) * NODE_FEATURES] = 1.0;
            }
            for &f in &g.goal {
                nodes[(offset + f as usize) * NODE_FEATURES + 1] = 1.0;
            }
            let shift = |v: &u32| if *v == u32::MAX { pad } else { (offset + *v as usize) as i64 };
            senders.extend(g.senders.iter().map(shift));
            receivers.extend(g.receivers.iter().map(shift));
            edges.extend_from_slice(&g.edge_features);
            node_graph.extend(std::iter::repeat_n(k as i64, g.num_nodes));
            edge_graph.extend(std::iter::repeat_n(k as i64, g.num_edges()));
            let counts = [g.num_nodes as f32, g.num_edges() as f32];
            globals.extend(match blocks {
                HgnBlocks::StripsHgn => counts,
                HgnBlocks::Relu => counts.map(f32::ln_1p),
            });
            node_counts.push(g.num_nodes.max(1) as f32);
            edge_counts.push(g.num_edges().max(1) as f32);
            offset += g.num_nodes;
        }
        let b = items.len() as i64;
        let e = edge_graph.len() as i64;
        let t = |v: &[f32], cols: usize| Tensor::from_slice(v).reshape([-1, cols as i64]).to(device);
        let i = |v: &[i64], cols: i64| Tensor::from_slice(v).reshape([-1, cols]).to(device);
        HypergraphBatch {
            nodes: t(&nodes, NODE_FEATURES),
            edges: t(&edges, EDGE_FEATURES).reshape([e, EDGE_FEATURES as i64]),
            globals: t(&globals, GLOBAL_FEATURES),
            senders: i(&senders, max_pre as i64).reshape([e, max_pre as i64]),
            receivers: i(&receivers, max_add as i64).reshape([e, max_add as i64]),
            node_graph: Tensor::from_slice(&node_graph).to(device),
            edge_graph: Tensor::from_slice(&edge_graph).to(device),
            num_nodes: total_nodes as i64,
            num_graphs: b,
            node_counts: Tensor::from_slice(&node_counts).reshape([b, 1]).to(device),
            edge_counts: Tensor::from_slice(&edge_counts).reshape([b, 1]).to(device),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The authors' HGN reads the raw numbers of nodes and hyperedges; the
    /// farm's first HGN read them log-scaled, and still does.
    #[test]
    fn global_inputs_follow_the_blocks() {
        let g = HypergraphInstance {
            num_nodes: 3,
            goal: vec![2],
            senders: vec![0, u32::MAX, 1, 2],
            receivers: vec![1, 2],
            edge_features: vec![1.0, 1.0, 1.0, 1.0, 2.0, 1.0],
            max_pre: 2,
            max_add: 1,
        };
        let globals = |blocks| {
            let b = HypergraphBatch::new(&[(&g, &[0][..])], blocks, Device::Cpu);
            Vec::<f32>::try_from(b.globals.flatten(0, -1)).unwrap()
        };
        assert_eq!(globals(HgnBlocks::StripsHgn), vec![3.0, 2.0]);
        assert_eq!(globals(HgnBlocks::Relu), vec![4f32.ln(), 3f32.ln()]);
        let b = HypergraphBatch::new(&[(&g, &[0][..])], HgnBlocks::StripsHgn, Device::Cpu);
        // The padding slot points at the zero row after the last node.
        assert_eq!(Vec::<i64>::try_from(b.senders.flatten(0, -1)).unwrap(), vec![0, 3, 1, 2]);
    }
}
