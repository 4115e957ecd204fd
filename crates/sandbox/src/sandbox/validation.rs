//! Checks of a new contact: a name or an e-mail, e-mail syntax, phone with an international
//! prefix, length bounds. Failures are 422 with field errors.

use serde_json::{Map, Value};

use super::error::Failure;

pub const MAX_NAME: usize = 100;
pub const MAX_EMAIL: usize = 254;
pub const MAX_PHONE: usize = 32;
/// Longest local part of an e-mail address, in characters.
pub const MAX_EMAIL_LOCAL: usize = 64;
/// How many digits a phone has after its international prefix.
pub const PHONE_DIGITS: std::ops::RangeInclusive<usize> = 7..=15;
/// What may stand between a phone's digits.
pub const PHONE_SEPARATORS: &str = " -().\u{a0}/";
/// Relation ids a new contact may carry: (key, a list of ids?).
const RELATION_IDS: &[(&str, bool)] = &[
    ("account_ids", true),
    ("assigned_user_id", false),
    ("assigned_user_ids", true),
];
/// Keys the server fills from `include`; sent ones are ignored.
const INCLUDE_FIELDS: &[&str] = &["accounts", "assigned_user", "assigned_users"];
/// Body keys the server sets itself; sent ones are ignored.
const SERVER_FIELDS: &[&str] = &["id", "created_at", "updated_at", "full_name"];

/// A contact body that passed the checks: the four known fields trimmed (empty = absent) and
/// every other key kept as sent.
#[derive(Debug, Clone, PartialEq)]
pub struct CleanContact {
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub extra: Map<String, Value>,
}

fn text_field(
    body: &Map<String, Value>,
    field: &str,
    max: usize,
    errors: &mut Failure,
) -> Option<String> {
    match body.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => {
            // The bound is on the value as sent (spaces included), so a schema can state it.
            if s.chars().count() > max {
                errors.field(
                    field,
                    format!("The {field} may not be greater than {max} characters."),
                );
            }
            let s = s.trim();
            (!s.is_empty()).then(|| s.to_string())
        }
        Some(_) => {
            errors.field(field, format!("The {field} must be a string."));
            None
        }
    }
}

/// A character of a domain label: an ASCII letter, digit or `-`, or any non-ASCII character
/// but spaces and controls (internationalised domain names).
pub fn domain_char_ok(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || c == '-'
        || (!c.is_ascii() && !c.is_whitespace() && !c.is_control())
}

/// `local@domain.tld`: one `@`, no spaces or list separators, a dotted domain of non-empty labels.
pub fn email_ok(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let bad = |c: char| c.is_whitespace() || c.is_control() || "@,;<>()[]\\\"".contains(c);
    if local.is_empty()
        || local.chars().count() > MAX_EMAIL_LOCAL
        || local.chars().any(bad)
        || local.starts_with('.')
        || local.ends_with('.')
    {
        return false;
    }
    let labels: Vec<&str> = domain.split('.').collect();
    labels.len() >= 2
        && labels.iter().all(|l| {
            !l.is_empty()
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(domain_char_ok)
        })
        && labels.last().is_some_and(|tld| tld.chars().count() >= 2)
}

/// `+` or `00` first, then digits and the usual separators; 7 to 15 digits after the prefix.
pub fn phone_ok(phone: &str) -> bool {
    let rest = if let Some(r) = phone.strip_prefix('+') {
        r
    } else if let Some(r) = phone.strip_prefix("00") {
        r
    } else {
        return false;
    };
    let digits = rest.chars().filter(char::is_ascii_digit).count();
    rest.chars()
        .all(|c| c.is_ascii_digit() || PHONE_SEPARATORS.contains(c))
        && PHONE_DIGITS.contains(&digits)
}

/// Checks a create body.
pub fn check_new_contact(body: &Value) -> Result<CleanContact, Failure> {
    let Value::Object(map) = body else {
        let mut f = Failure::validation();
        f.field("body", "The request body must be a JSON object.");
        return Err(f);
    };
    let mut errors = Failure::validation();
    let first_name = text_field(map, "first_name", MAX_NAME, &mut errors);
    let last_name = text_field(map, "last_name", MAX_NAME, &mut errors);
    let email = text_field(map, "email", MAX_EMAIL, &mut errors);
    let phone = text_field(map, "phone", MAX_PHONE, &mut errors);
    if let Some(e) = &email
        && !email_ok(e)
    {
        errors.field("email", "The email must be a valid email address.");
    }
    if let Some(p) = &phone
        && !phone_ok(p)
    {
        errors.field(
            "phone",
            "The phone must start with an international prefix (+ or 00) and have 7 to 15 digits.",
        );
    }
    for (key, many) in RELATION_IDS {
        let ok = match map.get(*key) {
            None | Some(Value::Null) => true,
            Some(Value::String(_)) => !many,
            Some(Value::Array(ids)) => *many && ids.iter().all(Value::is_string),
            Some(_) => false,
        };
        if !ok {
            errors.field(
                key,
                if *many {
                    format!("The {key} must be a list of ids (strings).")
                } else {
                    format!("The {key} must be an id (a string) or null.")
                },
            );
        }
    }
    if first_name.is_none() && last_name.is_none() && email.is_none() && !errors.has_field_errors()
    {
        let msg = "A name (first_name or last_name) or an email is required.";
        errors.field("first_name", msg);
        errors.field("email", msg);
    }
    if errors.has_field_errors() {
        return Err(errors);
    }
    let extra = map
        .iter()
        .filter(|(k, _)| {
            !matches!(k.as_str(), "first_name" | "last_name" | "email" | "phone")
                && !SERVER_FIELDS.contains(&k.as_str())
                && !INCLUDE_FIELDS.contains(&k.as_str())
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(CleanContact {
        first_name,
        last_name,
        email,
        phone,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn emails_and_phones() {
        for ok in ["a@b.de", "jürgen.müller@web.de", "x+tag@sub.example.co.uk"] {
            assert!(email_ok(ok), "{ok}");
        }
        for bad in [
            "", "a@b", "a b@c.de", "@c.de", "a@@c.de", "a@c..de", "a@c.d",
        ] {
            assert!(!email_ok(bad), "{bad}");
        }
        for ok in [
            "+49 30 1234567",
            "0049 (0)30 123-4567",
            "+1 (415) 555-0132",
            "+81 90-1234-5678",
        ] {
            assert!(phone_ok(ok), "{ok}");
        }
        for bad in ["030 1234567", "+49 abc", "+12", "+1234567890123456"] {
            assert!(!phone_ok(bad), "{bad}");
        }
    }

    #[test]
    fn a_name_or_an_email_is_needed() {
        let e = check_new_contact(&json!({"phone": "+49 30 1234567"})).unwrap_err();
        assert!(e.errors.contains_key("first_name") && e.errors.contains_key("email"));
        let ok =
            check_new_contact(&json!({"email": " a@b.de ", "tags": ["x"], "id": "mine"})).unwrap();
        assert_eq!(ok.email.as_deref(), Some("a@b.de"));
        assert!(ok.extra.contains_key("tags") && !ok.extra.contains_key("id"));
        let long = "x".repeat(101);
        let e = check_new_contact(&json!({"first_name": long, "last_name": 5})).unwrap_err();
        assert_eq!(e.errors.len(), 2);
    }
}
