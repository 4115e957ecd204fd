//! Reading the feed without building values: each stored change as borrowed text (its fields
//! are the stored JSON array of `[path, old, new]` triples), walked in place. `crmdash
//! changes` prints JSON lines straight from it; [`Mirror::changes`] decodes on top of it.

use std::fmt::Write as _;

use serde::de::{Deserializer as _, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::{ChangeKind, ChangeQuery, Mirror, MirrorError, RecordChange, decode, from_secs};
use super::{resource_code, resource_from_code};
use crate::resource::Resource;

/// One stored change, borrowed from the row being read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RawChange<'a> {
    pub seq: i64,
    /// Seconds since 1970, UTC.
    pub at: i64,
    pub resource: Resource,
    pub id: &'a str,
    pub kind: ChangeKind,
    /// The stored triples (`None` for created and gone).
    pub fields: Option<&'a str>,
}

impl RawChange<'_> {
    /// Whether `field` (or a field under it) changed, reading only the paths.
    pub fn touches(&self, field: &str) -> bool {
        let mut hit = false;
        each_field(self.fields, |path, _, _| {
            if !hit {
                hit = match serde_json::from_str::<&str>(path) {
                    Ok(p) => super::path_under(p, field),
                    Err(_) => serde_json::from_str::<String>(path)
                        .is_ok_and(|p| super::path_under(&p, field)),
                };
            }
        });
        hit
    }

    pub fn decode(&self) -> RecordChange {
        RecordChange {
            seq: self.seq,
            at: from_secs(self.at),
            resource: self.resource,
            id: self.id.to_string(),
            kind: self.kind,
            fields: decode(self.fields),
        }
    }
}

impl RecordChange {
    /// The change as [`write_json_line`] writes it, without the newline.
    pub fn json_line(&self) -> String {
        let fields = super::encode(&self.fields);
        let raw = RawChange {
            seq: self.seq,
            at: self.at.timestamp(),
            resource: self.resource,
            id: &self.id,
            kind: self.kind,
            fields: fields.as_deref(),
        };
        let mut line = String::new();
        write_json_line(&raw, &mut line);
        line.pop();
        line
    }
}

/// Calls `f` with each stored triple's path, old and new value as JSON text (the path a JSON
/// string). Allocates nothing; text that is not an array of triples calls it for the triples
/// before the damage, and returns false.
pub fn each_field<'a>(
    fields: Option<&'a str>,
    mut f: impl FnMut(&'a str, &'a str, &'a str),
) -> bool {
    let Some(text) = fields else { return true };
    // What the sync writes (scalars, compact): found by one scan, without serde.
    let mut found = [("", "", ""); QUICK_TRIPLES];
    if let Some(n) = quick_triples(text, &mut found) {
        for (p, o, n) in &found[..n] {
            f(p, o, n);
        }
        return true;
    }
    by_parser(text, f)
}

/// [`each_field`] by serde_json's parser: any text.
fn by_parser<'a>(text: &'a str, mut f: impl FnMut(&'a str, &'a str, &'a str)) -> bool {
    struct Triples<'f, F>(&'f mut F);
    impl<'de, F: FnMut(&'de str, &'de str, &'de str)> Visitor<'de> for Triples<'_, F> {
        type Value = ();
        fn expecting(&self, w: &mut std::fmt::Formatter) -> std::fmt::Result {
            w.write_str("an array of [path, old, new]")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            type Triple<'t> = (&'t RawValue, &'t RawValue, &'t RawValue);
            while let Some((p, o, n)) = seq.next_element::<Triple<'de>>()? {
                (self.0)(p.get(), o.get(), n.get());
            }
            Ok(())
        }
    }
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_seq(Triples(&mut f)).is_ok() && de.end().is_ok()
}

/// The most triples [`quick_triples`] reads; a longer list takes the parser.
const QUICK_TRIPLES: usize = 8;

/// The triples of `text` when it is an array of at most [`QUICK_TRIPLES`] triples of scalars
/// (strings without escapes, numbers, literals), each value's exact text; `None` for
/// anything else (nested values, escapes, damage), which the parser then reads. Whatever it
/// accepts the parser accepts with the same spans.
fn quick_triples<'a>(
    text: &'a str,
    out: &mut [(&'a str, &'a str, &'a str); QUICK_TRIPLES],
) -> Option<usize> {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            i += 1;
        }
        i
    };
    // One scalar at `i`: its end.
    let scalar = |i: usize| -> Option<usize> {
        match *b.get(i)? {
            b'"' => {
                let mut j = i + 1;
                loop {
                    match *b.get(j)? {
                        b'"' => return Some(j + 1),
                        b'\\' => return None,
                        c if c < 0x20 => return None,
                        _ => j += 1,
                    }
                }
            }
            b't' => text[i..].starts_with("true").then_some(i + 4),
            b'f' => text[i..].starts_with("false").then_some(i + 5),
            b'n' => text[i..].starts_with("null").then_some(i + 4),
            b'-' | b'0'..=b'9' => {
                let mut j = i + usize::from(b[i] == b'-');
                let digits = |mut j: usize| {
                    let start = j;
                    while b.get(j).is_some_and(u8::is_ascii_digit) {
                        j += 1;
                    }
                    (j > start).then_some(j)
                };
                j = match b.get(j)? {
                    b'0' => j + 1,
                    _ => digits(j)?,
                };
                if b.get(j) == Some(&b'.') {
                    j = digits(j + 1)?;
                }
                if matches!(b.get(j), Some(b'e' | b'E')) {
                    j += 1;
                    if matches!(b.get(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    j = digits(j)?;
                }
                // A number runs into what follows only through another token's start.
                match b.get(j) {
                    None | Some(b',' | b']' | b' ' | b'\n' | b'\t' | b'\r') => Some(j),
                    _ => None,
                }
            }
            _ => None,
        }
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'[') {
        return None;
    }
    i = ws(i + 1);
    let mut n = 0;
    if b.get(i) == Some(&b']') {
        return (ws(i + 1) == b.len()).then_some(0);
    }
    loop {
        if b.get(i) != Some(&b'[') || n == QUICK_TRIPLES {
            return None;
        }
        let mut spans = [(0, 0); 3];
        i = ws(i + 1);
        for (k, span) in spans.iter_mut().enumerate() {
            if k > 0 {
                if b.get(i) != Some(&b',') {
                    return None;
                }
                i = ws(i + 1);
            }
            let end = scalar(i)?;
            *span = (i, end);
            i = ws(end);
        }
        if b.get(i) != Some(&b']') || b[spans[0].0] != b'"' {
            return None;
        }
        out[n] = (
            &text[spans[0].0..spans[0].1],
            &text[spans[1].0..spans[1].1],
            &text[spans[2].0..spans[2].1],
        );
        n += 1;
        i = ws(i + 1);
        match b.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b']') => return (ws(i + 1) == b.len()).then_some(n),
            _ => return None,
        }
    }
}

/// Appends `s` as a JSON string.
pub fn push_json_str(out: &mut String, s: &str) {
    let plain = s
        .bytes()
        .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0x7f);
    if plain {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        out.push_str(&serde_json::Value::from(s).to_string());
    }
}

/// Appends bytes that are ASCII (digits and punctuation written here) without validating them
/// as UTF-8 a second time (a call per number or time showed in profiles).
#[inline]
fn push_ascii(out: &mut String, bytes: &[u8]) {
    if bytes.is_ascii() {
        // SAFETY: ASCII bytes are UTF-8 on their own: `out` stays UTF-8.
        unsafe { out.as_mut_vec() }.extend_from_slice(bytes);
    } else {
        out.push_str(&String::from_utf8_lossy(bytes));
    }
}

/// Appends `n` in decimal.
fn push_int(out: &mut String, n: i64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut rest = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    push_ascii(out, &digits[at..]);
}

/// The first second of year 0 and the last of year 9999 (UTC): the times [`push_time`]
/// writes by arithmetic.
const YEAR_0: i64 = -62_167_219_200;
const YEAR_9999_END: i64 = 253_402_300_799;

/// The civil date (year, month, day) of a day counted from 1970-01-01, by the proleptic
/// Gregorian calendar (H. Hinnant's `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Appends `2026-11-24T10:02:00Z` (what chrono writes for the time; years outside 0-9999
/// and times chrono cannot hold are written by chrono, as before).
pub fn push_time(out: &mut String, secs: i64) {
    if !(YEAR_0..=YEAR_9999_END).contains(&secs) {
        return push_time_by_chrono(out, secs);
    }
    let (year, month, day) = civil_from_days(secs.div_euclid(86_400));
    let of_day = secs.rem_euclid(86_400) as u32;
    let two = |n: u32| [b'0' + (n / 10) as u8, b'0' + (n % 10) as u8];
    let year = year as u32;
    let [y0, y1] = two(year / 100);
    let [y2, y3] = two(year % 100);
    let [mo0, mo1] = two(month);
    let [d0, d1] = two(day);
    let [h0, h1] = two(of_day / 3600);
    let [mi0, mi1] = two(of_day / 60 % 60);
    let [s0, s1] = two(of_day % 60);
    let text = [
        y0, y1, y2, y3, b'-', mo0, mo1, b'-', d0, d1, b'T', h0, h1, b':', mi0, mi1, b':', s0, s1,
        b'Z',
    ];
    push_ascii(out, &text);
}

/// [`push_time`] through chrono: the reference, and the way for any year.
fn push_time_by_chrono(out: &mut String, secs: i64) {
    use chrono::{Datelike, Timelike};
    let t = from_secs(secs);
    let year = t.year();
    if (0..=9999).contains(&year) {
        push_2(out, year as u32 / 100);
        push_2(out, year as u32 % 100);
    } else {
        let _ = write!(out, "{year:04}");
    }
    for (sep, n) in [('-', t.month()), ('-', t.day()), ('T', t.hour())] {
        out.push(sep);
        push_2(out, n);
    }
    for n in [t.minute(), t.second()] {
        out.push(':');
        push_2(out, n);
    }
    out.push('Z');
}

/// Appends `n` as two digits.
fn push_2(out: &mut String, n: u32) {
    out.push(char::from(b'0' + (n / 10 % 10) as u8));
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// Whether `secs` is in the years [`push_time`] writes by arithmetic (0 to 9999).
pub fn four_digit_year(secs: i64) -> bool {
    (YEAR_0..=YEAR_9999_END).contains(&secs)
}

/// Appends the change as one JSON line (`{seq, at, resource, id, kind, fields: [{field, old,
/// new}]}` and a newline), the stored values copied as they are.
pub fn write_json_line(c: &RawChange<'_>, out: &mut String) {
    out.push_str("{\"seq\":");
    push_int(out, c.seq);
    out.push_str(",\"at\":\"");
    push_time(out, c.at);
    out.push_str("\",\"resource\":\"");
    out.push_str(c.resource.noun());
    out.push_str("\",\"id\":");
    push_json_str(out, c.id);
    out.push_str(",\"kind\":\"");
    out.push_str(c.kind.word());
    out.push_str("\",\"fields\":[");
    let start = out.len();
    let mut first = true;
    let whole = each_field(c.fields, |p, o, n| {
        if !first {
            out.push(',');
        }
        first = false;
        out.push_str("{\"field\":");
        out.push_str(p);
        out.push_str(",\"old\":");
        out.push_str(o);
        out.push_str(",\"new\":");
        out.push_str(n);
        out.push('}');
    });
    if !whole {
        // Damaged text reads as no fields, as the decoded form does.
        out.truncate(start);
    }
    out.push_str("]}\n");
}

impl Mirror {
    /// Calls `f` with each change matching `q`, borrowed from its row, in the order seen (by
    /// time within a window of time, else by seq), oldest first unless `q.newest_first`, until
    /// `f` fails.
    pub fn each_change<E: From<MirrorError>>(
        &self,
        q: &ChangeQuery,
        mut f: impl FnMut(&RawChange<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut sql = String::from("SELECT seq, at, resource, id, kind, fields FROM changes");
        let mut cond: Vec<String> = Vec::new();
        let mut args: Vec<rusqlite::types::Value> = Vec::new();
        let mut arg = |v: rusqlite::types::Value| {
            args.push(v);
            format!("?{}", args.len())
        };
        if let Some(s) = q.after_seq {
            cond.push(format!("seq > {}", arg(s.into())));
        }
        if let Some(t) = q.since {
            cond.push(format!("at >= {}", arg(t.timestamp().into())));
        }
        // A record's history by its id alone reads the record index for each type.
        let types: &[Resource] = match (&q.id, q.resources.is_empty()) {
            (Some(_), true) => &Resource::ALL,
            _ => &q.resources,
        };
        if !types.is_empty() {
            let list: Vec<String> = types
                .iter()
                .map(|r| arg(resource_code(*r).into()))
                .collect();
            // Only a record's history reads by the record index: a window or a cursor is
            // read along its own order, the type tested on each row (`+` keeps the index
            // out), rather than sorting all of a type's changes.
            let column = if q.id.is_some() {
                "resource"
            } else {
                "+resource"
            };
            cond.push(format!("{column} IN ({})", list.join(",")));
        }
        if !q.kinds.is_empty() {
            let list: Vec<String> = q.kinds.iter().map(|k| arg(k.code().into())).collect();
            cond.push(format!("kind IN ({})", list.join(",")));
        }
        if let Some(id) = &q.id {
            cond.push(format!("id = {}", arg(id.clone().into())));
        }
        // A cheap first cut on the stored text (the path with its opening quote); the exact
        // test on the paths follows. Paths JSON would escape are left to the exact test.
        if let Some(field) = q.field.as_deref().filter(|f| {
            f.bytes()
                .all(|b| b >= 0x20 && b != b'"' && b != b'\\' && b != 0x7f)
        }) {
            cond.push(format!(
                "instr(fields, {}) > 0",
                arg(format!("\"{field}").into())
            ));
        }
        if let Some(shown) = q.selection {
            cond.push(format!("({})", shown.sql()));
        }
        if !cond.is_empty() {
            sql.push_str(" WHERE ");
            sql.push_str(&cond.join(" AND "));
        }
        // A window of time is read along the time index (no sort, no walk of the whole
        // table); a cursor's along seq. (A `min(seq)` over the window then a range of seq
        // measured 10 times slower: SQLite walks the table from the first seq for it.)
        let by_time = q.since.is_some() && q.after_seq.is_none();
        sql.push_str(match (by_time, q.newest_first) {
            (true, false) => " ORDER BY at, seq",
            (true, true) => " ORDER BY at DESC, seq DESC",
            (false, false) => " ORDER BY seq",
            (false, true) => " ORDER BY seq DESC",
        });
        let err = |e| E::from(self.err(e));
        // The field filter reads the paths, so the limit applies after it.
        let limit = q.limit.unwrap_or(usize::MAX);
        let mut stmt = self.conn.prepare_cached(&sql).map_err(err)?;
        let mut rows = stmt.query(rusqlite::params_from_iter(args)).map_err(err)?;
        let mut taken = 0;
        while taken < limit
            && let Some(row) = rows.next().map_err(err)?
        {
            let fields = row.get_ref(5).map_err(err)?;
            let change = RawChange {
                seq: row.get(0).map_err(err)?,
                at: row.get(1).map_err(err)?,
                resource: resource_from_code(row.get(2).map_err(err)?),
                id: row.get_ref(3).and_then(|v| Ok(v.as_str()?)).map_err(err)?,
                kind: ChangeKind::from_code(row.get(4).map_err(err)?),
                fields: fields.as_str_or_null().map_err(|e| err(e.into()))?,
            };
            if q.field.as_deref().is_none_or(|f| change.touches(f)) {
                taken += 1;
                f(&change)?;
            }
        }
        Ok(())
    }

    /// [`Mirror::each_change`] with the reading on a thread of its own: SQLite steps through
    /// the rows (and copies them out, in batches) while `f` handles the ones before, on this
    /// thread, in the same order. For a long window on a machine with a core to spare the
    /// command takes about the longer of the two halves instead of their sum. `f` stopping
    /// (an error) stops the reading at its next batch.
    pub fn each_change_ahead<E: From<MirrorError>>(
        &mut self,
        q: &ChangeQuery,
        mut f: impl FnMut(&RawChange<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        /// Why the reading thread stopped early.
        enum Halt {
            Read(MirrorError),
            Gone,
        }
        impl From<MirrorError> for Halt {
            fn from(e: MirrorError) -> Halt {
                Halt::Read(e)
            }
        }
        let path = std::path::PathBuf::from(self.conn.path().unwrap_or_default());
        let me: &mut Mirror = self;
        std::thread::scope(|scope| {
            let (full_tx, full_rx) = std::sync::mpsc::sync_channel::<Batch>(AHEAD_BATCHES);
            let (empty_tx, empty_rx) = std::sync::mpsc::channel::<Batch>();
            let reader = std::thread::Builder::new()
                .name("changes-read".into())
                .spawn_scoped(scope, move || {
                    let mut batch = Batch::default();
                    me.each_change(q, |c| {
                        batch.push(c);
                        if batch.rows.len() >= BATCH_ROWS {
                            let next = empty_rx.try_recv().unwrap_or_default();
                            full_tx
                                .send(std::mem::replace(&mut batch, next))
                                .map_err(|_| Halt::Gone)?;
                        }
                        Ok::<_, Halt>(())
                    })?;
                    if !batch.rows.is_empty() {
                        full_tx.send(batch).map_err(|_| Halt::Gone)?;
                    }
                    Ok(())
                });
            let reader = reader.map_err(|e| {
                E::from(MirrorError::Io {
                    action: "cannot start a thread to read",
                    path,
                    source: e,
                })
            })?;
            let mut handled = Ok(());
            'batches: for mut batch in full_rx.iter() {
                for c in batch.iter() {
                    if let Err(e) = f(&c) {
                        handled = Err(e);
                        break 'batches;
                    }
                }
                batch.clear();
                let _ = empty_tx.send(batch);
            }
            // Stops the reader at its next batch, if `f` stopped first.
            drop(full_rx);
            let read = reader
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            handled?;
            match read {
                Ok(()) | Err(Halt::Gone) => Ok(()),
                Err(Halt::Read(e)) => Err(E::from(e)),
            }
        })
    }

    /// Changes matching `q`, decoded, in the order [`Mirror::each_change`] reads them.
    pub fn changes(&self, q: &ChangeQuery) -> Result<Vec<RecordChange>, MirrorError> {
        let mut out = Vec::new();
        self.each_change(q, |c| {
            out.push(c.decode());
            Ok::<_, MirrorError>(())
        })?;
        Ok(out)
    }
}

/// Rows a reading thread copies out before handing them over ([`Mirror::each_change_ahead`]).
const BATCH_ROWS: usize = 1024;
/// Batches read ahead of the one being handled: bounds the memory a slow reader of the
/// output lets the reading build up (about 200 KiB a batch).
const AHEAD_BATCHES: usize = 4;

/// Changes copied out of their rows: their texts in one buffer, each row pointing into it.
#[derive(Default)]
struct Batch {
    text: String,
    rows: Vec<BatchRow>,
}

struct BatchRow {
    seq: i64,
    at: i64,
    resource: Resource,
    kind: ChangeKind,
    id_end: usize,
    fields_end: Option<usize>,
}

impl Batch {
    fn push(&mut self, c: &RawChange<'_>) {
        self.text.push_str(c.id);
        let id_end = self.text.len();
        let fields_end = c.fields.map(|f| {
            self.text.push_str(f);
            self.text.len()
        });
        self.rows.push(BatchRow {
            seq: c.seq,
            at: c.at,
            resource: c.resource,
            kind: c.kind,
            id_end,
            fields_end,
        });
    }

    fn iter(&self) -> impl Iterator<Item = RawChange<'_>> {
        let mut start = 0;
        self.rows.iter().map(move |r| {
            let id = &self.text[start..r.id_end];
            let fields = r.fields_end.map(|end| &self.text[r.id_end..end]);
            start = r.fields_end.unwrap_or(r.id_end);
            RawChange {
                seq: r.seq,
                at: r.at,
                resource: r.resource,
                id,
                kind: r.kind,
                fields,
            }
        })
    }

    fn clear(&mut self) {
        self.text.clear();
        self.rows.clear();
    }
}

/// Fixed selections of the feed, written in SQL (from the crate, never from input).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// What Today groups: deals' status and value changes, contacts created.
    Today,
}

impl Selection {
    fn sql(self) -> &'static str {
        match self {
            // Codes: deals 1, contacts 0; updated 1, back 3, created 0. A stored triple's
            // path opens with `["`; the exact test reads the decoded fields.
            Selection::Today => {
                "(+resource = 1 AND kind IN (1, 3) AND (instr(fields, '[\"status\",') > 0 \
                 OR instr(fields, '[\"value\",') > 0)) OR (+resource = 0 AND kind = 0)"
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mirror::FieldChange;
    use serde_json::json;

    fn stored(seq: i64, fields: Option<&str>) -> RawChange<'_> {
        RawChange {
            seq,
            at: 1_795_514_520,
            resource: Resource::Deals,
            id: "deal_1",
            kind: ChangeKind::Updated,
            fields,
        }
    }

    #[test]
    fn a_json_line_copies_the_stored_values() {
        let mut out = String::new();
        let text = r#"[["status","open","won"],["value","12000.00",13500],["tags",["a\"b"],null]]"#;
        write_json_line(&stored(7, Some(text)), &mut out);
        assert_eq!(
            out,
            concat!(
                r#"{"seq":7,"at":"2026-11-24T10:02:00Z","resource":"deals","id":"deal_1","kind":"updated","fields":["#,
                r#"{"field":"status","old":"open","new":"won"},{"field":"value","old":"12000.00","new":13500},"#,
                r#"{"field":"tags","old":["a\"b"],"new":null}]}"#,
                "\n"
            )
        );
        out.clear();
        let odd = RawChange {
            id: "a\"b\n",
            kind: ChangeKind::Gone,
            ..stored(8, None)
        };
        write_json_line(&odd, &mut out);
        assert_eq!(
            out,
            "{\"seq\":8,\"at\":\"2026-11-24T10:02:00Z\",\"resource\":\"deals\",\"id\":\"a\\\"b\\n\",\"kind\":\"gone\",\"fields\":[]}\n"
        );
        out.clear();
        write_json_line(&stored(9, Some(r#"[["status","open""#)), &mut out);
        assert!(
            out.ends_with("\"kind\":\"updated\",\"fields\":[]}\n"),
            "{out}"
        );
    }

    #[test]
    fn times_are_written_by_arithmetic_as_chrono_writes_them() {
        let mut samples = vec![
            YEAR_0 - 1,
            YEAR_0,
            YEAR_0 + 1,
            -86_401,
            -86_400,
            -1,
            0,
            1,
            951_782_399, // 2000-02-28T23:59:59Z
            951_868_800, // 2000-03-01
            4_107_542_399,
            1_795_514_520,
            YEAR_9999_END - 1,
            YEAR_9999_END,
            YEAR_9999_END + 1,
            i64::MIN,
            i64::MAX,
        ];
        // Every day of four centuries (leap years and the century rules), at odd hours.
        let mut t: i64 = -12_622_780_800; // 1570-01-01
        while t < 12_622_780_800 {
            samples.push(t + (t / 7).rem_euclid(86_400));
            t += 86_400;
        }
        for secs in samples {
            let (mut fast, mut slow) = (String::new(), String::new());
            push_time(&mut fast, secs);
            push_time_by_chrono(&mut slow, secs);
            assert_eq!(fast, slow, "{secs}");
        }
    }

    #[test]
    fn the_quick_scan_reads_what_the_parser_reads() {
        let texts = [
            r#"[]"#,
            r#" [ ] "#,
            r#"[["status","open","won"],["value","12000.00",13500]]"#,
            r#"[ ["a" , -0.5e3 ,true] , ["b",null,false] ]"#,
            r#"[["a",0,-0],["b",1.25E+10,"x y"]]"#,
            r#"[["n\u0061me","A","B"]]"#,
            r#"[["tags",["x"],["x","y"]]]"#,
            r#"[["o",{"a":1},null]]"#,
            r#"[[1,"a","b"]]"#,
            r#"[["a","b"]]"#,
            r#"[["a","b","c","d"]]"#,
            r#"[["a","b","c"],]"#,
            r#"[["a",01,"c"]]"#,
            r#"[["a",1.,"c"]]"#,
            r#"[["a",-,"c"]]"#,
            r#"[["a",tru,"c"]]"#,
            r#"[["a","b","c"]] x"#,
            r#"[["status","open""#,
            r#"[["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"],["a","b","c"]]"#,
            "null",
            "",
        ];
        for text in texts {
            let (mut quick, mut parsed) = (Vec::new(), Vec::new());
            let q = each_field(Some(text), |p, o, n| quick.push((p, o, n)));
            let p = by_parser(text, |p, o, n| parsed.push((p, o, n)));
            assert_eq!((q, &quick), (p, &parsed), "{text}");
        }
        let mut found = [("", "", ""); QUICK_TRIPLES];
        assert_eq!(
            quick_triples(r#"[["status","open","won"],["value","1",2]]"#, &mut found),
            Some(2)
        );
        assert_eq!(found[1], (r#""value""#, r#""1""#, "2"));
        assert_eq!(quick_triples(r#"[["tags",["x"],null]]"#, &mut found), None);
    }

    #[test]
    fn paths_are_read_without_decoding_the_values() {
        let text = r#"[["consent.email",false,true],["na\u006de","A","B"]]"#;
        let c = stored(1, Some(text));
        assert!(c.touches("consent"));
        assert!(c.touches("consent.email"));
        assert!(c.touches("name"));
        assert!(!c.touches("cons"));
        assert_eq!(
            c.decode().fields[0],
            FieldChange {
                field: "consent.email".into(),
                old: json!(false),
                new: json!(true)
            }
        );
    }

    /// Every change as `each_change` hands it over, owned.
    fn owned(c: &RawChange<'_>) -> (i64, i64, Resource, String, ChangeKind, Option<String>) {
        (
            c.seq,
            c.at,
            c.resource,
            c.id.to_string(),
            c.kind,
            c.fields.map(str::to_string),
        )
    }

    #[test]
    fn reading_ahead_hands_over_the_same_changes_in_the_same_order_and_stops_with_its_reader() {
        let dir = tempfile::tempdir().unwrap();
        let mut m = Mirror::open(&dir.path().join("m.sqlite3")).unwrap().mirror;
        // Three batches and a part, times out of order (a clock that went back), created and
        // gone changes without fields, ids and fields of every length, non-ASCII included.
        let tx = m.conn.transaction().unwrap();
        for i in 0..(3 * BATCH_ROWS + 17) {
            let kind = [ChangeKind::Created, ChangeKind::Updated, ChangeKind::Gone][i % 3];
            let fields = (kind == ChangeKind::Updated).then(|| {
                format!(
                    r#"[["name","Zoë {i}","{}"],["n",{i},null]]"#,
                    "x".repeat(i % 50)
                )
            });
            let at = 1_795_000_000 + (i as i64 * 7919) % 5000;
            let id = format!("con_{}{}", "é".repeat(i % 4), i);
            super::super::insert(&tx, at, Resource::ALL[i % 3], &id, kind, fields).unwrap();
        }
        tx.commit().unwrap();
        for q in [
            ChangeQuery::default(),
            ChangeQuery {
                since: Some(from_secs(1_795_002_000)),
                ..ChangeQuery::default()
            },
            ChangeQuery {
                since: Some(from_secs(1_795_000_000)),
                newest_first: true,
                field: Some("name".into()),
                ..ChangeQuery::default()
            },
        ] {
            let mut want = Vec::new();
            m.each_change(&q, |c| {
                want.push(owned(c));
                Ok::<_, MirrorError>(())
            })
            .unwrap();
            let mut got = Vec::new();
            m.each_change_ahead(&q, |c| {
                got.push(owned(c));
                Ok::<_, MirrorError>(())
            })
            .unwrap();
            assert!(want.len() > BATCH_ROWS, "{}", want.len());
            assert_eq!(got, want);
        }
        // The handler stops: its error comes back, and the reader stops too (the scope
        // returns, so its thread ended).
        let mut seen = 0;
        let stopped = m.each_change_ahead(&ChangeQuery::default(), |_| {
            seen += 1;
            if seen == 10 {
                return Err(MirrorError::Disabled);
            }
            Ok(())
        });
        assert!(matches!(stopped, Err(MirrorError::Disabled)), "{stopped:?}");
        assert_eq!(seen, 10);
        // The mirror is still usable on this thread after.
        assert_eq!(
            m.changes(&ChangeQuery::default()).unwrap().len(),
            3 * BATCH_ROWS + 17
        );
    }
}
