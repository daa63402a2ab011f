//! Content-derived job identity.

use sha2::{Digest, Sha256};

/// A job's identity: the first 128 bits of SHA-256 over the canonical JSON of
/// its spec and its inputs' keys, in hex.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct JobKey(pub String);

impl JobKey {
    /// Hashes a spec with its inputs. The spec's JSON is canonical: struct
    /// fields serialize in declaration order and maps are ordered.
    pub fn of<S: serde::Serialize>(spec: &S, inputs: &[JobKey]) -> JobKey {
        let mut h = Sha256::new();
        h.update(serde_json::to_vec(spec).expect("job specs serialize"));
        for k in inputs {
            h.update(b"\0");
            h.update(k.0.as_bytes());
        }
        let digest = h.finalize();
        JobKey(digest[..16].iter().map(|b| format!("{b:02x}")).collect())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for JobKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
