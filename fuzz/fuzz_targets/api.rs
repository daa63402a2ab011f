//! The status API (`hfarm serve`) on arbitrary requests, in process: the
//! router the server runs, driven through tower's `oneshot`.
//!
//! Input: a request written as text, as on the wire but leniently read:
//! `METHOD TARGET` on the first line, `Name: value` header lines, an empty
//! line, then the body (bytes). A line that is not a valid method, target or
//! header is dropped rather than ending the run, so that mutations keep
//! reaching the handlers. The server's token is `fuzz-token`; seeds carry
//! `Authorization: Bearer fuzz-token` so that mutations pass the check.
//!
//! The database is unreachable (a Unix socket that does not exist: the
//! connection fails at once instead of being retried until a timeout), so
//! handlers that reach it answer 500. Checked: no panic, and every error
//! answer has the API's shape, a JSON object with a string `error`.

#![no_main]

use std::sync::LazyLock;
use std::time::Duration;

use axum::body::{to_bytes, Body};
use axum::http::{header, HeaderName, HeaderValue, Method, Request};
use axum::Router;
use libfuzzer_sys::fuzz_target;
use tokio::runtime::Runtime;
use tower::ServiceExt;

const TOKEN: &str = "fuzz-token";

static RUNTIME: LazyLock<Runtime> =
    LazyLock::new(|| tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a tokio runtime"));

static APP: LazyLock<Router> = LazyLock::new(|| {
    // The pool is made inside the runtime: sqlx starts its tasks there.
    let pool = RUNTIME.block_on(async {
        sqlx::postgres::PgPoolOptions::new()
            .acquire_timeout(Duration::from_secs(1))
            .connect_lazy("postgres://nobody@%2Fnonexistent-hfarm-fuzz/none")
            .expect("a lazy pool")
    });
    coordinator::api::router(coordinator::AppState { pool, token: Some(TOKEN.into()), queue: None })
});

/// The request the input describes; None when its first line names no
/// method and target.
fn request(data: &[u8]) -> Option<Request<Body>> {
    let (head, body) = match data.windows(2).position(|w| w == b"\n\n") {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &[][..]),
    };
    let mut lines = head.split(|&b| b == b'\n');
    let first = lines.next()?;
    let mut words = first.splitn(2, |&b| b == b' ');
    let method = Method::from_bytes(words.next()?).ok()?;
    let target = std::str::from_utf8(words.next()?).ok()?.trim_end_matches('\r');
    let mut req = Request::builder().method(method).uri(target);
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let Some(colon) = line.iter().position(|&b| b == b':') else { continue };
        let (Ok(name), Ok(value)) =
            (HeaderName::from_bytes(&line[..colon]), HeaderValue::from_bytes(line[colon + 1..].trim_ascii()))
        else {
            continue;
        };
        req = req.header(name, value);
    }
    req.body(Body::from(body.to_vec())).ok()
}

fuzz_target!(|data: &[u8]| {
    let Some(req) = request(data) else { return };
    let head = req.method() == Method::HEAD;
    // Cloned out here: the first use builds the pool, which blocks on the runtime.
    let app = APP.clone();
    let (status, content_type, body) = RUNTIME.block_on(async {
        let resp = app.oneshot(req).await.expect("the router's error type is Infallible");
        let status = resp.status();
        let content_type = resp.headers().get(header::CONTENT_TYPE).cloned();
        let body = to_bytes(resp.into_body(), usize::MAX).await.expect("a response body");
        (status, content_type, body)
    });
    if (status.is_client_error() || status.is_server_error()) && !head {
        let json =
            content_type.as_ref().and_then(|v| v.to_str().ok()).is_some_and(|v| v.starts_with("application/json"));
        let shaped = serde_json::from_slice::<serde_json::Value>(&body)
            .is_ok_and(|v| v.get("error").is_some_and(|e| e.is_string()));
        assert!(json && shaped, "{status} answered without the API's error shape: {content_type:?} {body:?}");
    }
});
