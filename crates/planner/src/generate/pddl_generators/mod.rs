//! pddl-generators' problems, reproduced: for the same parameters and seed,
//! the text that `pddl-generators -s SEED DOMAIN -- ARGS` writes at
//! guicho271828/pddl-generators commit ddffd0eb, byte for byte, less the
//! `;;` trailer its wrapper appends (`pddl_generators/main.py:280-288`: the
//! command, its arguments and a date). That is how the IJCAI'24 paper's code
//! (IBM/pddlsl b4c807a, `experiments/generate_datum.py:126-133`) makes its
//! instances, try i of seed s with the seed s·1000+i
//! (`generate_datum.py:386`).
//!
//! | hfarm parameters | pddl-generators call | program |
//! |---|---|---|
//! | `Blocksworld { blocks }` | `blocksworld-4ops -- BLOCKS` | `__blocksworld/blocksworld.sh`: bwstates + 2pddl ([`blocksworld`]) |
//! | `Ferry { locations, cars }` | `ferry -- LOCATIONS CARS` | `ferry/ferry.c` ([`ferry`]) |
//! | `Gripper { balls }` | `gripper -- --randomize BALLS` | `gripper/gripper.py` ([`gripper`]) |
//! | `Visitall { size, ratio, height }` | `visitall -- SIZE HEIGHT RATIO` (HEIGHT = SIZE when absent) | `visitall/grid.c` ([`visitall`]) |
//!
//! Each program's random numbers come from its language's library, rebuilt
//! here: [`drand48`] (bwstates), glibc's `random()` ([`glibc_random`]:
//! ferry, grid) and CPython's `random` ([`python_random`]: gripper.py).
//! Zenotravel has no counterpart.
//!
//! The problems name pddl-generators' domains: `blocksworld-4ops` (other
//! predicate and action names than hfarm's `blocksworld`) and
//! `gripper-strips` (hfarm's `gripper`, renamed); ferry's and visitall's are
//! hfarm's. [`domain_pddl`] gives each.
//!
//! `crates/planner/tests/pddl_generators.rs` checks every problem of
//! `fixtures/pddl-generators-ddffd0e.tsv` (made by the real programs, see
//! `tools/reference/pddl_generators_digests.py`).

mod blocksworld;
mod drand48;
mod ferry;
mod glibc_random;
mod gripper;
mod python_random;
mod visitall;

use super::Params;

/// The largest seed: ferry and grid read `-s` into a C `int` (ferry.c:256,
/// grid.c:225), and the paper's seeds are far below it.
pub const MAX_SEED: u64 = i32::MAX as u64;

/// The problem text pddl-generators ddffd0eb prints for the parameters and
/// seed (the parameters' ranges are checked by the caller).
pub fn generate(params: &Params, seed: u64) -> Result<String, String> {
    if seed > MAX_SEED {
        return Err(format!("pddl-generators reads the seed as a C int: at most {MAX_SEED}, got {seed}"));
    }
    match *params {
        Params::Blocksworld { blocks } => blocksworld::generate(blocks, seed),
        Params::Ferry { locations, cars } => ferry::generate(locations, cars, seed as u32),
        Params::Gripper { balls } => Ok(gripper::generate(balls, seed)),
        Params::Visitall { size, ratio, height } => {
            visitall::generate(size, height.unwrap_or(size), ratio, seed as u32)
        }
        Params::Zenotravel { .. } => Err(unsupported(params.domain())),
    }
}

pub fn unsupported(domain: &str) -> String {
    format!("pddl-generators has no generator for {domain} here: only blocksworld, ferry, gripper and visitall")
}

/// The domain file that pddl-generators' problems of an hfarm domain name.
pub fn domain_pddl(domain: &str) -> Option<&'static str> {
    match domain {
        "blocksworld" => Some(include_str!("blocksworld-4ops.pddl")),
        "gripper" => Some(include_str!("gripper-strips.pddl")),
        // Same names and the same actions as pddl-generators' ferry/domain.pddl
        // and visitall/domain.pddl.
        "ferry" | "visitall" => super::domain_pddl(domain),
        _ => None,
    }
}
