//! Grid files (`grids/*.toml`) on arbitrary text: what `hfarm submit
//! --dry-run` does before it touches a database: parse and check the grid
//! (`jobs::grid::Grid::parse`), expand it into its job DAG
//! (`jobs::expand::expand`) and project its cost with the default model.
//!
//! Must not panic, and must not run away with time or memory: a small file
//! that expands into more jobs than a farm can hold is refused by the parser
//! (`jobs::grid::size`, `MAX_JOBS`). Checked: the size the parser bounds
//! is at least what the expansion builds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(grid) = jobs::grid::Grid::parse(&text, "grid.toml") else { return };
    let bound = jobs::grid::size(&grid);
    // Up to a million jobs is a valid grid, but tens of seconds to expand:
    // only smaller ones are expanded, so that executions stay fast.
    if bound.jobs > 20_000 {
        return;
    }
    let expansion = jobs::expand::expand(&grid);
    let inputs: usize = expansion.jobs.iter().map(|j| j.inputs.len()).sum();
    assert!(bound.jobs >= expansion.jobs.len() as u64 && bound.inputs >= inputs as u64, "{bound:?}");
    let _ = expansion.counts();
    let _ = coordinator::cost::project(&expansion.jobs, &coordinator::cost::CostModel::defaults());
});
