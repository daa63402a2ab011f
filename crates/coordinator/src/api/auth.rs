//! The bearer token that every mutation needs.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use subtle::ConstantTimeEq;

use super::error::ApiError;
use crate::state::AppState;

/// Proof that a request carries `Authorization: Bearer <token>` with the
/// configured token. Every handler that changes the farm takes one as its
/// first argument, so an unauthorized request is refused before anything
/// else about it is looked at. Without a configured token (None or empty
/// in `AppState::token`), mutations are disabled: 403.
pub struct Authorized;

impl FromRequestParts<AppState> for Authorized {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, s: &AppState) -> Result<Self, ApiError> {
        let Some(token) = s.token.as_deref().filter(|t| !t.is_empty()) else {
            return Err(ApiError(StatusCode::FORBIDDEN, "mutations are disabled: configure HFARM_API_TOKEN".into()));
        };
        let given = parts
            .headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        match given {
            Some(g) if same_token(g.as_bytes(), token.as_bytes()) => Ok(Authorized),
            _ => Err(ApiError(StatusCode::UNAUTHORIZED, "missing or wrong bearer token".into())),
        }
    }
}

/// Whether `given` equals `token`, compared in constant time (`subtle`):
/// every byte of the token is compared and the results combined without
/// branching, and a wrong length is folded into the same result rather than
/// returned early, so the time taken tells nothing about how much of a guess
/// was right (a plain `==` stops at the first differing byte).
fn same_token(given: &[u8], token: &[u8]) -> bool {
    // `given` padded or cut to the token's length: the comparison below then
    // always runs over the token's bytes.
    let mut padded = vec![0u8; token.len()];
    let n = given.len().min(token.len());
    padded[..n].copy_from_slice(&given[..n]);
    let same_len = given.len().ct_eq(&token.len());
    (same_len & padded.as_slice().ct_eq(token)).into()
}

#[cfg(test)]
mod tests {
    use super::same_token;

    #[test]
    fn tokens_match_only_when_equal() {
        assert!(same_token(b"s3cret", b"s3cret"));
        assert!(!same_token(b"s3cre", b"s3cret"), "a prefix");
        assert!(!same_token(b"s3cretX", b"s3cret"), "an extension");
        assert!(!same_token(b"s3cres", b"s3cret"));
        assert!(!same_token(b"", b"s3cret"));
        assert!(!same_token(b"s3cret\0", b"s3cret"), "padding is not the token");
        assert!(same_token(b"", b""));
    }
}
