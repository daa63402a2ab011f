//! `[[likely]]` blocks as jobs: an optimal solve per test task, a learner
//! per seed and task source, and a test (or growing-walk sets) per learner
//! and alpha.

use crate::likely::{cells_text, Block, OptimalFrom};
use crate::spec::{Job, JobSpec};
use crate::JobKey;

/// Adds a block's jobs through `add` (which deduplicates by key).
pub fn expand(b: &Block, add: &mut dyn FnMut(Job) -> JobKey) {
    // A checked block has tasks; an unchecked one expands to its learners only.
    let tasks = b.test_tasks().unwrap_or_default();
    let pdb_inputs = b.pdb_patterns().ok().flatten().map(str::to_string);
    let solves: Vec<(String, JobKey)> = tasks
        .iter()
        .map(|t| {
            let state = cells_text(&t.cells);
            let spec = JobSpec::PuzzleSolve {
                domain: b.domain.clone(),
                state: state.clone(),
                published: t.published,
                trust_published: t.published.is_some() && b.test.optimal == OptimalFrom::Published,
            };
            let key = add(Job::new(spec, vec![]));
            (state, key)
        })
        .collect();
    for (&seed, &tasks) in b.seeds.0.iter().flat_map(|s| b.tasks.iter().map(move |t| (s, t))) {
        let learn = JobSpec::PuzzleLearn {
            domain: b.domain.clone(),
            pdb_inputs: pdb_inputs.clone(),
            settings: b.settings,
            model: b.model,
            iterations: b.iterations,
            seed,
            tasks,
            limits: b.train_limits,
        };
        let lk = add(Job::new(learn, vec![]));
        if let Some(n) = b.test.growing {
            for alpha in b.test_alphas() {
                for set in 0..b.test.sets {
                    let spec = JobSpec::PuzzleEfficiency {
                        domain: b.domain.clone(),
                        pdb_inputs: pdb_inputs.clone(),
                        alpha,
                        tasks: n,
                        seed: b.test.seed,
                        set,
                        budget_s: b.test.budget_s,
                        limits: b.test_limits,
                    };
                    add(Job::new(spec, vec![lk.clone()]));
                }
            }
            continue;
        }
        for alpha in b.test_alphas() {
            for (state, sk) in &solves {
                let spec = JobSpec::PuzzleTest {
                    domain: b.domain.clone(),
                    pdb_inputs: pdb_inputs.clone(),
                    state: state.clone(),
                    alpha,
                    limits: b.test_limits,
                };
                add(Job::new(spec, vec![lk.clone(), sk.clone()]));
            }
        }
    }
}
