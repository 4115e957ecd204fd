//! The layers every API request passes, outermost first: record it, check the token, apply
//! the Idempotency-Key, inject faults (and the configured latency), then the route.

use std::sync::Arc;

use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::contacts::MAX_BODY;
use super::error::Failure;
use super::idempotency::{Claim, claim};
use super::inject::inject;
use super::requestlog::RecordedRequest;
use super::state::Shared;

pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";
pub const REPLAYED_HEADER: &str = "idempotent-replayed";

/// Longest `Idempotency-Key`, in characters (header bytes).
pub const MAX_IDEMPOTENCY_KEY: usize = 255;

/// The header's bytes read as ISO-8859-1 (HTTP's historical header charset): one character a
/// byte, so distinct keys stay distinct and the length is the length on the wire.
fn idempotency_key(headers: &HeaderMap) -> Option<String> {
    headers
        .get(IDEMPOTENCY_HEADER)
        .map(|v| v.as_bytes().iter().map(|&b| char::from(b)).collect())
}

/// Records the request (never its Authorization header) and buffers its body for later layers.
pub async fn record(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = to_bytes(body, MAX_BODY).await;
    if let Some(t) = bearer(&parts.headers) {
        shared.log().note_bearer(t);
    }
    shared.log().push(RecordedRequest {
        method: parts.method.to_string(),
        path: parts.uri.path().to_string(),
        query: parts.uri.query().map(str::to_string),
        idempotency_key: idempotency_key(&parts.headers),
        body: match &bytes {
            Ok(b) if !b.is_empty() => Some(String::from_utf8_lossy(b).into_owned()),
            _ => None,
        },
    });
    match bytes {
        Ok(b) => next.run(Request::from_parts(parts, Body::from(b))).await,
        Err(_) => Failure::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The request body is too large (1 MB at most).",
        )
        .into_response(),
    }
}

/// The token of `Authorization: Bearer <token>`.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let v = headers.get(header::AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = v.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Compares without stopping at the first difference.
fn same_token(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// Whether the request carries the full token (the only one the control endpoint accepts).
pub fn has_full_token(shared: &Shared, headers: &HeaderMap) -> bool {
    bearer(headers).is_some_and(|t| same_token(t, &shared.settings.token))
}

/// 401 without a valid token; 403 for a write with the read-only token.
pub async fn auth(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let Some(token) = bearer(req.headers()) else {
        return Failure::unauthenticated("Unauthenticated: send Authorization: Bearer <token>.")
            .into_response();
    };
    if same_token(token, &shared.settings.token) {
        return next.run(req).await;
    }
    let read_only = shared
        .settings
        .read_only_token
        .as_deref()
        .is_some_and(|ro| same_token(token, ro));
    if !read_only {
        return Failure::unauthenticated("Unauthenticated: the token is invalid.").into_response();
    }
    if req.method() == Method::GET || req.method() == Method::HEAD {
        return next.run(req).await;
    }
    Failure::new(
        StatusCode::FORBIDDEN,
        "This token is read-only: it may not create or change records.",
    )
    .into_response()
}

/// `Idempotency-Key` on `POST /public/v1/contacts` (see `idempotency`).
pub async fn idempotency(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    let is_create = req.method() == Method::POST
        && req.uri().path().trim_end_matches('/') == "/public/v1/contacts";
    let key = idempotency_key(req.headers());
    let (Some(key), true) = (key, is_create) else {
        return next.run(req).await;
    };
    if key.trim().is_empty() || key.chars().count() > MAX_IDEMPOTENCY_KEY {
        let mut f = Failure::validation();
        f.field(
            "Idempotency-Key",
            format!(
                "The Idempotency-Key header must be 1 to {MAX_IDEMPOTENCY_KEY} characters, not only spaces."
            ),
        );
        return f.into_response();
    }
    let (mut parts, body) = req.into_parts();
    let Ok(bytes) = to_bytes(body, MAX_BODY).await else {
        return Failure::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The request body is too large.",
        )
        .into_response();
    };
    match claim(&shared, &key, &bytes) {
        Claim::Conflict(message) => Failure::new(StatusCode::CONFLICT, message).into_response(),
        Claim::Replay { status, body } => {
            let mut resp = (
                StatusCode::from_u16(status).unwrap_or(StatusCode::OK),
                [(header::CONTENT_TYPE, "application/json")],
                body,
            )
                .into_response();
            resp.headers_mut()
                .insert(REPLAYED_HEADER, HeaderValue::from_static("true"));
            resp
        }
        Claim::Fresh(reservation) => {
            let reservation = Arc::new(reservation);
            parts.extensions.insert(reservation.clone());
            let resp = next
                .run(Request::from_parts(parts, Body::from(bytes)))
                .await;
            drop(reservation);
            resp
        }
    }
}

/// The configured latency, then the first fault rule matching the request, if any.
pub async fn faults(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if let Some(d) = shared.settings.latency {
        tokio::time::sleep(d).await;
    }
    let kind = shared
        .faults()
        .take(req.method().as_str(), req.uri().path());
    match kind {
        None => next.run(req).await,
        Some(super::faults::FaultKind::Churn { changes }) => {
            shared.churn(changes as usize);
            next.run(req).await
        }
        Some(kind) => inject(kind, req, next).await,
    }
}
