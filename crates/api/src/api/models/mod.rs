//! Tolerant record types. The seed leaves most shapes "not shown", so every field but `id`
//! may be missing, null or of an unexpected type; unknown fields are kept in `extra`, and each
//! record keeps the server's raw JSON so output can reproduce it byte for byte.
//!
//! Records are decoded field by field from `RawValue`s rather than with `#[serde(flatten)]`,
//! which would buffer values and lose the raw text of numbers (`value` must never become a float).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

mod fields;
mod money;
mod page;
mod records;
mod time;

pub use fields::Related;
pub use money::Money;
pub use page::{Meta, Page, decode_page, decode_page_lean, decode_single};
pub use records::{ApiRecord, AppointmentRef, Contact, Deal, Project};
pub use time::{Timestamp, When};

/// How much of an undecodable body an error quotes.
const SNIPPET_BYTES: usize = 120;

/// A response body (or part of one) that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (body starts: {snippet:?})")]
pub struct DecodeError {
    pub message: String,
    /// The first bytes of the offending text, for the user to recognise it.
    pub snippet: String,
}

impl DecodeError {
    /// `text` is the offending body; its first 120 bytes become the snippet (control
    /// characters escaped by `Display`'s `{:?}`, so the message stays on one line).
    pub fn new(message: impl Into<String>, text: &[u8]) -> Self {
        let s = String::from_utf8_lossy(&text[..text.len().min(SNIPPET_BYTES)]).into_owned();
        DecodeError {
            message: message.into(),
            snippet: s,
        }
    }
}

/// Scalars as text; `null` as none; objects and arrays as compact JSON.
pub fn value_to_string(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        other => Some(other.to_string()),
    }
}

/// The body of `POST /contacts`: the seed's four fields plus any extra keys the admin adds
/// (tags, custom fields, consent, owner...: the seed names them but not their shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct NewContact {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phone: Option<String>,
    /// Further body keys. The four known keys always win over an extra key of the same name.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl NewContact {
    /// The exact JSON object that will be sent.
    pub fn to_body(&self) -> Map<String, Value> {
        let mut body = self.extra.clone();
        for (k, v) in [
            ("first_name", &self.first_name),
            ("last_name", &self.last_name),
            ("email", &self.email),
            ("phone", &self.phone),
        ] {
            match v {
                Some(v) => {
                    body.insert(k.to_string(), Value::String(v.clone()));
                }
                None => {
                    body.remove(k);
                }
            }
        }
        body
    }
}

/// The `Idempotency-Key` of one logical contact: kept across retries so a retry never duplicates.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    /// A fresh random key (UUID v4), for a new draft.
    pub fn random() -> Self {
        IdempotencyKey(uuid::Uuid::new_v4().to_string())
    }

    /// A caller-supplied stable key (an external id, an import row id). Must be non-empty
    /// printable ASCII (it travels in a header).
    pub fn from_stable(key: &str) -> Result<Self, String> {
        let k = key.trim();
        if k.is_empty() || k.len() > 255 || !k.bytes().all(|b| (0x21..=0x7e).contains(&b)) {
            return Err(
                "an idempotency key must be 1-255 printable ASCII characters without spaces".into(),
            );
        }
        Ok(IdempotencyKey(k.to_string()))
    }

    /// A key derived from stable parts (e.g. file name + row hash): SHA-256, hex.
    pub fn derived(parts: &[&str]) -> Self {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        for p in parts {
            h.update((p.len() as u64).to_be_bytes());
            h.update(p.as_bytes());
        }
        IdempotencyKey(format!("crmdash-{}", hex::encode(&h.finalize()[..16])))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
