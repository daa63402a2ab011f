//! Visitall: an n x n grid, the robot starts in the centre cell (visited);
//! every other cell is a goal with probability `ratio` (the IPC generator's
//! rule), the centre always.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

pub fn generate(n: u32, ratio: f64, seed: u64, rng: &mut ChaCha8Rng) -> String {
    let cell = |x: u32, y: u32| format!("loc-x{x}-y{y}");
    let c = n / 2;
    let mut s = format!("(define (problem visitall-{n}-r{ratio}-s{seed})\n  (:domain grid-visit-all)\n  (:objects");
    for x in 0..n {
        for y in 0..n {
            s.push(' ');
            s.push_str(&cell(x, y));
        }
    }
    s.push_str(" - place)\n  (:init");
    s.push_str(&format!("\n    (at-robot {})\n    (visited {})", cell(c, c), cell(c, c)));
    for x in 0..n {
        for y in 0..n {
            let mut nb = vec![];
            if x > 0 {
                nb.push((x - 1, y));
            }
            if x + 1 < n {
                nb.push((x + 1, y));
            }
            if y > 0 {
                nb.push((x, y - 1));
            }
            if y + 1 < n {
                nb.push((x, y + 1));
            }
            for (a, b) in nb {
                s.push_str(&format!("\n    (connected {} {})", cell(x, y), cell(a, b)));
            }
        }
    }
    s.push_str(")\n  (:goal (and");
    for x in 0..n {
        for y in 0..n {
            let chosen = rng.gen::<f64>() < ratio;
            if chosen || (x == c && y == c) {
                s.push_str(&format!("\n    (visited {})", cell(x, y)));
            }
        }
    }
    s.push_str(")))\n");
    s
}
