//! Ferry: each car's origin and destination, and the ferry's location, uniform
//! over the locations (the IPC generator's distribution).

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{DomainInfo, Param, ParamValues, Params};

pub static DOMAIN: DomainInfo = DomainInfo {
    name: "ferry",
    description: "a ferry carries cars between locations, one at a time",
    pddl: include_str!("../../domains/ferry.pddl"),
    params: &[
        Param::int("locations", "number of locations", 1, 1000).harder_as_it_grows(),
        Param::int("cars", "number of cars", 0, 10_000).harder_as_it_grows(),
    ],
    build: |v| Ok(Params::Ferry { locations: v.int("locations")?, cars: v.int("cars")? }),
    values: |p| match *p {
        Params::Ferry { locations, cars } => ParamValues::new().with("locations", locations).with("cars", cars),
        _ => unreachable!("ferry's descriptor given {p:?}"),
    },
    generate: |v, seed, rng| Ok(generate(v.int("locations")?, v.int("cars")?, seed, rng)),
};

pub fn generate(locations: u32, cars: u32, seed: u64, rng: &mut ChaCha8Rng) -> String {
    let origin: Vec<u32> = (0..cars).map(|_| rng.gen_range(0..locations)).collect();
    let destination: Vec<u32> = (0..cars).map(|_| rng.gen_range(0..locations)).collect();
    let ferry = rng.gen_range(0..locations);
    let mut s = format!("(define (problem ferry-l{locations}-c{cars}-s{seed})\n  (:domain ferry)\n  (:objects");
    for l in 0..locations {
        s.push_str(&format!(" l{l}"));
    }
    for c in 0..cars {
        s.push_str(&format!(" c{c}"));
    }
    s.push_str(")\n  (:init");
    for l in 0..locations {
        s.push_str(&format!("\n    (location l{l})"));
    }
    for c in 0..cars {
        s.push_str(&format!("\n    (car c{c})"));
    }
    for a in 0..locations {
        for b in 0..locations {
            if a != b {
                s.push_str(&format!("\n    (not-eq l{a} l{b})"));
            }
        }
    }
    s.push_str("\n    (empty-ferry)");
    for (c, o) in origin.iter().enumerate() {
        s.push_str(&format!("\n    (at c{c} l{o})"));
    }
    s.push_str(&format!("\n    (at-ferry l{ferry}))\n  (:goal (and"));
    for (c, d) in destination.iter().enumerate() {
        s.push_str(&format!("\n    (at c{c} l{d})"));
    }
    s.push_str(")))\n");
    s
}
