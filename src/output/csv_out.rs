//! `--format csv`: RFC 4180 via the `csv` crate, one column per top-level key.

use std::fmt;
use std::io::Write;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::OutputError;
use super::text::minify_json;
use crate::api::ApiRecord;

const FIRST: [&str; 3] = ["id", "created_at", "updated_at"];

/// A header (`id`, `created_at`, `updated_at`, then every other top-level key in the order
/// first seen across the records) and one row per record. Strings are written as their text,
/// numbers as the literal digits sent, booleans as `true`/`false`, null or a missing key as an
/// empty cell, objects and arrays as compact JSON text.
pub fn write_csv<T: ApiRecord>(records: &[T], w: &mut impl Write) -> Result<(), OutputError> {
    let rows: Vec<Vec<(String, Box<RawValue>)>> = records
        .iter()
        .map(|r| {
            top_level(r.raw()).ok_or_else(|| OutputError::NotAnObject {
                id: r.id().to_string(),
            })
        })
        .collect::<Result<_, _>>()?;
    let mut header: Vec<String> = FIRST.iter().map(|s| s.to_string()).collect();
    for row in &rows {
        for (k, _) in row {
            if !header.contains(k) {
                header.push(k.clone());
            }
        }
    }
    let mut out = csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(w);
    out.write_record(&header)?;
    for row in &rows {
        let cells = header.iter().map(|h| {
            // A duplicated key: the last one wins, as in every JSON parser's object.
            row.iter()
                .rev()
                .find(|(k, _)| k == h)
                .map(|(_, v)| cell(v))
                .unwrap_or_default()
        });
        out.write_record(cells)?;
    }
    out.flush()?;
    Ok(())
}

fn cell(raw: &RawValue) -> String {
    let text = raw.get().trim();
    match text.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(text).unwrap_or_else(|_| text.to_string()),
        Some(b'{' | b'[') => minify_json(text),
        _ if text == "null" => String::new(),
        _ => text.to_string(),
    }
}

/// The object's entries in the order the server wrote them (serde_json's `Map` would sort).
fn top_level(raw: &RawValue) -> Option<Vec<(String, Box<RawValue>)>> {
    struct Entries;
    impl<'de> Visitor<'de> for Entries {
        type Value = Vec<(String, Box<RawValue>)>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut v = Vec::new();
            while let Some(entry) = map.next_entry::<String, Box<RawValue>>()? {
                v.push(entry);
            }
            Ok(v)
        }
    }
    let mut de = serde_json::Deserializer::from_str(raw.get());
    de.deserialize_map(Entries).ok()
}
