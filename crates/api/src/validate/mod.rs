//! Contact input rules shared by `crmdash contacts create`, `contacts import` and the
//! new-contact form, so all three refuse the same things with the same words.
//!
//! Limits (characters, after trimming): first and last name 100 each, email 254 (local part
//! 64), phone 40 with 6 to 15 digits after the international prefix, extra keys 100, extra
//! values 10,000. Control characters, line separators and bidi overrides are refused in every
//! field (they would break tables and can disguise text). A field that is empty or only
//! whitespace counts as not given.

mod extra;
mod fields;

#[cfg(test)]
mod tests;

use crate::api::NewContact;

pub use extra::{
    ExtraLineError, KNOWN_FIELDS, MAX_KEY, MAX_VALUE, parse_extra_lines,
    parse_extra_lines_reserving, parse_pair, parse_value,
};
pub use fields::{ContactField, FieldErrors, field_for_server_key, server_field_errors};

pub const MAX_NAME: usize = 100;
pub const MAX_EMAIL: usize = 254;
pub const MAX_EMAIL_LOCAL: usize = 64;
pub const MAX_PHONE: usize = 40;
pub const MIN_PHONE_DIGITS: usize = 6;
pub const MAX_PHONE_DIGITS: usize = 15;

/// What a person typed into the form (or passed as flags / a CSV row), untrimmed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContactInput {
    pub first_name: String,
    pub last_name: String,
    pub email: String,
    pub phone: String,
    /// Extra body keys as `key = value` lines (see [`parse_extra_lines`]).
    pub extra: String,
}

/// Checks every field and builds the body; on failure, one message per offending field (all
/// of them, so a form can mark each and the CLI can list each).
pub fn validate_contact(input: &ContactInput) -> Result<NewContact, FieldErrors> {
    let mut errors = FieldErrors::default();
    let mut take = |field: ContactField, raw: &str, check: fn(&str) -> Result<(), String>| {
        let t = raw.trim();
        if t.is_empty() {
            return None;
        }
        match check(t) {
            Ok(()) => Some(t.to_string()),
            Err(e) => {
                errors.insert(field, e);
                None
            }
        }
    };
    let first_name = take(ContactField::FirstName, &input.first_name, check_name);
    let last_name = take(ContactField::LastName, &input.last_name, check_name);
    let email = take(ContactField::Email, &input.email, check_email);
    let phone = take(ContactField::Phone, &input.phone, check_phone);
    let extra = match parse_extra_lines(&input.extra) {
        Ok(map) => map,
        Err(e) => {
            errors.insert(ContactField::Extra, e.to_string());
            Default::default()
        }
    };
    // A value spelled as JSON (`"\u001b[2J"`) decodes to the same characters a raw one holds.
    if let Some((key, why)) = extra.iter().find_map(|(k, v)| hidden_in(v).map(|w| (k, w))) {
        errors.insert(ContactField::Extra, format!("{key}: {why}"));
    }
    let given = |s: &str| !s.trim().is_empty();
    if !given(&input.first_name) && !given(&input.last_name) && !given(&input.email) {
        errors.insert(ContactField::Form, "give a name or an email".to_string());
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    Ok(NewContact {
        first_name,
        last_name,
        email,
        phone,
        extra,
    })
}

/// A first or last name (already trimmed by the caller, or trimmed here).
pub fn check_name(s: &str) -> Result<(), String> {
    let s = s.trim();
    check_text(s)?;
    if s.chars().count() > MAX_NAME {
        return Err(format!("too long (at most {MAX_NAME} characters)"));
    }
    Ok(())
}

/// A pragmatic email check: one `@`, a plausible local part, a dotted domain, no spaces.
/// Not RFC 5322 (quoted local parts and IP literals are refused): it catches typos, the
/// server has the last word.
pub fn check_email(s: &str) -> Result<(), String> {
    let s = s.trim();
    check_text(s)?;
    if s.chars().count() > MAX_EMAIL {
        return Err(format!("too long (at most {MAX_EMAIL} characters)"));
    }
    if s.chars().any(char::is_whitespace) {
        return Err("an email cannot contain spaces".into());
    }
    let (local, domain) = match s.split('@').collect::<Vec<_>>().as_slice() {
        [local, domain] => (*local, *domain),
        [_] => return Err("an email needs an @ (name@example.com)".into()),
        _ => return Err("an email has only one @".into()),
    };
    if local.is_empty() {
        return Err("an email needs a name before the @".into());
    }
    if local.chars().count() > MAX_EMAIL_LOCAL {
        return Err(format!(
            "the part before the @ is too long (at most {MAX_EMAIL_LOCAL} characters)"
        ));
    }
    if local.starts_with('.') || local.ends_with('.') || local.contains("..") {
        return Err("the part before the @ has a misplaced dot".into());
    }
    if let Some(c) = local.chars().find(|c| "\"(),:;<>[\\]".contains(*c)) {
        return Err(format!("an email cannot contain {c:?} before the @"));
    }
    if domain.is_empty() {
        return Err("an email needs a domain after the @ (example.com)".into());
    }
    if !domain.contains('.') {
        return Err("the domain after the @ needs a dot (example.com)".into());
    }
    let labels: Vec<&str> = domain.split('.').collect();
    for label in &labels {
        if label.is_empty() {
            return Err("the domain after the @ has a misplaced dot".into());
        }
        if label.starts_with('-') || label.ends_with('-') || label.chars().count() > 63 {
            return Err(format!("{label:?} is not a valid part of a domain"));
        }
        if let Some(c) = label.chars().find(|c| !(c.is_alphanumeric() || *c == '-')) {
            return Err(format!("the domain cannot contain {c:?}"));
        }
    }
    let tld = labels.last().copied().unwrap_or_default();
    if tld.chars().count() < 2 || tld.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "{domain:?} does not end in a valid top-level domain"
        ));
    }
    Ok(())
}

/// A phone number with an international prefix: `+` or `00`, then digits, spaces, dashes,
/// dots and parentheses, 6 to 15 digits in all (E.164's maximum).
pub fn check_phone(s: &str) -> Result<(), String> {
    const PREFIX: &str = "a phone needs an international prefix, + or 00 (+49 30 1234567)";
    let s = s.trim();
    check_text(s)?;
    if s.chars().count() > MAX_PHONE {
        return Err(format!("too long (at most {MAX_PHONE} characters)"));
    }
    let rest = if let Some(r) = s.strip_prefix('+') {
        r
    } else if let Some(r) = s.strip_prefix("00") {
        r
    } else {
        return Err(PREFIX.into());
    };
    if let Some(c) = rest
        .chars()
        .find(|c| !(c.is_ascii_digit() || " -.()".contains(*c)))
    {
        return Err(format!(
            "a phone has only digits, spaces, dashes, dots and parentheses, not {c:?}"
        ));
    }
    let digits = rest.chars().filter(char::is_ascii_digit).count();
    if digits < MIN_PHONE_DIGITS {
        return Err(format!(
            "too few digits for a phone (at least {MIN_PHONE_DIGITS} after the prefix)"
        ));
    }
    if digits > MAX_PHONE_DIGITS {
        return Err(format!(
            "too many digits for a phone (at most {MAX_PHONE_DIGITS} after the prefix)"
        ));
    }
    Ok(())
}

/// Refuses characters that break tables or disguise text: controls (also tab and newline),
/// line/paragraph separators and bidi embedding/override/isolate controls.
pub(crate) fn check_text(s: &str) -> Result<(), String> {
    match s.chars().find(|c| is_forbidden(*c)) {
        Some(c) => Err(why_forbidden(c)),
        None => Ok(()),
    }
}

/// Why a character [`is_forbidden`] is refused.
fn why_forbidden(c: char) -> String {
    if c.is_control() {
        format!("contains a control character ({c:?})")
    } else {
        format!("contains an invisible formatting character ({c:?})")
    }
}

/// The first string inside `v` (at any depth) holding an escape, another control that is not a
/// line end or a tab, or a bidi control: why it is refused.
fn hidden_in(v: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    match v {
        Value::String(s) => s
            .chars()
            .find(|c| is_forbidden(*c) && !matches!(c, '\n' | '\t' | '\r'))
            .map(why_forbidden),
        Value::Array(a) => a.iter().find_map(hidden_in),
        Value::Object(m) => m.values().find_map(hidden_in),
        _ => None,
    }
}

fn is_forbidden(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}
