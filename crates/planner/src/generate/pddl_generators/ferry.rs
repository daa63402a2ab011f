//! ferry: `ferry -l LOCATIONS -c CARS -s SEED` (`pddl_generators/ferry/ferry.c`,
//! called so by `ferry/__init__.py`). It seeds glibc's `random()` with
//! `srandom(seed)` (`ferry.c:278`) and draws each car's origin, then each
//! car's destination, then the ferry's location, all as `random() % locations`
//! (`ferry.c:157-175`).

use super::glibc_random::GlibcRandom;

pub fn generate(locations: u32, cars: u32, seed: u32) -> Result<String, String> {
    // ferry.c:268 refuses fewer than one location (and prints its usage).
    if locations < 1 {
        return Err("pddl-generators' ferry needs at least 1 location".to_string());
    }
    let mut rng = GlibcRandom::srandom(seed);
    let mut draw = || (rng.random() % i64::from(locations)) as u32;
    let origin: Vec<u32> = (0..cars).map(|_| draw()).collect();
    let destination: Vec<u32> = (0..cars).map(|_| draw()).collect();
    let ferry_at = draw();

    let mut s = format!("(define (problem ferry-l{locations}-c{cars})\n(:domain ferry)\n(:objects ");
    for l in 0..locations {
        s.push_str(&format!("l{l} "));
    }
    s.push_str("\n          ");
    for c in 0..cars {
        s.push_str(&format!("c{c} "));
    }
    s.push_str("\n)\n(:init");
    for l in 0..locations {
        s.push_str(&format!("\n(location l{l})"));
    }
    for c in 0..cars {
        s.push_str(&format!("\n(car c{c})"));
    }
    for i in 0..locations.saturating_sub(1) {
        for j in i + 1..locations {
            s.push_str(&format!("\n(not-eq l{i} l{j})\n(not-eq l{j} l{i})"));
        }
    }
    s.push_str("\n(empty-ferry)");
    for (c, l) in origin.iter().enumerate() {
        s.push_str(&format!("\n(at c{c} l{l})"));
    }
    s.push_str(&format!("\n(at-ferry l{ferry_at})\n)\n(:goal\n(and"));
    for (c, l) in destination.iter().enumerate() {
        s.push_str(&format!("\n(at c{c} l{l})"));
    }
    s.push_str("\n)\n)\n)\n");
    Ok(s)
}
