//! visitall: `grid -x X -y Y -u 0 -r RATIO -s SEED`
//! (`pddl_generators/visitall/grid.c`, called so by `visitall/__init__.py`
//! with Y = X in the paper). grid.c seeds glibc's `random()` with
//! `initstate(seed, state, 256)` (grid.c:91), then, with no unavailable cells:
//! * the robot starts at a random cell, row `random() % x` then column
//!   `random() % y` (grid.c:128-134), and that cell is visited;
//! * every cell, row by row, is a goal when `random() % (x*y) < r*y*x`, in
//!   float arithmetic (grid.c:166), and the start cell always is.
//!
//! `-r` is read with `sscanf("%f")` into a float (grid.c:219) from the
//! wrapper's `str(float)`, the shortest text that reads back as the double.

use super::glibc_random::GlibcRandom;

pub fn generate(x: u32, y: u32, ratio: f64, seed: u32) -> Result<String, String> {
    if x == 0 || y == 0 {
        return Err("pddl-generators' grid needs at least one row and one column".to_string());
    }
    // Rust's shortest round-trip digits are Python's repr digits; reading
    // them as f32 rounds the decimal once, as sscanf does.
    let r: f32 = format!("{ratio}").parse().map_err(|_| format!("ratio {ratio} is not a number"))?;
    let mut rng = GlibcRandom::initstate(seed, 256).ok_or("glibc's initstate refused a 256-byte state")?;
    let (xi, yi, cells) = (i64::from(x), i64::from(y), i64::from(x) * i64::from(y));

    let mut s = format!("(define (problem grid-{x})\n(:domain grid-visit-all)\n(:objects \n");
    for i in 0..x {
        for j in 0..y {
            s.push_str(&format!("\tloc-x{i}-y{j}\n"));
        }
    }
    s.push_str("- place \n        \n)\n(:init");
    let row = rng.random() % xi;
    let col = rng.random() % yi;
    s.push_str(&format!("\n\t(at-robot loc-x{row}-y{col})\n\t(visited loc-x{row}-y{col})\n"));
    for i in 0..xi {
        for j in 0..yi {
            let mut link = |a: i64, b: i64| s.push_str(&format!("\t(connected loc-x{i}-y{j} loc-x{a}-y{b})\n "));
            if i != 0 {
                link(i - 1, j);
            }
            if i != xi - 1 {
                link(i + 1, j);
            }
            if j != 0 {
                link(i, j - 1);
            }
            if j != yi - 1 {
                link(i, j + 1);
            }
        }
    }
    s.push_str("\n)\n(:goal\n(and \n");
    // `r*y*x`: float times int, then times int, each step a float.
    let threshold = r * y as f32 * x as f32;
    for i in 0..xi {
        for j in 0..yi {
            // The draw happens for every cell, before the start-cell test.
            let goal = ((rng.random() % cells) as f32) < threshold;
            if goal || (i == row && j == col) {
                s.push_str(&format!("\t(visited loc-x{i}-y{j})\n"));
            }
        }
    }
    s.push_str(")\n)\n)\n");
    Ok(s)
}
