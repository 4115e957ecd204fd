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

use super::appointments::{END_FIELD, START_FIELD, ZONE_FIELD};
use super::contacts::MAX_BODY;
use super::listing::{DEFAULT_PER_PAGE, MAX_PER_PAGE};
use super::middleware::MAX_IDEMPOTENCY_KEY;
use super::validation::{
    MAX_EMAIL, MAX_EMAIL_LOCAL, MAX_NAME, MAX_PHONE, PHONE_DIGITS, PHONE_SEPARATORS,
};
use crate::resource::Resource;

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
                "The full list of the sandbox's choices is `src/sandbox/CHOICES.md`.\n\n",
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

/// The regex of an e-mail address as `validation::email_ok` accepts it (spaces around it
/// allowed: the sandbox trims). Negated classes only, so every regex dialect reads it alike.
fn email_pattern() -> String {
    let bad = format!(r#"{WS}\x00-\x1f\x7f-\x9f@,;<>()\[\]\\""#);
    let first_last = format!("[^{bad}.]");
    let middle = format!("[^{bad}]");
    // `validation::domain_char_ok`: ASCII letters, digits, `-`; non-ASCII but spaces, controls.
    let not_domain = format!(r"\x00-\x2c\x2e\x2f\x3a-\x40\x5b-\x60\x7b-\x9f{WS}");
    let edge = format!("[^{not_domain}-]");
    let inner = format!("[^{not_domain}]");
    let label = format!("{edge}(?:{inner}*{edge})?");
    let tld = format!("{edge}{inner}*{edge}");
    format!(
        "^[{WS}]*{first_last}(?:{middle}{{0,{}}}{first_last})?@(?:{label}\\.)+{tld}[{WS}]*$",
        MAX_EMAIL_LOCAL - 2
    )
}

/// The regex of a phone as `validation::phone_ok` accepts it.
fn phone_pattern() -> String {
    let sep: String = PHONE_SEPARATORS
        .chars()
        .map(|c| match c {
            '-' | '(' | ')' | '.' | '/' => format!("\\{c}"),
            '\u{a0}' => "\\xa0".to_string(),
            c => c.to_string(),
        })
        .collect();
    format!(
        "^[{WS}]*(?:\\+|00)[{sep}]*(?:[0-9][{sep}]*){{{},{}}}[{WS}]*$",
        PHONE_DIGITS.start(),
        PHONE_DIGITS.end()
    )
}

fn components() -> Value {
    let nonblank = format!("[^{WS}]");
    let name_field = |what: &str| {
        json!({
            "type": ["string", "null"],
            "maxLength": MAX_NAME,
            "description": format!("{what}. {}", sandbox_choice(&format!(
                "a string or null, at most {MAX_NAME} characters as sent; trimmed; blank is absent."
            )))
        })
    };
    let zones: Vec<&str> = chrono_tz::TZ_VARIANTS.iter().map(|z| z.name()).collect();
    let ids = json!({"type": "array", "items": {"type": "string"}});
    let opt_id = json!({"type": ["string", "null"]});
    let user = json!({"$ref": "#/components/schemas/UserSummary"});
    let account = json!({"$ref": "#/components/schemas/AccountSummary"});
    json!({
        "securitySchemes": {
            "bearerAuth": {
                "type": "http",
                "scheme": "bearer",
                "description": concat!(
                    "`Authorization: Bearer <API_TOKEN>`. The token is held only by trusted server-side code. ",
                    "Sandbox choice (the seed: not shown): a missing or wrong token gets 401 with ",
                    "`WWW-Authenticate: Bearer`; a read-only token (`--read-only-token`) may list, and gets 403 on POST."
                )
            }
        },
        "responses": {
            "Unauthorized": {
                "description": sandbox_choice("no token, or a wrong one."),
                "headers": {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Bearer`."}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
            },
            "Forbidden": error_response(&sandbox_choice("the token is read-only.")),
            "ValidationFailed": error_response(&sandbox_choice(
                "the request breaks a rule; `errors` names each field (a query parameter, a body key or the Idempotency-Key header) with its messages."
            )),
            "TooManyRequests": {
                "description": sandbox_choice("rate limited (a `rate_limited` fault); retry after `Retry-After` seconds."),
                "headers": {"Retry-After": {"schema": {"type": "string"}, "description": "Seconds to wait."}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
            }
        },
        "schemas": {
            "Error": {
                "type": "object",
                "description": sandbox_choice("errors are `{message}` or, for 422, `{message, errors: {field: [messages]}}` (Laravel style; `message` repeats the first field error)."),
                "required": ["message"],
                "properties": {
                    "message": {"type": "string"},
                    "errors": {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "string"}}}
                }
            },
            "Timestamp": {
                "type": "string",
                "format": "date-time",
                "description": sandbox_choice("RFC 3339 in UTC with microseconds, `2025-03-04T10:11:12.123456Z`."),
                "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$"
            },
            "Date": {
                "type": "string",
                "format": "date",
                "description": sandbox_choice("a date, `2025-03-04`.")
            },
            "TimeFilter": {
                "description": sandbox_choice("an RFC 3339 date-time, or a date (midnight UTC); blank means no filter."),
                "anyOf": [
                    {"type": "string", "format": "date-time"},
                    {"type": "string", "format": "date"},
                    {"type": "string", "pattern": format!("^[{WS}]*$")}
                ]
            },
            "PageMeta": {
                "type": "object",
                "required": ["current_page", "last_page", "per_page", "total"],
                "properties": {
                    "current_page": {"type": "integer", "minimum": 1},
                    "last_page": {"type": "integer", "minimum": 1},
                    "per_page": {"type": "integer", "minimum": 1, "maximum": MAX_PER_PAGE},
                    "total": {"type": "integer", "minimum": 0}
                }
            },
            "NewContact": {
                "type": "object",
                "description": format!(
                    "The seed's fields are first_name, last_name, email and phone (strings; types, required status and bounds not shown). {}",
                    sandbox_choice(concat!(
                        "a name (first or last) or an email is required. Other keys are stored and echoed back ",
                        "(tags, custom_fields, consent...); the relation ids account_ids, assigned_user_id and ",
                        "assigned_user_ids must be a list of ids, an id or null, and a list of ids. ",
                        "id, created_at, updated_at, full_name and the relations' include names are set by the server (sent ones are ignored)."
                    ))
                ),
                "properties": {
                    "first_name": name_field("First name"),
                    "last_name": name_field("Last name"),
                    "email": {
                        "type": ["string", "null"],
                        "maxLength": MAX_EMAIL,
                        "pattern": email_pattern(),
                        "description": format!("E-mail address. {}", sandbox_choice(&format!(
                            "`local@domain.tld`, at most {MAX_EMAIL} characters as sent; trimmed; blank is absent."
                        )))
                    },
                    "phone": {
                        "type": ["string", "null"],
                        "maxLength": MAX_PHONE,
                        "pattern": phone_pattern(),
                        "description": format!("Free text with an international prefix. {}", sandbox_choice(&format!(
                            "`+` or `00`, then {} to {} digits with spaces, dashes, dots, slashes or brackets; at most {MAX_PHONE} characters as sent; trimmed.",
                            PHONE_DIGITS.start(), PHONE_DIGITS.end()
                        )))
                    },
                    "account_ids": {"type": ["array", "null"], "items": {"type": "string"}},
                    "assigned_user_id": opt_id.clone(),
                    "assigned_user_ids": {"type": ["array", "null"], "items": {"type": "string"}}
                },
                "anyOf": [
                    {"required": ["first_name"], "properties": {"first_name": {"type": "string", "pattern": nonblank.clone()}}},
                    {"required": ["last_name"], "properties": {"last_name": {"type": "string", "pattern": nonblank.clone()}}},
                    {"required": ["email"], "properties": {"email": {"type": "string", "pattern": nonblank.clone()}}}
                ],
                "additionalProperties": true,
                "example": {"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "phone": "+44 20 7946 0958"}
            },
            "Contact": {
                "type": "object",
                "description": sandbox_choice("contacts carry full_name and the ids of their relations; extra fields (tags, custom_fields, consent, source, job_title...) may appear."),
                "required": ["id", "created_at", "updated_at", "first_name", "last_name", "full_name", "email", "phone", "account_ids", "assigned_user_id", "assigned_user_ids"],
                "properties": {
                    "id": {"type": "string"},
                    "created_at": {"$ref": "#/components/schemas/Timestamp"},
                    "updated_at": {"$ref": "#/components/schemas/Timestamp"},
                    "first_name": {"type": ["string", "null"]},
                    "last_name": {"type": ["string", "null"]},
                    "full_name": {"type": ["string", "null"]},
                    "email": {"type": ["string", "null"]},
                    "phone": {"type": ["string", "null"]},
                    "account_ids": ids.clone(),
                    "assigned_user_id": opt_id.clone(),
                    "assigned_user_ids": ids.clone(),
                    "accounts": {"type": "array", "items": account.clone(), "description": "With include=accounts."},
                    "assigned_user": {"anyOf": [user.clone(), {"type": "null"}], "description": "With include=assigned_user."},
                    "assigned_users": {"type": "array", "items": user.clone(), "description": "With include=assigned_users."}
                },
                "additionalProperties": true
            },
            "Deal": {
                "type": "object",
                "description": sandbox_choice("value is a decimal string with cents or a JSON number; a currency is added; extra fields may appear."),
                "required": ["id", "created_at", "updated_at", "name", "status", "value"],
                "properties": {
                    "id": {"type": "string"},
                    "created_at": {"$ref": "#/components/schemas/Timestamp"},
                    "updated_at": {"$ref": "#/components/schemas/Timestamp"},
                    "name": {"type": "string"},
                    "status": {"type": "string", "enum": DEAL_STATUSES},
                    "value": {"anyOf": [{"type": "string", "pattern": "^-?[0-9]+(\\.[0-9]+)?$"}, {"type": "number"}]},
                    "currency": {"type": "string"},
                    "account_id": opt_id.clone(),
                    "contact_ids": ids.clone(),
                    "assigned_user_id": opt_id.clone(),
                    "assigned_user_ids": ids.clone(),
                    "account": {"anyOf": [account.clone(), {"type": "null"}], "description": "With include=account."},
                    "contacts": {"type": "array", "items": {"$ref": "#/components/schemas/ContactSummary"}, "description": "With include=contacts."},
                    "assigned_user": {"anyOf": [user.clone(), {"type": "null"}], "description": "With include=assigned_user."},
                    "assigned_users": {"type": "array", "items": user.clone(), "description": "With include=assigned_users."}
                },
                "additionalProperties": true
            },
            "Project": {
                "type": "object",
                "description": sandbox_choice("start_date and end_date are dates; end_date is null for open-ended projects; extra fields may appear."),
                "required": ["id", "created_at", "updated_at", "name", "status", "start_date", "end_date"],
                "properties": {
                    "id": {"type": "string"},
                    "created_at": {"$ref": "#/components/schemas/Timestamp"},
                    "updated_at": {"$ref": "#/components/schemas/Timestamp"},
                    "name": {"type": "string"},
                    "status": {"type": "string", "enum": PROJECT_STATUSES},
                    "start_date": {"$ref": "#/components/schemas/Date"},
                    "end_date": {"anyOf": [{"$ref": "#/components/schemas/Date"}, {"type": "null"}]},
                    "owner_id": opt_id.clone(),
                    "member_ids": ids.clone(),
                    "account_id": opt_id.clone(),
                    "owner": {"anyOf": [user.clone(), {"type": "null"}], "description": "With include=owner."},
                    "members": {"type": "array", "items": user.clone(), "description": "With include=members."}
                },
                "additionalProperties": true
            },
            "UserSummary": {
                "type": "object",
                "description": sandbox_choice("an embedded user: id, name, email, role."),
                "required": ["id"],
                "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "email": {"type": "string"}, "role": {"type": "string"}},
                "additionalProperties": true
            },
            "AccountSummary": {
                "type": "object",
                "description": sandbox_choice("an embedded account: id, name, website, country."),
                "required": ["id"],
                "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "website": {"type": "string"}, "country": {"type": "string"}},
                "additionalProperties": true
            },
            "ContactSummary": {
                "type": "object",
                "description": sandbox_choice("an embedded contact: id, first_name, last_name, full_name, email."),
                "required": ["id"],
                "properties": {
                    "id": {"type": "string"},
                    "first_name": {"type": ["string", "null"]},
                    "last_name": {"type": ["string", "null"]},
                    "full_name": {"type": ["string", "null"]},
                    "email": {"type": ["string", "null"]}
                },
                "additionalProperties": true
            },
            "RescheduleBody": {
                "type": "object",
                "description": format!(
                    "The seed: a JSON object with arbitrary string keys and values of any type; the names of the fields that carry the new time are not shown. {}",
                    sandbox_choice(&format!(
                        "`{START_FIELD}` (required) and `{END_FIELD}` (optional; without it the old duration is kept) are RFC 3339 date-times (`YYYY-MM-DD HH:MM[:SS]` without an offset is read in `{ZONE_FIELD}`, else the appointment's zone); `{END_FIELD}` must be after `{START_FIELD}` (422). Other keys are ignored."
                    ))
                ),
                "required": [START_FIELD],
                "properties": {
                    START_FIELD: {"type": "string", "format": "date-time"},
                    END_FIELD: {"type": ["string", "null"], "format": "date-time"},
                    ZONE_FIELD: {
                        "description": "An IANA time zone name.",
                        "anyOf": [{"type": "string", "enum": zones}, {"type": "null"}]
                    }
                },
                "additionalProperties": true,
                "example": {START_FIELD: "2025-10-01T10:00:00+02:00", END_FIELD: "2025-10-01T11:00:00+02:00"}
            }
        }
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
