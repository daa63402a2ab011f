//! Zenotravel (IPC 2002, STRIPS): planes fly persons between cities, burning
//! one fuel level per flight.
//!
//! The IPC generator (Derek Long's `ztravel`) is not in the project; its
//! distribution is reconstructed from the 20 STRIPS problems Fast Downward's
//! benchmarks ship (`zenotravel/p01..p20`, the ones Trunda's thesis uses):
//! seven fuel levels `fl0..fl6` chained by `next`; every plane and person
//! starts in a uniformly drawn city and every plane at a uniformly drawn fuel
//! level; every person has a goal city drawn uniformly (it may be its start,
//! as in p15); and some planes have a goal city too. In p04..p20, 17 of 61
//! planes have one, so each plane gets a (uniform) goal city with probability
//! 1/3. Names follow the IPC files: `plane1..`, `person1..`, `city0..`, `fl0..`.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{DomainInfo, Param, ParamValues, Params};

/// The IPC problems' fuel levels, `fl0..fl6`.
pub const DEFAULT_FUEL_LEVELS: u32 = 7;

/// The probability that a plane has a goal city (see the module docs).
const PLANE_GOAL_PROBABILITY: f64 = 1.0 / 3.0;

pub static DOMAIN: DomainInfo = DomainInfo {
    name: "zenotravel",
    description: "planes with discrete fuel fly persons between cities (IPC 2002 STRIPS)",
    pddl: include_str!("../../domains/zenotravel.pddl"),
    params: &[
        Param::int("cities", "number of cities", 1, 1000).harder_as_it_grows(),
        Param::int("planes", "number of planes", 1, 1000).harder_as_it_grows(),
        Param::int("persons", "number of persons", 0, 10_000).harder_as_it_grows(),
        Param::int("fuel_levels", "number of fuel levels, fl0 (empty) included (IPC: 7)", 2, 1000).optional(),
    ],
    build: |v| {
        Ok(Params::Zenotravel {
            cities: v.int("cities")?,
            planes: v.int("planes")?,
            persons: v.int("persons")?,
            fuel_levels: v.opt_int("fuel_levels")?,
        })
    },
    values: |p| match *p {
        Params::Zenotravel { cities, planes, persons, fuel_levels } => ParamValues::new()
            .with("cities", cities)
            .with("planes", planes)
            .with("persons", persons)
            .with_opt("fuel_levels", fuel_levels),
        _ => unreachable!("zenotravel's descriptor given {p:?}"),
    },
    generate: |v, seed, rng| {
        let levels = v.opt_int("fuel_levels")?.unwrap_or(DEFAULT_FUEL_LEVELS);
        Ok(generate(v.int("cities")?, v.int("planes")?, v.int("persons")?, levels, seed, rng))
    },
};

pub fn generate(cities: u32, planes: u32, persons: u32, levels: u32, seed: u64, rng: &mut ChaCha8Rng) -> String {
    let plane_city: Vec<u32> = (0..planes).map(|_| rng.gen_range(0..cities)).collect();
    let plane_fuel: Vec<u32> = (0..planes).map(|_| rng.gen_range(0..levels)).collect();
    let person_city: Vec<u32> = (0..persons).map(|_| rng.gen_range(0..cities)).collect();
    let person_goal: Vec<u32> = (0..persons).map(|_| rng.gen_range(0..cities)).collect();
    let plane_goal: Vec<Option<u32>> =
        (0..planes).map(|_| rng.gen_bool(PLANE_GOAL_PROBABILITY).then(|| rng.gen_range(0..cities))).collect();

    let mut s = format!(
        "(define (problem zenotravel-c{cities}-a{planes}-p{persons}-f{levels}-s{seed})\n  (:domain zeno-travel)\n  (:objects"
    );
    for a in 1..=planes {
        s.push_str(&format!(" plane{a}"));
    }
    for p in 1..=persons {
        s.push_str(&format!(" person{p}"));
    }
    for c in 0..cities {
        s.push_str(&format!(" city{c}"));
    }
    for l in 0..levels {
        s.push_str(&format!(" fl{l}"));
    }
    s.push_str(")\n  (:init");
    for (i, (c, f)) in plane_city.iter().zip(&plane_fuel).enumerate() {
        let a = i + 1;
        s.push_str(&format!("\n    (aircraft plane{a})\n    (at plane{a} city{c})\n    (fuel-level plane{a} fl{f})"));
    }
    for (i, c) in person_city.iter().enumerate() {
        let p = i + 1;
        s.push_str(&format!("\n    (person person{p})\n    (at person{p} city{c})"));
    }
    for c in 0..cities {
        s.push_str(&format!("\n    (city city{c})"));
    }
    for l in 0..levels {
        s.push_str(&format!("\n    (flevel fl{l})"));
    }
    for l in 1..levels {
        s.push_str(&format!("\n    (next fl{} fl{l})", l - 1));
    }
    s.push_str(")\n  (:goal (and");
    for (i, g) in plane_goal.iter().enumerate() {
        if let Some(g) = g {
            s.push_str(&format!("\n    (at plane{} city{g})", i + 1));
        }
    }
    for (i, g) in person_goal.iter().enumerate() {
        s.push_str(&format!("\n    (at person{} city{g})", i + 1));
    }
    s.push_str(")))\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn every_object_starts_somewhere_and_persons_have_goals() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let text = generate(4, 3, 6, 7, 3, &mut rng);
        let init = &text[text.find("(:init").unwrap()..text.find("(:goal").unwrap()];
        let goal = &text[text.find("(:goal").unwrap()..];
        for a in 1..=3 {
            assert_eq!(init.matches(&format!("(at plane{a} ")).count(), 1, "{text}");
            assert_eq!(init.matches(&format!("(fuel-level plane{a} ")).count(), 1, "{text}");
        }
        for p in 1..=6 {
            assert_eq!(init.matches(&format!("(at person{p} ")).count(), 1, "{text}");
            assert_eq!(goal.matches(&format!("(at person{p} ")).count(), 1, "{text}");
        }
        assert_eq!(init.matches("(next ").count(), 6);
        assert!(!text.contains("fl7"));
    }

    #[test]
    fn about_a_third_of_planes_have_goals() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let text = generate(5, 3000, 0, 7, 5, &mut rng);
        let goals = text[text.find("(:goal").unwrap()..].matches("(at plane").count();
        assert!((900..1100).contains(&goals), "{goals} of 3000 planes have a goal");
    }
}
