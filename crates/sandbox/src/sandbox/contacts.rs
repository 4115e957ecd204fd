//! `POST /public/v1/contacts`: checks the body, optionally refuses a taken e-mail, stores the
//! contact and answers 201 `{data: contact}`; with an idempotency reservation, remembers it.

use std::sync::Arc;

use axum::body::{Bytes, to_bytes};
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use serde_json::{Value, json};

use super::error::Failure;
use super::idempotency::Reservation;
use super::state::Shared;
use super::store::Row;
use super::timefmt::format_ts;
use super::validation::check_new_contact;
use crate::resource::Resource;

/// Larger bodies get 413.
pub const MAX_BODY: usize = 1024 * 1024;

/// The body as JSON, or the error answer (413 too large, 400 not JSON).
pub async fn json_body(req: Request) -> Result<Value, Failure> {
    let bytes: Bytes = to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| {
        Failure::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "The request body is too large (1 MB at most).",
        )
    })?;
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(Failure::new(
            StatusCode::BAD_REQUEST,
            "The request body is empty; send a JSON object.",
        ));
    }
    serde_json::from_slice(&bytes).map_err(|e| {
        Failure::new(
            StatusCode::BAD_REQUEST,
            format!("The request body is not valid JSON: {e}"),
        )
    })
}

pub async fn create_contact(State(shared): State<Arc<Shared>>, req: Request) -> Response {
    let reservation = req.extensions().get::<Arc<Reservation>>().cloned();
    let body = match json_body(req).await {
        Ok(v) => v,
        Err(f) => return f.into_response(),
    };
    let clean = match check_new_contact(&body) {
        Ok(c) => c,
        Err(f) => return f.into_response(),
    };
    let record = {
        let mut store = shared.store_mut();
        if shared.settings.unique_emails
            && let Some(e) = &clean.email
            && store.contacts_with_email(e) > 0
        {
            let mut f = Failure::validation();
            f.field("email", "The email has already been taken.");
            return f.into_response();
        }
        let id = store.next_contact_id();
        let now = format_ts(Utc::now());
        let full_name = [clean.first_name.as_deref(), clean.last_name.as_deref()]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" ");
        let mut m = clean.extra;
        for (k, v) in [
            ("id", json!(id)),
            ("first_name", json!(clean.first_name)),
            ("last_name", json!(clean.last_name)),
            (
                "full_name",
                if full_name.is_empty() {
                    Value::Null
                } else {
                    json!(full_name)
                },
            ),
            ("email", json!(clean.email)),
            ("phone", json!(clean.phone)),
            ("created_at", json!(now)),
            ("updated_at", json!(now)),
        ] {
            m.insert(k.to_string(), v);
        }
        // Relations may be sent (the seed names them, not their shape); default to none.
        // (`check_new_contact` made sure sent ones are ids; null lists are empty lists.)
        for list in ["account_ids", "assigned_user_ids"] {
            if m.get(list).is_none_or(Value::is_null) {
                m.insert(list.to_string(), json!([]));
            }
        }
        m.entry("assigned_user_id").or_insert(Value::Null);
        store.contacts.push(Row::new(m.clone()));
        let index = store.contacts.rows.len() - 1;
        shared
            .cache()
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .row_added(Resource::Contacts, &store.contacts, index);
        m
    };
    let bytes = Bytes::from(json!({ "data": record }).to_string());
    if let Some(r) = reservation {
        r.complete(StatusCode::CREATED.as_u16(), bytes.clone());
    }
    (
        StatusCode::CREATED,
        [(header::CONTENT_TYPE, "application/json")],
        bytes,
    )
        .into_response()
}
