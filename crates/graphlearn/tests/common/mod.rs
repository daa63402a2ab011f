//! Shared test helpers: generated blocksworld problems and small settings.
#![allow(dead_code)]

use graphlearn::labels::LabellerSettings;
use graphlearn::mlp::{AdamSettings, Loss, TrainSettings};
use graphlearn::{ModelSettings, Problem};
use planner::generate::{domain_pddl, generate, Params};

/// Blocksworld problems from the planner's generator, one per size, seeds `seed`, `seed + 1`, ...
pub fn blocks(sizes: &[u32], seed: u64) -> Vec<Problem> {
    let domain = domain_pddl("blocksworld").unwrap();
    sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let s = seed + i as u64;
            let text = generate(&Params::Blocksworld { blocks: n }, s).unwrap();
            Problem::from_text(&format!("blocks-{n}-{s}"), domain, &text).unwrap()
        })
        .collect()
}

pub fn goodtower() -> LabellerSettings {
    LabellerSettings::solver("blocksworld-goodtower").unwrap()
}

/// A small network that trains in well under a second.
pub fn small_model(alpha: usize, loss: Loss, ff_input: bool) -> ModelSettings {
    ModelSettings { alpha, loss, ff_input, hidden: vec![64, 32], dropout: vec![0.1] }
}

pub fn quick_training(max_epochs: usize) -> TrainSettings {
    TrainSettings {
        batch_size: 32,
        patience: 30,
        max_epochs,
        adam: AdamSettings { learning_rate: 3e-3, ..Default::default() },
        ..Default::default()
    }
}
