//! The control endpoint under `/_sandbox` (outside the API, full token only, not recorded):
//! faults, the request log, a reset, and state peeks for tests in another process.
//!
//! - `GET /_sandbox` - this list
//! - `GET|POST|DELETE /_sandbox/faults` - list, add (`FaultRule` JSON, answers 201), clear all
//! - `DELETE /_sandbox/faults/{id}` - remove one
//! - `GET|DELETE /_sandbox/requests` - the recorded API requests, or clear them
//! - `POST /_sandbox/reset` - seed data back; faults, requests and idempotency keys cleared
//! - `GET /_sandbox/appointments/{id}` - one appointment as stored
//! - `GET /_sandbox/stats` - record counts

use std::sync::Arc;

use axum::Router;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::middleware::{Next, from_fn_with_state};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use serde_json::{Value, json};

use super::contacts::json_body;
use super::error::Failure;
use super::faults::FaultRule;
use super::middleware::has_full_token;
use super::seed::Dataset;
use super::state::Shared;

pub fn control_routes(shared: Arc<Shared>) -> Router<Arc<Shared>> {
    Router::new()
        .route("/_sandbox", get(index))
        .route(
            "/_sandbox/faults",
            get(list_faults).post(add_fault).delete(clear_faults),
        )
        .route("/_sandbox/faults/{id}", delete(remove_fault))
        .route("/_sandbox/requests", get(requests).delete(clear_requests))
        .route("/_sandbox/reset", post(reset))
        .route("/_sandbox/appointments/{id}", get(appointment))
        .route("/_sandbox/stats", get(stats))
        .layer(from_fn_with_state(shared, control_auth))
}

async fn control_auth(State(shared): State<Arc<Shared>>, req: Request, next: Next) -> Response {
    if has_full_token(&shared, req.headers()) {
        next.run(req).await
    } else {
        Failure::unauthenticated("The control endpoint needs the sandbox's (full) token.")
            .into_response()
    }
}

async fn index() -> axum::Json<Value> {
    axum::Json(json!({
        "endpoints": [
            "GET /_sandbox/faults", "POST /_sandbox/faults", "DELETE /_sandbox/faults",
            "DELETE /_sandbox/faults/{id}", "GET /_sandbox/requests", "DELETE /_sandbox/requests",
            "POST /_sandbox/reset", "GET /_sandbox/appointments/{id}", "GET /_sandbox/stats"
        ],
        "fault_kinds": ["server_error", "rate_limited", "drop_after_commit", "truncated_json",
            "cut_mid_body", "non_json", "huge_body", "latency", "churn", "hang", "redirect", "unauthorized"],
        "fault_example": {"kind": "server_error", "status": 503, "method": "GET", "path": "/deals", "times": 2}
    }))
}

async fn list_faults(State(shared): State<Arc<Shared>>) -> axum::Json<Value> {
    axum::Json(json!({ "data": shared.faults().list() }))
}

async fn add_fault(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let body = match json_body(req).await {
        Ok(v) => v,
        Err(f) => return f.into_response(),
    };
    let rule: FaultRule = match serde_json::from_value(body) {
        Ok(r) => r,
        Err(e) => {
            let mut f = Failure::validation();
            f.field("kind", format!("Not a fault rule: {e}"));
            return f.into_response();
        }
    };
    if let Err(e) = rule.check() {
        let mut f = Failure::validation();
        f.field("kind", e);
        return f.into_response();
    }
    let mut rule = rule;
    rule.id = shared.faults().add(rule.clone());
    (StatusCode::CREATED, axum::Json(json!({ "data": rule }))).into_response()
}

async fn clear_faults(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.faults().clear();
    StatusCode::NO_CONTENT
}

async fn remove_fault(State(shared): State<Arc<Shared>>, Path(id): Path<u64>) -> Response {
    if shared.faults().remove(id) {
        StatusCode::NO_CONTENT.into_response()
    } else {
        Failure::new(StatusCode::NOT_FOUND, format!("No fault rule {id}.")).into_response()
    }
}

async fn requests(State(shared): State<Arc<Shared>>) -> axum::Json<Value> {
    axum::Json(json!({ "data": shared.log().snapshot() }))
}

async fn clear_requests(State(shared): State<Arc<Shared>>) -> StatusCode {
    shared.log().clear();
    StatusCode::NO_CONTENT
}

async fn reset(State(shared): State<Arc<Shared>>) -> Response {
    let s = &shared.settings;
    match Dataset::for_sandbox(s.seed, s.contacts, s.near_duplicates) {
        Ok((data, _)) => {
            shared.reset(data);
            StatusCode::NO_CONTENT.into_response()
        }
        Err(e) => Failure::new(StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}

async fn appointment(State(shared): State<Arc<Shared>>, Path(id): Path<String>) -> Response {
    match shared.store().appointments.get(&id) {
        Some(row) => axum::Json(json!({ "data": *row.json() })).into_response(),
        None => Failure::new(
            StatusCode::NOT_FOUND,
            format!("Appointment '{id}' not found."),
        )
        .into_response(),
    }
}

async fn stats(State(shared): State<Arc<Shared>>) -> axum::Json<Value> {
    let s = shared.store();
    axum::Json(json!({
        "users": s.users.len(), "accounts": s.accounts.len(), "contacts": s.contacts.len(),
        "deals": s.deals.len(), "projects": s.projects.len(), "appointments": s.appointments.len(),
    }))
}
