//! Neural Logic Machine (Dong et al. 2019), as the authors' code configures
//! it (IBM/pddlsl `nlm_carlos_v2.py`, `model_wrapper.py:56-154`): breadth 3,
//! depth 5, `hidden` predicates per arity per layer (16 in the code,
//! [`super::NLM_HIDDEN`]), each layer's per-arity MLP a single sigmoid layer
//! (`--mlp-hidden-features 0`), no residual connections, no batch norm,
//! `exclude_self` False. A layer computes arity r from the
//! expansion of arity r-1, arity r itself, and the min (forall) and max
//! (exists) reductions of arity r+1, over every permutation of the r object
//! axes. Arities that cannot reach the nullary output are pruned as the
//! layers approach it (3 -> 3 -> 3 -> 2 -> 1 -> 0 for depth 5).

use tch::{nn, Tensor};

use super::stacked::StackedLinear;
use super::{ModelInfo, Reads, Shape, NLM_HIDDEN};

use crate::encode::{RelationalBatch, Vocabulary};

/// The NLM: depth 5 with [`NLM_HIDDEN`] predicates per arity over the
/// domain's vocabulary; it stacks. Learning rate 1e-2
/// (`train_all.sh:11`) and weight decay 0.01, which is what the published
/// tables show (`train_all.sh:13` runs 0.0 and 0.01; Table 1 is 0.01).
pub(super) static INFO: ModelInfo = ModelInfo {
    name: "nlm",
    reads: Reads::Relational,
    stacks: true,
    learning_rate: 1e-2,
    weight_decay: 1e-2,
    shape: |domain, _| Ok(Shape::Nlm { vocabulary: Vocabulary::of(domain)?, depth: 5, hidden: NLM_HIDDEN }),
};

/// The object-axis permutations of arity 2 and 3 (itertools order).
const PERMS_2: [[i64; 2]; 2] = [[1, 2], [2, 1]];
const PERMS_3: [[i64; 3]; 6] = [[1, 2, 3], [1, 3, 2], [2, 1, 3], [2, 3, 1], [3, 1, 2], [3, 2, 1]];

fn permutations(arity: usize) -> usize {
    (1..=arity).product::<usize>().max(1)
}

struct Layer {
    /// One linear map per output arity (None where the arity has no output).
    mlps: Vec<Option<StackedLinear>>,
    activate: bool,
}

pub struct Nlm {
    layers: Vec<Layer>,
}

impl Nlm {
    /// `inputs[r]`: input predicates of arity r; `outputs` nullary outputs;
    /// one stacked run per seed.
    pub fn new(path: &nn::Path, inputs: &[usize], depth: usize, hidden: i64, outputs: i64, seeds: &[u64]) -> Nlm {
        let max_arity = inputs.len() - 1;
        let mut prev: Vec<usize> = inputs.to_vec();
        let mut layers = vec![];
        for d in 0..depth {
            let last = d + 1 == depth;
            let mut mlps = vec![];
            let mut next = vec![0; max_arity + 1];
            for r in 0..=max_arity {
                let want = if last {
                    if r == 0 {
                        outputs as usize
                    } else {
                        0
                    }
                } else if r < depth - d {
                    hidden as usize
                } else {
                    0
                };
                let mut width = prev[r];
                if r > 0 {
                    width += prev[r - 1];
                }
                if r < max_arity {
                    width += 2 * prev[r + 1];
                }
                width *= permutations(r);
                if want == 0 || width == 0 {
                    mlps.push(None);
                    continue;
                }
                let layer = path / format!("layer{d}");
                mlps.push(Some(StackedLinear::new(&layer, &format!("arity{r}"), width as i64, want as i64, seeds)));
                next[r] = want;
            }
            layers.push(Layer { mlps, activate: !last });
            prev = next;
        }
        Nlm { layers }
    }

    pub fn dense(&self) -> Vec<&StackedLinear> {
        self.layers.iter().flat_map(|l| l.mlps.iter().flatten()).collect()
    }

    pub fn forward(&self, batch: &RelationalBatch) -> Tensor {
        let mut xs: Vec<Option<Tensor>> = batch.inputs.iter().map(|x| x.as_ref().map(|t| t.shallow_clone())).collect();
        let o = batch.objects;
        for layer in &self.layers {
            let max_arity = xs.len() - 1;
            let mut out = vec![];
            for (r, mlp) in layer.mlps.iter().enumerate() {
                let Some(mlp) = mlp else {
                    out.push(None);
                    continue;
                };
                let mut parts = vec![];
                if r > 0 {
                    if let Some(x) = &xs[r - 1] {
                        parts.push(expand(x, r, o));
                    }
                }
                if let Some(x) = &xs[r] {
                    parts.push(x.shallow_clone());
                }
                if r < max_arity {
                    if let Some(x) = &xs[r + 1] {
                        let (min, max) = reduce(x, r + 1, &batch.valid);
                        parts.push(min);
                        parts.push(max);
                    }
                }
                let cat = Tensor::cat(&parts, -1);
                let input = permute(&cat, r);
                let y = mlp.forward(&input);
                out.push(Some(if layer.activate { y.sigmoid() } else { y }));
            }
            xs = out;
        }
        xs.swap_remove(0).expect("the last layer has a nullary output")
    }
}

/// Arity r-1 -> r: repeat along a new last object axis.
fn expand(x: &Tensor, r: usize, o: i64) -> Tensor {
    let y = x.unsqueeze(r as i64);
    let mut shape = y.size();
    shape[r] = o;
    y.expand(&shape, false)
}

/// Arity a -> a-1 over the last object axis: (forall, exists) = (min, max).
/// Values lie in [0, 1] (inputs are 0/1, hidden layers sigmoids), so padding
/// objects are neutralised by filling 1 for min and 0 for max.
fn reduce(x: &Tensor, arity: usize, valid: &Tensor) -> (Tensor, Tensor) {
    let dim = arity as i64;
    let mut shape = vec![valid.size()[0]];
    shape.extend(std::iter::repeat_n(1, arity - 1));
    shape.push(valid.size()[1]);
    shape.push(1);
    let invalid = valid.logical_not().reshape(&shape);
    let min = x.masked_fill(&invalid, 1.0).amin(dim, false);
    let max = x.masked_fill(&invalid, 0.0).amax(dim, false);
    (min, max)
}

fn permute(x: &Tensor, r: usize) -> Tensor {
    let f = x.dim() as i64 - 1;
    match r {
        2 => Tensor::cat(&PERMS_2.map(|p| x.permute([0, p[0], p[1], f])), -1),
        3 => Tensor::cat(&PERMS_3.map(|p| x.permute([0, p[0], p[1], p[2], f])), -1),
        _ => x.shallow_clone(),
    }
}
