//! `hfarm submit` and `hfarm status`: grids in, counts out.

use std::collections::BTreeMap;

use jobs::expand::expand;
use jobs::grid::Grid;
use jobs::{JobKind, Resource};

use crate::cost::CostModel;
use schema::{PgPool, StatusCounts, Uuid};

#[derive(Debug, thiserror::Error)]
pub enum SubmitError {
    #[error(transparent)]
    Grid(#[from] jobs::grid::GridError),
    #[error(transparent)]
    Db(#[from] schema::DbError),
    #[error("no experiment {0}")]
    UnknownExperiment(Uuid),
}

/// What a submission did (or, dry, would do).
#[derive(Debug, serde::Serialize)]
pub struct SubmitReport {
    /// None for a dry run.
    pub experiment: Option<Uuid>,
    pub name: String,
    /// Jobs per kind in the grid.
    pub jobs: BTreeMap<JobKind, usize>,
    /// Jobs that did not exist before (None for a dry run).
    pub new: Option<usize>,
    /// Jobs reused from earlier submissions (None for a dry run).
    pub reused: Option<usize>,
    /// Projected CPU- and GPU-hours per kind.
    pub cost: crate::cost::Projection,
}

/// Parses and expands a grid and projects its cost with `model`; records
/// it unless `pool` is None (dry run). Files the grid names
/// (`[[graphlearn]]` problems) are read relative to `grid_file`'s directory.
pub async fn submit(
    pool: Option<&PgPool>,
    grid_text: &str,
    grid_file: &str,
    force: bool,
    model: &CostModel,
) -> Result<SubmitReport, SubmitError> {
    let mut grid = Grid::parse(grid_text, grid_file)?;
    let base = std::path::Path::new(grid_file).parent().unwrap_or(std::path::Path::new("."));
    grid.read_files(base, grid_file)?;
    let expansion = expand(&grid);
    let jobs = expansion.counts();
    let cost = crate::cost::project(&expansion.jobs, model);
    let mut report = SubmitReport { experiment: None, name: grid.name.clone(), jobs, new: None, reused: None, cost };
    if let Some(pool) = pool {
        let id = schema::create_experiment(pool, &grid.name, &grid.description, grid_text).await?;
        let s = schema::submit_jobs(pool, id, &expansion.jobs, force).await?;
        report.experiment = Some(id);
        report.new = Some(s.new);
        report.reused = Some(s.existing);
    }
    Ok(report)
}

#[derive(Debug, serde::Serialize)]
pub struct StatusReport {
    pub experiment: Uuid,
    pub name: String,
    /// Every job state mapped to a count.
    pub jobs: StatusCounts,
    /// Per job kind, per state.
    pub by_kind: BTreeMap<JobKind, StatusCounts>,
}

pub async fn status(pool: &PgPool, experiment: Uuid) -> Result<StatusReport, SubmitError> {
    let Some(name) = schema::experiments::experiment_name(pool, experiment).await? else {
        return Err(SubmitError::UnknownExperiment(experiment));
    };
    let jobs = schema::status_counts(pool, experiment).await?;
    let by_kind = schema::experiments::kind_status_counts(pool, experiment).await?;
    Ok(StatusReport { experiment, name, jobs, by_kind })
}

/// The experiment's unfinished jobs priced by the cost model
/// ([`cost_model`], as `hfarm submit --dry-run` prices them): seconds of
/// work left per resource class, for [`crate::cost::eta`].
pub async fn work_left(pool: &PgPool, experiment: Uuid) -> Result<BTreeMap<Resource, f64>, schema::DbError> {
    let rows = schema::metrics::remaining(pool, experiment).await?;
    let (model, _) = cost_model(Some(pool)).await;
    Ok(crate::cost::remaining_seconds(&rows, &model))
}

/// The cost model calibrated on the farm's finished jobs where the database
/// has some, else the reference machine's defaults (and says which).
pub async fn cost_model(pool: Option<&PgPool>) -> (CostModel, bool) {
    let Some(pool) = pool else { return (CostModel::defaults(), false) };
    match schema::metrics::measured_rates(pool).await {
        Ok(rows) if !rows.is_empty() => (CostModel::calibrated(rows), true),
        _ => (CostModel::defaults(), false),
    }
}
