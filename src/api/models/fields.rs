//! Field-by-field decoding of one record from raw JSON, and included related records.

use std::collections::BTreeMap;

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::{DecodeError, Money, Timestamp, value_to_string};

/// An included related record (account, user, contact, member...): its id and all its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    pub id: Option<String>,
    pub fields: Map<String, Value>,
}

impl Related {
    pub(super) fn from_value(v: Value) -> Option<Related> {
        match unwrap_data(v) {
            Value::Object(fields) => {
                let id = fields.get("id").and_then(value_to_string);
                Some(Related { id, fields })
            }
            Value::String(s) => Some(Related {
                id: Some(s),
                fields: Map::new(),
            }),
            Value::Number(n) => Some(Related {
                id: Some(n.to_string()),
                fields: Map::new(),
            }),
            _ => None,
        }
    }

    /// What to call it: name, full_name, first + last name, email, then id.
    pub fn label(&self) -> String {
        let get = |k: &str| {
            self.fields
                .get(k)
                .and_then(value_to_string)
                .filter(|s| !s.trim().is_empty())
        };
        if let Some(n) = get("name").or_else(|| get("full_name")) {
            return n;
        }
        let first = get("first_name");
        let last = get("last_name");
        if first.is_some() || last.is_some() {
            return [first, last]
                .into_iter()
                .flatten()
                .collect::<Vec<_>>()
                .join(" ");
        }
        get("email")
            .or_else(|| self.id.clone())
            .unwrap_or_else(|| "?".to_string())
    }
}

/// `{data: x}` with nothing else around it -> `x` (resource wrappers).
pub(super) fn unwrap_data(v: Value) -> Value {
    match v {
        Value::Object(mut m) if m.len() == 1 && m.contains_key("data") => {
            m.remove("data").unwrap_or(Value::Null)
        }
        other => other,
    }
}

/// A raw JSON scalar as text, without a detour through `f64`: a number keeps its literal
/// digits (an id of 25 digits stays exact). `null` is none; objects and arrays compact JSON.
pub(super) fn raw_to_string(raw: &RawValue) -> Option<String> {
    let text = raw.get().trim();
    match text.as_bytes().first()? {
        b'"' => serde_json::from_str::<String>(text).ok(),
        b'-' | b'0'..=b'9' => Some(text.to_string()),
        b'n' => None,
        _ => serde_json::from_str::<Value>(text)
            .ok()
            .as_ref()
            .and_then(value_to_string),
    }
}

/// A record's fields as raw JSON, taken out one by one; what is left is `extra`.
pub(super) struct Fields {
    map: BTreeMap<String, Box<RawValue>>,
}

impl Fields {
    pub(super) fn new(raw: &RawValue) -> Result<Self, DecodeError> {
        let map: BTreeMap<String, Box<RawValue>> =
            serde_json::from_str(raw.get()).map_err(|e| {
                DecodeError::new(
                    format!("a record is not a JSON object: {e}"),
                    raw.get().as_bytes(),
                )
            })?;
        Ok(Fields { map })
    }

    fn take_value(&mut self, key: &str) -> Option<Value> {
        let raw = self.map.remove(key)?;
        serde_json::from_str::<Value>(raw.get())
            .ok()
            .filter(|v| !v.is_null())
    }

    pub(super) fn id(&mut self, raw: &RawValue) -> Result<String, DecodeError> {
        self.map
            .remove("id")
            .as_deref()
            .and_then(raw_to_string)
            .ok_or_else(|| DecodeError::new("a record has no id", raw.get().as_bytes()))
    }

    /// A text field; a number or boolean becomes its text, an object or array compact JSON.
    pub(super) fn string(&mut self, key: &str) -> Option<String> {
        let raw = self.map.remove(key)?;
        raw_to_string(&raw)
    }

    pub(super) fn time(&mut self, key: &str) -> Option<Timestamp> {
        self.string(key).map(|s| Timestamp::parse(&s))
    }

    /// A number or a decimal string; any other shape (an object with a currency...) stays in
    /// `extra` rather than being dropped.
    pub(super) fn money(&mut self, key: &str) -> Option<Money> {
        let raw = self.map.get(key)?;
        let text = raw.get().trim();
        let money = match text.as_bytes().first()? {
            b'"' => Money::parse(&serde_json::from_str::<String>(text).ok()?),
            // A JSON number: its literal text, every digit kept.
            b'-' | b'0'..=b'9' => Money::parse(text),
            b'n' => {
                self.map.remove(key);
                return None;
            }
            _ => return None,
        };
        self.map.remove(key);
        Some(money)
    }

    /// A to-one relation; a value of another shape is kept in `extra` instead of dropped.
    pub(super) fn one(&mut self, key: &str) -> Option<Related> {
        let v = self.take_value(key)?;
        let kept = v.clone();
        match unwrap_data(v) {
            // `{data: null}`: included, and there is none.
            Value::Null => None,
            Value::Array(_) => {
                self.put_back(key, &kept);
                None
            }
            other => Related::from_value(other).or_else(|| {
                self.put_back(key, &kept);
                None
            }),
        }
    }

    /// A to-many relation.
    pub(super) fn many(&mut self, key: &str) -> Option<Vec<Related>> {
        let v = self.take_value(key)?;
        let kept = v.clone();
        match unwrap_data(v) {
            Value::Array(items) => {
                Some(items.into_iter().filter_map(Related::from_value).collect())
            }
            Value::Null => Some(Vec::new()),
            _ => {
                self.put_back(key, &kept);
                None
            }
        }
    }

    fn put_back(&mut self, key: &str, v: &Value) {
        if let Ok(raw) = RawValue::from_string(v.to_string()) {
            self.map.insert(key.to_string(), raw);
        }
    }

    /// What no typed field took. Values too deeply nested for `Value` become `null` here; the
    /// record's raw JSON still has them.
    pub(super) fn rest(self) -> Map<String, Value> {
        self.map
            .into_iter()
            .map(|(k, raw)| {
                let v = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                (k, v)
            })
            .collect()
    }
}
