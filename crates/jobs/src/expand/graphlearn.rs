//! `[[graphlearn]]` blocks as jobs: baselines per problem, a bootstrap per
//! configuration and seed (or per fold), and a leave-one-out fold per
//! problem.

use crate::graphlearn::{Block, Samples, ValueAdjustments};
use crate::spec::{Job, JobSpec};
use crate::JobKey;

/// Adds a block's jobs through `add` (which deduplicates by key). A block
/// whose files were not read expands into nothing.
pub fn expand(b: &Block, add: &mut dyn FnMut(Job) -> JobKey) {
    let Some((domain_pddl, problems)) = &b.loaded else { return };
    for name in &b.baselines {
        for p in problems {
            let spec = JobSpec::GraphBaseline {
                domain: b.domain.clone(),
                domain_pddl: domain_pddl.clone(),
                problem: p.clone(),
                heuristic: name.clone(),
                search: b.search,
            };
            add(Job::new(spec, vec![]));
        }
    }
    let value_adjustments = b.value_adjustments.as_ref().map(ValueAdjustments::list).unwrap_or_default();
    for (c, configuration) in b.configurations().into_iter().enumerate() {
        for &seed in &b.seeds.0 {
            let bootstrap = |held_out: Option<String>| JobSpec::GraphBootstrap {
                domain: b.domain.clone(),
                domain_pddl: domain_pddl.clone(),
                problems: problems.clone(),
                held_out,
                configuration,
                bootstrap: b.bootstrap.clone(),
                network: b.network.clone(),
                seed,
            };
            let shared = match b.samples {
                Samples::Shared => Some(add(Job::new(bootstrap(None), vec![]))),
                Samples::PerFold => None,
            };
            for p in problems {
                let boot = match &shared {
                    Some(k) => k.clone(),
                    None => add(Job::new(bootstrap(Some(p.name.clone())), vec![])),
                };
                let fold = JobSpec::GraphFold {
                    domain: b.domain.clone(),
                    held_out: p.name.clone(),
                    configuration,
                    adjustments: b.adjustments.clone(),
                    value_adjustments: if c == 0 { value_adjustments.clone() } else { vec![] },
                    network: b.network.clone(),
                    search: b.search,
                    seed,
                };
                add(Job::new(fold, vec![boot]));
            }
        }
    }
}
