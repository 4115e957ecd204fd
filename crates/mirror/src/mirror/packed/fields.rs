//! A stored record's top-level fields read straight from its packed text: nothing unpacked
//! or decoded beyond the values a reader asks for. A reader of five fields of 100,000
//! contacts (the near-duplicate finder) skips rebuilding and parsing each whole record.

use super::{CODE_BASE, KEY, KEYS, PART, PART_END, TIME, TIME_DIGITS, TIME_LEN};

/// One top-level value as stored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(in crate::mirror) enum Stored<'a> {
    /// JSON text holding no mark: a string, a number, a literal, or an array or object of
    /// such, exactly as the server sent it.
    Json(&'a str),
    /// A time in the service's form, packed: its microseconds since 1970.
    Time(i64),
    /// A value holding parts, key codes or times (an included relation): its stored text,
    /// which [`super::PartCache::unpack`] turns into the server's.
    Packed(&'a str),
}

/// Each top-level key of a stored record with its value, in stored order (a key written
/// twice comes twice: the last one is the record's, as when decoding). `None` when the text
/// is not an object as packing leaves one (a key with escapes, a cut text): the caller
/// then reads the record whole.
pub(in crate::mirror) fn each_top_level<'a>(
    stored: &'a str,
    mut f: impl FnMut(&'a str, Stored<'a>),
) -> Option<()> {
    let b = stored.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(());
    }
    loop {
        let key: &str = match *b.get(i)? {
            KEY => {
                let code = b.get(i + 1)?.checked_sub(CODE_BASE)?;
                i += 2;
                KEYS.get(usize::from(code))?
            }
            b'"' => {
                let end = string_end(b, i)?;
                let key = &stored[i + 1..end];
                if key.contains('\\') {
                    return None;
                }
                i = skip_ws(b, end + 1);
                if b.get(i) != Some(&b':') {
                    return None;
                }
                i += 1;
                key
            }
            _ => return None,
        };
        i = skip_ws(b, i);
        let start = i;
        let (end, marked) = value_end(b, i)?;
        let value = match b[start] {
            TIME => Stored::Time(time_micros(&b[start + 1..end])?),
            _ if marked => Stored::Packed(&stored[start..end]),
            _ => Stored::Json(&stored[start..end]),
        };
        f(key, value);
        i = skip_ws(b, end);
        match *b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(()),
            _ => return None,
        }
    }
}

pub(super) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index of the quote closing the string opened at `i`.
pub(super) fn string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut escaped = false;
    while j < b.len() {
        match b[j] {
            b'\\' => escaped = !escaped,
            b'"' if !escaped => return Some(j),
            _ => escaped = false,
        }
        j += 1;
    }
    None
}

/// Where the value starting at `i` ends (exclusive), and whether it holds a mark.
pub(super) fn value_end(b: &[u8], i: usize) -> Option<(usize, bool)> {
    match *b.get(i)? {
        b'"' => Some((string_end(b, i)? + 1, false)),
        TIME => Some((i + 1 + TIME_LEN, true)).filter(|(e, _)| *e <= b.len()),
        PART => Some((mark_end(b, i)?, true)),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut marked = false;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => j = string_end(b, j)?,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some((j + 1, marked));
                        }
                    }
                    KEY => {
                        marked = true;
                        // The code byte may be any printable byte (a quote, a bracket).
                        j += 1;
                    }
                    TIME => {
                        marked = true;
                        j += TIME_LEN;
                    }
                    PART => {
                        marked = true;
                        j = mark_end(b, j)? - 1;
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        _ => {
            // A number or a literal: up to the next separator.
            let end = b[i..]
                .iter()
                .position(|c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .map_or(b.len(), |p| i + p);
            Some((end, false))
        }
    }
}

/// The end (exclusive) of the part mark at `i`.
fn mark_end(b: &[u8], i: usize) -> Option<usize> {
    b[i..]
        .iter()
        .position(|c| *c == PART_END)
        .map(|p| i + p + 1)
}

fn time_micros(digits: &[u8]) -> Option<i64> {
    if digits.len() != TIME_LEN {
        return None;
    }
    let mut micros: i64 = 0;
    for d in digits {
        let v = TIME_DIGITS.iter().position(|x| x == d)?;
        micros = (micros << 6) | v as i64;
    }
    Some(micros)
}

#[cfg(test)]
mod tests {
    use super::super::{Packer, PartCache};
    use super::*;
    use crate::mirror::Resource;

    fn fields(c: &rusqlite::Connection, raw: &str) -> Vec<(String, String)> {
        let packed = Packer::new(c).pack(raw, Resource::Contacts).unwrap();
        let mut out = Vec::new();
        each_top_level(&packed, |k, v| {
            let text = match v {
                Stored::Json(t) => t.to_string(),
                Stored::Time(us) => format!("time {us}"),
                Stored::Packed(p) => {
                    format!("packed {}", PartCache::default().unpack(c, p).unwrap())
                }
            };
            out.push((k.to_string(), text));
        })
        .expect("an object");
        out
    }

    #[test]
    fn top_level_values_come_out_of_the_packed_text_as_sent() {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE parts (pid INTEGER PRIMARY KEY, hash INTEGER NOT NULL, json TEXT NOT NULL);
             CREATE INDEX parts_hash ON parts (hash);",
        )
        .unwrap();
        let raw = r#"{ "id" : "con_1", "first_name":"J\"o\u00e9", "created_at":"2024-01-14T13:58:23.535415Z",
            "phone":null,"n":-1.5e3,"accounts":[{"id":"acc_1","name":"B [x] {y}"},{"id":"acc_2"}],
            "custom_fields":{"email":"in@side.example","at":"2024-01-14T13:58:23.535415Z"},
            "weird key":[1,"]"],"email":"a@b.example","email":"last@b.example","ok":true}"#;
        let got = fields(&c, raw);
        let want: Vec<(&str, &str)> = vec![
            ("id", r#""con_1""#),
            ("first_name", r#""J\"o\u00e9""#),
            ("created_at", "time 1705240703535415"),
            ("phone", "null"),
            ("n", "-1.5e3"),
            (
                "accounts",
                r#"packed [{"id":"acc_1","name":"B [x] {y}"},{"id":"acc_2"}]"#,
            ),
            (
                "custom_fields",
                r#"packed {"email":"in@side.example","at":"2024-01-14T13:58:23.535415Z"}"#,
            ),
            ("weird key", r#"[1,"]"]"#),
            ("email", r#""a@b.example""#),
            ("email", r#""last@b.example""#),
            ("ok", "true"),
        ];
        let got: Vec<(&str, &str)> = got.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        assert_eq!(got, want);
        // Not an object, cut, or a key with escapes: the caller reads the record whole.
        for bad in ["[1]", r#"{"id":"x""#, r#"{"i\u0064":"x"}"#, r#"{"id" "x"}"#] {
            assert_eq!(each_top_level(bad, |_, _| {}), None, "{bad}");
        }
        assert_eq!(each_top_level(" {} ", |_, _| panic!("no field")), Some(()));
    }
}
