//! The memory buffer of (state, cost-to-go along the plan found), as the
//! code's `NNBaseHeuristic.ManageMemoryBuffer` keeps it (notes section
//! 1.5): every state of every plan, the goal with y = 0 included by
//! default; an exact duplicate (same state and same y) is skipped; the
//! oldest records go first beyond the maximum size. The code scans the
//! list for duplicates; here a hash set does.

use std::collections::{HashSet, VecDeque};

use puzzles::{Domain, State};
use serde::{Deserialize, Serialize};

use crate::LikelyError;

/// One training record. The state is kept as its cells (serialisable; the
/// domain validates them again when the buffer is used).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Record {
    pub cells: Vec<u8>,
    /// Cost-to-go along the plan (an upper bound on h*).
    pub y: u32,
}

/// The FIFO buffer.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MemoryBuffer {
    records: VecDeque<Record>,
    /// The records as a set, for the duplicate test; rebuilt after
    /// deserialisation.
    #[serde(skip)]
    index: HashSet<Record>,
}

impl PartialEq for MemoryBuffer {
    fn eq(&self, other: &MemoryBuffer) -> bool {
        self.records == other.records
    }
}

impl MemoryBuffer {
    pub fn new() -> MemoryBuffer {
        MemoryBuffer::default()
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Oldest first.
    pub fn records(&self) -> impl ExactSizeIterator<Item = &Record> {
        self.records.iter()
    }

    fn sync_index(&mut self) {
        if self.index.len() != self.records.len() {
            self.index = self.records.iter().cloned().collect();
        }
    }

    /// Adds the states along a plan (`states[0]` the start, the last the
    /// goal), each with its remaining plan length; the goal only with
    /// `include_goal`. Returns how many records were new.
    pub fn add_plan(&mut self, states: &[State], include_goal: bool) -> usize {
        self.sync_index();
        let n = states.len();
        let take = if include_goal { n } else { n.saturating_sub(1) };
        let mut added = 0;
        for (i, s) in states.iter().enumerate().take(take) {
            let r = Record { cells: s.cells().to_vec(), y: (n - 1 - i) as u32 };
            if self.index.insert(r.clone()) {
                self.records.push_back(r);
                added += 1;
            }
        }
        added
    }

    /// Drops the oldest records beyond `max`.
    pub fn trim(&mut self, max: usize) {
        while self.records.len() > max {
            if let Some(r) = self.records.pop_front() {
                self.index.remove(&r);
            }
        }
    }

    /// The records' states, checked by the domain (a checkpoint may come
    /// from anywhere).
    pub fn states<D: Domain>(&self, d: &D) -> Result<Vec<State>, LikelyError> {
        self.records
            .iter()
            .map(|r| d.state_from_cells(&r.cells).map_err(|e| LikelyError::Checkpoint(format!("buffer: {e}"))))
            .collect()
    }

    pub fn targets(&self) -> Vec<u32> {
        self.records.iter().map(|r| r.y).collect()
    }

    /// The q-quantile of the targets (`None` when empty).
    pub fn quantile(&self, q: f64) -> Option<f64> {
        let mut ys: Vec<f64> = self.records.iter().map(|r| r.y as f64).collect();
        quantile_r8(&mut ys, q)
    }
}

/// The q-quantile by Hyndman & Fan's definition 8 (approximately
/// median-unbiased), the one MathNet's `Statistics.Quantile` computes and
/// the code takes y^q with. Sorts `data`; `None` when empty or q is
/// outside [0, 1].
pub fn quantile_r8(data: &mut [f64], q: f64) -> Option<f64> {
    if data.is_empty() || !(0.0..=1.0).contains(&q) {
        return None;
    }
    data.sort_by(|a, b| a.total_cmp(b));
    let n = data.len();
    let h = (n as f64 + 1.0 / 3.0) * q + 1.0 / 3.0;
    let hf = h.floor();
    if q == 0.0 || hf < 1.0 {
        return Some(data[0]);
    }
    if q == 1.0 || hf >= n as f64 {
        return Some(data[n - 1]);
    }
    let k = hf as usize; // 1-based order statistic.
    Some(data[k - 1] + (h - hf) * (data[k] - data[k - 1]))
}

#[cfg(test)]
mod tests {
    use puzzles::tiles::SlidingTile;
    use puzzles::walk::random_walk;

    use super::*;

    #[test]
    fn r8_quantiles() {
        // R: quantile(1:10, c(0.5, 0.95, 0.1), type = 8).
        let mut d: Vec<f64> = (1..=10).map(|x| x as f64).collect();
        assert!((quantile_r8(&mut d, 0.5).unwrap() - 5.5).abs() < 1e-12);
        assert!((quantile_r8(&mut d, 0.95).unwrap() - 10.0).abs() < 1e-12);
        assert!((quantile_r8(&mut d, 0.1).unwrap() - (1.0 + 1.1 / 3.0)).abs() < 1e-12);
        let mut d = vec![3.0, 1.0, 2.0, 9.0, 4.0];
        // h = (5 + 1/3) 0.75 + 1/3 = 4.333: 4 + 0.333 (9 - 4).
        assert!((quantile_r8(&mut d, 0.75).unwrap() - (4.0 + 5.0 / 3.0)).abs() < 1e-12);
        assert_eq!(quantile_r8(&mut [], 0.5), None);
        assert_eq!(quantile_r8(&mut [1.0], 2.0), None);
    }

    #[test]
    fn fifo_without_duplicates() {
        let d = SlidingTile::new(3, 3).unwrap();
        let plan = |seed| {
            let mut states = vec![random_walk(&d, 3, seed)];
            // A fake plan: the start, two states, the goal.
            states.push(random_walk(&d, 2, seed));
            states.push(random_walk(&d, 1, seed));
            states.push(*d.goal());
            states
        };
        let mut b = MemoryBuffer::new();
        assert_eq!(b.add_plan(&plan(1), true), 4);
        assert_eq!(b.targets(), vec![3, 2, 1, 0]);
        // The same plan again adds nothing; the goal with y = 0 once only.
        assert_eq!(b.add_plan(&plan(1), true), 0);
        let added = b.add_plan(&plan(2), true);
        assert!(added <= 3 && b.len() == 4 + added);
        let mut c = MemoryBuffer::new();
        assert_eq!(c.add_plan(&plan(1), false), 3);
        // Serialised and back, the index is rebuilt: duplicates are still
        // recognised.
        let mut back: MemoryBuffer = serde_json::from_str(&serde_json::to_string(&b).unwrap()).unwrap();
        assert_eq!(back, b);
        assert_eq!(back.add_plan(&plan(1), true), 0);
        assert_eq!(back.states(&d).unwrap().len(), b.len());
        // Oldest out first.
        let newest: Vec<Record> = b.records().skip(b.len() - 2).cloned().collect();
        b.trim(2);
        assert_eq!(b.records().cloned().collect::<Vec<_>>(), newest);
        assert_eq!(b.add_plan(&plan(1)[..1], false), 0, "a one-state plan without its goal adds nothing");
        assert_eq!(b.quantile(1.0), Some(*b.targets().iter().max().unwrap() as f64));
    }
}
