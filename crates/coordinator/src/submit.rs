//! `hfarm submit` and `hfarm status`: grids in, counts out.

use std::collections::BTreeMap;

use jobs::expand::expand;
use jobs::grid::Grid;
use sqlx::PgPool;
use uuid::Uuid;

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
    pub jobs: BTreeMap<String, usize>,
    /// Jobs that did not exist before (None for a dry run).
    pub new: Option<usize>,
    /// Jobs reused from earlier submissions (None for a dry run).
    pub reused: Option<usize>,
}

/// Parses and expands a grid; records it unless `pool` is None (dry run).
pub async fn submit(
    pool: Option<&PgPool>,
    grid_text: &str,
    grid_file: &str,
    force: bool,
) -> Result<SubmitReport, SubmitError> {
    let grid = Grid::parse(grid_text, grid_file)?;
    let expansion = expand(&grid);
    let jobs = expansion.counts().into_iter().map(|(k, n)| (k.as_str().to_string(), n)).collect();
    let mut report = SubmitReport { experiment: None, name: grid.name.clone(), jobs, new: None, reused: None };
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
    pub jobs: BTreeMap<String, i64>,
    /// Per job kind, per state.
    pub by_kind: BTreeMap<String, BTreeMap<String, i64>>,
}

pub async fn status(pool: &PgPool, experiment: Uuid) -> Result<StatusReport, SubmitError> {
    let name: Option<(String,)> = sqlx::query_as("SELECT name FROM experiments WHERE id = $1")
        .bind(experiment)
        .fetch_optional(pool)
        .await
        .map_err(schema::DbError::from)?;
    let Some((name,)) = name else { return Err(SubmitError::UnknownExperiment(experiment)) };
    let jobs = schema::status_counts(pool, experiment).await?;
    let rows: Vec<(String, String, i64)> = sqlx::query_as(
        "SELECT j.kind, j.status::text, count(*) FROM jobs j JOIN experiment_jobs e ON e.job = j.key
         WHERE e.experiment = $1 GROUP BY 1, 2",
    )
    .bind(experiment)
    .fetch_all(pool)
    .await
    .map_err(schema::DbError::from)?;
    let mut by_kind: BTreeMap<String, BTreeMap<String, i64>> = BTreeMap::new();
    for (kind, st, n) in rows {
        by_kind.entry(kind).or_default().insert(st, n);
    }
    Ok(StatusReport { experiment, name, jobs, by_kind })
}
