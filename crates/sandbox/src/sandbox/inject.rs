//! What each fault kind does to a request, down to the socket: some answer instead of the
//! route, some let the route run and then spoil or drop its answer.

use std::time::Duration;

use axum::body::{Body, Bytes, to_bytes};
use axum::extract::Request;
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures::StreamExt;
use serde_json::json;

use super::faults::FaultKind;
use super::server::ConnControl;

/// How long the half body of `cut_mid_body` is left on the wire before the cut, so the client
/// really receives headers and some bytes first.
const CUT_PAUSE: Duration = Duration::from_millis(50);

fn html(status: StatusCode, title: &str) -> Response {
    let page = format!(
        "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><center><h1>{title}</h1></center><hr><center>nginx</center></body></html>\n"
    );
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        page,
    )
        .into_response()
}

/// Closes this request's connection without another byte, then never returns.
async fn drop_connection(conn: Option<ConnControl>) -> Response {
    if let Some(c) = conn {
        c.kill();
    }
    std::future::pending::<Response>().await
}

pub async fn inject(kind: FaultKind, req: Request, next: Next) -> Response {
    let conn = req.extensions().get::<ConnControl>().cloned();
    match kind {
        FaultKind::ServerError { status } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            html(
                status,
                &format!(
                    "{} {}",
                    status.as_u16(),
                    status.canonical_reason().unwrap_or("Server Error")
                ),
            )
        }
        FaultKind::RateLimited { retry_after_secs } => {
            let mut resp = (
                StatusCode::TOO_MANY_REQUESTS,
                axum::Json(json!({"message": "Too Many Attempts."})),
            )
                .into_response();
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(retry_after_secs));
            resp
        }
        FaultKind::Unauthorized => {
            let mut resp = (
                StatusCode::UNAUTHORIZED,
                axum::Json(json!({"message": "Unauthenticated: the token has been revoked."})),
            )
                .into_response();
            resp.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer error=\"invalid_token\""),
            );
            resp
        }
        FaultKind::Redirect { location, status } => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::FOUND);
            let mut resp = html(status, "Moved");
            if let Ok(v) = HeaderValue::from_str(&location) {
                resp.headers_mut().insert(header::LOCATION, v);
            }
            resp
        }
        FaultKind::Hostile { shape, depth } => {
            super::hostile::hostile(shape, depth, req, next).await
        }
        FaultKind::EchoToken => super::hostile::echo_token(&req),
        FaultKind::EndlessPages => super::hostile::endless_pages(req, next).await,
        FaultKind::NonJson => html(StatusCode::OK, "Welcome - please sign in to continue"),
        FaultKind::Hang => std::future::pending().await,
        // Made by the fault layer, which holds the sandbox's state (see `middleware::faults`).
        FaultKind::Churn { .. } => next.run(req).await,
        FaultKind::Latency { ms } => {
            tokio::time::sleep(Duration::from_millis(ms)).await;
            next.run(req).await
        }
        FaultKind::DropAfterCommit => {
            let _committed = next.run(req).await;
            drop_connection(conn).await
        }
        FaultKind::TruncatedJson => {
            let (mut parts, body) = next.run(req).await.into_parts();
            let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
            let cut = bytes.slice(..bytes.len() / 2);
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(cut.len()));
            Response::from_parts(parts, Body::from(cut))
        }
        FaultKind::CutMidBody => {
            let (mut parts, body) = next.run(req).await.into_parts();
            let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
            // The full length is announced, half is sent, then the connection goes.
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(bytes.len()));
            let half = bytes.slice(..bytes.len() / 2);
            let first = futures::stream::once(async move { Ok::<Bytes, std::io::Error>(half) });
            let cut = futures::stream::once(async move {
                tokio::time::sleep(CUT_PAUSE).await;
                if let Some(c) = conn {
                    c.kill();
                }
                Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionAborted,
                    "sandbox fault: cut mid-body",
                ))
            });
            Response::from_parts(parts, Body::from_stream(first.chain(cut)))
        }
        FaultKind::HugeBody { bytes: size } => {
            let (mut parts, body) = next.run(req).await.into_parts();
            let bytes = to_bytes(body, usize::MAX).await.unwrap_or_default();
            // Trailing whitespace keeps the JSON valid at any size.
            let mut big = Vec::with_capacity(size.max(bytes.len()));
            big.extend_from_slice(&bytes);
            big.resize(size.max(bytes.len()), b' ');
            parts
                .headers
                .insert(header::CONTENT_LENGTH, HeaderValue::from(big.len()));
            Response::from_parts(parts, Body::from(big))
        }
    }
}
