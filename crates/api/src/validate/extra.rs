//! Extra body keys typed as `key = value` lines (the form, the reschedule dialog) or
//! `--set KEY=VALUE` flags: the seed names tags, custom fields and consent but not their shape.

use serde_json::{Map, Value};

use super::check_text;

/// Body keys that have their own field; an extra line may not set them.
pub const KNOWN_FIELDS: [&str; 4] = ["first_name", "last_name", "email", "phone"];

pub const MAX_KEY: usize = 100;
pub const MAX_VALUE: usize = 10_000;

/// A bad extra line: its 1-based number and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ExtraLineError {
    pub line: usize,
    pub message: String,
}

/// Reads `key = value` lines (split at the first `=`, both sides trimmed). Blank lines and
/// lines starting with `#` are skipped; `\r\n` line ends are fine. Keys must be non-empty,
/// unique, free of control characters and not one of [`KNOWN_FIELDS`] (in any case); values
/// go through [`parse_value`].
pub fn parse_extra_lines(text: &str) -> Result<Map<String, Value>, ExtraLineError> {
    parse_extra_lines_reserving(text, &KNOWN_FIELDS)
}

/// [`parse_extra_lines`] with another set of reserved keys (the reschedule dialog reserves its
/// configured time keys).
pub fn parse_extra_lines_reserving(
    text: &str,
    reserved: &[&str],
) -> Result<Map<String, Value>, ExtraLineError> {
    let mut map = Map::new();
    for (i, line) in text.split('\n').enumerate() {
        let err = |message: String| ExtraLineError {
            line: i + 1,
            message,
        };
        let line = line.strip_suffix('\r').unwrap_or(line).trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = parse_pair(line).map_err(err)?;
        if let Some(r) = reserved.iter().find(|r| r.eq_ignore_ascii_case(&key)) {
            return Err(err(format!("{r} has its own field; set it there")));
        }
        if map.contains_key(&key) {
            return Err(err(format!("{key} is set twice")));
        }
        map.insert(key, value);
    }
    Ok(map)
}

/// One `key = value` (or `KEY=VALUE`) pair, the key checked, the value parsed.
pub fn parse_pair(line: &str) -> Result<(String, Value), String> {
    let Some((key, value)) = line.split_once('=') else {
        return Err("expected key = value".into());
    };
    let (key, value) = (key.trim(), value.trim());
    if key.is_empty() {
        return Err("a key is missing before the =".into());
    }
    check_text(key).map_err(|e| format!("the key {e}"))?;
    if key.chars().count() > MAX_KEY {
        return Err(format!(
            "the key is too long (at most {MAX_KEY} characters)"
        ));
    }
    check_text(value).map_err(|e| format!("the value of {key} {e}"))?;
    if value.chars().count() > MAX_VALUE {
        return Err(format!(
            "the value of {key} is too long (at most {MAX_VALUE} characters)"
        ));
    }
    Ok((key.to_string(), parse_value(value)))
}

/// A value as JSON when it is JSON (`42`, `true`, `null`, `["a"]`, `{"k": 1}`, `"quoted"`),
/// else the text as a string. An integer too large to keep exactly stays a string, so an id
/// like `12345678901234567890` is never rounded.
pub fn parse_value(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Number(n)) if n.is_f64() && is_integer_literal(text) => {
            Value::String(text.to_string())
        }
        Ok(v) => v,
        Err(_) => Value::String(text.to_string()),
    }
}

fn is_integer_literal(s: &str) -> bool {
    let digits = s.trim().strip_prefix('-').unwrap_or(s.trim());
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}
