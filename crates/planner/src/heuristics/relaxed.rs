//! The delete relaxation of a task, laid out flat for the relaxed heuristics.
//!
//! Propositions are the task's facts, then one "negated" proposition for each
//! fact that occurs in a negative precondition or goal (true when the fact is
//! false, achieved by operators that delete it, as Fast Downward's translator
//! does), then one proposition that is always true and serves as the
//! precondition of operators that have none. Relaxed operator `i` is task
//! operator `i`. Adjacency lists are CSR arrays.

use crate::state::{for_each_fact, has};
use crate::task::{FactId, Task};

pub struct RelaxedTask {
    pub num_props: usize,
    pub num_facts: usize,
    /// `negated_of[k]` is the fact whose negation is proposition `num_facts + k`.
    pub negated_of: Vec<FactId>,
    pub always_true: u32,
    pub op_cost: Vec<u32>,
    pub pre_start: Vec<u32>,
    pub pre: Vec<u32>,
    pub eff_start: Vec<u32>,
    pub eff: Vec<u32>,
    /// CSR: the operators each proposition is a precondition of.
    pub pre_of_start: Vec<u32>,
    pub pre_of: Vec<u32>,
    /// CSR: the operators each proposition is an effect of.
    pub achievers_start: Vec<u32>,
    pub achievers: Vec<u32>,
    pub goal: Vec<u32>,
    /// Number of delete effects of each operator (ignored by the relaxation).
    pub op_num_deletes: Vec<u32>,
}

fn csr(lists: &[Vec<u32>]) -> (Vec<u32>, Vec<u32>) {
    let mut start = Vec::with_capacity(lists.len() + 1);
    let mut flat = Vec::new();
    start.push(0);
    for l in lists {
        flat.extend_from_slice(l);
        start.push(flat.len() as u32);
    }
    (start, flat)
}

impl RelaxedTask {
    pub fn new(task: &Task) -> Self {
        let num_facts = task.num_facts();
        let mut negated_index = vec![u32::MAX; num_facts];
        let mut negated_of = vec![];
        let negated_facts = task.operators.iter().flat_map(|o| o.neg_pre.iter()).chain(&task.goal_neg);
        for &f in negated_facts {
            if negated_index[f as usize] == u32::MAX {
                negated_index[f as usize] = (num_facts + negated_of.len()) as u32;
                negated_of.push(f);
            }
        }
        let always_true = (num_facts + negated_of.len()) as u32;
        let num_props = always_true as usize + 1;

        let mut pres = Vec::with_capacity(task.operators.len());
        let mut effs = Vec::with_capacity(task.operators.len());
        for op in &task.operators {
            let mut p: Vec<u32> = op.pre.clone();
            p.extend(op.neg_pre.iter().map(|&f| negated_index[f as usize]));
            if p.is_empty() {
                p.push(always_true);
            }
            p.sort_unstable();
            p.dedup();
            let mut e: Vec<u32> = op.add.clone();
            e.extend(op.del.iter().map(|&f| negated_index[f as usize]).filter(|&n| n != u32::MAX));
            e.sort_unstable();
            e.dedup();
            pres.push(p);
            effs.push(e);
        }
        let mut pre_of = vec![vec![]; num_props];
        let mut achievers = vec![vec![]; num_props];
        for (i, (p, e)) in pres.iter().zip(&effs).enumerate() {
            for &x in p {
                pre_of[x as usize].push(i as u32);
            }
            for &x in e {
                achievers[x as usize].push(i as u32);
            }
        }
        let mut goal: Vec<u32> = task.goal.clone();
        goal.extend(task.goal_neg.iter().map(|&f| negated_index[f as usize]));
        let (pre_start, pre) = csr(&pres);
        let (eff_start, eff) = csr(&effs);
        let (pre_of_start, pre_of) = csr(&pre_of);
        let (achievers_start, achievers) = csr(&achievers);
        RelaxedTask {
            num_props,
            num_facts,
            negated_of,
            always_true,
            op_cost: task.operators.iter().map(|o| o.cost).collect(),
            pre_start,
            pre,
            eff_start,
            eff,
            pre_of_start,
            pre_of,
            achievers_start,
            achievers,
            goal,
            op_num_deletes: task.operators.iter().map(|o| o.del.len() as u32).collect(),
        }
    }

    pub fn num_ops(&self) -> usize {
        self.op_cost.len()
    }

    #[inline]
    pub fn pre(&self, op: u32) -> &[u32] {
        &self.pre[self.pre_start[op as usize] as usize..self.pre_start[op as usize + 1] as usize]
    }

    #[inline]
    pub fn eff(&self, op: u32) -> &[u32] {
        &self.eff[self.eff_start[op as usize] as usize..self.eff_start[op as usize + 1] as usize]
    }

    #[inline]
    pub fn pre_of(&self, p: u32) -> &[u32] {
        &self.pre_of[self.pre_of_start[p as usize] as usize..self.pre_of_start[p as usize + 1] as usize]
    }

    #[inline]
    pub fn achievers(&self, p: u32) -> &[u32] {
        &self.achievers[self.achievers_start[p as usize] as usize..self.achievers_start[p as usize + 1] as usize]
    }

    /// Calls `f` for every proposition true in `state`.
    #[inline]
    pub fn for_each_true_prop(&self, state: &[u64], mut f: impl FnMut(u32)) {
        for_each_fact(state, &mut f);
        for (k, &fact) in self.negated_of.iter().enumerate() {
            if !has(state, fact) {
                f((self.num_facts + k) as u32);
            }
        }
        f(self.always_true);
    }
}
