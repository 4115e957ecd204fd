//! The sandbox's error answers (`{message}` or `{message, errors: {field: [..]}}`) and its
//! start-up errors.

use std::collections::BTreeMap;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error answer of the API.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub status: StatusCode,
    pub message: String,
    pub errors: BTreeMap<String, Vec<String>>,
}

impl Failure {
    pub fn new(status: StatusCode, message: impl Into<String>) -> Failure {
        Failure {
            status,
            message: message.into(),
            errors: BTreeMap::new(),
        }
    }

    /// An empty 422 to collect field errors into.
    pub fn validation() -> Failure {
        Failure::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "The given data was invalid.",
        )
    }

    pub fn field(&mut self, field: &str, message: impl Into<String>) {
        self.errors
            .entry(field.to_string())
            .or_default()
            .push(message.into());
    }

    pub fn has_field_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    pub fn unauthenticated(message: &str) -> Failure {
        Failure::new(StatusCode::UNAUTHORIZED, message)
    }
}

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        // Like Laravel: the first field error is the message, so a client showing only
        // `message` still says what is wrong.
        let total: usize = self.errors.values().map(Vec::len).sum();
        let message = match self.errors.values().flatten().next() {
            Some(first) if total > 1 => format!("{first} (and {} more errors)", total - 1),
            Some(first) => first.clone(),
            None => self.message,
        };
        let body = if self.errors.is_empty() {
            json!({ "message": message })
        } else {
            json!({ "message": message, "errors": self.errors })
        };
        let mut resp = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        resp
    }
}

/// Why the sandbox could not start.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind { port: u16, source: std::io::Error },
    #[error(transparent)]
    Assets(#[from] super::seed::AssetError),
    #[error("invalid fault rule: {0}")]
    Fault(String),
    #[error("the token must be 1-200 printable ASCII characters without spaces")]
    Token,
}
