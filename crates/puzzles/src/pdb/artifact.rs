//! A PDB as a content-keyed artifact: what it abstracts ([`PdbSpec`]), its
//! table, and a byte form that any store can keep (a directory here; the
//! farm's PostgreSQL later, as a `bytea` under the same key).
//!
//! The key is SHA-256 over the spec's canonical text and the format version
//! (as the farm's job keys are SHA-256 over canonical JSON): equal specs
//! share one artifact, and a format change makes new keys instead of
//! misreading old bytes.
//!
//! Byte layout (little-endian), format 1:
//!
//! ```text
//! "HFARMPDB"  u32 format
//! u16 len, domain name     u16 len, abstraction name     u16 len, pattern bytes
//! u8 table kind (0 dense, 1 sparse)   u64 entries   u8 max value
//! [32] SHA-256 of the payload
//! payload: dense: one u8 per entry, by rank
//!          sparse: entries u128 keys (ascending), then entries u8 values
//! ```

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use super::UNREACHED;
use crate::PuzzleError;

/// Bumped whenever the byte layout or a builder's meaning changes.
pub const FORMAT: u32 = 1;
const MAGIC: &[u8; 8] = b"HFARMPDB";

/// What an abstraction keeps of a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Abstraction {
    /// Sliding tiles: the pattern tiles' cells; moves of other tiles cost 0
    /// (additive across disjoint patterns); the entry is the minimum over
    /// the blank's cell.
    TilesAdditive,
    /// Pancakes: the pattern pancakes' locations; a flip costs 1 when the
    /// pancake on top before it is a pattern pancake (additive).
    PancakeLocation,
    /// Blocksworld: stack heights, pattern blocks' stack heights and places,
    /// which pattern blocks share a stack; every move costs 1.
    BlocksShape,
}

impl Abstraction {
    pub const ALL: [Abstraction; 3] =
        [Abstraction::TilesAdditive, Abstraction::PancakeLocation, Abstraction::BlocksShape];

    pub fn as_str(self) -> &'static str {
        match self {
            Abstraction::TilesAdditive => "tiles-additive",
            Abstraction::PancakeLocation => "pancake-location",
            Abstraction::BlocksShape => "blocks-shape",
        }
    }

    fn from_name(s: &str) -> Option<Abstraction> {
        Abstraction::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// What a PDB is of: enough to build it again, and its key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PdbSpec {
    /// The registry's domain name (`"15-puzzle"`), which fixes the geometry.
    pub domain: String,
    pub abstraction: Abstraction,
    /// Tiles, pancakes or blocks, in the order the perfect hash ranks them.
    pub pattern: Vec<u8>,
}

impl PdbSpec {
    /// The text the key hashes.
    pub fn canonical(&self) -> String {
        let pattern: Vec<String> = self.pattern.iter().map(|p| p.to_string()).collect();
        format!(
            "hfarm-pdb\nformat={FORMAT}\ndomain={}\nabstraction={}\npattern={}\n",
            self.domain,
            self.abstraction.as_str(),
            pattern.join(",")
        )
    }

    /// The content key: lowercase hex SHA-256 of [`PdbSpec::canonical`].
    pub fn key(&self) -> String {
        hex(&Sha256::digest(self.canonical().as_bytes()))
    }

    /// `15-puzzle tiles-additive 1,2,3`, for messages.
    pub fn describe(&self) -> String {
        let pattern: Vec<String> = self.pattern.iter().map(|p| p.to_string()).collect();
        format!("{} {} {}", self.domain, self.abstraction.as_str(), pattern.join(","))
    }
}

/// The values, by perfect-hash rank (dense) or by sorted exact key (sparse,
/// for abstractions without a dense ranking).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Table {
    Dense(Vec<u8>),
    Sparse { keys: Vec<u128>, values: Vec<u8> },
}

/// A built pattern database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pdb {
    pub spec: PdbSpec,
    pub table: Table,
}

impl Pdb {
    pub fn entries(&self) -> u64 {
        match &self.table {
            Table::Dense(v) => v.len() as u64,
            Table::Sparse { values, .. } => values.len() as u64,
        }
    }

    fn values(&self) -> &[u8] {
        match &self.table {
            Table::Dense(v) => v,
            Table::Sparse { values, .. } => values,
        }
    }

    /// The largest reached entry (the paper's code scales features by it).
    pub fn max_value(&self) -> u8 {
        self.values().iter().copied().filter(|&v| v != UNREACHED).max().unwrap_or(0)
    }

    /// How many entries hold each value (index = value; unreached excluded).
    pub fn histogram(&self) -> Vec<u64> {
        let mut h = vec![0u64; self.max_value() as usize + 1];
        for &v in self.values().iter().filter(|&&v| v != UNREACHED) {
            h[v as usize] += 1;
        }
        h
    }

    /// The mean over reached entries.
    pub fn mean(&self) -> f64 {
        let h = self.histogram();
        let n: u64 = h.iter().sum();
        h.iter().enumerate().map(|(v, &c)| v as f64 * c as f64).sum::<f64>() / n.max(1) as f64
    }

    /// Bytes of the table (what it costs in memory).
    pub fn table_bytes(&self) -> u64 {
        match &self.table {
            Table::Dense(v) => v.len() as u64,
            Table::Sparse { keys, values } => keys.len() as u64 * 16 + values.len() as u64,
        }
    }

    /// The dense entry at `rank`.
    #[inline]
    pub fn dense(&self) -> &[u8] {
        match &self.table {
            Table::Dense(v) => v,
            Table::Sparse { .. } => &[],
        }
    }

    /// The sparse entry with `key`, if any.
    pub fn sparse_get(&self, key: u128) -> Option<u8> {
        match &self.table {
            Table::Sparse { keys, values } => keys.binary_search(&key).ok().map(|i| values[i]),
            Table::Dense(_) => None,
        }
    }

    fn payload(&self) -> Vec<u8> {
        match &self.table {
            Table::Dense(_) => Vec::new(),
            Table::Sparse { keys, values } => {
                let mut p = Vec::with_capacity(keys.len() * 17);
                for k in keys {
                    p.extend_from_slice(&k.to_le_bytes());
                }
                p.extend_from_slice(values);
                p
            }
        }
    }

    /// The artifact's bytes (header, checksum, payload).
    pub fn to_bytes(&self) -> Vec<u8> {
        let owned;
        let payload: &[u8] = match &self.table {
            Table::Dense(v) => v,
            Table::Sparse { .. } => {
                owned = self.payload();
                &owned
            }
        };
        let mut out = Vec::with_capacity(payload.len() + 128);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&FORMAT.to_le_bytes());
        for field in [self.spec.domain.as_bytes(), self.spec.abstraction.as_str().as_bytes(), &self.spec.pattern] {
            out.extend_from_slice(&(field.len() as u16).to_le_bytes());
            out.extend_from_slice(field);
        }
        out.push(matches!(self.table, Table::Sparse { .. }) as u8);
        out.extend_from_slice(&self.entries().to_le_bytes());
        out.push(self.max_value());
        out.extend_from_slice(&Sha256::digest(payload));
        out.extend_from_slice(payload);
        out
    }

    /// Reads an artifact, checking magic, format, sizes and checksum.
    /// Takes the bytes by value so a dense table reuses their memory.
    pub fn from_bytes(mut bytes: Vec<u8>) -> Result<Pdb, PuzzleError> {
        let bad = |why: &str| PuzzleError::BadArtifact(why.to_string());
        let mut r = Reader { bytes: &bytes, at: 0 };
        if r.take(8)? != MAGIC {
            return Err(bad("not a PDB artifact (bad magic)"));
        }
        let format = u32::from_le_bytes(r.array()?);
        if format != FORMAT {
            return Err(bad(&format!("format {format}, this build reads format {FORMAT}")));
        }
        let mut field = || -> Result<Vec<u8>, PuzzleError> {
            let len = u16::from_le_bytes(r.array()?) as usize;
            Ok(r.take(len)?.to_vec())
        };
        let domain = String::from_utf8(field()?).map_err(|_| bad("domain name is not UTF-8"))?;
        let abstraction = String::from_utf8(field()?).map_err(|_| bad("abstraction name is not UTF-8"))?;
        let abstraction =
            Abstraction::from_name(&abstraction).ok_or_else(|| bad(&format!("unknown abstraction {abstraction:?}")))?;
        let pattern = field()?;
        let sparse = match r.take(1)?[0] {
            0 => false,
            1 => true,
            k => return Err(bad(&format!("unknown table kind {k}"))),
        };
        let entries = u64::from_le_bytes(r.array()?) as usize;
        let _max = r.take(1)?[0];
        let checksum: [u8; 32] = r.array()?;
        let start = r.at;
        let expected = if sparse { entries.checked_mul(17) } else { Some(entries) };
        if expected != Some(bytes.len() - start) {
            return Err(bad(&format!("payload of {} bytes for {entries} entries", bytes.len() - start)));
        }
        if Sha256::digest(&bytes[start..]).as_slice() != checksum {
            return Err(bad("checksum mismatch: the artifact is corrupt"));
        }
        let spec = PdbSpec { domain, abstraction, pattern };
        let table = if sparse {
            let payload = &bytes[start..];
            let mut keys = Reader { bytes: &payload[..entries * 16], at: 0 };
            let keys = (0..entries).map(|_| keys.array().map(u128::from_le_bytes)).collect::<Result<_, _>>()?;
            Table::Sparse { keys, values: payload[entries * 16..].to_vec() }
        } else {
            bytes.drain(..start);
            Table::Dense(bytes)
        };
        Ok(Pdb { spec, table })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], PuzzleError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| PuzzleError::BadArtifact("truncated header".into()))?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    /// The next `N` bytes as an array (a fixed-size header field).
    fn array<const N: usize>(&mut self) -> Result<[u8; N], PuzzleError> {
        let s = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Where built PDBs are kept, by key. A directory here; the farm can keep
/// the same bytes in PostgreSQL.
pub trait PdbStore: Sync {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, PuzzleError>;
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), PuzzleError>;
}

/// `DIR/KEY.pdb` files, written to a temporary name and renamed, so a
/// reader never sees half a file.
#[derive(Debug, Clone)]
pub struct DirStore {
    pub dir: PathBuf,
}

impl DirStore {
    pub fn new(dir: impl Into<PathBuf>) -> DirStore {
        DirStore { dir: dir.into() }
    }

    pub fn path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.pdb"))
    }
}

fn io_err(path: &Path, e: std::io::Error) -> PuzzleError {
    PuzzleError::Io(format!("{}: {e}", path.display()))
}

impl PdbStore for DirStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, PuzzleError> {
        let path = self.path(key);
        match fs::read(&path) {
            Ok(b) => Ok(Some(b)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), PuzzleError> {
        fs::create_dir_all(&self.dir).map_err(|e| io_err(&self.dir, e))?;
        let path = self.path(key);
        let tmp = self.dir.join(format!(".{key}.{}.tmp", std::process::id()));
        let write = || -> std::io::Result<()> {
            let mut f = fs::File::create(&tmp)?;
            f.write_all(bytes)?;
            f.sync_all()?;
            fs::rename(&tmp, &path)
        };
        write().map_err(|e| {
            let _ = fs::remove_file(&tmp);
            io_err(&path, e)
        })
    }
}

/// An in-memory store (tests, one-off runs).
#[derive(Debug, Default)]
pub struct MemStore {
    map: Mutex<std::collections::HashMap<String, Vec<u8>>>,
}

impl PdbStore for MemStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, PuzzleError> {
        Ok(self.map.lock().unwrap_or_else(|e| e.into_inner()).get(key).cloned())
    }

    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), PuzzleError> {
        self.map.lock().unwrap_or_else(|e| e.into_inner()).insert(key.to_string(), bytes.to_vec());
        Ok(())
    }
}

/// Where [`load_or_build`]'s PDB came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provenance {
    Loaded,
    Built,
    /// The stored bytes were unreadable or of another spec (the reason):
    /// built again and stored over them.
    Rebuilt(String),
}

/// The PDB for `spec` from `store`, or built with `build` and stored.
pub fn load_or_build(
    store: &dyn PdbStore,
    spec: &PdbSpec,
    build: impl FnOnce() -> Result<Pdb, PuzzleError>,
) -> Result<(Pdb, Provenance), PuzzleError> {
    let key = spec.key();
    let mut provenance = Provenance::Built;
    if let Some(bytes) = store.get(&key)? {
        match Pdb::from_bytes(bytes) {
            Ok(pdb) if pdb.spec == *spec => return Ok((pdb, Provenance::Loaded)),
            Ok(pdb) => provenance = Provenance::Rebuilt(format!("stored under its key: {}", pdb.spec.describe())),
            Err(e) => provenance = Provenance::Rebuilt(e.to_string()),
        }
    }
    let pdb = build()?;
    debug_assert_eq!(pdb.spec, *spec);
    store.put(&key, &pdb.to_bytes())?;
    Ok((pdb, provenance))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> PdbSpec {
        PdbSpec { domain: "8-puzzle".into(), abstraction: Abstraction::TilesAdditive, pattern: vec![1, 2] }
    }

    #[test]
    fn keys_depend_on_every_field() {
        let a = spec();
        assert_eq!(a.key().len(), 64);
        assert_eq!(a.key(), spec().key());
        let mut b = spec();
        b.pattern = vec![2, 1];
        assert_ne!(a.key(), b.key(), "pattern order is the hash's order");
        let mut c = spec();
        c.domain = "3x3-puzzle".into();
        assert_ne!(a.key(), c.key());
        assert!(a.canonical().contains("format=1\n"));
    }

    #[test]
    fn bytes_round_trip_and_corruption_is_caught() {
        let dense = Pdb { spec: spec(), table: Table::Dense(vec![0, 1, 2, 3, UNREACHED]) };
        let bytes = dense.to_bytes();
        assert_eq!(Pdb::from_bytes(bytes.clone()).unwrap(), dense);
        let sparse = Pdb {
            spec: PdbSpec { abstraction: Abstraction::BlocksShape, ..spec() },
            table: Table::Sparse { keys: vec![3, 1 << 100], values: vec![4, 5] },
        };
        assert_eq!(Pdb::from_bytes(sparse.to_bytes()).unwrap(), sparse);
        assert_eq!(sparse.sparse_get(1 << 100), Some(5));
        assert_eq!(sparse.sparse_get(4), None);

        let mut flipped = bytes.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(Pdb::from_bytes(flipped).unwrap_err().to_string().contains("checksum"));
        assert!(Pdb::from_bytes(bytes[..bytes.len() - 1].to_vec()).is_err());
        assert!(Pdb::from_bytes(bytes[..20].to_vec()).unwrap_err().to_string().contains("truncated"));
        assert!(Pdb::from_bytes(b"not a pdb at all".to_vec()).unwrap_err().to_string().contains("magic"));
        assert_eq!(dense.max_value(), 3);
        assert_eq!(dense.histogram(), vec![1, 1, 1, 1]);
    }

    #[test]
    fn load_or_build_caches_and_rebuilds_over_corruption() {
        let dir = std::env::temp_dir().join(format!("hfarm-pdb-test-{}", std::process::id()));
        let store = DirStore::new(&dir);
        let make = || Ok(Pdb { spec: spec(), table: Table::Dense(vec![0, 1]) });
        let (a, p) = load_or_build(&store, &spec(), make).unwrap();
        assert_eq!(p, Provenance::Built);
        let (b, p) = load_or_build(&store, &spec(), || panic!("must load, not build")).unwrap();
        assert_eq!((p, &a), (Provenance::Loaded, &b));
        fs::write(store.path(&spec().key()), b"this is no artifact").unwrap();
        let (_, p) = load_or_build(&store, &spec(), make).unwrap();
        assert!(matches!(p, Provenance::Rebuilt(ref why) if why.contains("magic")), "{p:?}");
        let (_, p) = load_or_build(&store, &spec(), || panic!("stored again")).unwrap();
        assert_eq!(p, Provenance::Loaded);
        fs::remove_dir_all(&dir).unwrap();
    }
}
