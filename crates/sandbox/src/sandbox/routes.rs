//! The five operations under `/public/v1` and the JSON answers for unknown routes.

use std::sync::Arc;

use axum::Router;
use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use super::appointments::reschedule;
use super::contacts::create_contact;
use super::error::Failure;
use super::listing::{ListParams, list_page};
use super::state::Shared;
use crate::resource::Resource;

pub fn api_routes() -> Router<Arc<Shared>> {
    Router::new()
        .route(
            "/public/v1/contacts",
            get(|s, q| list(s, q, Resource::Contacts)).post(create_contact),
        )
        .route("/public/v1/deals", get(|s, q| list(s, q, Resource::Deals)))
        .route(
            "/public/v1/projects",
            get(|s, q| list(s, q, Resource::Projects)),
        )
        .route("/public/v1/appointments/{id}/reschedule", post(reschedule))
        .method_not_allowed_fallback(|| async {
            Failure::new(
                StatusCode::METHOD_NOT_ALLOWED,
                "This method is not allowed here.",
            )
        })
}

async fn list(
    State(shared): State<Arc<Shared>>,
    RawQuery(query): RawQuery,
    resource: Resource,
) -> Response {
    let params = match ListParams::parse(resource, query.as_deref()) {
        Ok(p) => p,
        Err(f) => return f.into_response(),
    };
    let body = {
        let store = shared.store();
        list_page(&store, shared.cache(), &params)
    };
    axum::Json(body).into_response()
}

/// Any path nothing else answers.
pub async fn not_found() -> Failure {
    Failure::new(StatusCode::NOT_FOUND, "No such endpoint.")
}
