//! Visitall: a width x height grid, the robot starts in the centre cell
//! (visited); every other cell is a goal with probability `ratio` (the IPC
//! generator's rule), the centre always.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::{DomainInfo, Param, ParamValues, Params};

pub static DOMAIN: DomainInfo = DomainInfo {
    name: "visitall",
    description: "a robot visits every goal cell of a grid",
    pddl: include_str!("../../domains/visitall.pddl"),
    params: &[
        Param::int("size", "the grid's width (and height, unless `height` is given)", 1, 200).harder_as_it_grows(),
        Param::int("height", "the grid's height, when it is not square", 1, 200).optional().harder_as_it_grows(),
        Param::float("ratio", "probability that a cell is a goal", 0.0, 1.0),
    ],
    build: |v| Ok(Params::Visitall { size: v.int("size")?, ratio: v.float("ratio")?, height: v.opt_int("height")? }),
    values: |p| match *p {
        Params::Visitall { size, ratio, height } => {
            ParamValues::new().with("size", size).with_opt("height", height).with("ratio", ratio)
        }
        _ => unreachable!("visitall's descriptor given {p:?}"),
    },
    generate: |v, seed, rng| {
        let size = v.int("size")?;
        Ok(generate(size, v.opt_int("height")?.unwrap_or(size), v.float("ratio")?, seed, rng))
    },
};

pub fn generate(w: u32, h: u32, ratio: f64, seed: u64, rng: &mut ChaCha8Rng) -> String {
    let cell = |x: u32, y: u32| format!("loc-x{x}-y{y}");
    let (cx, cy) = (w / 2, h / 2);
    let shape = if w == h { w.to_string() } else { format!("{w}x{h}") };
    let mut s = format!("(define (problem visitall-{shape}-r{ratio}-s{seed})\n  (:domain grid-visit-all)\n  (:objects");
    for x in 0..w {
        for y in 0..h {
            s.push(' ');
            s.push_str(&cell(x, y));
        }
    }
    s.push_str(" - place)\n  (:init");
    s.push_str(&format!("\n    (at-robot {})\n    (visited {})", cell(cx, cy), cell(cx, cy)));
    for x in 0..w {
        for y in 0..h {
            let mut nb = vec![];
            if x > 0 {
                nb.push((x - 1, y));
            }
            if x + 1 < w {
                nb.push((x + 1, y));
            }
            if y > 0 {
                nb.push((x, y - 1));
            }
            if y + 1 < h {
                nb.push((x, y + 1));
            }
            for (a, b) in nb {
                s.push_str(&format!("\n    (connected {} {})", cell(x, y), cell(a, b)));
            }
        }
    }
    s.push_str(")\n  (:goal (and");
    for x in 0..w {
        for y in 0..h {
            let chosen = rng.gen::<f64>() < ratio;
            if chosen || (x == cx && y == cy) {
                s.push_str(&format!("\n    (visited {})", cell(x, y)));
            }
        }
    }
    s.push_str(")))\n");
    s
}
