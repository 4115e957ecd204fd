//! List and single-record bodies: every envelope the seed allows, plus `meta` read leniently.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::DecodeError;
use super::records::ApiRecord;

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
    // `Some` even for `null`, which is an empty page rather than a missing list.
    #[serde(default, deserialize_with = "present")]
    data: Option<Box<RawValue>>,
    // Raw, so a `meta` or `links` of an odd shape never fails the whole page.
    #[serde(default)]
    meta: Option<Box<RawValue>>,
    #[serde(default)]
    links: Option<Box<RawValue>>,
    // Laravel's plain paginator puts these at the top level.
    #[serde(default)]
    current_page: Option<Box<RawValue>>,
    #[serde(default)]
    last_page: Option<Box<RawValue>>,
    #[serde(default)]
    per_page: Option<Box<RawValue>>,
    #[serde(default)]
    total: Option<Box<RawValue>>,
}

/// [`Envelope`] when `data` is a list (every page a sync reads): its records taken as they
/// are read, without holding the list's text first and reading it again. Any other shape
/// fails here, and the body is read again through [`Envelope`] (which says what is wrong).
#[derive(Deserialize)]
struct ListEnvelope {
    data: Vec<Box<RawValue>>,
    #[serde(default)]
    meta: Option<Box<RawValue>>,
    #[serde(default)]
    links: Option<Box<RawValue>>,
    #[serde(default)]
    current_page: Option<Box<RawValue>>,
    #[serde(default)]
    last_page: Option<Box<RawValue>>,
    #[serde(default)]
    per_page: Option<Box<RawValue>>,
    #[serde(default)]
    total: Option<Box<RawValue>>,
}

fn present<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Box<RawValue>>, D::Error> {
    Box::<RawValue>::deserialize(d).map(Some)
}

/// The body as text, without a UTF-8 byte-order mark; a body nested deeper than
/// [`crate::api::MAX_JSON_DEPTH`] is refused before any parser sees it.
fn body_text(body: &[u8]) -> Result<&str, DecodeError> {
    crate::api::check_depth(body).map_err(|e| DecodeError::new(e.to_string(), body))?;
    let text = std::str::from_utf8(body)
        .map_err(|_| DecodeError::new("the body is not UTF-8 text", body))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(text).trim())
}

fn decode_records<T: ApiRecord>(
    list: &str,
    whole: &[u8],
    lean: bool,
) -> Result<Vec<T>, DecodeError> {
    let items: Vec<Box<RawValue>> = serde_json::from_str(list).map_err(|e| {
        if list.trim_start().starts_with('[') {
            DecodeError::new(format!("the body is not valid JSON: {e}"), whole)
        } else {
            DecodeError::new(format!("`data` is not a list: {e}"), whole)
        }
    })?;
    decode_items(items, lean)
}

fn decode_items<T: ApiRecord>(
    items: Vec<Box<RawValue>>,
    lean: bool,
) -> Result<Vec<T>, DecodeError> {
    items
        .into_iter()
        .enumerate()
        .map(|(i, raw)| {
            let rec = if lean {
                T::from_raw_lean(raw)
            } else {
                T::from_raw(raw)
            };
            rec.map_err(|e| DecodeError {
                message: format!("{} #{}: {}", T::KIND, i + 1, e.message),
                snippet: e.snippet,
            })
        })
        .collect()
}

fn lenient_raw_u64(raw: &Option<Box<RawValue>>) -> Option<u64> {
    let v: Value = serde_json::from_str(raw.as_ref()?.get()).ok()?;
    lenient_u64(v).ok().flatten()
}

/// `meta` when it is an object that reads as one, else Laravel's flat paginator fields
/// (`current_page`, `last_page`, `per_page`, `total`), else none.
fn meta_of(meta: Option<&RawValue>, flat: [&Option<Box<RawValue>>; 4]) -> Option<Meta> {
    match meta
        .filter(|m| m.get().trim_start().starts_with('{'))
        .map(|m| serde_json::from_str::<Meta>(m.get()))
    {
        Some(Ok(m)) => Some(m),
        _ => Some(Meta {
            current_page: lenient_raw_u64(flat[0]),
            last_page: lenient_raw_u64(flat[1]),
            per_page: lenient_raw_u64(flat[2]),
            total: lenient_raw_u64(flat[3]),
        })
        .filter(|m| !m.is_empty()),
    }
}

fn links_of(links: Option<&RawValue>) -> Option<Value> {
    links
        .and_then(|l| serde_json::from_str::<Value>(l.get()).ok())
        .filter(|l| !l.is_null())
}

/// Decodes a list body: `{data, meta}`, `{data, meta, links}`, `{data}`, a bare array, or
/// Laravel's flat paginator (`{data, current_page, last_page, ...}`). `data: null` is an
/// empty page.
pub fn decode_page<T: ApiRecord>(body: &[u8]) -> Result<Page<T>, DecodeError> {
    decode_page_as(body, false)
}

/// [`decode_page`] with each record read by [`ApiRecord::from_raw_lean`] (a sync's pages).
pub fn decode_page_lean<T: ApiRecord>(body: &[u8]) -> Result<Page<T>, DecodeError> {
    decode_page_as(body, true)
}

fn decode_page_as<T: ApiRecord>(body: &[u8], lean: bool) -> Result<Page<T>, DecodeError> {
    let text = body_text(body)?;
    match text.as_bytes().first() {
        Some(b'[') => Ok(Page {
            data: decode_records(text, body, lean)?,
            meta: None,
            links: None,
        }),
        Some(b'{') => {
            if let Ok(env) = serde_json::from_str::<ListEnvelope>(text) {
                let data = decode_items(env.data, lean)?;
                let meta = meta_of(
                    env.meta.as_deref(),
                    [&env.current_page, &env.last_page, &env.per_page, &env.total],
                );
                return Ok(Page {
                    data,
                    meta,
                    links: links_of(env.links.as_deref()),
                });
            }
            let env: Envelope = serde_json::from_str(text)
                .map_err(|e| DecodeError::new(format!("the body is not valid JSON: {e}"), body))?;
            let data = match env.data {
                Some(raw) if raw.get().trim() != "null" => decode_records(raw.get(), body, lean)?,
                Some(_) => Vec::new(),
                None => {
                    return Err(DecodeError::new(
                        "expected a list (`{\"data\": [...]}` or `[...]`), found an object without `data`",
                        body,
                    ));
                }
            };
            let meta = meta_of(
                env.meta.as_deref(),
                [&env.current_page, &env.last_page, &env.per_page, &env.total],
            );
            Ok(Page {
                data,
                meta,
                links: links_of(env.links.as_deref()),
            })
        }
        Some(_) => Err(DecodeError::new("the body is not JSON", body)),
        None => Err(DecodeError::new("the body is empty", body)),
    }
}

/// Decodes a single-record body: `{data: {...}}` or the bare object. An empty body, and
/// `{data: null}`, are `None`.
pub fn decode_single<T: ApiRecord>(body: &[u8]) -> Result<Option<T>, DecodeError> {
    let text = body_text(body)?;
    if text.is_empty() {
        return Ok(None);
    }
    let map: BTreeMap<String, Box<RawValue>> = serde_json::from_str(text)
        .map_err(|e| DecodeError::new(format!("the body is not a JSON object: {e}"), body))?;
    match map.get("data").map(|d| d.get().trim()) {
        Some(inner) if inner.starts_with('{') => T::from_raw(
            RawValue::from_string(inner.to_string())
                .map_err(|e| DecodeError::new(format!("the body is not valid JSON: {e}"), body))?,
        )
        .map(Some),
        Some("null") if !map.contains_key("id") => Ok(None),
        _ => {
            let raw = RawValue::from_string(text.to_string())
                .map_err(|e| DecodeError::new(format!("the body is not valid JSON: {e}"), body))?;
            T::from_raw(raw).map(Some)
        }
    }
}
