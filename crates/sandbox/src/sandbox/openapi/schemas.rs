//! The document's schemas: the records, the bodies and the field patterns, each derived from
//! the sandbox's own validation limits (a changed limit changes the document).

use serde_json::{Value, json};

use super::{DEAL_STATUSES, PROJECT_STATUSES, WS, error_response, sandbox_choice};
use crate::sandbox::appointments::{END_FIELD, START_FIELD, ZONE_FIELD};
use crate::sandbox::listing::MAX_PER_PAGE;
use crate::sandbox::validation::{
    MAX_EMAIL, MAX_EMAIL_LOCAL, MAX_NAME, MAX_PHONE, PHONE_DIGITS, PHONE_SEPARATORS,
};

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

/// The document's `components`: the shared schemas, parameters and responses.
pub(super) fn components() -> Value {
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
