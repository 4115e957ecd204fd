//! Field-by-field decoding of one record from raw JSON, and included related records.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, MapAccess, Visitor};
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

/// A record's fields as raw JSON, taken out one by one; what is left is `extra`. The keys and
/// values borrow the record's text (a key is copied only when written with escapes): a
/// record's twenty-odd fields cost no allocation each.
pub(super) struct Fields<'a> {
    /// In the record's order; a key given twice holds its last value, as a map would.
    fields: Vec<(Cow<'a, str>, &'a RawValue)>,
    /// Relations by id only (no `Related::fields`) and no `extra`: what a sync stores needs
    /// nothing else (the raw JSON keeps it all), and building those values was a third of
    /// decoding a contact ([`super::ApiRecord::from_raw_lean`]).
    lean: bool,
}

/// Nesting deeper than this: a relation is read the parsed way, whose depth limit (128)
/// then decides as it does for a full record.
const LEAN_DEPTH: usize = 100;

/// How deeply `text` (JSON) nests, counted up to `limit` (strings skipped).
fn depth_over(text: &str, limit: usize) -> bool {
    let (mut depth, mut in_str, mut esc) = (0usize, false, false);
    for b in text.bytes() {
        if in_str {
            match b {
                _ if esc => esc = false,
                b'\\' => esc = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

/// [`unwrap_data`] on raw JSON: `{data: x}` with nothing else around it -> `x`. With the
/// members of the value given back when it is an object that is not such a wrapper (so they
/// are not read twice). `None`: it does not parse.
fn lean_unwrap(raw: &RawValue) -> Option<(&RawValue, Option<Members<'_>>)> {
    if !raw.get().trim_start().starts_with('{') {
        return Some((raw, None));
    }
    let Members(members) = serde_json::from_str(raw.get()).ok()?;
    if members.len() == 1 && members[0].0 == "data" {
        return Some((members[0].1, None));
    }
    Some((raw, Some(Members(members))))
}

/// What [`Related::from_value`] makes of a value once unwrapped (`members`: its members when
/// [`lean_unwrap`] read them), its id only: `None` for a value no relation is made of (null,
/// a boolean, a list), and `Err` when it does not parse.
fn lean_related(v: &RawValue, members: Option<Members<'_>>) -> Result<Option<Related>, ()> {
    let text = v.get().trim();
    let id = match text.as_bytes().first() {
        Some(b'{') => {
            let Members(members) = match members {
                Some(m) => m,
                None => serde_json::from_str(v.get()).map_err(|_| ())?,
            };
            members
                .iter()
                .find(|(k, _)| k == "id")
                .map(|(_, id)| serde_json::from_str::<Value>(id.get()).map_err(|_| ()))
                .transpose()?
                .as_ref()
                .and_then(value_to_string)
        }
        Some(b'"') => Some(serde_json::from_str::<String>(text).map_err(|_| ())?),
        Some(b'-' | b'0'..=b'9') => match serde_json::from_str::<Value>(text).map_err(|_| ())? {
            Value::Number(n) => Some(n.to_string()),
            _ => return Err(()),
        },
        _ => {
            serde_json::from_str::<Value>(text).map_err(|_| ())?;
            return Ok(None);
        }
    };
    Ok(Some(Related {
        id,
        fields: Map::new(),
    }))
}

/// A JSON object's members, borrowed ([`Fields`]).
struct Members<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de> Deserialize<'de> for Members<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Object;
        impl<'de> Visitor<'de> for Object {
            type Value = Members<'de>;
            // What a map's own error says (`invalid type: ..., expected a map`).
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Members<'de>, A::Error> {
                let mut out: Vec<(Cow<'de, str>, &'de RawValue)> = Vec::with_capacity(24);
                while let Some(Key(k)) = m.next_key()? {
                    let v: &'de RawValue = m.next_value()?;
                    match out.iter_mut().find(|(seen, _)| *seen == k) {
                        Some(slot) => slot.1 = v,
                        None => out.push((k, v)),
                    }
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Object)
    }
}

/// An object key, borrowed unless it holds escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Text;
        impl<'de> Visitor<'de> for Text {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(Text)
    }
}

impl<'a> Fields<'a> {
    pub(super) fn new(raw: &'a RawValue, lean: bool) -> Result<Self, DecodeError> {
        let Members(fields) = serde_json::from_str(raw.get()).map_err(|e| {
            DecodeError::new(
                format!("a record is not a JSON object: {e}"),
                raw.get().as_bytes(),
            )
        })?;
        Ok(Fields { fields, lean })
    }

    /// A relation's raw value when it is read the lean way ([`Fields::lean`]): not when
    /// nested deeply enough for the parser's limit to matter (the parsed way decides then).
    fn lean_raw(&self, key: &str) -> Option<&'a RawValue> {
        if !self.lean {
            return None;
        }
        self.get(key)
            .filter(|raw| !depth_over(raw.get(), LEAN_DEPTH))
    }

    fn remove(&mut self, key: &str) -> Option<&'a RawValue> {
        let at = self.fields.iter().position(|(k, _)| k == key)?;
        Some(self.fields.swap_remove(at).1)
    }

    fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    fn take_value(&mut self, key: &str) -> Option<Value> {
        let raw = self.remove(key)?;
        serde_json::from_str::<Value>(raw.get())
            .ok()
            .filter(|v| !v.is_null())
    }

    pub(super) fn id(&mut self, raw: &RawValue) -> Result<String, DecodeError> {
        self.remove("id")
            .and_then(raw_to_string)
            .ok_or_else(|| DecodeError::new("a record has no id", raw.get().as_bytes()))
    }

    /// A text field; a number or boolean becomes its text, an object or array compact JSON.
    pub(super) fn string(&mut self, key: &str) -> Option<String> {
        raw_to_string(self.remove(key)?)
    }

    pub(super) fn time(&mut self, key: &str) -> Option<Timestamp> {
        self.string(key).map(|s| Timestamp::parse(&s))
    }

    /// A number or a decimal string; any other shape (an object with a currency...) stays in
    /// `extra` rather than being dropped.
    pub(super) fn money(&mut self, key: &str) -> Option<Money> {
        let raw = self.get(key)?;
        let text = raw.get().trim();
        let money = match text.as_bytes().first()? {
            b'"' => Money::parse(&serde_json::from_str::<String>(text).ok()?),
            // A JSON number: its literal text, every digit kept.
            b'-' | b'0'..=b'9' => Money::parse(text),
            b'n' => {
                self.remove(key);
                return None;
            }
            _ => return None,
        };
        self.remove(key);
        Some(money)
    }

    /// A to-one relation; a value of another shape is kept in `extra` instead of dropped.
    pub(super) fn one(&mut self, key: &str) -> Option<Related> {
        if let Some(raw) = self.lean_raw(key) {
            // As the parsed way: null is none; `{data: x}` unwrapped; then null is none, a
            // list is kept in `extra`, and the rest is read by `Related::from_value`.
            self.remove(key);
            if raw.get().trim_start().starts_with('n') {
                return None;
            }
            let (u1, m1) = lean_unwrap(raw)?;
            match u1.get().trim_start().as_bytes().first() {
                Some(b'n') => return None,
                Some(b'[') => {
                    self.put_back(key, raw);
                    return None;
                }
                _ => {}
            }
            let (u2, m2) = match m1 {
                Some(m) => (u1, Some(m)),
                None => lean_unwrap(u1)?,
            };
            return match lean_related(u2, m2).ok()? {
                Some(r) => Some(r),
                None => {
                    self.put_back(key, raw);
                    None
                }
            };
        }
        let raw = self.get(key)?;
        let v = self.take_value(key)?;
        match unwrap_data(v) {
            // `{data: null}`: included, and there is none.
            Value::Null => None,
            Value::Array(_) => {
                self.put_back(key, raw);
                None
            }
            other => Related::from_value(other).or_else(|| {
                self.put_back(key, raw);
                None
            }),
        }
    }

    /// A to-many relation.
    pub(super) fn many(&mut self, key: &str) -> Option<Vec<Related>> {
        if let Some(raw) = self.lean_raw(key) {
            // As the parsed way: null is none; `{data: x}` unwrapped; then each item of a list
            // read by `Related::from_value`, null an empty list, the rest kept in `extra`.
            self.remove(key);
            if raw.get().trim_start().starts_with('n') {
                return None;
            }
            let (u1, _) = lean_unwrap(raw)?;
            return match u1.get().trim_start().as_bytes().first() {
                Some(b'[') => {
                    let items: Vec<&RawValue> = serde_json::from_str(u1.get()).ok()?;
                    let mut out = Vec::with_capacity(items.len());
                    for item in items {
                        let (v, m) = lean_unwrap(item)?;
                        if let Some(r) = lean_related(v, m).ok()? {
                            out.push(r);
                        }
                    }
                    Some(out)
                }
                Some(b'n') => Some(Vec::new()),
                _ => {
                    self.put_back(key, raw);
                    None
                }
            };
        }
        let raw = self.get(key)?;
        let v = self.take_value(key)?;
        match unwrap_data(v) {
            Value::Array(items) => {
                Some(items.into_iter().filter_map(Related::from_value).collect())
            }
            Value::Null => Some(Vec::new()),
            _ => {
                self.put_back(key, raw);
                None
            }
        }
    }

    /// Gives a value of an unexpected shape back, for `extra` (its text as sent, which
    /// parses to the value taken).
    fn put_back(&mut self, key: &str, raw: &'a RawValue) {
        self.fields.push((Cow::Owned(key.to_string()), raw));
    }

    /// What no typed field took. Values too deeply nested for `Value` become `null` here; the
    /// record's raw JSON still has them.
    pub(super) fn rest(self) -> Map<String, Value> {
        if self.lean {
            return Map::new();
        }
        let mut fields = self.fields;
        // By key, as they came out of a sorted map (a `Map` keeping insertion order shows it).
        fields.sort_by(|a, b| a.0.cmp(&b.0));
        fields
            .into_iter()
            .map(|(k, raw)| {
                let v = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                (k.into_owned(), v)
            })
            .collect()
    }
}
