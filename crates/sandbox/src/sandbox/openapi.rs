//! The OpenAPI 3.1 document of the sandbox's five operations, served at `GET /openapi.json` and
//! printed by `crmdash sandbox --openapi`.
//!
//! It is built here from the sandbox's own definitions (each resource's sort keys and includes,
//! the paging bounds, the field limits, the header names, the time zones it accepts), so a change
//! to any of them changes the document. What the sandbox decides where the seed says "not shown"
//! is marked "Sandbox choice" in the descriptions, and the schemas there accept unknown fields.
//! `tests/sandbox/openapi.rs` validates the document, checks it against the running sandbox and
//! checks every request the client can build against it.

use serde_json::{Map, Value, json};

use super::contacts::MAX_BODY;
use super::listing::{DEFAULT_PER_PAGE, MAX_PER_PAGE};
use super::middleware::MAX_IDEMPOTENCY_KEY;
use crate::resource::Resource;
use schemas::components;

mod schemas;

/// Where the document is served.
pub const PATH: &str = "/openapi.json";

/// The port a printed document names when the sandbox's port is not fixed.
const DEFAULT_PORT: u16 = 8080;

/// Deal statuses the sandbox's data uses (the seed: not shown).
pub const DEAL_STATUSES: &[&str] = &["open", "won", "lost", "on_hold"];
/// Project statuses the sandbox's data uses (the seed: not shown).
pub const PROJECT_STATUSES: &[&str] = &["planned", "active", "on_hold", "completed", "cancelled"];

/// Unicode White_Space, the characters Rust's `str::trim` removes, as a regex class body.
/// Spelled out so every regex dialect (ECMA-262, Python, Rust) reads the same set.
const WS: &str = r"\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";

/// The document, its server at `http://127.0.0.1:{port}` (the port a variable defaulting to
/// `port`, or to 8080 when `port` is 0).
pub fn document(port: u16) -> Value {
    let port = if port == 0 { DEFAULT_PORT } else { port };
    let mut doc = base();
    doc["servers"] = json!([{
        "url": "http://127.0.0.1:{port}",
        "description": "A local crmdash sandbox (`crmdash sandbox --port PORT`).",
        "variables": {"port": {"default": port.to_string(), "description": "The sandbox's port."}}
    }]);
    doc
}

/// The document as served by a running sandbox: its server is the address the request reached
/// (when the `Host` header names a loopback address), else the document's own origin.
pub fn served_document(host: Option<&str>) -> Value {
    let mut doc = base();
    let url = host
        .filter(|h| is_loopback_host(h))
        .map_or_else(|| "/".to_string(), |h| format!("http://{h}"));
    doc["servers"] = json!([{"url": url, "description": "This crmdash sandbox."}]);
    doc
}

/// `127.0.0.1:PORT`, `localhost:PORT` or `[::1]:PORT` (the port optional).
fn is_loopback_host(host: &str) -> bool {
    let Ok(uri) = format!("http://{host}/").parse::<axum::http::Uri>() else {
        return false;
    };
    let Some(authority) = uri.authority() else {
        return false;
    };
    if authority.as_str() != host || host.contains('@') {
        return false;
    }
    let h = authority.host();
    h.eq_ignore_ascii_case("localhost")
        || h.trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

fn sandbox_choice(text: &str) -> String {
    format!("Sandbox choice (the seed: not shown): {text}")
}

fn base() -> Value {
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "CRM Public API v1 (crmdash sandbox)",
            "version": "1.0.0",
            "summary": "The five operations of the seed's Public API v1, as the crmdash sandbox serves them.",
            "description": concat!(
                "A local, seeded fake of the CRM's Public HTTP API v1 (`crmdash sandbox`). ",
                "Everything the seed shows is described as the seed shows it; where the seed says ",
                "\"not shown\", the description says \"Sandbox choice\" and the schema accepts unknown fields. ",
                "The full list of the sandbox's choices is `crates/sandbox/src/sandbox/CHOICES.md` in crmdash's source.\n\n",
                "Requests and responses are JSON. Every operation needs `Authorization: Bearer <token>` ",
                "(the sandbox prints its local test token at start). Fault injection (`--fault`, ",
                "`/_sandbox/faults`) can make any operation answer otherwise (5xx with an HTML body, ",
                "429, a dropped connection...); those answers are test devices and are not described here."
            )
        },
        "tags": [
            {"name": "contacts", "description": "Created and listed by an external system."},
            {"name": "appointments", "description": "Rescheduled."},
            {"name": "deals", "description": "Listed."},
            {"name": "projects", "description": "Listed."}
        ],
        "security": [{"bearerAuth": []}],
        "paths": paths(),
        "components": components()
    })
}

fn paths() -> Value {
    json!({
        "/public/v1/contacts": {
            "post": create_contact(),
            "get": list_operation(Resource::Contacts)
        },
        "/public/v1/deals": {"get": list_operation(Resource::Deals)},
        "/public/v1/projects": {"get": list_operation(Resource::Projects)},
        "/public/v1/appointments/{appointmentId}/reschedule": {"post": reschedule()}
    })
}

fn error_response(description: &str) -> Value {
    json!({
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    })
}

fn common_error_responses(write: bool) -> Map<String, Value> {
    let mut r = Map::new();
    r.insert(
        "401".into(),
        json!({"$ref": "#/components/responses/Unauthorized"}),
    );
    if write {
        r.insert(
            "403".into(),
            json!({"$ref": "#/components/responses/Forbidden"}),
        );
    }
    r.insert(
        "422".into(),
        json!({"$ref": "#/components/responses/ValidationFailed"}),
    );
    r.insert(
        "429".into(),
        json!({"$ref": "#/components/responses/TooManyRequests"}),
    );
    r
}

fn body_errors(r: &mut Map<String, Value>) {
    r.insert(
        "400".into(),
        error_response(&sandbox_choice("the body is empty or not JSON.")),
    );
    r.insert(
        "413".into(),
        error_response(&sandbox_choice(&format!(
            "the body is larger than {} bytes.",
            MAX_BODY
        ))),
    );
}

fn create_contact() -> Value {
    let mut responses = Map::new();
    responses.insert(
        "201".into(),
        json!({
            "description": sandbox_choice(concat!(
                "201 with the stored contact in `data`. A retry with the same Idempotency-Key ",
                "and the same body gets the first answer again, with `Idempotent-Replayed: true`."
            )),
            "headers": {
                "Idempotent-Replayed": {
                    "description": sandbox_choice("`true` when this answer replays an earlier one (same Idempotency-Key, same body)."),
                    "schema": {"type": "string", "enum": ["true"]}
                }
            },
            "content": {"application/json": {"schema": {
                "type": "object",
                "required": ["data"],
                "properties": {"data": {"$ref": "#/components/schemas/Contact"}}
            }}}
        }),
    );
    body_errors(&mut responses);
    responses.insert(
        "409".into(),
        error_response(&sandbox_choice(
            "the Idempotency-Key was used with another body, or a request with it is still being processed.",
        )),
    );
    responses.extend(common_error_responses(true));
    json!({
        "operationId": "createContact",
        "tags": ["contacts"],
        "summary": "Create a contact",
        "description": concat!(
            "Creates a contact. Meant for a backend job, migration script or other server-side ",
            "integration that can hold an API token securely; a browser form must not call it. ",
            "When an integration creates an account too, it resolves the account first and attaches ",
            "the contact afterwards (no orphan contacts). Creating a contact may trigger workflows. ",
            "Search by email first (`GET /public/v1/contacts?email=`) when the same person may arrive ",
            "through several jobs, forms or events."
        ),
        "parameters": [{
            "name": "Idempotency-Key",
            "in": "header",
            "required": false,
            "description": format!(
                "A stable key per logical contact (for example derived from the external contact ID, import row ID or source-system event ID), so that a retry does not create a duplicate. {}",
                sandbox_choice(&format!(
                    "optional; 1 to {MAX_IDEMPOTENCY_KEY} characters, not only spaces. The key and the body are kept 24 hours with a successful answer: same key and body replays it, same key and another body gets 409. A rejected request (4xx) frees the key."
                ))
            ),
            "schema": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_IDEMPOTENCY_KEY,
                "pattern": format!("[^{WS}]")
            },
            "example": "import-2025-03-row-0042"
        }],
        "requestBody": {
            "required": true,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/NewContact"}}}
        },
        "responses": responses
    })
}

fn list_parameters(resource: Resource) -> Vec<Value> {
    let seed_paged = resource.paginated();
    let paging_note = |seed: &str| {
        if seed_paged {
            format!("{seed} {}", sandbox_choice("the default and the bounds."))
        } else {
            sandbox_choice(&format!(
                "contacts are paginated like deals and projects ({seed})."
            ))
        }
    };
    let mut params = Vec::new();
    match resource {
        Resource::Contacts => {
            params.push(filter_param(
                "email",
                &format!(
                    "Filter by email. {}",
                    sandbox_choice("exact match, ignoring case; blank is no filter.")
                ),
                json!({"type": "string"}),
            ));
            params.push(filter_param(
                "full_name",
                &format!(
                    "Filter by full name. {}",
                    sandbox_choice("partial match, ignoring case; blank is no filter.")
                ),
                json!({"type": "string"}),
            ));
            for (p, what) in [("created_after", "creation"), ("updated_after", "update")] {
                params.push(filter_param(
                    p,
                    &format!(
                        "Filter on {what} time. {}",
                        sandbox_choice(concat!(
                            "an RFC 3339 date-time or a date (midnight UTC), strictly after; ",
                            "blank is no filter; anything else gets 422."
                        ))
                    ),
                    json!({"$ref": "#/components/schemas/TimeFilter"}),
                ));
            }
        }
        Resource::Deals | Resource::Projects => {
            params.push(filter_param(
                "name",
                &format!(
                    "Filter by name. {}",
                    sandbox_choice("partial match, ignoring case; blank is no filter.")
                ),
                json!({"type": "string"}),
            ));
            params.push(filter_param(
                "status",
                &format!(
                    "Filter by status. {}",
                    sandbox_choice("exact match, ignoring case; blank is no filter.")
                ),
                json!({"type": "string"}),
            ));
        }
    }
    params.push(json!({
        "name": "sort_by",
        "in": "query",
        "required": false,
        "description": format!("Sort key. {}", sandbox_choice(
            "default created_at; ties by id; text ignoring case; missing values last ascending; any other value (also with spaces) gets 422."
        )),
        "schema": {"type": "string", "enum": resource.sort_keys(), "default": "created_at"}
    }));
    params.push(json!({
        "name": "sort_direction",
        "in": "query",
        "required": false,
        "description": format!("Sort direction. {}", sandbox_choice(
            "default asc; desc is the exact reverse; another value gets 422."
        )),
        "schema": {"type": "string", "enum": ["asc", "desc"], "default": "asc"}
    }));
    let includes = resource.includes();
    params.push(json!({
        "name": "include",
        "in": "query",
        "required": false,
        "description": format!(
            "Comma-separated list of relations to embed in each {}. {}",
            resource.singular(),
            sandbox_choice("each relation is embedded under its own name; repeats count once; an unknown name or an empty entry (`include=`, `a,,b`) gets 422.")
        ),
        "style": "form",
        "explode": false,
        "schema": {"type": "array", "minItems": 1, "items": {"type": "string", "enum": includes}}
    }));
    params.push(json!({
        "name": "page",
        "in": "query",
        "required": false,
        "description": paging_note("Page number (the seed: a string)."),
        "schema": {"type": "integer", "minimum": 1, "maximum": u64::MAX, "default": 1}
    }));
    params.push(json!({
        "name": "per_page",
        "in": "query",
        "required": false,
        "description": paging_note(&format!("Items per page, up to {MAX_PER_PAGE} (the seed: a string).")),
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE, "default": DEFAULT_PER_PAGE}
    }));
    params
}

fn filter_param(name: &str, description: &str, schema: Value) -> Value {
    json!({
        "name": name,
        "in": "query",
        "required": false,
        "description": description,
        "schema": schema
    })
}

fn list_operation(resource: Resource) -> Value {
    let op = format!("list{}", resource.title());
    let summary = format!("List {}", resource.noun());
    let item = resource.title_singular();
    let description = if resource.paginated() {
        format!("Returns paginated {}.", resource.noun())
    } else {
        sandbox_choice(
            "paginated like deals and projects (`{data, meta}`); the seed does not show this response.",
        )
    };
    let tag = resource.noun();
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({
            "description": format!(
                "A page of records. {}",
                sandbox_choice("past the last page, `data` is empty and `meta` tells the truth (`last_page` is at least 1).")
            ),
            "content": {"application/json": {"schema": {
                "type": "object",
                "required": ["data", "meta"],
                "properties": {
                    "data": {"type": "array", "items": {"$ref": format!("#/components/schemas/{item}")}},
                    "meta": {"$ref": "#/components/schemas/PageMeta"}
                }
            }}}
        }),
    );
    responses.extend(common_error_responses(false));
    json!({
        "operationId": op,
        "tags": [tag],
        "summary": summary,
        "description": description,
        "parameters": list_parameters(resource),
        "responses": responses
    })
}

fn reschedule() -> Value {
    let mut responses = Map::new();
    responses.insert(
        "200".into(),
        json!({
            "description": "The rescheduled appointment.",
            "content": {"application/json": {"schema": {
                "type": "object",
                "required": ["data"],
                "properties": {"data": {
                    "type": "object",
                    "required": ["id", "created_at", "updated_at"],
                    "properties": {
                        "id": {"type": "string"},
                        "created_at": {"$ref": "#/components/schemas/Timestamp"},
                        "updated_at": {"$ref": "#/components/schemas/Timestamp"}
                    }
                }}
            }}}
        }),
    );
    body_errors(&mut responses);
    responses.insert(
        "404".into(),
        error_response(&sandbox_choice(
            "no appointment has this id (checked before the body).",
        )),
    );
    responses.extend(common_error_responses(true));
    json!({
        "operationId": "rescheduleAppointment",
        "tags": ["appointments"],
        "summary": "Reschedule an appointment",
        "description": "Updates the appointment time.",
        "parameters": [{
            "name": "appointmentId",
            "in": "path",
            "required": true,
            "description": format!("The appointment's id. {}", sandbox_choice("ids look like `apt_000001`.")),
            "schema": {"type": "string"},
            "examples": {"seeded": {"summary": "An appointment of the default data set", "value": "apt_000001"}}
        }],
        "requestBody": {
            "required": true,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RescheduleBody"}}}
        },
        "responses": responses
    })
}

/// `GET /openapi.json` (no token needed: the document is public).
pub async fn serve(headers: axum::http::HeaderMap) -> axum::response::Response {
    use axum::response::IntoResponse;
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok());
    axum::Json(served_document(host)).into_response()
}

#[cfg(test)]
mod tests {
    use super::super::middleware::{IDEMPOTENCY_HEADER, REPLAYED_HEADER};
    use super::*;

    #[test]
    fn header_names_are_the_sandbox_s() {
        let doc = document(0);
        let create = &doc["paths"]["/public/v1/contacts"]["post"];
        assert_eq!(
            create["parameters"][0]["name"]
                .as_str()
                .unwrap()
                .to_ascii_lowercase(),
            IDEMPOTENCY_HEADER
        );
        let headers = create["responses"]["201"]["headers"].as_object().unwrap();
        assert!(
            headers
                .keys()
                .any(|h| h.to_ascii_lowercase() == REPLAYED_HEADER)
        );
    }

    #[test]
    fn loopback_hosts_only() {
        for ok in ["127.0.0.1:8080", "localhost:1", "[::1]:9", "127.0.0.1"] {
            assert!(is_loopback_host(ok), "{ok}");
        }
        for bad in [
            "example.com",
            "10.0.0.1:80",
            "127.0.0.1:80/x",
            "a@127.0.0.1",
            "",
        ] {
            assert!(!is_loopback_host(bad), "{bad}");
        }
        assert_eq!(
            served_document(Some("evil.example"))["servers"][0]["url"],
            "/"
        );
        assert_eq!(
            served_document(Some("127.0.0.1:4000"))["servers"][0]["url"],
            "http://127.0.0.1:4000"
        );
    }
}
