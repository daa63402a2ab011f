//! `hfarm export EXP --out DIR`, `hfarm import DIR` and `hfarm artifact KEY
//! --out FILE`: an experiment's rows as files another farm loads with the
//! same job keys (so its `hfarm report` prints the same tables without
//! recomputing), and one job's stored artifact as a file.
//!
//! An export is a folder: `experiments.csv`, `grid.toml`, `jobs.csv`,
//! `job_inputs.csv`, one CSV per result table (PostgreSQL's CSV, header
//! first; `schema::export` says why) and `manifest.json`, written last, with
//! each file's SHA-256, size and row count, the hfarm version and the
//! export's time. An import checks every checksum before it connects.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use schema::export::{ArtifactLookup, TableData};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::farm::Database;
use super::ops::Experiment;

/// The manifest's format; an import refuses another.
pub const FORMAT: &str = "hfarm-export/1";
pub const MANIFEST: &str = "manifest.json";

#[derive(clap::Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub experiment: Experiment,
    /// The folder to write (created; it must not exist or be empty).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    /// Also the artifacts of its jobs (checkpoints' weights, in the tables
    /// that hold bytes); without it they are left out.
    #[arg(long)]
    pub artifacts: bool,
    /// The manifest as JSON on stdout instead of a summary.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

#[derive(clap::Args)]
pub struct ImportArgs {
    /// A folder `hfarm export` wrote (with its manifest.json).
    #[arg(value_name = "DIR")]
    pub dir: PathBuf,
    /// What was added, as one JSON object.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub db: Database,
}

#[derive(clap::Args)]
pub struct ArtifactArgs {
    /// A train job's key (its checkpoint), a generate job's (its optimal
    /// plan, IPC plan text) or a content-keyed artifact's (a pattern database).
    pub key: String,
    /// The file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Which checkpoint: best_mse (the default, the one reports use), best_nll or last.
    #[arg(long)]
    pub tag: Option<String>,
    #[command(flatten)]
    pub db: Database,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    pub hfarm_version: String,
    /// When the export's snapshot was read, UTC.
    pub exported_at: String,
    pub experiment: ManifestExperiment,
    pub artifacts: bool,
    /// In import order.
    pub files: Vec<ManifestFile>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ManifestExperiment {
    pub id: schema::Uuid,
    pub name: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ManifestFile {
    /// A file name in the export's folder.
    pub path: String,
    /// The table it holds (none for grid.toml).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    pub bytes: u64,
    pub sha256: String,
}

fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// An export's tables as files `TABLE.csv`, each hashed as it is written.
struct Files {
    dir: PathBuf,
    open: Option<(String, std::io::BufWriter<std::fs::File>, Sha256, u64)>,
    files: Vec<ManifestFile>,
}

/// A sink called out of order (a table written or ended before it began):
/// an error of the export, not a panic.
fn out_of_order(what: &str) -> std::io::Error {
    std::io::Error::other(format!("export: {what} before a table began"))
}

impl schema::export::Sink for Files {
    fn begin(&mut self, table: &str) -> std::io::Result<()> {
        let name = format!("{table}.csv");
        let path = self.dir.join(&name);
        let file = std::fs::File::create(&path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        self.open = Some((name, std::io::BufWriter::new(file), Sha256::new(), 0));
        Ok(())
    }

    fn write(&mut self, chunk: &[u8]) -> std::io::Result<()> {
        let (_, file, hash, bytes) = self.open.as_mut().ok_or_else(|| out_of_order("write"))?;
        hash.update(chunk);
        *bytes += chunk.len() as u64;
        file.write_all(chunk)
    }

    fn end(&mut self, rows: u64) -> std::io::Result<()> {
        let (name, file, hash, bytes) = self.open.take().ok_or_else(|| out_of_order("end"))?;
        file.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        let table = name.strip_suffix(".csv").map(str::to_string);
        self.files.push(ManifestFile { path: name, table, rows: Some(rows), bytes, sha256: hex(&hash.finalize()) });
        Ok(())
    }
}

pub fn export(a: ExportArgs) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let manifest = super::farm::runtime()?.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        let id = super::ops::resolve(&pool, &a.experiment.experiment).await?;
        export_to(&pool, id, &a.out, a.artifacts).await
    })?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&manifest)?);
    } else {
        let bytes: u64 = manifest.files.iter().map(|f| f.bytes).sum();
        println!(
            "exported experiment {} ({}) to {}: {} files, {} bytes, in {:.2} s",
            manifest.experiment.name,
            manifest.experiment.id,
            a.out.display(),
            manifest.files.len() + 1,
            bytes,
            started.elapsed().as_secs_f64()
        );
        for f in &manifest.files {
            if let Some(rows) = f.rows {
                println!("  {:28} {rows:>9} rows {:>12} bytes", f.path, f.bytes);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes the export of `experiment` into `out` and returns its manifest.
pub async fn export_to(
    pool: &schema::PgPool,
    experiment: schema::Uuid,
    out: &Path,
    artifacts: bool,
) -> Result<Manifest> {
    if out.exists() {
        let empty = out.is_dir() && std::fs::read_dir(out).with_context(|| out.display().to_string())?.next().is_none();
        if !empty {
            bail!("{}: exists and is not an empty folder (an export writes a folder of its own)", out.display());
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut sink = Files { dir: out.to_path_buf(), open: None, files: vec![] };
    let e = schema::export::export(pool, experiment, artifacts, &mut sink)
        .await
        .with_context(|| format!("exporting into {}", out.display()))?
        .with_context(|| format!("no experiment {experiment}"))?;
    // The grid as it was submitted, for readers (the import reads the
    // experiment's row, which holds the same text).
    let grid = out.join("grid.toml");
    std::fs::write(&grid, &e.grid_toml).with_context(|| format!("writing {}", grid.display()))?;
    let mut files = vec![ManifestFile {
        path: "grid.toml".into(),
        table: None,
        rows: None,
        bytes: e.grid_toml.len() as u64,
        sha256: sha256_hex(e.grid_toml.as_bytes()),
    }];
    files.append(&mut sink.files);
    let manifest = Manifest {
        format: FORMAT.to_string(),
        hfarm_version: env!("CARGO_PKG_VERSION").to_string(),
        exported_at: e.at,
        experiment: ManifestExperiment { id: experiment, name: e.name },
        artifacts,
        files,
    };
    // Last: a folder without a manifest is an export that did not finish.
    let path = out.join(MANIFEST);
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(manifest)
}

pub fn import(a: ImportArgs) -> Result<ExitCode> {
    let started = std::time::Instant::now();
    let (manifest, imported) = super::farm::runtime()?.block_on(async {
        // Every file is read and checked before the database is touched.
        let (manifest, tables) = read_export(&a.dir)?;
        let pool = schema::connect(&a.db.database_url).await?;
        let imported = schema::export::import(&pool, tables).await?;
        anyhow::Ok((manifest, imported))
    })?;
    if a.json {
        println!("{}", serde_json::to_string(&imported)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "imported experiment {} ({}) from {} (exported {} by hfarm {}) in {:.2} s: {}",
        manifest.experiment.name,
        imported.experiment,
        a.dir.display(),
        manifest.exported_at,
        manifest.hfarm_version,
        started.elapsed().as_secs_f64(),
        if imported.experiment_new { "new here" } else { "already here" }
    );
    println!(
        "  {:28} {:>9} new {:>9} already here{}",
        "jobs",
        imported.jobs_new,
        imported.jobs_present,
        if imported.jobs_completed > 0 {
            format!(" ({} unfinished here, now succeeded)", imported.jobs_completed)
        } else {
            String::new()
        }
    );
    for (table, added, present) in &imported.tables {
        println!("  {table:28} {added:>9} new {present:>9} already here");
    }
    Ok(ExitCode::SUCCESS)
}

/// Reads an export's manifest and files, checking each file's size and
/// SHA-256 against the manifest: the tables to import, in order.
pub fn read_export(dir: &Path) -> Result<(Manifest, Vec<(String, TableData)>)> {
    let path = dir.join(MANIFEST);
    let text =
        std::fs::read(&path).with_context(|| format!("{}: cannot read the export's manifest", path.display()))?;
    let manifest: Manifest = serde_json::from_slice(&text).with_context(|| format!("{}", path.display()))?;
    if manifest.format != FORMAT {
        bail!("{}: format: expected {FORMAT:?}, found {:?}", path.display(), manifest.format);
    }
    let mut tables = vec![];
    for (i, f) in manifest.files.iter().enumerate() {
        // A name, not a path: an export reads nothing outside its folder.
        let plain = !f.path.is_empty() && f.path != "." && f.path != ".." && !f.path.contains(['/', '\\']);
        if !plain {
            bail!(
                "{}: files[{i}].path: expected a file name in the export's folder, found {:?}",
                path.display(),
                f.path
            );
        }
        let file = dir.join(&f.path);
        let opened =
            || std::fs::File::open(&file).with_context(|| format!("{}: listed in the manifest", file.display()));
        // Hashed in chunks: a table of checkpoints need not fit in memory.
        let (mut reader, mut hash, mut bytes, mut buf) = (opened()?, Sha256::new(), 0u64, vec![0; 1 << 20]);
        loop {
            let n = reader.read(&mut buf).with_context(|| format!("reading {}", file.display()))?;
            if n == 0 {
                break;
            }
            hash.update(&buf[..n]);
            bytes += n as u64;
        }
        let sum = hex(&hash.finalize());
        if sum != f.sha256 || bytes != f.bytes {
            bail!(
                "{}: checksum mismatch: sha256 {sum} ({bytes} bytes), the manifest says {} ({} bytes): the file \
                 changed since the export; nothing imported",
                file.display(),
                f.sha256,
                f.bytes
            );
        }
        match (&f.table, f.rows) {
            (Some(table), Some(rows)) => {
                let csv = Box::new(std::io::BufReader::new(opened()?));
                tables.push((file.display().to_string(), TableData { table: table.clone(), csv, rows }))
            }
            (Some(_), None) => bail!("{}: files[{i}].rows: expected the row count of {}", path.display(), f.path),
            (None, _) => {}
        }
    }
    Ok((manifest, tables))
}

pub fn artifact(a: ArtifactArgs) -> Result<ExitCode> {
    if a.key.is_empty() || a.key.len() > 128 || a.key.contains('\0') {
        bail!("not a job or artifact key: {:?}", a.key);
    }
    let found = super::farm::runtime()?.block_on(async {
        let pool = schema::connect(&a.db.database_url).await?;
        anyhow::Ok(schema::export::artifact(&pool, &a.key, a.tag.as_deref()).await?)
    })?;
    let art = match found {
        ArtifactLookup::Found(art) => art,
        ArtifactLookup::NoSuchKey => bail!("no job or artifact {} (`hfarm job KEY` takes a key's start)", a.key),
        ArtifactLookup::NoArtifact { kind, status } => bail!(
            "{kind} job {} ({status}) stores no artifact: checkpoints are train jobs', optimal plans generate jobs' \
             (once succeeded)",
            a.key
        ),
        ArtifactLookup::Tags { asked, available } if available.is_empty() => {
            bail!("job {} has no checkpoints (--tag {} asked for one)", a.key, asked.unwrap_or_default())
        }
        ArtifactLookup::Tags { asked, available } => bail!(
            "job {} has no checkpoint {}; it has: {} (--tag)",
            a.key,
            asked.map_or_else(|| "chosen".to_string(), |t| format!("{t:?}")),
            available.join(", ")
        ),
    };
    std::fs::write(&a.out, &art.bytes).with_context(|| format!("writing {}", a.out.display()))?;
    let mut said = format!("wrote {} bytes to {}: {}", art.bytes.len(), a.out.display(), art.about);
    if let Some(config) = &art.config {
        // The weights alone do not say which network they fill.
        let mut side = a.out.clone().into_os_string();
        side.push(".config.json");
        let side = PathBuf::from(side);
        std::fs::write(&side, serde_json::to_vec_pretty(config)?)
            .with_context(|| format!("writing {}", side.display()))?;
        said.push_str(&format!("; its model configuration: {}", side.display()));
    }
    println!("{said}");
    Ok(ExitCode::SUCCESS)
}
