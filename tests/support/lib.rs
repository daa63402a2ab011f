//! What the system tests share: a hand-made experiment for the report views
//! and the dashboard ([`fixture`]), and the servers ([`servers`]).

pub mod fixture;
pub mod servers;

/// A file of the repository (grids, dashboards), by its path from the root.
pub fn repo_file(path: &str) -> String {
    let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}
