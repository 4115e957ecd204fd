//! Tolerant record types. The seed leaves most shapes "not shown", so every field but `id`
//! may be missing, null or of an unexpected type; unknown fields are kept in `extra`, and each
//! record keeps the server's raw JSON so output can reproduce it byte for byte.
//!
//! Records are decoded field by field from `RawValue`s rather than with `#[serde(flatten)]`,
//! which would buffer values and lose the raw text of numbers (`value` must never become a float).

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Local, NaiveDate, NaiveDateTime, TimeZone, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// A response body (or part of one) that could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message} (body starts: {snippet:?})")]
pub struct DecodeError {
    pub message: String,
    /// The first bytes of the offending text, for the user to recognise it.
    pub snippet: String,
}

impl DecodeError {
    pub fn new(message: impl Into<String>, text: &[u8]) -> Self {
        let s = String::from_utf8_lossy(&text[..text.len().min(120)]).into_owned();
        DecodeError {
            message: message.into(),
            snippet: s,
        }
    }
}

/// A point in time, or a calendar date, as the server sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum When {
    Instant(DateTime<Utc>),
    /// A date without a time: never shifted across days by time zones.
    Date(NaiveDate),
}

/// A timestamp field: the original text plus what it parsed to (if it parsed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Timestamp {
    raw: String,
    when: Option<When>,
}

impl Timestamp {
    /// Accepts RFC 3339 with or without fractions, `YYYY-MM-DD HH:MM:SS[.f]` and
    /// `YYYY-MM-DDTHH:MM:SS[.f]` without offset (read as UTC), a date alone, and Unix seconds.
    pub fn parse(raw: &str) -> Self {
        Timestamp {
            raw: raw.to_string(),
            when: parse_when(raw.trim()),
        }
    }

    pub fn raw(&self) -> &str {
        &self.raw
    }

    pub fn when(&self) -> Option<When> {
        self.when
    }

    /// The instant (a date alone counts as its midnight UTC), for ordering and ages.
    pub fn instant(&self) -> Option<DateTime<Utc>> {
        match self.when? {
            When::Instant(t) => Some(t),
            When::Date(d) => Some(Utc.from_utc_datetime(&d.and_hms_opt(0, 0, 0)?)),
        }
    }

    /// `2026-11-22 14:03` in the machine's local zone; a date alone as `2026-11-22`;
    /// text that did not parse, as it came.
    pub fn display_local(&self) -> String {
        match self.when {
            Some(When::Instant(t)) => t.with_timezone(&Local).format("%Y-%m-%d %H:%M").to_string(),
            Some(When::Date(d)) => d.format("%Y-%m-%d").to_string(),
            None => self.raw.clone(),
        }
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display_local())
    }
}

fn parse_when(s: &str) -> Option<When> {
    if let Ok(t) = DateTime::parse_from_rfc3339(s) {
        return Some(When::Instant(t.with_timezone(&Utc)));
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%d %H:%M:%S%.f%z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
    ] {
        if let Ok(t) = DateTime::parse_from_str(s, fmt) {
            return Some(When::Instant(t.with_timezone(&Utc)));
        }
    }
    for fmt in [
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(s, fmt) {
            return Some(When::Instant(Utc.from_utc_datetime(&t)));
        }
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return Some(When::Date(d));
    }
    if !s.is_empty() && s.len() <= 12 && s.bytes().all(|b| b.is_ascii_digit()) {
        let secs: i64 = s.parse().ok()?;
        return DateTime::from_timestamp(secs, 0).map(When::Instant);
    }
    None
}

/// A money amount: the original text and, when it fits, an exact decimal. Never a float.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Money {
    raw: String,
    decimal: Option<Decimal>,
}

impl Money {
    /// From a JSON number's literal text or a decimal string (`"1234.50"`, `"1,234.50"`).
    pub fn parse(raw: &str) -> Self {
        let cleaned: String = raw
            .trim()
            .chars()
            .filter(|c| *c != ',' && *c != '_')
            .collect();
        let decimal = Decimal::from_str(&cleaned)
            .or_else(|_| Decimal::from_scientific(&cleaned))
            .ok();
        Money {
            raw: raw.to_string(),
            decimal,
        }
    }

    pub fn raw(&self) -> &str {
        &self.raw
    }

    pub fn decimal(&self) -> Option<Decimal> {
        self.decimal
    }

    /// With at least two decimals and every digit the server sent (`12` -> `12.00`,
    /// `0.125` -> `0.125`); text that is not a number, as it came.
    pub fn display(&self) -> String {
        match self.decimal {
            Some(d) if d.scale() < 2 => {
                let mut d = d;
                d.rescale(2);
                d.to_string()
            }
            Some(d) => d.to_string(),
            None => self.raw.clone(),
        }
    }
}

impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.display())
    }
}

/// An included related record (account, user, contact, member...): its id and all its fields.
#[derive(Debug, Clone, PartialEq)]
pub struct Related {
    pub id: Option<String>,
    pub fields: Map<String, Value>,
}

impl Related {
    fn from_value(v: Value) -> Option<Related> {
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
fn unwrap_data(v: Value) -> Value {
    match v {
        Value::Object(mut m) if m.len() == 1 && m.contains_key("data") => {
            m.remove("data").unwrap_or(Value::Null)
        }
        other => other,
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

/// A record's fields as raw JSON, taken out one by one; what is left is `extra`.
struct Fields {
    map: BTreeMap<String, Box<RawValue>>,
}

impl Fields {
    fn new(raw: &RawValue) -> Result<Self, DecodeError> {
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

    fn id(&mut self, raw: &RawValue) -> Result<String, DecodeError> {
        self.take_value("id")
            .as_ref()
            .and_then(value_to_string)
            .ok_or_else(|| DecodeError::new("a record has no id", raw.get().as_bytes()))
    }

    fn string(&mut self, key: &str) -> Option<String> {
        self.take_value(key).as_ref().and_then(value_to_string)
    }

    fn time(&mut self, key: &str) -> Option<Timestamp> {
        self.take_value(key)
            .as_ref()
            .and_then(value_to_string)
            .map(|s| Timestamp::parse(&s))
    }

    fn money(&mut self, key: &str) -> Option<Money> {
        let raw = self.map.remove(key)?;
        let text = raw.get().trim();
        if text == "null" {
            return None;
        }
        if text.starts_with('"') {
            let s: String = serde_json::from_str(text).ok()?;
            return Some(Money::parse(&s));
        }
        // A JSON number: its literal text, every digit kept.
        Some(Money::parse(text))
    }

    /// A to-one relation; a value of another shape is kept in `extra` instead of dropped.
    fn one(&mut self, key: &str) -> Option<Related> {
        let v = self.take_value(key)?;
        let kept = v.clone();
        match unwrap_data(v) {
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
    fn many(&mut self, key: &str) -> Option<Vec<Related>> {
        let v = self.take_value(key)?;
        match unwrap_data(v) {
            Value::Array(items) => {
                Some(items.into_iter().filter_map(Related::from_value).collect())
            }
            other => {
                self.put_back(key, &other);
                None
            }
        }
    }

    fn put_back(&mut self, key: &str, v: &Value) {
        if let Ok(raw) = RawValue::from_string(v.to_string()) {
            self.map.insert(key.to_string(), raw);
        }
    }

    fn rest(self) -> Map<String, Value> {
        self.map
            .into_iter()
            .map(|(k, raw)| {
                let v = serde_json::from_str(raw.get()).unwrap_or(Value::Null);
                (k, v)
            })
            .collect()
    }
}

/// What every record type offers: the common fields, the raw JSON and its unknown fields.
pub trait ApiRecord: Sized + Clone + Send + Sync + fmt::Debug + 'static {
    /// `contact`, `deal`, `project`, `appointment`.
    const KIND: &'static str;
    fn from_raw(raw: Box<RawValue>) -> Result<Self, DecodeError>;
    fn id(&self) -> &str;
    fn created_at(&self) -> Option<&Timestamp>;
    fn updated_at(&self) -> Option<&Timestamp>;
    /// The server's JSON for this record, byte for byte.
    fn raw(&self) -> &RawValue;
    /// Fields the client does not know, as sent.
    fn extra(&self) -> &Map<String, Value>;
    /// What a person calls this record.
    fn label(&self) -> String;
}

macro_rules! common_record_impl {
    ($ty:ident, $kind:literal, |$s:ident| $label:expr) => {
        impl ApiRecord for $ty {
            const KIND: &'static str = $kind;
            fn from_raw(raw: Box<RawValue>) -> Result<Self, DecodeError> {
                $ty::decode(raw)
            }
            fn id(&self) -> &str {
                &self.id
            }
            fn created_at(&self) -> Option<&Timestamp> {
                self.created_at.as_ref()
            }
            fn updated_at(&self) -> Option<&Timestamp> {
                self.updated_at.as_ref()
            }
            fn raw(&self) -> &RawValue {
                &self.raw
            }
            fn extra(&self) -> &Map<String, Value> {
                &self.extra
            }
            fn label(&self) -> String {
                let $s = self;
                $label
            }
        }
    };
}

/// A contact.
#[derive(Debug, Clone)]
pub struct Contact {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub first_name: Option<String>,
    pub last_name: Option<String>,
    /// Some services send it; otherwise derived from first and last name by `full_name()`.
    pub full_name_field: Option<String>,
    pub email: Option<String>,
    pub phone: Option<String>,
    pub accounts: Option<Vec<Related>>,
    pub assigned_user: Option<Related>,
    pub assigned_users: Option<Vec<Related>>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl Contact {
    fn decode(raw: Box<RawValue>) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw)?;
        Ok(Contact {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            first_name: f.string("first_name"),
            last_name: f.string("last_name"),
            full_name_field: f.string("full_name"),
            email: f.string("email"),
            phone: f.string("phone"),
            accounts: f.many("accounts"),
            assigned_user: f.one("assigned_user"),
            assigned_users: f.many("assigned_users"),
            extra: f.rest(),
            raw,
        })
    }

    /// `full_name` when sent, else first and last name joined, else empty.
    pub fn full_name(&self) -> String {
        if let Some(n) = self
            .full_name_field
            .as_ref()
            .filter(|n| !n.trim().is_empty())
        {
            return n.clone();
        }
        [self.first_name.as_deref(), self.last_name.as_deref()]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

common_record_impl!(Contact, "contact", |c| {
    let n = c.full_name();
    if !n.is_empty() {
        n
    } else {
        c.email.clone().unwrap_or_else(|| c.id.clone())
    }
});

/// A deal.
#[derive(Debug, Clone)]
pub struct Deal {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub name: Option<String>,
    pub status: Option<String>,
    pub value: Option<Money>,
    pub account: Option<Related>,
    pub contacts: Option<Vec<Related>>,
    pub assigned_user: Option<Related>,
    pub assigned_users: Option<Vec<Related>>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl Deal {
    fn decode(raw: Box<RawValue>) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw)?;
        Ok(Deal {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            name: f.string("name"),
            status: f.string("status"),
            value: f.money("value"),
            account: f.one("account"),
            contacts: f.many("contacts"),
            assigned_user: f.one("assigned_user"),
            assigned_users: f.many("assigned_users"),
            extra: f.rest(),
            raw,
        })
    }
}

common_record_impl!(Deal, "deal", |d| d
    .name
    .clone()
    .unwrap_or_else(|| d.id.clone()));

/// A project.
#[derive(Debug, Clone)]
pub struct Project {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub name: Option<String>,
    pub status: Option<String>,
    pub start_date: Option<Timestamp>,
    pub end_date: Option<Timestamp>,
    pub owner: Option<Related>,
    pub members: Option<Vec<Related>>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl Project {
    fn decode(raw: Box<RawValue>) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw)?;
        Ok(Project {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            name: f.string("name"),
            status: f.string("status"),
            start_date: f.time("start_date"),
            end_date: f.time("end_date"),
            owner: f.one("owner"),
            members: f.many("members"),
            extra: f.rest(),
            raw,
        })
    }
}

common_record_impl!(Project, "project", |p| p
    .name
    .clone()
    .unwrap_or_else(|| p.id.clone()));

/// What the reschedule operation returns: `{data: {id, created_at, updated_at}}`.
#[derive(Debug, Clone)]
pub struct AppointmentRef {
    pub id: String,
    pub created_at: Option<Timestamp>,
    pub updated_at: Option<Timestamp>,
    pub extra: Map<String, Value>,
    pub raw: Box<RawValue>,
}

impl AppointmentRef {
    fn decode(raw: Box<RawValue>) -> Result<Self, DecodeError> {
        let mut f = Fields::new(&raw)?;
        Ok(AppointmentRef {
            id: f.id(&raw)?,
            created_at: f.time("created_at"),
            updated_at: f.time("updated_at"),
            extra: f.rest(),
            raw,
        })
    }
}

common_record_impl!(AppointmentRef, "appointment", |a| a.id.clone());

/// Pagination facts, when the server sends them. Integers may arrive as strings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Meta {
    #[serde(default, deserialize_with = "lenient_u64")]
    pub current_page: Option<u64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    pub last_page: Option<u64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    pub per_page: Option<u64>,
    #[serde(default, deserialize_with = "lenient_u64")]
    pub total: Option<u64>,
}

impl Meta {
    fn is_empty(&self) -> bool {
        *self == Meta::default()
    }
}

fn lenient_u64<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let v = Value::deserialize(d)?;
    Ok(match v {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| n.as_f64().filter(|f| *f >= 0.0).map(|f| f as u64)),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

/// One page of a list: the records, and `meta` when the server sends it.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub data: Vec<T>,
    pub meta: Option<Meta>,
    /// `links`, when sent (kept, not interpreted).
    pub links: Option<Value>,
}

impl<T> Page<T> {
    /// Whether a later page exists, judged from `meta` (false without it).
    pub fn has_next(&self) -> bool {
        match self.meta {
            Some(Meta {
                current_page: Some(c),
                last_page: Some(l),
                ..
            }) => c < l,
            _ => false,
        }
    }
}

#[derive(Deserialize)]
struct Envelope {
    #[serde(default)]
    data: Option<Box<RawValue>>,
    #[serde(default)]
    meta: Option<Value>,
    #[serde(default)]
    links: Option<Value>,
    // Laravel's plain paginator puts these at the top level.
    #[serde(default)]
    current_page: Option<Value>,
    #[serde(default)]
    last_page: Option<Value>,
    #[serde(default)]
    per_page: Option<Value>,
    #[serde(default)]
    total: Option<Value>,
}

fn first_non_ws(body: &[u8]) -> Option<u8> {
    body.iter().copied().find(|b| !b.is_ascii_whitespace())
}

fn decode_records<T: ApiRecord>(list: &str) -> Result<Vec<T>, DecodeError> {
    let items: Vec<Box<RawValue>> = serde_json::from_str(list)
        .map_err(|e| DecodeError::new(format!("`data` is not a list: {e}"), list.as_bytes()))?;
    items.into_iter().map(T::from_raw).collect()
}

/// Decodes a list body: `{data, meta}`, `{data, meta, links}`, `{data}`, a bare array, or
/// Laravel's flat paginator (`{data, current_page, last_page, ...}`).
pub fn decode_page<T: ApiRecord>(body: &[u8]) -> Result<Page<T>, DecodeError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| DecodeError::new("the body is not UTF-8 text", body))?;
    match first_non_ws(body) {
        Some(b'[') => Ok(Page {
            data: decode_records(text)?,
            meta: None,
            links: None,
        }),
        Some(b'{') => {
            let env: Envelope = serde_json::from_str(text)
                .map_err(|e| DecodeError::new(format!("the body is not valid JSON: {e}"), body))?;
            let data = match env.data {
                Some(raw) if raw.get().trim() != "null" => decode_records(raw.get())?,
                Some(_) => Vec::new(),
                None => {
                    return Err(DecodeError::new(
                        "expected a list (`{\"data\": [...]}` or `[...]`), found an object without `data`",
                        body,
                    ));
                }
            };
            let meta = match env.meta {
                Some(m @ Value::Object(_)) => serde_json::from_value::<Meta>(m).ok(),
                _ => {
                    let flat = serde_json::json!({
                        "current_page": env.current_page, "last_page": env.last_page,
                        "per_page": env.per_page, "total": env.total,
                    });
                    serde_json::from_value::<Meta>(flat)
                        .ok()
                        .filter(|m| !m.is_empty())
                }
            };
            Ok(Page {
                data,
                meta,
                links: env.links,
            })
        }
        Some(_) => Err(DecodeError::new("the body is not JSON", body)),
        None => Err(DecodeError::new("the body is empty", body)),
    }
}

/// Decodes a single-record body: `{data: {...}}` or the bare object. An empty body is `None`.
pub fn decode_single<T: ApiRecord>(body: &[u8]) -> Result<Option<T>, DecodeError> {
    let text = std::str::from_utf8(body)
        .map_err(|_| DecodeError::new("the body is not UTF-8 text", body))?;
    if first_non_ws(body).is_none() {
        return Ok(None);
    }
    let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(text)
        .map_err(|e| DecodeError::new(format!("the body is not a JSON object: {e}"), body))?;
    match map.get("data") {
        Some(inner) if inner.get().trim_start().starts_with('{') => {
            T::from_raw(inner.clone()).map(Some)
        }
        _ => {
            let raw = RawValue::from_string(text.trim().to_string())
                .map_err(|e| DecodeError::new(format!("the body is not valid JSON: {e}"), body))?;
            T::from_raw(raw).map(Some)
        }
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
