//! Grid files (`grids/*.toml`) on arbitrary text: what `hfarm submit
//! --dry-run` does before it touches a database: parse and check the grid
//! (`jobs::grid::Grid::parse`), expand it into its job DAG
//! (`jobs::expand::expand`) and project its cost with the default model.
//!
//! Must not panic, and must not run away with time or memory: a small file
//! that expands into more jobs than a farm can hold is refused by the parser.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let Ok(grid) = jobs::grid::Grid::parse(&text, "grid.toml") else { return };
    let expansion = jobs::expand::expand(&grid);
    let _ = expansion.counts();
    let _ = coordinator::cost::project(&expansion.jobs, &coordinator::cost::CostModel::defaults());
});
