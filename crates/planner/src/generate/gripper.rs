//! Gripper as modified in the paper (appendix C.2): the robot's room and each
//! ball's initial and goal room are drawn at random, instead of the IPC
//! generator's "all balls start in room A".

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{DomainInfo, Param, ParamValues, Params};

pub static DOMAIN: DomainInfo = DomainInfo {
    name: "gripper",
    description: "a two-armed robot moves balls between two rooms (random rooms, as in the paper)",
    pddl: include_str!("../../domains/gripper.pddl"),
    params: &[Param::int("balls", "number of balls", 0, 10_000).harder_as_it_grows()],
    build: |v| Ok(Params::Gripper { balls: v.int("balls")? }),
    values: |p| match *p {
        Params::Gripper { balls } => ParamValues::new().with("balls", balls),
        _ => unreachable!("gripper's descriptor given {p:?}"),
    },
    generate: |v, seed, rng| Ok(generate(v.int("balls")?, seed, rng)),
};

const ROOMS: [&str; 2] = ["rooma", "roomb"];

pub fn generate(balls: u32, seed: u64, rng: &mut ChaCha8Rng) -> String {
    let robot = ROOMS[rng.gen_range(0..2)];
    let init: Vec<&str> = (0..balls).map(|_| ROOMS[rng.gen_range(0..2)]).collect();
    let goal: Vec<&str> = (0..balls).map(|_| ROOMS[rng.gen_range(0..2)]).collect();
    let mut s =
        format!("(define (problem gripper-{balls}-s{seed})\n  (:domain gripper)\n  (:objects rooma roomb left right");
    for b in 1..=balls {
        s.push_str(&format!(" ball{b}"));
    }
    s.push_str(")\n  (:init\n    (room rooma)\n    (room roomb)\n    (gripper left)\n    (gripper right)\n    (free left)\n    (free right)");
    s.push_str(&format!("\n    (at-robby {robot})"));
    for (i, r) in init.iter().enumerate() {
        s.push_str(&format!("\n    (ball ball{})\n    (at ball{} {r})", i + 1, i + 1));
    }
    s.push_str(")\n  (:goal (and");
    for (i, r) in goal.iter().enumerate() {
        s.push_str(&format!("\n    (at ball{} {r})", i + 1));
    }
    s.push_str(")))\n");
    s
}
