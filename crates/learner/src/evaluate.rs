//! Test metrics (section 4.1): MSE and MSE+clip of the point estimate, NLL
//! and NLL+clip, beside the MSE of hFF and hLMcut on the same states.

use planner::pddl::Domain;
use serde::{Deserialize, Serialize};
use tch::Kind;

use crate::config::{Family, LowerBound};
use crate::data::LabelledInstance;
use crate::predictor::Predictor;
use crate::prepare::{ground_all, parse_domain, Prepared};
use crate::LearnError;

/// States per forward pass when evaluating.
const CHUNK: usize = 512;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub samples: usize,
    pub mse: f64,
    pub mse_clip: f64,
    pub nll: f64,
    pub nll_clip: f64,
    pub ff_mse: f64,
    pub lmcut_mse: f64,
    /// The mean predicted sigma.
    pub sigma: f64,
}

/// Metrics over prepared samples.
pub fn metrics_of(p: &Predictor, domain: &Domain, data: &Prepared) -> Result<Metrics, LearnError> {
    let mut sums = [0.0f64; 5];
    let n = data.items.len();
    tch::no_grad(|| -> Result<(), LearnError> {
        let all: Vec<usize> = (0..n).collect();
        for idx in all.chunks(CHUNK) {
            let (batch, side, target) = data.batch(&p.config, domain, idx, p.device());
            let dist = p.distribution(&batch, &side)?;
            let clipped = dist.clipped();
            let sq = |m: tch::Tensor| (m - &target).square().sum(Kind::Double).double_value(&[]);
            sums[0] += sq(dist.mean());
            sums[1] += sq(clipped.mean());
            sums[2] -= dist.log_prob(&target).sum(Kind::Double).double_value(&[]);
            sums[3] -= clipped.log_prob(&target).sum(Kind::Double).double_value(&[]);
            sums[4] += dist.sigma.sum(Kind::Double).double_value(&[]);
        }
        Ok(())
    })?;
    let mean_sq = |f: &dyn Fn(&crate::prepare::Item) -> f64| {
        data.items.iter().map(|i| (f(i) - i.target).powi(2)).sum::<f64>() / n.max(1) as f64
    };
    let d = n.max(1) as f64;
    Ok(Metrics {
        samples: n,
        mse: sums[0] / d,
        mse_clip: sums[1] / d,
        nll: sums[2] / d,
        nll_clip: sums[3] / d,
        ff_mse: mean_sq(&|i| i.ff),
        lmcut_mse: mean_sq(&|i| i.lmcut),
        sigma: sums[4] / d,
    })
}

/// Evaluates a trained model on labelled test instances. `clip` is the bound
/// a Gaussian model's +clip estimate uses (a truncated model always uses
/// the lower bound it was trained with).
pub fn evaluate(
    predictor: &mut Predictor,
    domain_pddl: &str,
    instances: &[LabelledInstance],
    clip: Option<LowerBound>,
) -> Result<Metrics, LearnError> {
    if predictor.config.family == Family::Gaussian {
        predictor.config.lower = clip;
    }
    let domain = parse_domain(domain_pddl)?;
    let refs: Vec<&LabelledInstance> = instances.iter().collect();
    let grounded = ground_all(&domain, &refs)?;
    let data = Prepared::new(&predictor.config, &domain, &refs, grounded)?;
    if data.items.is_empty() {
        return Err(LearnError::Input("no labelled test states".into()));
    }
    metrics_of(predictor, &domain, &data)
}
