//! Which generator makes a problem from (parameters, seed): hfarm's own
//! (the default, whose texts are pinned in job keys and fixtures) or a
//! faithful copy of the one the paper's code used ([`super::pddl_generators`]).

use std::fmt;
use std::str::FromStr;

use super::{pddl_generators, Params};

/// A generator family. Serialized as `"hfarm"` / `"pddl-generators"`, the
/// names the command line takes (`hfarm generate --like NAME`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Generator {
    /// hfarm's generators ([`super::generate`]): ChaCha8 seeded with the seed.
    #[default]
    Hfarm,
    /// pddl-generators at commit ddffd0eb, as the IJCAI'24 paper's code calls
    /// it: the same text for the same seed. Blocksworld, ferry, gripper
    /// (always `--randomize`) and visitall; seeds up to 2^31-1.
    PddlGenerators,
}

impl Generator {
    pub const ALL: [Generator; 2] = [Generator::Hfarm, Generator::PddlGenerators];

    pub fn name(self) -> &'static str {
        match self {
            Generator::Hfarm => "hfarm",
            Generator::PddlGenerators => "pddl-generators",
        }
    }

    /// Whether this is the default, for `#[serde(skip_serializing_if = ...)]`
    /// on a field that must keep older serializations unchanged.
    pub fn is_default(&self) -> bool {
        *self == Generator::Hfarm
    }

    /// Whether the generator makes problems of a domain (by hfarm's name).
    pub fn supports(self, domain: &str) -> bool {
        domain_pddl_like(domain, self).is_some()
    }
}

impl fmt::Display for Generator {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Generator {
    type Err = String;

    fn from_str(s: &str) -> Result<Generator, String> {
        Generator::ALL.into_iter().find(|g| g.name() == s).ok_or_else(|| {
            let names: Vec<&str> = Generator::ALL.iter().map(|g| g.name()).collect();
            format!("unknown generator `{s}`; expected one of {}", names.join(", "))
        })
    }
}

/// A problem's text from the chosen generator. The parameters are checked
/// against their domain's ranges first, as [`super::generate`] does (which
/// `Generator::Hfarm` calls); pddl-generators refuses what it cannot make
/// (zenotravel, seeds over 2^31-1, over 200 blocks) with a message.
pub fn generate_with(params: &Params, seed: u64, generator: Generator) -> Result<String, String> {
    match generator {
        Generator::Hfarm => super::generate(params, seed),
        Generator::PddlGenerators => {
            params.validate()?;
            pddl_generators::generate(params, seed)
        }
    }
}

/// The domain file that the chosen generator's problems of a domain (hfarm's
/// name) are for; `None` for an unknown domain or one the generator does not
/// make.
pub fn domain_pddl_like(domain: &str, generator: Generator) -> Option<&'static str> {
    match generator {
        Generator::Hfarm => super::domain_pddl(domain),
        Generator::PddlGenerators => pddl_generators::domain_pddl(domain),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for g in Generator::ALL {
            assert_eq!(g.name().parse::<Generator>(), Ok(g));
            assert_eq!(serde_json::to_string(&g).unwrap(), format!("\"{}\"", g.name()));
            assert_eq!(g.to_string(), g.name());
        }
        assert_eq!(Generator::default(), Generator::Hfarm);
        assert!(Generator::Hfarm.is_default() && !Generator::PddlGenerators.is_default());
        let e = "pddl_generators".parse::<Generator>().unwrap_err();
        assert_eq!(e, "unknown generator `pddl_generators`; expected one of hfarm, pddl-generators");
    }

    #[test]
    fn hfarm_is_generate() {
        let p = Params::Ferry { locations: 3, cars: 2 };
        assert_eq!(generate_with(&p, 5, Generator::Hfarm), super::super::generate(&p, 5));
        assert_eq!(domain_pddl_like("ferry", Generator::Hfarm), super::super::domain_pddl("ferry"));
    }

    #[test]
    fn what_pddl_generators_refuses() {
        let g = Generator::PddlGenerators;
        let zeno = Params::Zenotravel { cities: 3, planes: 2, persons: 4, fuel_levels: None };
        assert!(generate_with(&zeno, 1, g).unwrap_err().contains("no generator for zenotravel"));
        assert!(!g.supports("zenotravel") && g.supports("visitall") && !g.supports("sokoban"));
        let bw = Params::Blocksworld { blocks: 5 };
        let e = generate_with(&bw, 1 << 31, g).unwrap_err();
        assert_eq!(e, "pddl-generators reads the seed as a C int: at most 2147483647, got 2147483648");
        assert!(generate_with(&bw, (1 << 31) - 1, g).is_ok());
        let e = generate_with(&Params::Blocksworld { blocks: 201 }, 1, g).unwrap_err();
        assert!(e.contains("at most 200 blocks"), "{e}");
        // hfarm's own ranges first.
        let e = generate_with(&Params::Blocksworld { blocks: 0 }, 1, g).unwrap_err();
        assert_eq!(e, "blocks must be between 1 and 1000, got 0");
    }

    /// Every problem parses and grounds with its domain file, and A* with
    /// LM-cut solves it.
    #[test]
    fn problems_parse_ground_and_solve() {
        use crate::heuristics::LmCut;
        use crate::search::{astar, Limits, SearchStatus};
        let cases = [
            Params::Blocksworld { blocks: 6 },
            Params::Ferry { locations: 3, cars: 3 },
            Params::Ferry { locations: 1, cars: 2 },
            Params::Gripper { balls: 4 },
            Params::Gripper { balls: 0 },
            Params::Visitall { size: 3, ratio: 0.5, height: None },
            Params::Visitall { size: 3, ratio: 1.0, height: Some(2) },
        ];
        for p in cases {
            let domain = domain_pddl_like(p.domain(), Generator::PddlGenerators).unwrap();
            for seed in [0, 1001, 2002, 3003] {
                let text = generate_with(&p, seed, Generator::PddlGenerators).unwrap();
                let task = crate::load_task_from_text(domain, "domain.pddl", &text, "problem.pddl")
                    .unwrap_or_else(|e| panic!("{p:?} seed {seed}: {e}\n{text}"));
                let mut h = LmCut::new(&task);
                let r = astar(&task, &mut h, Limits::new(None, Some(20.0), Some(512)));
                assert_eq!(r.status, SearchStatus::Solved, "{p:?} seed {seed}");
            }
        }
    }
}
