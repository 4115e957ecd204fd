//! `POST /public/v1/appointments/{id}/reschedule`. The body carries the new time in
//! `start_time` (required) and `end_time` (optional: the old duration is kept), both RFC 3339;
//! a time without offset is read in `timezone` (body) or the appointment's zone. Unknown
//! appointment: 404; end not after start: 422. Answers `{data: {id, created_at, updated_at}}`.

use std::sync::Arc;

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::Utc;
use chrono_tz::Tz;
use serde_json::{Value, json};

use super::contacts::json_body;
use super::error::Failure;
use super::state::Shared;
use super::store::Row;
use super::timefmt::{format_ts, parse_instant, parse_stored};

pub const START_FIELD: &str = "start_time";
pub const END_FIELD: &str = "end_time";
pub const ZONE_FIELD: &str = "timezone";

pub async fn reschedule(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    req: Request,
) -> Response {
    if shared.store().appointments.get(&id).is_none() {
        return Failure::new(
            StatusCode::NOT_FOUND,
            format!("Appointment '{id}' not found."),
        )
        .into_response();
    }
    let body = match json_body(req).await {
        Ok(v) => v,
        Err(f) => return f.into_response(),
    };
    let Value::Object(body) = body else {
        let mut f = Failure::validation();
        f.field("body", "The request body must be a JSON object.");
        return f.into_response();
    };
    let mut store = shared.store_mut();
    let Some(row) = store.appointments.get_mut(&id) else {
        return Failure::new(
            StatusCode::NOT_FOUND,
            format!("Appointment '{id}' not found."),
        )
        .into_response();
    };
    match apply(row, &body) {
        Ok(()) => {
            let j = row.json();
            axum::Json(json!({
                "data": {"id": j["id"], "created_at": j["created_at"], "updated_at": j["updated_at"]}
            }))
            .into_response()
        }
        Err(f) => f.into_response(),
    }
}

/// Checks the body against the appointment and, when it is good, moves the appointment.
fn apply(row: &mut Row, body: &serde_json::Map<String, Value>) -> Result<(), Failure> {
    let mut errors = Failure::validation();
    let text = |k: &str| body.get(k).and_then(Value::as_str).map(str::trim);
    let zone: Tz = match body.get(ZONE_FIELD) {
        None | Some(Value::Null) => row
            .json()
            .get(ZONE_FIELD)
            .and_then(Value::as_str)
            .and_then(|z| z.parse().ok())
            .unwrap_or(Tz::UTC),
        Some(v) => match v.as_str().and_then(|z| z.trim().parse::<Tz>().ok()) {
            Some(z) => z,
            None => {
                errors.field(
                    ZONE_FIELD,
                    "The timezone must be an IANA zone name such as Europe/Berlin.",
                );
                Tz::UTC
            }
        },
    };
    let start = match text(START_FIELD) {
        None => {
            errors.field(
                START_FIELD,
                "The start_time field is required (the sandbox reads start_time and end_time).",
            );
            None
        }
        Some(s) => {
            let t = parse_instant(s, zone);
            if t.is_none() {
                errors.field(
                    START_FIELD,
                    "The start_time must be an RFC 3339 date-time (2025-03-04T10:00:00+01:00).",
                );
            }
            t
        }
    };
    let end = match body.get(END_FIELD) {
        None | Some(Value::Null) => None,
        Some(v) => {
            let t = v.as_str().and_then(|s| parse_instant(s, zone));
            if t.is_none() {
                errors.field(
                    END_FIELD,
                    "The end_time must be an RFC 3339 date-time (2025-03-04T11:00:00+01:00).",
                );
            }
            t
        }
    };
    if let Some(start) = start {
        let old_start = row
            .json()
            .get(START_FIELD)
            .and_then(Value::as_str)
            .and_then(parse_stored);
        let old_end = row
            .json()
            .get(END_FIELD)
            .and_then(Value::as_str)
            .and_then(parse_stored);
        let end = end.or_else(|| Some(start + (old_end? - old_start?)));
        if let Some(end) = end
            && end <= start
        {
            errors.field(END_FIELD, "The end_time must be after the start_time.");
        }
        if !errors.has_field_errors() {
            let j = row.json_mut();
            j.insert(START_FIELD.into(), json!(format_ts(start)));
            if let Some(end) = end {
                j.insert(END_FIELD.into(), json!(format_ts(end)));
            }
            if body.contains_key(ZONE_FIELD) {
                j.insert(ZONE_FIELD.into(), json!(zone.name()));
            }
            j.insert("status".into(), json!("rescheduled"));
            j.insert("updated_at".into(), json!(format_ts(Utc::now())));
            row.refresh();
            return Ok(());
        }
    }
    Err(errors)
}
