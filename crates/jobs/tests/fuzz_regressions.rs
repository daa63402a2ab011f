//! What fuzzing grid files found (fuzz/, target `grid`), kept as tests so
//! that `cargo test` covers them without cargo-fuzz.

use std::time::Instant;

use jobs::expand::expand;
use jobs::grid::{size, Grid, MAX_INPUTS, MAX_JOBS};

fn grid(name: &str) -> String {
    std::fs::read_to_string(format!("{}/../../grids/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A 900-byte grid (`seeds = "1..1000000"` in each split) made `hfarm submit
/// --dry-run` take minutes and gigabytes expanding four million jobs. It is
/// refused while it is read, before anything is built.
#[test]
fn a_small_grid_that_asks_for_millions_of_jobs_is_refused_at_once() {
    let text = grid("smoke.toml").replace("seeds = \"1..3\"", "seeds = \"1..1000000\"");
    let t0 = Instant::now();
    let e = Grid::parse(&text, "big.toml").unwrap_err().to_string();
    assert!(e.contains(&format!("a grid may have at most {MAX_JOBS} jobs")), "{e}");
    assert!(e.starts_with("big.toml: the grid expands into up to 24000016 jobs"), "{e}");
    assert!(t0.elapsed().as_secs() < 5, "refused without expanding");
}

/// Inputs count as well: a few train jobs that each read a million labels.
#[test]
fn a_grid_whose_jobs_name_too_many_inputs_is_refused() {
    let text = grid("quick.toml")
        .replace("[domains.gripper.train]\nseeds = \"1..6\"", "[domains.gripper.train]\nseeds = \"1..300000\"");
    let e = Grid::parse(&text, "wide.toml").unwrap_err().to_string();
    assert!(e.contains(&format!("and {MAX_INPUTS} inputs")), "{e}");
}

/// The bound is an upper bound of what `expand` builds, for every grid the
/// repository ships (each of which must read).
#[test]
fn the_size_bound_holds_for_the_repos_grids() {
    let dir = format!("{}/../../grids", env!("CARGO_MANIFEST_DIR"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 10, "{names:?}");
    for name in &names {
        let g = Grid::parse(&grid(name), name).unwrap_or_else(|e| panic!("{e}"));
        let (bound, jobs) = (size(&g), expand(&g).jobs);
        let inputs: usize = jobs.iter().map(|j| j.inputs.len()).sum();
        assert!(bound.jobs >= jobs.len() as u64, "{name}: {bound:?} < {} jobs", jobs.len());
        assert!(bound.inputs >= inputs as u64, "{name}: {bound:?} < {inputs} inputs");
    }
}
