//! Seeded, deterministic instance generators for the paper's four domains,
//! and the domain files that ship with the project.
//!
//! The same (parameters, seed) always gives the same problem text: the random
//! stream is ChaCha8 seeded with the seed, which does not change across
//! platforms or library versions.

mod blocksworld;
mod ferry;
mod gripper;
mod visitall;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// Names of the domains we generate, as used on the command line.
pub const DOMAINS: &[&str] = &["blocksworld", "ferry", "gripper", "visitall"];

/// The PDDL domain file for a domain name.
pub fn domain_pddl(name: &str) -> Option<&'static str> {
    Some(match name {
        "blocksworld" => include_str!("../../domains/blocksworld.pddl"),
        "ferry" => include_str!("../../domains/ferry.pddl"),
        "gripper" => include_str!("../../domains/gripper.pddl"),
        "visitall" => include_str!("../../domains/visitall.pddl"),
        _ => return None,
    })
}

/// Generator parameters, one variant per domain (appendix C.2 of the paper).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "domain", rename_all = "lowercase")]
pub enum Params {
    /// Initial and goal states uniform over all blocksworld states (Slaney & Thiébaux).
    Blocksworld {
        blocks: u32,
    },
    Ferry {
        locations: u32,
        cars: u32,
    },
    /// Each ball's initial and goal room, and the robot's room, drawn at random.
    Gripper {
        balls: u32,
    },
    /// A size x size grid (size x height when `height` is given); each cell
    /// is a goal with probability `ratio` (the start cell always).
    Visitall {
        size: u32,
        ratio: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        height: Option<u32>,
    },
}

impl Params {
    pub fn domain(&self) -> &'static str {
        match self {
            Params::Blocksworld { .. } => "blocksworld",
            Params::Ferry { .. } => "ferry",
            Params::Gripper { .. } => "gripper",
            Params::Visitall { .. } => "visitall",
        }
    }

    /// Checks the parameters' ranges.
    pub fn validate(&self) -> Result<(), String> {
        match *self {
            Params::Blocksworld { blocks } if !(1..=1000).contains(&blocks) => {
                Err(format!("--blocks must be between 1 and 1000, got {blocks}"))
            }
            Params::Ferry { locations, .. } if !(1..=1000).contains(&locations) => {
                Err(format!("--locations must be between 1 and 1000, got {locations}"))
            }
            Params::Ferry { cars, .. } if cars > 10_000 => Err(format!("--cars must be at most 10000, got {cars}")),
            Params::Gripper { balls } if balls > 10_000 => Err(format!("--balls must be at most 10000, got {balls}")),
            Params::Visitall { size, .. } if !(1..=200).contains(&size) => {
                Err(format!("--size must be between 1 and 200, got {size}"))
            }
            Params::Visitall { height: Some(h), .. } if !(1..=200).contains(&h) => {
                Err(format!("--height must be between 1 and 200, got {h}"))
            }
            Params::Visitall { ratio, .. } if !(0.0..=1.0).contains(&ratio) => {
                Err(format!("--ratio must be between 0 and 1, got {ratio}"))
            }
            _ => Ok(()),
        }
    }
}

/// Generates a problem file's text.
pub fn generate(params: &Params, seed: u64) -> Result<String, String> {
    params.validate()?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Ok(match *params {
        Params::Blocksworld { blocks } => blocksworld::generate(blocks, seed, &mut rng),
        Params::Ferry { locations, cars } => ferry::generate(locations, cars, seed, &mut rng),
        Params::Gripper { balls } => gripper::generate(balls, seed, &mut rng),
        Params::Visitall { size, ratio, height } => {
            visitall::generate(size, height.unwrap_or(size), ratio, seed, &mut rng)
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_params() -> Vec<Params> {
        vec![
            Params::Blocksworld { blocks: 7 },
            Params::Ferry { locations: 3, cars: 4 },
            Params::Gripper { balls: 4 },
            Params::Visitall { size: 4, ratio: 0.5, height: None },
            Params::Visitall { size: 3, ratio: 0.5, height: Some(5) },
        ]
    }

    #[test]
    fn visitall_grids_are_width_by_height() {
        let text = generate(&Params::Visitall { size: 5, ratio: 1.0, height: Some(7) }, 1).unwrap();
        let objects = &text[text.find("(:objects").unwrap()..text.find("- place)").unwrap()];
        assert_eq!(objects.matches(" loc-x").count(), 35, "35 objects");
        assert!(text.contains("loc-x4-y6") && !text.contains("loc-x5-") && !text.contains("-y7"));
        // Square grids keep their text (and so the golden fixtures and job keys).
        let square = Params::Visitall { size: 4, ratio: 0.5, height: None };
        assert_eq!(
            generate(&square, 3).unwrap(),
            generate(&Params::Visitall { size: 4, ratio: 0.5, height: Some(4) }, 3).unwrap()
        );
        assert_eq!(serde_json::to_string(&square).unwrap(), r#"{"domain":"visitall","size":4,"ratio":0.5}"#);
    }

    #[test]
    fn same_seed_same_text_other_seed_other_text() {
        for p in all_params() {
            let a = generate(&p, 7).unwrap();
            assert_eq!(a, generate(&p, 7).unwrap());
            let differs = (8..20).any(|s| generate(&p, s).unwrap() != a);
            assert!(differs, "{p:?}");
        }
    }

    #[test]
    fn generated_problems_parse_and_ground() {
        for p in all_params() {
            for seed in 0..5 {
                let text = generate(&p, seed).unwrap();
                let domain = domain_pddl(p.domain()).unwrap();
                let task = crate::load_task_from_text(domain, "domain.pddl", &text, "problem.pddl")
                    .unwrap_or_else(|e| panic!("{p:?} seed {seed}: {e}\n{text}"));
                assert!(task.unsolvable.is_none(), "{p:?} seed {seed}");
            }
        }
    }

    #[test]
    fn bad_parameters_are_refused() {
        assert!(generate(&Params::Blocksworld { blocks: 0 }, 1).is_err());
        assert!(generate(&Params::Visitall { size: 3, ratio: 1.5, height: None }, 1).is_err());
    }
}
