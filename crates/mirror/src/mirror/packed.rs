//! How a record's raw JSON is kept small on disk and given back byte for byte.
//!
//! A contact as synced is about 860 bytes, 55% of them its included relations (its accounts,
//! its assigned users), the same few hundred summaries repeated over every record. The stored
//! text keeps each included relation once, in `parts`, and points at it; object keys the spec
//! names are one two-byte code. Both marks are control bytes, which valid JSON never holds
//! (not in strings, where they must be escaped, nor between tokens), so decoding is a plain
//! scan and the server's bytes come back exactly (key order, spacing, escapes and all).
//!
//! - `\x01` DIGITS `\x02`: the part with that `pid`, verbatim.
//! - `\x03` C: the key `KEYS[C - 0x20]` with its quotes and colon (`"email":`).
//! - `\x04` NINE: a time string `"2024-01-14T13:58:23.535415Z"` (this exact form, the
//!   service's own) as its microseconds since 1970 in nine base-64 digits.

pub(super) mod fields;
pub(super) mod text;

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::value::RawValue;

use super::Resource;

const PART: u8 = 0x01;
const PART_END: u8 = 0x02;
const KEY: u8 = 0x03;
const TIME: u8 = 0x04;
/// The digits of a packed time, 6 bits each.
const TIME_DIGITS: &[u8; 64] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
const TIME_LEN: usize = 9;
const TIME_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.6fZ";
/// The first code byte after [`KEY`] (printable, so a code is never another mark).
const CODE_BASE: u8 = 0x20;

/// Keys given a code, by position. Part of the file format (schema 6): append only.
const KEYS: [&str; 55] = [
    "id",
    "created_at",
    "updated_at",
    "first_name",
    "last_name",
    "full_name",
    "email",
    "phone",
    "account_ids",
    "account_id",
    "assigned_user_id",
    "assigned_user_ids",
    "contact_ids",
    "contact_id",
    "owner_id",
    "member_ids",
    "name",
    "status",
    "value",
    "currency",
    "tags",
    "source",
    "consent",
    "recorded_at",
    "sms",
    "job_title",
    "custom_fields",
    "expected_close_date",
    "probability",
    "start_date",
    "end_date",
    "customer_number",
    "loyalty_points",
    "preferred_language",
    "timezone",
    "city",
    "country",
    "industry",
    "website",
    "role",
    "employees",
    "title",
    "budget",
    "location",
    "description",
    "notes",
    "close_date",
    "closed_at",
    "accounts",
    "account",
    "contacts",
    "assigned_user",
    "assigned_users",
    "owner",
    "members",
];

/// The longest key in [`KEYS`] and then some (a longer text is never a known key).
const KEY_MAX: usize = 24;

/// Known keys (their bytes and code) of one length.
type KeysOfLen = Vec<(&'static [u8], u8)>;

fn key_code(key: &[u8]) -> Option<u8> {
    // The known keys of each length, so a key is compared with a handful, not all 55.
    static BY_LEN: std::sync::LazyLock<Vec<KeysOfLen>> = std::sync::LazyLock::new(|| {
        let mut by_len = vec![Vec::new(); KEY_MAX + 1];
        for (i, k) in KEYS.iter().enumerate() {
            by_len[k.len()].push((k.as_bytes(), CODE_BASE + i as u8));
        }
        by_len
    });
    BY_LEN
        .get(key.len())?
        .iter()
        .find(|(k, _)| *k == key)
        .map(|(_, code)| *code)
}

/// A time string's packed form (its quotes included in `quoted`), when it has exactly the
/// service's form and prints back to the same bytes.
/// Read by hand, position by position (every field zero-padded to its width, a real
/// calendar date, no leap second), so exactly the texts [`TIME_FORMAT`] prints are packed.
fn pack_time(quoted: &[u8], out: &mut Vec<u8>) -> bool {
    if quoted.len() != 29 || quoted[0] != b'"' || quoted[28] != b'"' {
        return false;
    }
    let t = &quoted[1..28];
    if t[4] != b'-'
        || t[7] != b'-'
        || t[10] != b'T'
        || t[13] != b':'
        || t[16] != b':'
        || t[19] != b'.'
        || t[26] != b'Z'
    {
        return false;
    }
    let num = |from: usize, to: usize| -> Option<u32> {
        t[from..to].iter().try_fold(0u32, |v, c| {
            c.is_ascii_digit().then(|| v * 10 + u32::from(c - b'0'))
        })
    };
    let (Some(y), Some(mo), Some(d), Some(h), Some(mi), Some(s), Some(us)) = (
        num(0, 4),
        num(5, 7),
        num(8, 10),
        num(11, 13),
        num(14, 16),
        num(17, 19),
        num(20, 26),
    ) else {
        return false;
    };
    if h > 23 || mi > 59 || s > 59 {
        return false;
    }
    let Some(t) = chrono::NaiveDate::from_ymd_opt(y as i32, mo, d)
        .and_then(|date| date.and_hms_micro_opt(h, mi, s, us))
    else {
        return false;
    };
    let micros = t.and_utc().timestamp_micros();
    if !(0..1 << (6 * TIME_LEN)).contains(&micros) {
        return false;
    }
    out.push(TIME);
    for i in (0..TIME_LEN).rev() {
        out.push(TIME_DIGITS[((micros >> (6 * i)) & 63) as usize]);
    }
    true
}

fn unpack_time(digits: &[u8], out: &mut String) -> Option<()> {
    let mut micros: i64 = 0;
    for d in digits {
        let v = TIME_DIGITS.iter().position(|x| x == d)?;
        micros = (micros << 6) | v as i64;
    }
    let t = chrono::DateTime::from_timestamp_micros(micros)?;
    out.push('"');
    out.push_str(&t.naive_utc().format(TIME_FORMAT).to_string());
    out.push('"');
    Some(())
}

/// FNV-1a: a stable hash of a part's text (std's hasher may change between Rust releases,
/// and these are stored).
fn fnv(text: &str) -> i64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h as i64
}

/// The byte range of `inner` within `outer` (a `RawValue` borrowed from it).
fn span(outer: &str, inner: &str) -> (usize, usize) {
    let start = inner.as_ptr() as usize - outer.as_ptr() as usize;
    (start, start + inner.len())
}

/// The included relations' objects of a raw record: their byte ranges, in order.
fn relation_spans(raw: &str, r: Resource) -> Vec<(usize, usize)> {
    relation_spans_scanned(raw, r).unwrap_or_else(|| relation_spans_parsed(raw, r))
}

/// [`relation_spans`] in one scan of the record's top level (no map of its keys built).
/// `None` where the scan could read the record otherwise than the parser does (a key with
/// escapes, text that is not an object): the caller parses it.
fn relation_spans_scanned(raw: &str, r: Resource) -> Option<Vec<(usize, usize)>> {
    use fields::{skip_ws, string_end, value_end};
    let b = raw.as_bytes();
    let includes = r.includes();
    // Each include's value (the last one when a key comes twice, as the parser keeps).
    let mut values: Vec<Option<(usize, usize)>> = vec![None; includes.len()];
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) != Some(&b'}') {
        loop {
            if b.get(i) != Some(&b'"') {
                return None;
            }
            let end = string_end(b, i)?;
            let key = &raw[i + 1..end];
            if key.contains('\\') {
                return None;
            }
            i = skip_ws(b, end + 1);
            if b.get(i) != Some(&b':') {
                return None;
            }
            i = skip_ws(b, i + 1);
            let (v_end, _) = value_end(b, i)?;
            if let Some(n) = includes.iter().position(|name| *name == key) {
                values[n] = Some((i, v_end));
            }
            i = skip_ws(b, v_end);
            match b.get(i)? {
                b',' => i = skip_ws(b, i + 1),
                b'}' => break,
                _ => return None,
            }
        }
    }
    let mut spans = Vec::new();
    for (start, end) in values.into_iter().flatten() {
        match b[start] {
            b'{' => spans.push((start, end)),
            b'[' => {
                let mut j = skip_ws(b, start + 1);
                if b.get(j) == Some(&b']') {
                    continue;
                }
                loop {
                    let (item_end, _) = value_end(b, j)?;
                    if b[j] == b'{' {
                        spans.push((j, item_end));
                    }
                    j = skip_ws(b, item_end);
                    match b.get(j)? {
                        b',' => j = skip_ws(b, j + 1),
                        b']' => break,
                        _ => return None,
                    }
                }
            }
            _ => {}
        }
    }
    spans.sort_unstable();
    Some(spans)
}

/// [`relation_spans`] through a parsed map of the record's top level.
fn relation_spans_parsed(raw: &str, r: Resource) -> Vec<(usize, usize)> {
    let Ok(top) = serde_json::from_str::<HashMap<String, &RawValue>>(raw) else {
        return Vec::new();
    };
    let mut spans = Vec::new();
    for name in r.includes() {
        let Some(v) = top.get(*name) else { continue };
        let text = v.get();
        if text.starts_with('{') {
            spans.push(span(raw, text));
        } else if text.starts_with('[')
            && let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(text)
        {
            spans.extend(
                items
                    .iter()
                    .filter(|i| i.get().starts_with('{'))
                    .map(|i| span(raw, i.get())),
            );
        }
    }
    spans.sort_unstable();
    spans
}

/// Copies JSON text (a piece between parts) into `out`, a known key followed at once by its
/// colon written as its code.
fn code_keys(text: &[u8], out: &mut Vec<u8>) {
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        if b != b'"' {
            out.push(b);
            i += 1;
            continue;
        }
        // A string: find its closing quote (an escaped quote does not close it).
        let mut j = i + 1;
        let mut escaped = false;
        while j < text.len() {
            match text[j] {
                b'\\' => escaped = !escaped,
                b'"' if !escaped => break,
                _ => escaped = false,
            }
            j += 1;
        }
        let inner = &text[i + 1..j.min(text.len())];
        let is_key = j + 1 < text.len() && text[j + 1] == b':';
        let end = (j + 1).min(text.len());
        match is_key.then(|| key_code(inner)).flatten() {
            Some(code) => {
                out.extend_from_slice(&[KEY, code]);
                i = j + 2;
            }
            None => {
                if is_key || !pack_time(&text[i..end], out) {
                    out.extend_from_slice(&text[i..end]);
                }
                i = end;
            }
        }
    }
}

/// Writes records' stored text: finds (or adds) each part once per batch.
pub(super) struct Packer<'c> {
    conn: &'c Connection,
    known: HashMap<String, i64>,
}

impl<'c> Packer<'c> {
    pub fn new(conn: &'c Connection) -> Self {
        Packer {
            conn,
            known: HashMap::new(),
        }
    }

    /// The stored text of `raw` (a record of `r` as the server sent it).
    pub fn pack(&mut self, raw: &str, r: Resource) -> rusqlite::Result<String> {
        let bytes = raw.as_bytes();
        let mut out = Vec::with_capacity(raw.len() / 2);
        let mut at = 0;
        for (start, end) in relation_spans(raw, r) {
            code_keys(&bytes[at..start], &mut out);
            let pid = self.part(&raw[start..end])?;
            out.push(PART);
            out.extend_from_slice(pid.to_string().as_bytes());
            out.push(PART_END);
            at = end;
        }
        code_keys(&bytes[at..], &mut out);
        // Only ASCII marks were put in place of whole UTF-8 pieces.
        Ok(String::from_utf8(out).unwrap_or_else(|_| raw.to_string()))
    }

    fn part(&mut self, text: &str) -> rusqlite::Result<i64> {
        if let Some(pid) = self.known.get(text) {
            return Ok(*pid);
        }
        let hash = fnv(text);
        let found = {
            let mut find = self
                .conn
                .prepare_cached("SELECT pid, json FROM parts WHERE hash = ?1")?;
            let mut rows = find.query([hash])?;
            let mut found = None;
            while let Some(row) = rows.next()? {
                if row.get_ref(1)?.as_str().ok() == Some(text) {
                    found = Some(row.get(0)?);
                    break;
                }
            }
            found
        };
        let pid = match found {
            Some(pid) => pid,
            None => self
                .conn
                .prepare_cached("INSERT INTO parts (hash, json) VALUES (?1, ?2) RETURNING pid")?
                .query_row(params![hash, text], |row| row.get(0))?,
        };
        self.known.insert(text.to_string(), pid);
        Ok(pid)
    }
}

/// Parts already read by a connection (they never change once written: a changed relation
/// is a new part), so a page of 100 contacts reads each user and account once.
#[derive(Debug, Default)]
pub(super) struct PartCache(std::cell::RefCell<HashMap<i64, std::sync::Arc<str>>>);

/// More parts than this (a CRM with many accounts) and the cache starts over.
const CACHE_MAX: usize = 4096;

impl PartCache {
    /// The text of part `pid` (`None` when the file has none by that id).
    pub(in crate::mirror) fn get(
        &self,
        conn: &Connection,
        pid: i64,
    ) -> rusqlite::Result<Option<std::sync::Arc<str>>> {
        if let Some(text) = self.0.borrow().get(&pid) {
            return Ok(Some(text.clone()));
        }
        let text: Option<String> = conn
            .prepare_cached("SELECT json FROM parts WHERE pid = ?1")?
            .query_row([pid], |row| row.get(0))
            .optional()?;
        let Some(text) = text else { return Ok(None) };
        let text: std::sync::Arc<str> = text.into();
        let mut cache = self.0.borrow_mut();
        if cache.len() >= CACHE_MAX {
            cache.clear();
        }
        cache.insert(pid, text.clone());
        Ok(Some(text))
    }

    /// The server's text of a stored record. A part missing from the file (damage) makes it
    /// a `CorruptData`-like error rather than a wrong record.
    pub fn unpack(&self, conn: &Connection, stored: &str) -> rusqlite::Result<String> {
        let bytes = stored.as_bytes();
        let mut out = String::with_capacity(stored.len() * 2);
        let mut i = 0;
        while i < bytes.len() {
            // Copy the run up to the next mark in one go.
            let run = bytes[i..]
                .iter()
                .position(|b| *b == PART || *b == KEY || *b == TIME)
                .map_or(bytes.len(), |p| i + p);
            out.push_str(&stored[i..run]);
            i = run;
            if i >= bytes.len() {
                break;
            }
            if bytes[i] == KEY {
                let code = bytes.get(i + 1).copied().unwrap_or(0);
                let key = code
                    .checked_sub(CODE_BASE)
                    .and_then(|c| KEYS.get(usize::from(c)))
                    .ok_or_else(|| damaged("an unknown key code"))?;
                out.push('"');
                out.push_str(key);
                out.push_str("\":");
                i += 2;
            } else if bytes[i] == TIME {
                let digits = bytes
                    .get(i + 1..i + 1 + TIME_LEN)
                    .ok_or_else(|| damaged("a cut time"))?;
                unpack_time(digits, &mut out).ok_or_else(|| damaged("a bad time"))?;
                i += 1 + TIME_LEN;
            } else {
                let end = bytes[i..]
                    .iter()
                    .position(|b| *b == PART_END)
                    .map(|p| i + p)
                    .ok_or_else(|| damaged("an unended part"))?;
                let pid: i64 = stored[i + 1..end]
                    .parse()
                    .map_err(|_| damaged("a bad part number"))?;
                let text = self
                    .get(conn, pid)?
                    .ok_or_else(|| damaged("a missing part"))?;
                out.push_str(&text);
                i = end + 1;
            }
        }
        Ok(out)
    }
}

fn damaged(what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!("a stored record holds {what}")),
    )
}

/// The raw JSON of a stored record (gone ones too) as the server last sent it; `None` when
/// the mirror has no such record. For code that reads a record before replacing it.
pub fn stored_raw(
    conn: &Connection,
    parts: &PartCache,
    r: Resource,
    id: &str,
) -> rusqlite::Result<Option<String>> {
    let stored: Option<String> = conn
        .prepare_cached("SELECT packed FROM records WHERE resource = ?1 AND id = ?2")?
        .query_row(params![r.noun(), id], |row| row.get(0))
        .optional()?;
    stored.map(|s| parts.unpack(conn, &s)).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conn() -> Connection {
        let c = Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE parts (pid INTEGER PRIMARY KEY, hash INTEGER NOT NULL, json TEXT NOT NULL);
             CREATE INDEX parts_hash ON parts (hash);",
        )
        .unwrap();
        c
    }

    fn round_trip(c: &Connection, raw: &str, r: Resource) -> String {
        let packed = Packer::new(c).pack(raw, r).unwrap();
        assert_eq!(PartCache::default().unpack(c, &packed).unwrap(), raw);
        packed
    }

    #[test]
    fn a_record_comes_back_byte_for_byte() {
        let c = conn();
        let raw = r#"{"account_ids":["acc_1"],"accounts":[{"id":"acc_1","name":"Becker GmbH"}],"assigned_user":{"email":"a@b.example","id":"usr_1"} ,"email": "x\"email\":y@z","first_name":"Jörg","id":"con_1","note":"\\","weird key":{"id":"in"}}"#;
        let packed = round_trip(&c, raw, Resource::Contacts);
        assert!(packed.len() < raw.len() - 40, "{packed:?}");
        // The string holding `"email":` is text, not a key: kept as it is.
        assert!(packed.contains(r#""x\"email\":y@z""#), "{packed:?}");
        // Pretty-printed, with unknown keys and escapes.
        let pretty = "{\n  \"id\": \"deal_1\",\n  \"account\": {\"id\": \"acc_1\"},\n  \"contacts\": [\n    {\"id\": \"c\\u00e9\"}, 3\n  ],\n  \"x\":[]\n}";
        round_trip(&c, pretty, Resource::Deals);
        round_trip(&c, "{}", Resource::Projects);
        // Times in the service's form are packed; any other form is kept as it is.
        let times = r#"{"created_at":"2024-01-14T13:58:23.535415Z","updated_at":"2024-01-14T13:58:23Z","x":["1970-01-01T00:00:00.000000Z","2024-02-30T13:58:23.535415Z","2024-01-14t13:58:23.535415Z"],"2024-01-14T13:58:23.535415Z":1}"#;
        let packed = round_trip(&c, times, Resource::Contacts);
        assert_eq!(packed.matches('\u{4}').count(), 2, "{packed:?}");
    }

    #[test]
    fn a_time_is_packed_exactly_when_it_prints_back_the_same() {
        // The rule read by hand agrees with chrono's parse-and-print round trip.
        let by_chrono = |text: &str| {
            chrono::NaiveDateTime::parse_from_str(text, TIME_FORMAT).is_ok_and(|t| {
                (0..1i64 << (6 * TIME_LEN)).contains(&t.and_utc().timestamp_micros())
                    && t.format(TIME_FORMAT).to_string() == text
            })
        };
        for text in [
            "2024-01-14T13:58:23.535415Z",
            "1970-01-01T00:00:00.000000Z",
            "1969-12-31T23:59:59.999999Z",
            "2024-02-29T00:00:00.000000Z",
            "2023-02-29T00:00:00.000000Z",
            "2024-13-01T00:00:00.000000Z",
            "2024-01-14T24:00:00.000000Z",
            "2024-01-14T23:60:00.000000Z",
            "2024-01-14T23:59:60.000000Z",
            "2024-01-14t13:58:23.535415Z",
            "2024-01-14T13:58:23.535415z",
            "2024-01-14T13:58:23,535415Z",
            "2024-01-14T13:58:2x.535415Z",
            "+024-01-14T13:58:23.535415Z",
            "2024-1-14T13:58:23.5354150Z",
            "9999-12-31T23:59:59.999999Z",
            "2540-01-01T00:00:00.000000Z",
        ] {
            let quoted = format!("\"{text}\"");
            let mut out = Vec::new();
            let packed = pack_time(quoted.as_bytes(), &mut out);
            // Chrono reads and prints a leap second (`:60`), but its microseconds unpack as
            // the next minute's `:00`: such a time was packed wrongly before and stays text now.
            let leap = &text[17..19] == "60";
            assert_eq!(packed, by_chrono(text) && !leap, "{text}");
            if packed {
                let mut back = String::new();
                unpack_time(&out[1..], &mut back).unwrap();
                assert_eq!(back, quoted);
            }
        }
    }

    #[test]
    fn relations_are_found_by_scan_as_by_parse() {
        for raw in [
            r#"{"accounts":[{"id":"acc_1"}, 3 ,{"id":"a]}"}],"assigned_user" : {"id":"u"},"x":{"accounts":[{"id":"no"}]}}"#,
            r#"{"accounts":[],"assigned_users":null,"assigned_user":"usr_1"}"#,
            r#"{"accounts":[{"id":"first"}],"accounts":[{"id":"last"}]}"#,
            r#" { } "#,
        ] {
            assert_eq!(
                relation_spans_scanned(raw, Resource::Contacts),
                Some(relation_spans_parsed(raw, Resource::Contacts)),
                "{raw}"
            );
        }
        let twice = relation_spans_scanned(
            r#"{"accounts":[{"id":"first"}],"accounts":[{"id":"last"}]}"#,
            Resource::Contacts,
        );
        assert_eq!(twice.map(|s| s.len()), Some(1));
        // Left to the parser.
        assert_eq!(
            relation_spans_scanned(r#"{"acc\u006funts":[]}"#, Resource::Contacts),
            None
        );
        assert_eq!(relation_spans_scanned("[1]", Resource::Contacts), None);
    }

    #[test]
    fn each_relation_is_stored_once() {
        let c = conn();
        let user = r#"{"email":"o@n.example","id":"usr_21","name":"Olivia"}"#;
        let mut packer = Packer::new(&c);
        for i in 0..50 {
            let raw =
                format!(r#"{{"assigned_user":{user},"assigned_users":[{user}],"id":"con_{i}"}}"#);
            let packed = packer.pack(&raw, Resource::Contacts).unwrap();
            assert_eq!(PartCache::default().unpack(&c, &packed).unwrap(), raw);
        }
        let parts: i64 = c
            .query_row("SELECT count(*) FROM parts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(parts, 1);
        // A second batch finds the part in the table.
        let raw = format!(r#"{{"assigned_user":{user},"id":"con_x"}}"#);
        round_trip(&c, &raw, Resource::Contacts);
        let parts: i64 = c
            .query_row("SELECT count(*) FROM parts", [], |r| r.get(0))
            .unwrap();
        assert_eq!(parts, 1);
    }

    #[test]
    fn a_missing_part_is_damage_not_a_wrong_record() {
        let c = conn();
        let e = PartCache::default().unpack(&c, "{\u{3}\u{20}\u{1}7\u{2}}");
        assert!(e.is_err());
    }
}
