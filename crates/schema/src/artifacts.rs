//! Content-keyed artifacts (pattern databases) that every worker can fetch:
//! whoever needs one first builds and stores it; the others read it.

use crate::{DbError, PgPool};

/// The bytes stored under `key`, if any.
pub async fn get(pool: &PgPool, key: &str) -> Result<Option<Vec<u8>>, DbError> {
    let row: Option<(Vec<u8>,)> =
        sqlx::query_as("SELECT bytes FROM artifacts WHERE key = $1").bind(key).fetch_optional(pool).await?;
    Ok(row.map(|(b,)| b))
}

/// Stores `bytes` under `key`, over what was there: keys are content
/// hashes, so a concurrent builder writes the same bytes, and a copy that
/// failed to read back (damaged) is replaced by the rebuilt one.
pub async fn put(pool: &PgPool, key: &str, kind: &str, bytes: &[u8]) -> Result<(), DbError> {
    sqlx::query(
        "INSERT INTO artifacts (key, kind, bytes) VALUES ($1, $2, $3)
         ON CONFLICT (key) DO UPDATE SET bytes = EXCLUDED.bytes, created_at = now()",
    )
    .bind(key)
    .bind(kind)
    .bind(bytes)
    .execute(pool)
    .await?;
    Ok(())
}
