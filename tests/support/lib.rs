//! What the system tests share: a hand-made experiment for the report views
//! and the dashboard ([`fixture`]), the servers ([`servers`]), and checks
//! made after a grid ran.

pub mod fixture;
pub mod servers;

/// Where a file of the repository is, by its path from the root.
pub fn repo_path(path: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(path)
}

/// A file of the repository (grids, dashboards), by its path from the root.
pub fn repo_file(path: &str) -> String {
    let full = repo_path(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{}: {e}", full.display()))
}

/// Asserts that the cost model, calibrated on what ran in `pool`, prices
/// every job of the grid file `path` (of the repository) from this farm's
/// own measurements: a kind whose measured rows are grouped otherwise than
/// its jobs would fall back to the defaults.
pub async fn assert_priced_from_measurements(pool: &sqlx::PgPool, path: &str) {
    let text = repo_file(path);
    let (model, calibrated) = coordinator::submit::cost_model(Some(pool)).await;
    assert!(calibrated);
    // The full path: a grid's problem files are read relative to it.
    let full = repo_path(path).display().to_string();
    let dry = coordinator::submit(None, &text, &full, false, &model).await.unwrap();
    for (kind, cost) in &dry.cost.by_kind {
        assert_eq!(cost.measured, cost.jobs, "{path}: {kind}: {cost:?}");
    }
}
