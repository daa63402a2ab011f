//! Errors as JSON bodies (`{"error": ...}`) with the right status, and the
//! layer that gives every other error of the server the same shape.

use axum::body::to_bytes;
use axum::extract::Request;
use axum::http::{header, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

/// Largest request body accepted, in bytes (413 beyond: the
/// `RequestBodyLimitLayer` refuses a larger `Content-Length` before any
/// handler runs, and cuts a streamed body at this size). Here, where the
/// 413's message is written; `limits` re-exports it with the other bounds.
pub const MAX_BODY_BYTES: usize = 16 * 1024;

pub struct ApiError(pub StatusCode, pub String);

/// What every error of the API answers (4xx and 5xx alike).
#[derive(Serialize, ToSchema)]
#[schema(as = Error)]
pub struct ErrorBody {
    /// What went wrong, for people.
    pub error: String,
}

impl ApiError {
    pub fn not_found(what: impl Into<String>) -> ApiError {
        ApiError(StatusCode::NOT_FOUND, what.into())
    }

    pub fn bad_request(what: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, what.into())
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(ErrorBody { error: self.1 })).into_response()
    }
}

impl From<schema::DbError> for ApiError {
    fn from(e: schema::DbError) -> Self {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("database: {e}"))
    }
}

pub type ApiResult<T = Json<serde_json::Value>> = Result<T, ApiError>;

/// The answer to a path that no route serves (the router's fallback).
pub async fn no_route(method: Method, uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route for {method} {}; the API is described at /api/openapi.json", uri.path()))
}

/// Gives the errors that our handlers do not write the API's JSON shape:
/// axum's rejections of paths, queries and bodies (plain text, such as
/// "Invalid URL: UUID parsing failed ..."), 405 (an empty body) and the
/// body limit's 413. Their text, when they have one, becomes the message.
pub async fn json_errors(req: Request, next: Next) -> Response {
    let (method, path) = (req.method().clone(), req.uri().path().to_owned());
    let resp = next.run(req).await;
    let status = resp.status();
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return resp;
    }
    let (parts, body) = resp.into_parts();
    let message = match status {
        StatusCode::METHOD_NOT_ALLOWED => {
            let allowed = parts.headers.get(header::ALLOW).and_then(|v| v.to_str().ok()).unwrap_or("");
            format!("method {method} is not allowed on {path}; allowed: {allowed}")
        }
        StatusCode::PAYLOAD_TOO_LARGE => format!("request body larger than {MAX_BODY_BYTES} bytes"),
        _ => {
            // Rejection texts are short; an unreadable one leaves the status's reason.
            let bytes = to_bytes(body, 64 * 1024).await.unwrap_or_default();
            let text = String::from_utf8_lossy(&bytes).trim().to_string();
            if text.is_empty() {
                status.canonical_reason().unwrap_or("error").to_lowercase()
            } else {
                text
            }
        }
    };
    let mut out = ApiError(status, message).into_response();
    if let Some(allow) = parts.headers.get(header::ALLOW) {
        out.headers_mut().insert(header::ALLOW, allow.clone());
    }
    out
}
