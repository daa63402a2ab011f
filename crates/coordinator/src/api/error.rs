//! Errors as JSON bodies (`{"error": ...}`) with the right status.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

pub struct ApiError(pub StatusCode, pub String);

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
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

impl From<schema::DbError> for ApiError {
    fn from(e: schema::DbError) -> Self {
        ApiError(StatusCode::INTERNAL_SERVER_ERROR, format!("database: {e}"))
    }
}

pub type ApiResult<T = Json<serde_json::Value>> = Result<T, ApiError>;
