//! `changes --format json|csv|table` straight from the stored text: each change is read
//! borrowed from its row ([`Mirror::each_change`]) and written without building a
//! `serde_json::Value` for it. The output is byte for byte what printing the decoded change
//! gave ([`RecordChange`], `serde_json::to_writer_pretty`, [`summary`]): values already in
//! the form serde_json writes (a plain string, an integer, a literal) are copied, any other
//! value is parsed and written by the same code as before.
//!
//! [`RecordChange`]: crate::mirror::RecordChange

use std::collections::HashMap;
use std::io::Write;

use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::insights::changes::{field_text, value_text};
use crate::mirror::changes::{
    RawChange, RecordFacts, each_field, four_digit_year, push_json_str, push_time, write_json_line,
};
use crate::mirror::{ChangeKind, ChangeQuery, FieldChange, Mirror, MirrorError};
use crate::output::{display_width, sanitize_cell, truncate_to_width};
use crate::resource::Resource;

/// What stopped a printer: the read (the command's error) or the write (the caller's).
pub enum Stop {
    Read(MirrorError),
    Write(std::io::Error),
}

impl From<MirrorError> for Stop {
    fn from(e: MirrorError) -> Stop {
        Stop::Read(e)
    }
}

impl From<std::io::Error> for Stop {
    fn from(e: std::io::Error) -> Stop {
        Stop::Write(e)
    }
}

/// The output is written in blocks of this size.
const BLOCK: usize = 1 << 16;

/// `--format jsonl`: JSON lines straight from the stored text, one buffer reused, written in
/// large blocks.
pub fn write_jsonl(mirror: &mut Mirror, q: &ChangeQuery, out: &mut impl Write) -> Result<(), Stop> {
    let mut buf = String::with_capacity(BLOCK + 4096);
    mirror.each_change_ahead(q, |c| {
        write_json_line(c, &mut buf);
        if buf.len() >= BLOCK {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
        Ok::<_, Stop>(())
    })?;
    out.write_all(buf.as_bytes())?;
    Ok(())
}

/// Whether `t` (one JSON value) is already what serde_json writes for the value it holds: a
/// string without escapes, `null`, `true`, `false`, or an integer of at most 18 digits.
fn canonical_scalar(t: &str) -> bool {
    let b = t.as_bytes();
    match b.first() {
        Some(b'"') => !b.contains(&b'\\'),
        Some(b'n' | b't' | b'f') => matches!(t, "null" | "true" | "false"),
        Some(_) => {
            let digits = b.strip_prefix(b"-").unwrap_or(b);
            !digits.is_empty()
                && digits.len() <= 18
                && digits.iter().all(u8::is_ascii_digit)
                && (digits[0] != b'0' || (digits.len() == 1 && b.len() == 1))
        }
        None => false,
    }
}

/// A stored path (a JSON string) as text; `None` when it is not a string (the change then
/// decodes to no fields at all).
fn path_text(t: &str) -> Option<std::borrow::Cow<'_, str>> {
    if !t.starts_with('"') {
        return None;
    }
    if !t.contains('\\') {
        return Some(std::borrow::Cow::Borrowed(&t[1..t.len() - 1]));
    }
    serde_json::from_str::<String>(t)
        .ok()
        .map(std::borrow::Cow::Owned)
}

fn parse(v: &str) -> Value {
    serde_json::from_str(v).unwrap_or(Value::Null)
}

/// `at` as RFC 3339 in UTC, as `timeparse::to_utc_rfc3339` writes whole seconds.
fn push_at(out: &mut String, at: i64) {
    if four_digit_year(at) {
        return push_time(out, at);
    }
    let t = DateTime::from_timestamp(at, 0).unwrap_or_default();
    if (0..=9999).contains(&chrono::Datelike::year(&t)) {
        push_time(out, at);
    } else {
        out.push_str(&crate::timeparse::to_utc_rfc3339(t));
    }
}

/// Appends a value at an indent of `depth` levels, as `to_writer_pretty` writes it there.
fn push_pretty_value(out: &mut String, t: &str, depth: usize) {
    if canonical_scalar(t) {
        out.push_str(t);
        return;
    }
    let pretty = serde_json::to_string_pretty(&parse(t)).unwrap_or_default();
    let indent = "  ".repeat(depth);
    for (i, line) in pretty.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            out.push_str(&indent);
        }
        out.push_str(line);
    }
}

/// `--format json`: the array of changes, pretty, as `serde_json::to_writer_pretty` wrote
/// the decoded changes.
pub fn write_json(mirror: &mut Mirror, q: &ChangeQuery, out: &mut impl Write) -> Result<(), Stop> {
    let mut buf = String::with_capacity(BLOCK + 4096);
    let mut first = true;
    buf.push('[');
    mirror.each_change_ahead(q, |c| {
        buf.push_str(if first { "\n  {" } else { ",\n  {" });
        first = false;
        buf.push_str("\n    \"seq\": ");
        buf.push_str(itoa(c.seq).as_str());
        buf.push_str(",\n    \"at\": \"");
        push_at(&mut buf, c.at);
        buf.push_str("\",\n    \"resource\": \"");
        buf.push_str(c.resource.noun());
        buf.push_str("\",\n    \"id\": ");
        push_json_str(&mut buf, c.id);
        buf.push_str(",\n    \"kind\": \"");
        buf.push_str(c.kind.word());
        buf.push_str("\",\n    \"fields\": [");
        let start = buf.len();
        let mut any = false;
        let mut whole = true;
        let read = each_field(c.fields, |p, o, n| {
            let Some(path) = path_text(p) else {
                whole = false;
                return;
            };
            buf.push_str(if any { ",\n      {" } else { "\n      {" });
            any = true;
            buf.push_str("\n        \"field\": ");
            push_json_str(&mut buf, &path);
            buf.push_str(",\n        \"old\": ");
            push_pretty_value(&mut buf, o, 4);
            buf.push_str(",\n        \"new\": ");
            push_pretty_value(&mut buf, n, 4);
            buf.push_str("\n      }");
        });
        if !(read && whole) {
            // Damaged text decodes to no fields.
            buf.truncate(start);
            any = false;
        }
        buf.push_str(if any { "\n    ]\n  }" } else { "]\n  }" });
        if buf.len() >= BLOCK {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
        Ok::<_, Stop>(())
    })?;
    buf.push_str(if first { "]\n" } else { "\n]\n" });
    out.write_all(buf.as_bytes())?;
    Ok(())
}

/// An integer in decimal, without a `String` per call.
fn itoa(n: i64) -> Digits {
    let mut d = Digits {
        bytes: [0; 20],
        start: 20,
    };
    let mut rest = n.unsigned_abs();
    loop {
        d.start -= 1;
        d.bytes[d.start] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        d.start -= 1;
        d.bytes[d.start] = b'-';
    }
    d
}

struct Digits {
    bytes: [u8; 20],
    start: usize,
}

impl Digits {
    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[self.start..]).unwrap_or_default()
    }
}

/// A value as a CSV cell: text as is, anything else as JSON, nothing when absent.
fn csv_cell<'v>(t: &'v str, scratch: &'v mut String) -> &'v str {
    if canonical_scalar(t) {
        return match t.as_bytes()[0] {
            b'"' => &t[1..t.len() - 1],
            b'n' => "",
            _ => t,
        };
    }
    *scratch = match parse(t) {
        Value::Null => String::new(),
        Value::String(s) => s,
        other => other.to_string(),
    };
    scratch
}

/// `--format csv`: `seq,at,resource,id,kind,field,old,new`, one row per changed field.
pub fn write_csv(mirror: &mut Mirror, q: &ChangeQuery, out: &mut impl Write) -> Result<(), Stop> {
    let mut w = crate::output::csv_writer_lf(out);
    w.write_record(["seq", "at", "resource", "id", "kind", "field", "old", "new"])
        .map_err(csv_error)?;
    let mut at = String::new();
    // A change's cells, reused from change to change: `used` of them hold this one's.
    let mut cells: Vec<[String; 3]> = Vec::new();
    let mut scratch = String::new();
    mirror.each_change_ahead(q, |c| {
        let seq = itoa(c.seq);
        at.clear();
        push_at(&mut at, c.at);
        let head = [
            seq.as_str(),
            at.as_str(),
            c.resource.noun(),
            c.id,
            c.kind.word(),
        ];
        // The fields first: a change whose text is damaged prints as one with none.
        let mut used = 0;
        let mut whole = true;
        let read = each_field(c.fields, |p, o, n| {
            let Some(path) = path_text(p) else {
                whole = false;
                return;
            };
            if cells.len() == used {
                cells.push(Default::default());
            }
            let row = &mut cells[used];
            used += 1;
            for (cell, text) in row
                .iter_mut()
                .zip([path.as_ref(), csv_cell(o, &mut scratch)])
            {
                cell.clear();
                cell.push_str(text);
            }
            let new = csv_cell(n, &mut scratch);
            row[2].clear();
            row[2].push_str(new);
        });
        if !(read && whole) {
            used = 0;
        }
        if used == 0 {
            w.write_record(head.iter().copied().chain(["", "", ""]))
                .map_err(csv_error)?;
        }
        for [field, old, new] in &cells[..used] {
            w.write_record(head.iter().copied().chain([
                field.as_str(),
                old.as_str(),
                new.as_str(),
            ]))
            .map_err(csv_error)?;
        }
        Ok::<_, Stop>(())
    })?;
    w.flush()?;
    Ok(())
}

fn csv_error(e: csv::Error) -> Stop {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => Stop::Write(e),
        other => Stop::Write(std::io::Error::other(format!("{other:?}"))),
    }
}

/// A record's columns in the table, read once.
struct Shown {
    id: String,
    label: String,
    currency: Option<String>,
}

/// The records the table names, each looked up once (one indexed read of its stored text).
struct Names<'m> {
    mirror: &'m Mirror,
    index: [HashMap<String, usize>; 3],
    shown: Vec<Shown>,
}

impl Names<'_> {
    fn of(&mut self, r: Resource, id: &str) -> usize {
        let slot = match r {
            Resource::Contacts => 0,
            Resource::Deals => 1,
            Resource::Projects => 2,
        };
        if let Some(i) = self.index[slot].get(id) {
            return *i;
        }
        // A record the mirror cannot read is named by nothing, as before.
        let facts = self
            .mirror
            .record_facts(r, id)
            .ok()
            .flatten()
            .unwrap_or_default();
        let RecordFacts { label, currency } = facts;
        let i = self.shown.len();
        self.shown.push(Shown {
            id: sanitize_cell(id),
            label: sanitize_cell(&label),
            currency,
        });
        self.index[slot].insert(id.to_string(), i);
        i
    }
}

/// A change's summary from its stored text, as [`crate::insights::changes::summary`] reads
/// the decoded change: the kind for created and gone, each field `path old → new` (amounts
/// grouped, with the currency) joined by ` · `, `back` before them for a record that
/// returned. Damaged text reads as no fields.
fn push_summary(out: &mut String, c: &RawChange<'_>, current: Option<&str>) {
    match c.kind {
        ChangeKind::Created | ChangeKind::Gone => {
            out.push_str(c.kind.word());
            return;
        }
        ChangeKind::Updated | ChangeKind::Back => {}
    }
    let start = out.len();
    if c.kind == ChangeKind::Back {
        out.push_str("back");
    }
    let fields_at = out.len();
    // The currency: the new one when a `currency` field changed to a text, else the record's.
    let mut currency = current.map(std::borrow::Cow::Borrowed);
    if c.fields
        .is_some_and(|f| f.contains("\"currency\"") || f.contains('\\'))
    {
        let mut first = None;
        each_field(c.fields, |p, _, n| {
            if first.is_none() && path_text(p).as_deref() == Some("currency") {
                first = Some(parse(n));
            }
        });
        if let Some(Value::String(s)) = first {
            currency = Some(std::borrow::Cow::Owned(s));
        }
    }
    let currency = currency.as_deref();
    let mut any = false;
    let mut whole = true;
    let read = each_field(c.fields, |p, o, n| {
        let Some(path) = path_text(p) else {
            whole = false;
            return;
        };
        out.push_str(if any || c.kind == ChangeKind::Back {
            " · "
        } else {
            ""
        });
        any = true;
        push_field_text(out, &path, o, n, currency);
    });
    if !(read && whole) {
        out.truncate(fields_at);
        any = false;
    }
    if !any && c.kind == ChangeKind::Updated {
        out.truncate(start);
    }
}

/// One field's change, as [`field_text`] writes it.
fn push_field_text(out: &mut String, path: &str, ot: &str, nt: &str, currency: Option<&str>) {
    let money = matches!(path, "value" | "budget");
    if !(canonical_scalar(ot) && canonical_scalar(nt)) {
        let f = FieldChange {
            field: path.to_string(),
            old: parse(ot),
            new: parse(nt),
        };
        out.push_str(&field_text(&f, currency));
        return;
    }
    out.push_str(path);
    out.push(' ');
    push_scalar_text(out, ot, money);
    out.push_str(" → ");
    push_scalar_text(out, nt, money);
    if money && let Some(c) = currency {
        out.push(' ');
        out.push_str(c);
    }
}

/// A canonical scalar as a person reads it (`value_text`), or as an amount.
fn push_scalar_text(out: &mut String, t: &str, money: bool) {
    let text = match t.as_bytes()[0] {
        b'"' => &t[1..t.len() - 1],
        b'n' => {
            out.push_str(&value_text(&Value::Null));
            return;
        }
        _ => t,
    };
    if money && !matches!(t, "true" | "false") {
        let m = crate::api::Money::parse(text);
        out.push_str(&crate::insights::pipeline::format_money(&m, None));
    } else if text.is_empty() {
        out.push('—');
    } else {
        out.push_str(text);
    }
}

/// Whether `s` reads the same through [`sanitize_cell`] (most summaries do).
fn clean(s: &str) -> bool {
    s.chars().all(|c| {
        !matches!(c,
            '\0'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{2028}' | '\u{2029}'
            | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

/// Columns of `s` when every character of it is one column and a grapheme of its own
/// (printable ASCII and the few marks the table writes); `None`: measure it properly.
fn simple_width(s: &str) -> Option<usize> {
    let mut n = 0;
    for c in s.chars() {
        if !(matches!(c, ' '..='~' | '→' | '·' | '—' | '↵' | '…')) {
            return None;
        }
        n += 1;
    }
    Some(n)
}

fn width(s: &str) -> usize {
    simple_width(s).unwrap_or_else(|| display_width(s))
}

/// `at` on the display clock as the table writes it (`2026-11-24 10:02`), kept for the minute.
struct ClockMinutes {
    zone: crmdash_api::clock::DisplayZone,
    last: Option<(i64, i32)>,
    text: String,
}

impl ClockMinutes {
    fn push(&mut self, out: &mut String, at: i64) {
        let t = DateTime::<Utc>::from_timestamp(at, 0).unwrap_or_default();
        let secs = self.zone.offset_at(t).local_minus_utc();
        let key = (at.div_euclid(60), secs);
        if secs % 60 != 0 || self.last != Some(key) {
            self.text = self.zone.format_instant(t);
            self.last = (secs % 60 == 0).then_some(key);
        }
        out.push_str(&self.text);
    }
}

/// `--format table`: one change a line (local time, type, id, name, what changed), the id
/// and name columns as wide as their widest cell (the name at most 30), each line cut to
/// `width` columns.
pub fn write_table(
    mirror: &Mirror,
    q: &ChangeQuery,
    width_cols: usize,
    out: &mut impl Write,
) -> Result<(), Stop> {
    struct Row {
        time_at: usize,
        record: usize,
        singular: &'static str,
        summary: (usize, usize),
    }
    let mut names = Names {
        mirror,
        index: Default::default(),
        shown: Vec::new(),
    };
    let mut minutes = ClockMinutes {
        zone: crmdash_api::clock::get(),
        last: None,
        text: String::new(),
    };
    // Every row's time and summary in one text; rows point into it.
    let mut text = String::new();
    let mut rows: Vec<Row> = Vec::new();
    let mut scratch = String::new();
    mirror.each_change(q, |c| {
        let record = names.of(c.resource, c.id);
        let time_at = text.len();
        minutes.push(&mut text, c.at);
        let from = text.len();
        push_summary(&mut text, c, names.shown[record].currency.as_deref());
        if !clean(&text[from..]) {
            scratch = sanitize_cell(&text[from..]);
            text.truncate(from);
            text.push_str(&scratch);
        }
        rows.push(Row {
            time_at,
            record,
            singular: c.resource.singular(),
            summary: (from, text.len()),
        });
        Ok::<_, Stop>(())
    })?;
    if rows.is_empty() {
        out.write_all(b"No changes.\n")?;
        return Ok(());
    }
    let widths: Vec<(usize, usize)> = names
        .shown
        .iter()
        .map(|s| (width(&s.id), width(&s.label)))
        .collect();
    let id_w = widths.iter().map(|w| w.0).max().unwrap_or(0);
    let name_w = widths.iter().map(|w| w.1).max().unwrap_or(0).min(30);
    // Each record's name cut and padded once.
    let cells: Vec<String> = names
        .shown
        .iter()
        .zip(&widths)
        .map(|(s, w)| {
            let mut cell = if w.1 <= name_w {
                s.label.clone()
            } else {
                truncate_to_width(&s.label, name_w)
            };
            let used = if w.1 <= name_w { w.1 } else { width(&cell) };
            cell.extend(std::iter::repeat_n(' ', name_w.saturating_sub(used)));
            cell
        })
        .collect();
    // The header names each column and the display clock's zone (when the line has room).
    let time_w = rows
        .iter()
        .map(|r| width(&text[r.time_at..r.summary.0]))
        .max()
        .unwrap_or(0);
    let zoned = format!("WHEN ({})", minutes.zone.label());
    let when = if width(&zoned) <= time_w || width_cols >= 100 {
        zoned
    } else {
        "WHEN".to_string()
    };
    let time_col = time_w.max(width(&when));
    let pad = |s: &mut String, used: usize, w: usize| {
        s.extend(std::iter::repeat_n(' ', w.saturating_sub(used)))
    };
    let mut head = when.clone();
    pad(&mut head, width(&when), time_col);
    head.push_str("  KIND   ");
    head.push_str("  ID");
    pad(&mut head, 2, id_w);
    head.push_str("  NAME");
    pad(&mut head, 4, name_w);
    head.push_str("  CHANGE");
    let mut buf = String::with_capacity(BLOCK + 4096);
    buf.push_str(&truncate_to_width(&head, width_cols));
    buf.push('\n');
    let mut line = String::new();
    for r in &rows {
        line.clear();
        line.push_str(&text[r.time_at..r.summary.0]);
        let used = width(&text[r.time_at..r.summary.0]);
        pad(&mut line, used, time_col);
        line.push_str("  ");
        line.push_str(r.singular);
        line.extend(std::iter::repeat_n(
            ' ',
            7usize.saturating_sub(r.singular.len()),
        ));
        line.push_str("  ");
        let shown = &names.shown[r.record];
        line.push_str(&shown.id);
        line.extend(std::iter::repeat_n(
            ' ',
            id_w.saturating_sub(widths[r.record].0),
        ));
        line.push_str("  ");
        line.push_str(&cells[r.record]);
        line.push_str("  ");
        line.push_str(&text[r.summary.0..r.summary.1]);
        let trimmed = line.trim_end();
        if width(trimmed) <= width_cols {
            buf.push_str(trimmed);
        } else {
            buf.push_str(&truncate_to_width(trimmed, width_cols));
        }
        buf.push('\n');
        if buf.len() >= BLOCK {
            out.write_all(buf.as_bytes())?;
            buf.clear();
        }
    }
    out.write_all(buf.as_bytes())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_scalars_are_what_serde_writes() {
        for t in [
            r#""plain""#,
            r#""""#,
            "null",
            "true",
            "false",
            "0",
            "-7",
            "123456789012345678",
            r#""a\"b""#,
            r#""\u00e9""#,
            "12.50",
            "-0",
            "1e3",
            "007",
            "1234567890123456789012",
            "[1,2]",
            r#"{"b":1,"a":2}"#,
        ] {
            let v: Value = serde_json::from_str(t).unwrap_or(Value::Null);
            let written = serde_json::to_string(&v).unwrap();
            assert_eq!(
                canonical_scalar(t),
                written == t && !t.starts_with(['[', '{']) && !t.contains('\\'),
                "{t} (serde writes {written})"
            );
        }
    }
}
