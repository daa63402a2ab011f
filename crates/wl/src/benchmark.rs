//! The IPC 2023 learning track as committed in `benchmarks/ipc2023-learning/`:
//! one gzipped ustar archive per domain holding `<domain>/domain.pddl`,
//! `<domain>/training/easy/*.pddl` and `<domain>/testing/<band>/*.pddl`.
//!
//! The archives are read whole into memory (the largest, sokoban, is 30 MB of
//! text), with a ustar reader of our own: the `tar` crate is not available
//! offline, and the archives are made by us with `--format=ustar`, so only
//! regular files, directories and the name prefix field need handling.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;

/// The track's ten domains, in the order of its tables.
pub const DOMAINS: [&str; 10] = [
    "blocksworld",
    "childsnack",
    "ferry",
    "floortile",
    "miconic",
    "rovers",
    "satellite",
    "sokoban",
    "spanner",
    "transport",
];

/// The test problems' difficulty bands.
pub const BANDS: [&str; 3] = ["easy", "medium", "hard"];

/// One domain's files: paths inside the archive to their text.
#[derive(Debug, Clone)]
pub struct DomainSet {
    pub name: String,
    pub files: BTreeMap<String, String>,
}

/// A problem file of the set.
#[derive(Debug, Clone, Copy)]
pub struct Problem<'a> {
    /// The path inside the archive, e.g. `ferry/testing/easy/p01.pddl`.
    pub path: &'a str,
    pub text: &'a str,
}

impl DomainSet {
    /// The domain file's text; an error names the archive's missing path.
    pub fn domain_pddl(&self) -> Result<&str, String> {
        let path = format!("{}/domain.pddl", self.name);
        self.files.get(&path).map(String::as_str).ok_or_else(|| format!("the archive of {} has no {path}", self.name))
    }

    /// The problems under `<domain>/<dir>/`, in name order.
    fn under(&self, dir: &str) -> Vec<Problem<'_>> {
        let prefix = format!("{}/{dir}/", self.name);
        self.files
            .iter()
            .filter(|(p, _)| p.starts_with(&prefix) && p.ends_with(".pddl"))
            .map(|(p, t)| Problem { path: p, text: t })
            .collect()
    }

    /// The official training problems.
    pub fn training(&self) -> Vec<Problem<'_>> {
        self.under("training/easy")
    }

    /// The test problems of a band (`easy`, `medium` or `hard`).
    pub fn testing(&self, band: &str) -> Vec<Problem<'_>> {
        self.under(&format!("testing/{band}"))
    }
}

/// Reads `<dir>/<domain>.tar.gz`.
pub fn load(dir: &Path, domain: &str) -> Result<DomainSet, String> {
    let path = dir.join(format!("{domain}.tar.gz"));
    let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let mut tar = vec![];
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut tar)
        .map_err(|e| format!("{}: not a gzip file: {e}", path.display()))?;
    let files = read_ustar(&tar).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(DomainSet { name: domain.to_string(), files })
}

/// A NUL-terminated field of a header.
fn field(b: &[u8]) -> &[u8] {
    let end = b.iter().position(|&c| c == 0).unwrap_or(b.len());
    &b[..end]
}

/// Regular files of a ustar archive (directories skipped), as UTF-8 text.
pub fn read_ustar(tar: &[u8]) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let mut at = 0usize;
    while at + 512 <= tar.len() {
        let h = &tar[at..at + 512];
        if h.iter().all(|&c| c == 0) {
            // Two zero blocks end the archive; one is enough to stop.
            return Ok(out);
        }
        let name = String::from_utf8_lossy(field(&h[0..100])).into_owned();
        let size_field = std::str::from_utf8(field(&h[124..136]))
            .map_err(|_| format!("entry at byte {at}: size field is not text"))?
            .trim();
        let size = usize::from_str_radix(size_field, 8)
            .map_err(|_| format!("entry {name} at byte {at}: size {size_field:?} is not an octal number"))?;
        let prefix = if &h[257..262] == b"ustar" {
            String::from_utf8_lossy(field(&h[345..500])).into_owned()
        } else {
            String::new()
        };
        let full = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        let data_start = at + 512;
        let data_end = data_start.checked_add(size).filter(|&e| e <= tar.len()).ok_or_else(|| {
            format!("entry {full} at byte {at}: {size} bytes of data run past the end of the archive")
        })?;
        match h[156] {
            b'0' | 0 => {
                let text = String::from_utf8(tar[data_start..data_end].to_vec())
                    .map_err(|_| format!("entry {full}: not UTF-8 text"))?;
                out.insert(full, text);
            }
            b'5' => {}
            t => {
                return Err(format!(
                    "entry {full}: unsupported entry type {:?} (only files and directories)",
                    t as char
                ))
            }
        }
        at = data_start + size.div_ceil(512) * 512;
    }
    Err(format!("the archive ends without its end-of-archive block (at byte {at} of {})", tar.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(name: &str, size: usize, kind: u8) -> Vec<u8> {
        let mut h = vec![0u8; 512];
        h[..name.len()].copy_from_slice(name.as_bytes());
        let s = format!("{size:011o}");
        h[124..135].copy_from_slice(s.as_bytes());
        h[156] = kind;
        h[257..262].copy_from_slice(b"ustar");
        h
    }

    #[test]
    fn reads_files_and_skips_directories() {
        let mut tar = header("d/", 0, b'5');
        tar.extend(header("d/a.pddl", 5, b'0'));
        let mut data = b"hello".to_vec();
        data.resize(512, 0);
        tar.extend(data);
        tar.extend(vec![0u8; 1024]);
        let files = read_ustar(&tar).unwrap();
        assert_eq!(files.len(), 1);
        assert_eq!(files["d/a.pddl"], "hello");
    }

    #[test]
    fn truncated_archives_are_refused_with_the_entry() {
        let mut tar = header("d/a.pddl", 600, b'0');
        tar.extend(vec![b'x'; 100]);
        let e = read_ustar(&tar).unwrap_err();
        assert!(e.contains("d/a.pddl") && e.contains("past the end"), "{e}");
        let e = read_ustar(&header("l", 0, b'2')).unwrap_err();
        assert!(e.contains("unsupported entry type"), "{e}");
    }
}
