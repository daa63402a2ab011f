//! How large a request may be. The API takes no large input: its bodies
//! are empty (retry, cancel) and its paths and queries name things.

use axum::extract::Request;
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::error::ApiError;
/// Largest request body accepted (defined beside the 413's message).
pub use super::error::MAX_BODY_BYTES;

/// Longest request target (path and query), in bytes (414 beyond).
pub const MAX_URI_BYTES: usize = 2048;

/// Most jobs one listing returns (`/api/jobs?limit=`).
pub const MAX_LIMIT: i64 = 10_000;

/// Longest job key a path may carry: keys are 32 hex digits
/// (`jobs::JobKey`); the bound leaves room for longer hashes.
pub const MAX_KEY_LEN: usize = 64;

/// Refuses request targets longer than `MAX_URI_BYTES`.
pub async fn bounded_uri(req: Request, next: Next) -> Response {
    let len = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if len > MAX_URI_BYTES {
        return ApiError(StatusCode::URI_TOO_LONG, format!("request target longer than {MAX_URI_BYTES} bytes"))
            .into_response();
    }
    next.run(req).await
}

/// A job key from a path: hex digits, at most `MAX_KEY_LEN` of them.
pub fn job_key(key: &str) -> Result<&str, ApiError> {
    if key.is_empty() || key.len() > MAX_KEY_LEN || !key.bytes().all(|b| b.is_ascii_hexdigit()) {
        let shown: String = key.chars().take(MAX_KEY_LEN + 1).collect();
        return Err(ApiError::bad_request(format!("not a job key (up to {MAX_KEY_LEN} hex digits): {shown:?}")));
    }
    Ok(key)
}

/// Query text that reaches the database as a bound parameter: PostgreSQL's
/// text cannot hold a NUL character and refuses it as an error of the query
/// (a 500); it is the request that is wrong, so it is refused here (400).
pub fn text_param<'a>(name: &str, value: Option<&'a str>) -> Result<Option<&'a str>, ApiError> {
    match value {
        Some(v) if v.contains('\0') => Err(ApiError::bad_request(format!("{name} must not contain a NUL character"))),
        v => Ok(v),
    }
}

/// A listing's `limit`: 1 to `MAX_LIMIT`.
pub fn listing_limit(limit: Option<i64>, default: i64) -> Result<i64, ApiError> {
    match limit.unwrap_or(default) {
        n @ 1..=MAX_LIMIT => Ok(n),
        n => Err(ApiError::bad_request(format!("limit must be between 1 and {MAX_LIMIT}, not {n}"))),
    }
}
