//! Moving an experiment between farms (`hfarm export`, `hfarm import`) and
//! fetching one job's stored artifact (`hfarm artifact`, `GET
//! /api/jobs/{key}/artifact`).
//!
//! Tables travel as PostgreSQL's own CSV (`COPY ... TO STDOUT (FORMAT csv,
//! HEADER)`): every column as the server prints it (jsonb, numeric, bytea,
//! timestamps), so a value comes back bit for bit with `COPY ... FROM`, and
//! a new column or result table travels without a change here. The result
//! tables are found in the catalog: every table whose `job` column
//! references `jobs (key)`. An export reads one snapshot (a repeatable-read
//! transaction), so row counts and rows agree while workers write; an
//! import writes in one transaction, so a failed import leaves nothing.

use std::collections::BTreeSet;

use std::io::Read;

use futures_util::TryStreamExt;
use sqlx::{Connection, PgConnection, Row};

use crate::{DbError, PgPool, Uuid};

/// The tables an export writes before the result tables, in import order.
pub const EXPERIMENTS: &str = "experiments";
pub const JOBS: &str = "jobs";
pub const JOB_INPUTS: &str = "job_inputs";

/// A table that holds rows per job: its name, its primary key's columns
/// (the export's row order) and whether it holds artifacts (a `bytea`
/// column: checkpoints' weights), which are exported only on request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultTable {
    pub name: String,
    pub key: Vec<String>,
    pub artifacts: bool,
}

/// Every table with a `job` column that references `jobs (key)`, other
/// than the DAG's and the experiments' own (`job_inputs`,
/// `experiment_jobs`), by name.
pub async fn result_tables(conn: &mut PgConnection) -> Result<Vec<ResultTable>, DbError> {
    let rows = sqlx::query(
        "SELECT c.conrelid::regclass::text AS name,
                (SELECT array_agg(a.attname::text ORDER BY k.ord)
                 FROM pg_constraint p
                 CROSS JOIN LATERAL unnest(p.conkey) WITH ORDINALITY AS k(attnum, ord)
                 JOIN pg_attribute a ON a.attrelid = p.conrelid AND a.attnum = k.attnum
                 WHERE p.conrelid = c.conrelid AND p.contype = 'p') AS key,
                EXISTS (SELECT 1 FROM pg_attribute a
                        WHERE a.attrelid = c.conrelid AND a.atttypid = 'bytea'::regtype AND a.attnum > 0
                          AND NOT a.attisdropped) AS artifacts
         FROM pg_constraint c
         JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
         WHERE c.contype = 'f' AND c.confrelid = 'jobs'::regclass AND a.attname = 'job'
           AND cardinality(c.conkey) = 1
           AND c.conrelid NOT IN ('job_inputs'::regclass, 'experiment_jobs'::regclass)
         ORDER BY 1",
    )
    .fetch_all(&mut *conn)
    .await?;
    let mut tables = Vec::with_capacity(rows.len());
    for r in rows {
        let name: String = r.try_get("name")?;
        let key: Option<Vec<String>> = r.try_get("key")?;
        // Without a primary key a second import would duplicate rows.
        let key = key.ok_or_else(|| DbError::Decode(format!("result table {name} has no primary key")))?;
        tables.push(ResultTable { name, key, artifacts: r.try_get("artifacts")? });
    }
    Ok(tables)
}

/// One table of an export to import: its CSV (header line first), read as
/// it is sent (a table of checkpoints need not fit in memory), and the row
/// count its manifest gives.
pub struct TableData {
    pub table: String,
    pub csv: Box<dyn std::io::Read + Send>,
    pub rows: u64,
}

/// Where [`export`] writes each table's CSV as it arrives from the server
/// (so an export with artifacts need not fit in memory): `begin`, the
/// table's bytes in chunks, then `end` with its row count.
pub trait Sink {
    fn begin(&mut self, table: &str) -> std::io::Result<()>;
    fn write(&mut self, chunk: &[u8]) -> std::io::Result<()>;
    fn end(&mut self, rows: u64) -> std::io::Result<()>;
}

/// Why an export stopped.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error(transparent)]
    Db(#[from] DbError),
    #[error("writing the export: {0}")]
    Write(#[from] std::io::Error),
}

impl From<sqlx::Error> for ExportError {
    fn from(e: sqlx::Error) -> Self {
        ExportError::Db(DbError::Query(e))
    }
}

/// What [`export`] read, from one snapshot.
#[derive(Debug)]
pub struct Exported {
    pub name: String,
    pub grid_toml: String,
    /// When the snapshot was taken, UTC, ISO 8601.
    pub at: String,
}

/// Reads an experiment's rows into `sink`, table by table: the experiment
/// (`experiments`, its one row), its jobs (key, spec, state, every column),
/// their inputs (`job_inputs`) and every result table's rows of those jobs,
/// by table name; tables of artifacts only when `artifacts`. None if there
/// is no such experiment.
pub async fn export(
    pool: &PgPool,
    experiment: Uuid,
    artifacts: bool,
    sink: &mut dyn Sink,
) -> Result<Option<Exported>, ExportError> {
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY").execute(&mut *tx).await?;
    let row: Option<(String, String, String)> = sqlx::query_as(
        "SELECT name, grid_toml, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')
         FROM experiments WHERE id = $1",
    )
    .bind(experiment)
    .fetch_optional(&mut *tx)
    .await?;
    let Some((name, grid_toml, at)) = row else { return Ok(None) };
    // COPY takes no parameters; the id is a parsed Uuid, so its text is safe.
    let mine = format!("SELECT job FROM experiment_jobs WHERE experiment = '{experiment}'");
    let mut queries = vec![
        (EXPERIMENTS.to_string(), format!("SELECT * FROM experiments WHERE id = '{experiment}'")),
        (JOBS.to_string(), format!("SELECT * FROM jobs WHERE key IN ({mine}) ORDER BY key")),
        (JOB_INPUTS.to_string(), format!("SELECT * FROM job_inputs WHERE job IN ({mine}) ORDER BY job, position")),
    ];
    for t in result_tables(&mut tx).await? {
        if t.artifacts && !artifacts {
            continue;
        }
        let order = t.key.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ");
        queries
            .push((t.name.clone(), format!("SELECT * FROM {} WHERE job IN ({mine}) ORDER BY {order}", quote(&t.name))));
    }
    for (table, query) in queries {
        let (rows,): (i64,) = sqlx::query_as(&format!("SELECT count(*) FROM ({query}) q")).fetch_one(&mut *tx).await?;
        sink.begin(&table)?;
        let mut chunks = tx.copy_out_raw(&format!("COPY ({query}) TO STDOUT WITH (FORMAT csv, HEADER)")).await?;
        while let Some(chunk) = chunks.try_next().await? {
            sink.write(&chunk)?;
        }
        drop(chunks);
        sink.end(rows as u64)?;
    }
    tx.commit().await?;
    Ok(Some(Exported { name, grid_toml, at }))
}

/// Why an import was refused. Nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    #[error("{file}: {what}")]
    File { file: String, what: String },
    #[error(
        "job {key} exists in this farm with a different {what} (here: {here}; in the export: {there}); nothing imported"
    )]
    Conflict { key: String, what: &'static str, here: String, there: String },
    #[error(
        "experiment {id} exists in this farm with a different grid (name here {here:?}, in the export {there:?}); \
         nothing imported"
    )]
    ExperimentConflict { id: Uuid, here: String, there: String },
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<sqlx::Error> for ImportError {
    fn from(e: sqlx::Error) -> Self {
        ImportError::Db(DbError::Query(e))
    }
}

/// What an import added; rows already present (same key) are kept as they
/// are, so a second import of the same export adds nothing.
#[derive(Debug, Default, serde::Serialize)]
pub struct Imported {
    pub experiment: Uuid,
    pub experiment_new: bool,
    pub jobs_new: u64,
    pub jobs_present: u64,
    /// Jobs this farm had unfinished that the export brings finished.
    pub jobs_completed: u64,
    /// (table, rows added, rows already present), in import order.
    pub tables: Vec<(String, u64, u64)>,
}

/// Loads an export's tables (`experiments`, `jobs`, `job_inputs`, then
/// result tables; `file` names each in errors) in one transaction. Refuses
/// a job key that exists here with another kind or spec, an experiment id
/// that exists with another grid, a table or column this database lacks,
/// and a file whose rows differ from the count the manifest gives.
pub async fn import(pool: &PgPool, tables: Vec<(String, TableData)>) -> Result<Imported, ImportError> {
    let order = [EXPERIMENTS, JOBS, JOB_INPUTS];
    for (i, want) in order.iter().enumerate() {
        if tables.get(i).map(|(_, t)| t.table.as_str()) != Some(want) {
            return Err(ImportError::File {
                file: "manifest.json".into(),
                what: format!("expected the tables {} first, in this order", order.join(", ")),
            });
        }
    }
    let mut conn = pool.acquire().await?;
    let mut tx = conn.begin().await?;
    let known: Vec<ResultTable> = result_tables(&mut tx).await?;
    let mut out = Imported::default();
    for (file, mut t) in tables {
        let file = &file;
        let staged = stage(&mut tx, file, &mut t, &known).await?;
        match t.table.as_str() {
            EXPERIMENTS => {
                let rows: Vec<(Uuid, String, String)> =
                    sqlx::query_as(&format!("SELECT id, name, grid_toml FROM {staged}")).fetch_all(&mut *tx).await?;
                let [(id, name, grid)] = rows.as_slice() else {
                    return Err(ImportError::File { file: file.clone(), what: "expected one experiment".into() });
                };
                out.experiment = *id;
                let here: Option<(String, String)> =
                    sqlx::query_as("SELECT name, grid_toml FROM experiments WHERE id = $1")
                        .bind(id)
                        .fetch_optional(&mut *tx)
                        .await?;
                match here {
                    Some((n, g)) if &g != grid => {
                        return Err(ImportError::ExperimentConflict { id: *id, here: n, there: name.clone() })
                    }
                    Some(_) => {}
                    None => {
                        sqlx::query(&format!("INSERT INTO experiments SELECT * FROM {staged}"))
                            .execute(&mut *tx)
                            .await?;
                        out.experiment_new = true;
                    }
                }
            }
            JOBS => {
                // Materialized: with the LIMIT inside, the planner walks
                // jobs' key index against every staged row (quadratic: over
                // ten minutes for 89,048 jobs); this way, one hash join.
                let clash: Option<(String, String, String, String, String)> = sqlx::query_as(&format!(
                    "WITH clash AS MATERIALIZED (
                         SELECT s.key, j.kind AS kind_here, s.kind AS kind_there, j.spec::text AS spec_here,
                                s.spec::text AS spec_there
                         FROM {staged} s JOIN jobs j ON j.key = s.key WHERE j.kind <> s.kind OR j.spec <> s.spec)
                     SELECT * FROM clash ORDER BY key LIMIT 1"
                ))
                .fetch_optional(&mut *tx)
                .await?;
                if let Some((key, kh, kt, sh, st)) = clash {
                    let (what, here, there) = if kh != kt { ("kind", kh, kt) } else { ("spec", sh, st) };
                    return Err(ImportError::Conflict { key, what, here, there });
                }
                // A job that was waiting or running in the exporting farm
                // waits here: no worker or lease of that farm means anything
                // in this one.
                sqlx::query(&format!(
                    "UPDATE {staged} SET status = 'pending', worker = NULL, lease_expires_at = NULL, queued_at = NULL,
                         started_at = NULL WHERE status IN ('queued', 'running')"
                ))
                .execute(&mut *tx)
                .await?;
                // A job this farm has but never finished, which the export
                // brings finished: take the export's state with its results.
                out.jobs_completed = sqlx::query(&format!(
                    "UPDATE jobs j SET status = s.status, attempts = s.attempts, last_error = s.last_error,
                         started_at = s.started_at, finished_at = s.finished_at, worker = NULL, lease_expires_at = NULL
                     FROM {staged} s
                     WHERE j.key = s.key AND s.status = 'succeeded'
                       AND j.status IN ('pending', 'failed', 'dead', 'cancelled', 'skipped')"
                ))
                .execute(&mut *tx)
                .await?
                .rows_affected();
                out.jobs_new = sqlx::query(&format!("INSERT INTO jobs SELECT * FROM {staged} ON CONFLICT DO NOTHING"))
                    .execute(&mut *tx)
                    .await?
                    .rows_affected();
                out.jobs_present = t.rows - out.jobs_new;
                // The deferred trigger counts them at commit (migration 0019).
                sqlx::query(&format!(
                    "INSERT INTO experiment_jobs (experiment, job) SELECT $1, key FROM {staged} ON CONFLICT DO NOTHING"
                ))
                .bind(out.experiment)
                .execute(&mut *tx)
                .await?;
            }
            _ => {
                let added = sqlx::query(&format!(
                    "INSERT INTO {} SELECT * FROM {staged} ON CONFLICT DO NOTHING",
                    quote(&t.table)
                ))
                .execute(&mut *tx)
                .await
                .map_err(|e| ImportError::File { file: file.clone(), what: e.to_string() })?
                .rows_affected();
                out.tables.push((t.table.clone(), added, t.rows - added));
            }
        }
    }
    // After `job_inputs`: a job's class reads its inputs (a learned plan's model).
    fill_cost_classes(&mut tx, out.experiment).await?;
    tx.commit().await?;
    Ok(out)
}

/// Gives the experiment's jobs that have no cost class (imported from an
/// export made before migration 0026, which has no such columns) the class
/// submission gives them: `jobs::class::JobClass::of_all` over the
/// experiment's jobs, whose inputs are all among them. A spec this build
/// cannot read keeps its class empty, as before.
async fn fill_cost_classes(tx: &mut PgConnection, experiment: Uuid) -> Result<(), DbError> {
    let missing: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM experiment_jobs e JOIN jobs j ON j.key = e.job
                        WHERE e.experiment = $1 AND (j.cost_group IS NULL OR j.cost_units IS NULL))",
    )
    .bind(experiment)
    .fetch_one(&mut *tx)
    .await?;
    if !missing {
        return Ok(());
    }
    let rows: Vec<(String, serde_json::Value, Vec<String>)> = sqlx::query_as(
        "SELECT j.key, j.spec,
                coalesce((SELECT array_agg(i.input ORDER BY i.position) FROM job_inputs i WHERE i.job = j.key),
                         '{}')
         FROM experiment_jobs e JOIN jobs j ON j.key = e.job
         WHERE e.experiment = $1",
    )
    .bind(experiment)
    .fetch_all(&mut *tx)
    .await?;
    let all: Vec<jobs::Job> = rows
        .into_iter()
        .filter_map(|(key, spec, inputs)| {
            let spec = serde_json::from_value::<jobs::JobSpec>(spec).ok()?;
            Some(jobs::Job { key: jobs::JobKey(key), spec, inputs: inputs.into_iter().map(jobs::JobKey).collect() })
        })
        .collect();
    let classes = jobs::class::JobClass::of_all(&all);
    let mut key = Vec::with_capacity(all.len());
    let (mut group, mut units, mut cap_s) = (vec![], vec![], vec![]);
    for (job, class) in all.iter().zip(classes) {
        key.push(job.key.as_str());
        group.push(class.group);
        units.push(class.units);
        cap_s.push(class.cap_s);
    }
    // Only the empty ones: a class this farm stored already stays.
    sqlx::query(
        "UPDATE jobs j SET cost_group = c.cost_group, cost_units = c.cost_units, cost_cap_s = c.cost_cap_s
         FROM unnest($1::text[], $2::text[], $3::float8[], $4::float8[]) AS c(key, cost_group, cost_units, cost_cap_s)
         WHERE j.key = c.key AND (j.cost_group IS NULL OR j.cost_units IS NULL)",
    )
    .bind(&key)
    .bind(&group)
    .bind(&units)
    .bind(&cap_s)
    .execute(&mut *tx)
    .await?;
    Ok(())
}

/// Copies a file's rows into a temporary copy of its table (dropped at
/// commit) through the columns its header names, and checks their count.
/// Table and column names are checked against this database's before they
/// reach any statement.
async fn stage(
    tx: &mut PgConnection,
    file: &str,
    t: &mut TableData,
    known: &[ResultTable],
) -> Result<String, ImportError> {
    let err = |what: String| ImportError::File { file: file.to_string(), what };
    let fixed = [EXPERIMENTS, JOBS, JOB_INPUTS].contains(&t.table.as_str());
    if !fixed && !known.iter().any(|k| k.name == t.table) {
        return Err(err(format!(
            "table {} is not a result table of this farm's database (exported by a newer hfarm?)",
            t.table
        )));
    }
    let columns: BTreeSet<String> = sqlx::query_scalar(
        "SELECT attname::text FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped",
    )
    .bind(&t.table)
    .fetch_all(&mut *tx)
    .await?
    .into_iter()
    .collect();
    // The first chunk holds the header line (column names are short).
    let mut chunk = vec![0; 1 << 20];
    let mut filled = read_some(&mut t.csv, &mut chunk).map_err(|e| err(e.to_string()))?;
    let header = header(&chunk[..filled]).map_err(|e| err(e.to_string()))?;
    for c in &header {
        if !columns.contains(c) {
            return Err(err(format!(
                "column {c} is not a column of table {} in this farm's database (exported by a newer hfarm?)",
                t.table
            )));
        }
    }
    let staged = format!("import_{}", t.table);
    sqlx::query(&format!(
        "CREATE TEMPORARY TABLE {} (LIKE {} INCLUDING DEFAULTS) ON COMMIT DROP",
        quote(&staged),
        quote(&t.table)
    ))
    .execute(&mut *tx)
    .await?;
    let list = header.iter().map(|c| quote(c)).collect::<Vec<_>>().join(", ");
    let mut copy =
        tx.copy_in_raw(&format!("COPY {} ({list}) FROM STDIN WITH (FORMAT csv, HEADER)", quote(&staged))).await?;
    while filled > 0 {
        if let Err(e) = copy.send(&chunk[..filled]).await {
            let _ = copy.abort(e.to_string()).await;
            return Err(err(e.to_string()));
        }
        filled = match read_some(&mut t.csv, &mut chunk) {
            Ok(n) => n,
            Err(e) => {
                let _ = copy.abort(e.to_string()).await;
                return Err(err(e.to_string()));
            }
        };
    }
    let rows = copy.finish().await.map_err(|e| err(e.to_string()))?;
    if rows != t.rows {
        return Err(err(format!("{rows} rows, but the manifest says {}", t.rows)));
    }
    // Statistics for the joins that follow (a new table has none).
    sqlx::query(&format!("ANALYZE {}", quote(&staged))).execute(&mut *tx).await?;
    Ok(quote(&staged))
}

/// Fills `buf` as far as `from` allows (short reads included); 0 at the end.
fn read_some(from: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match from.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// The column names of a CSV's header line as COPY writes them (names
/// quoted where they need it).
fn header(csv: &[u8]) -> Result<Vec<String>, &'static str> {
    let end = csv.iter().position(|&b| b == b'\n').ok_or("no header line")?;
    let line = std::str::from_utf8(&csv[..end]).map_err(|_| "the header line is not UTF-8")?;
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut names = vec![];
    for field in line.split(',') {
        let name = match field.strip_prefix('"').and_then(|f| f.strip_suffix('"')) {
            Some(inner) => inner.replace("\"\"", "\""),
            None => field.to_string(),
        };
        if name.is_empty() {
            return Err("an empty column name in the header line");
        }
        names.push(name);
    }
    Ok(names)
}

/// An identifier quoted for SQL.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// An artifact a job (or a content key) stores.
#[derive(Debug)]
pub struct Artifact {
    /// `checkpoint`, `plan`, or the kind stored in `artifacts` (`pdb`).
    pub kind: String,
    pub bytes: Vec<u8>,
    /// What it is, in words (for the command line's message).
    pub about: String,
    /// A checkpoint's model configuration (`learner::ModelConfig` as JSON).
    pub config: Option<serde_json::Value>,
}

impl Artifact {
    /// The kind of a train job's checkpoint.
    pub const CHECKPOINT: &'static str = "checkpoint";
    /// The kind of a generate job's optimal plan: an artifact's kind, which
    /// shares its word with the `plan` job kind and nothing else, so it is
    /// named here and compared through [`Artifact::is_plan`].
    pub const PLAN: &'static str = "plan";

    /// Whether it is an optimal plan (IPC plan text, for people), not bytes.
    pub fn is_plan(&self) -> bool {
        self.kind == Artifact::PLAN
    }
}

/// What [`artifact`] found.
#[derive(Debug)]
pub enum ArtifactLookup {
    Found(Artifact),
    /// No job and no content-keyed artifact has this key.
    NoSuchKey,
    /// The job exists but stores nothing to fetch (yet): its kind and state.
    NoArtifact {
        kind: String,
        status: String,
    },
    /// The job's checkpoints hold no such tag (or several, and none was
    /// asked for and there is no `best_mse`): the tags it has.
    Tags {
        asked: Option<String>,
        available: Vec<String>,
    },
}

/// The artifact under `key`: a content-keyed artifact (pattern databases),
/// a train job's checkpoint (`tag`, by default `best_mse`, the one the
/// reports use, or the only one), or a generate job's optimal plan (IPC
/// plan text).
pub async fn artifact(pool: &PgPool, key: &str, tag: Option<&str>) -> Result<ArtifactLookup, DbError> {
    let stored: Option<(String, Vec<u8>)> =
        sqlx::query_as("SELECT kind, bytes FROM artifacts WHERE key = $1").bind(key).fetch_optional(pool).await?;
    if let Some((kind, bytes)) = stored {
        let about = format!("{kind} artifact {key}");
        return Ok(ArtifactLookup::Found(Artifact { kind, bytes, about, config: None }));
    }
    let job: Option<(String, String)> =
        sqlx::query_as("SELECT kind, status::text FROM jobs WHERE key = $1").bind(key).fetch_optional(pool).await?;
    let Some((kind, status)) = job else { return Ok(ArtifactLookup::NoSuchKey) };
    let tags: Vec<String> =
        sqlx::query_scalar("SELECT tag FROM checkpoints WHERE job = $1 ORDER BY tag").bind(key).fetch_all(pool).await?;
    if !tags.is_empty() {
        let chosen = match tag {
            Some(t) if tags.iter().any(|x| x == t) => t.to_string(),
            None if tags.iter().any(|x| x == "best_mse") => "best_mse".to_string(),
            None if tags.len() == 1 => tags[0].clone(),
            _ => return Ok(ArtifactLookup::Tags { asked: tag.map(str::to_string), available: tags }),
        };
        let (step, config, weights): (i64, serde_json::Value, Vec<u8>) =
            sqlx::query_as("SELECT step, config, weights FROM checkpoints WHERE job = $1 AND tag = $2")
                .bind(key)
                .bind(&chosen)
                .fetch_one(pool)
                .await?;
        let about = format!("checkpoint {chosen} of {kind} job {key} (step {step})");
        return Ok(ArtifactLookup::Found(Artifact {
            kind: Artifact::CHECKPOINT.into(),
            bytes: weights,
            about,
            config: Some(config),
        }));
    }
    if tag.is_some() {
        return Ok(ArtifactLookup::Tags { asked: tag.map(str::to_string), available: vec![] });
    }
    let plan: Option<(serde_json::Value, i32)> =
        sqlx::query_as("SELECT plan, optimal_cost FROM instances WHERE job = $1")
            .bind(key)
            .fetch_optional(pool)
            .await?;
    if let Some((plan, cost)) = plan {
        let steps: Vec<String> =
            serde_json::from_value(plan).map_err(|e| DbError::Decode(format!("plan of {key}: {e}")))?;
        let mut text = String::new();
        for s in &steps {
            // IPC plan files hold one parenthesised action per line.
            if s.starts_with('(') {
                text.push_str(s);
            } else {
                text.push_str(&format!("({s})"));
            }
            text.push('\n');
        }
        text.push_str(&format!("; cost = {cost} (unit cost)\n"));
        let about = format!("optimal plan of {kind} job {key} ({} steps)", steps.len());
        return Ok(ArtifactLookup::Found(Artifact {
            kind: Artifact::PLAN.into(),
            bytes: text.into_bytes(),
            about,
            config: None,
        }));
    }
    Ok(ArtifactLookup::NoArtifact { kind, status })
}

#[cfg(test)]
mod tests {
    #[test]
    fn headers_are_read_as_copy_writes_them() {
        assert_eq!(super::header(b"job,step,\"we\"\"ird\"\n1,2,3\n").unwrap(), ["job", "step", "we\"ird"]);
        assert!(super::header(b"job,step").is_err());
        assert!(super::header(b"job,,step\n").is_err());
    }

    /// An export's tables kept in memory: (table, CSV, rows).
    #[derive(Default)]
    struct Memory(Vec<(String, Vec<u8>, u64)>);

    impl super::Sink for Memory {
        fn begin(&mut self, table: &str) -> std::io::Result<()> {
            self.0.push((table.to_string(), vec![], 0));
            Ok(())
        }
        fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
            self.0.last_mut().unwrap().1.extend_from_slice(chunk);
            Ok(())
        }
        fn end(&mut self, rows: u64) -> std::io::Result<()> {
            self.0.last_mut().unwrap().2 = rows;
            Ok(())
        }
    }

    /// An export made before migration 0026 has no cost columns; its jobs
    /// come in with the class submission gives them (`JobClass::of_all`).
    #[tokio::test]
    async fn jobs_imported_without_a_cost_class_get_the_one_submission_gives() {
        use jobs::class::JobClass;
        let (a, b) = (crate::testing::TestDatabase::create().await, crate::testing::TestDatabase::create().await);
        let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../grids/quick.toml")).unwrap();
        let grid = jobs::grid::Grid::parse(&text, "quick.toml").unwrap();
        let all = jobs::expand::expand(&grid).jobs;
        let e = crate::create_experiment(&a.pool, &grid.name, "", &text).await.unwrap();
        crate::submit_jobs(&a.pool, e, &all, false).await.unwrap();
        // The farm that made the export had no such columns yet.
        sqlx::query("ALTER TABLE jobs DROP COLUMN cost_group, DROP COLUMN cost_units, DROP COLUMN cost_cap_s")
            .execute(&a.pool)
            .await
            .unwrap();
        let mut sink = Memory::default();
        super::export(&a.pool, e, false, &mut sink).await.unwrap().unwrap();
        let tables = sink
            .0
            .into_iter()
            .map(|(table, csv, rows)| {
                let csv: Box<dyn std::io::Read + Send> = Box::new(std::io::Cursor::new(csv));
                (format!("{table}.csv"), super::TableData { table, csv, rows })
            })
            .collect();
        let imported = super::import(&b.pool, tables).await.unwrap();
        assert_eq!(imported.jobs_new as usize, all.len());

        type Class = (Option<String>, Option<f64>, Option<f64>);
        type Stored = (String, Option<String>, Option<f64>, Option<f64>);
        let stored: Vec<Stored> = sqlx::query_as("SELECT key, cost_group, cost_units, cost_cap_s FROM jobs")
            .fetch_all(&b.pool)
            .await
            .unwrap();
        let stored: std::collections::HashMap<String, Class> =
            stored.into_iter().map(|(k, g, u, c)| (k, (g, u, c))).collect();
        assert_eq!(stored.len(), all.len());
        let classes = JobClass::of_all(&all);
        for (j, c) in all.iter().zip(&classes) {
            let want: Class = (Some(c.group.clone()), Some(c.units), c.cap_s);
            assert_eq!(stored[j.key.as_str()], want, "{} job {}", c.kind, j.key);
        }
        // What reads a job's inputs was read: learned plans priced by their
        // model, and plans behind a reserve draw taking no units.
        let plans = || all.iter().zip(&classes).filter(|(j, _)| j.spec.kind() == jobs::JobKind::Plan);
        let learned = |j: &jobs::Job| {
            matches!(&j.spec, jobs::JobSpec::Plan { heuristic: jobs::spec::PlanHeuristic::Learned { .. }, .. })
        };
        assert!(plans().any(|(j, c)| learned(j) && !c.group.is_empty()), "no learned plan priced by its model");
        assert!(plans().any(|(_, c)| c.units == 0.0), "no plan behind a reserve draw");
    }
}
