//! Per-state search data: parent pointers for plan extraction, g, h.

use crate::state::StateId;
use crate::task::OpId;

pub(crate) const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub(crate) struct Node {
    pub g: u32,
    pub h: f64,
    pub parent: StateId,
    pub op: OpId,
    pub closed: bool,
}

#[derive(Default)]
pub(crate) struct NodeTable {
    pub nodes: Vec<Node>,
}

impl NodeTable {
    /// Follows parent pointers back from `goal`.
    pub fn extract_plan(&self, goal: StateId) -> Vec<OpId> {
        let mut plan = vec![];
        let mut s = goal;
        while self.nodes[s as usize].parent != NONE {
            plan.push(self.nodes[s as usize].op);
            s = self.nodes[s as usize].parent;
        }
        plan.reverse();
        plan
    }

    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * std::mem::size_of::<Node>()
    }
}
