//! A record's searchable text (every string and number, object keys and the values of
//! bookkeeping keys skipped: [`super::super::doc`]'s `fts_body`) read in one scan of its JSON
//! or of its packed text, without building a `serde_json::Value` of it.
//!
//! The scan gives the same words as parsing the record and walking the value: strings
//! unescaped, numbers as `serde_json` prints them, `true`/`false`/`null` nothing. Where it
//! could differ it gives up (`None`) and the caller walks the parsed value instead: a key
//! written with escapes, a key given twice in one object (the parsed value keeps the last),
//! a number that is not a plain integer (printed as `serde_json` prints it after parsing it
//! alone), a nesting deeper than the parser accepts. The full-text index keeps no positions
//! (`detail=column`), so the order of the words does not matter, only which words.
//!
//! In packed text an included relation is a part: its words are the same for every record
//! that points at it, so the build of a search index asks `part` for them once per part.

use super::{CODE_BASE, KEY, KEYS, PART, PART_END, TIME, TIME_DIGITS, TIME_LEN};

/// Deeper than this and `serde_json` refuses the record (its recursion limit is 128): the
/// caller's fallback says what the record's text is then.
const MAX_DEPTH: usize = 120;

/// Appends the words of `text` (a record's JSON, or its packed text) to `out`, each followed
/// by a space; `part` appends the words of the part with that id. `None`: the caller must
/// derive the text another way (what was appended meanwhile is for it to drop).
pub(in crate::mirror) fn words(
    text: &str,
    out: &mut String,
    part: &mut dyn FnMut(i64, &mut String) -> Option<()>,
) -> Option<()> {
    words_within(text, MAX_DEPTH, out, part)
}

/// [`words`] of a part: an included relation sits at most two levels down in its record
/// (`"accounts": [{...}]`), so its own nesting may go two levels less deep.
pub(in crate::mirror) fn part_words(text: &str, out: &mut String) -> Option<()> {
    words_within(text, MAX_DEPTH - 2, out, &mut |_, _| None)
}

fn words_within(
    text: &str,
    max_depth: usize,
    out: &mut String,
    part: &mut dyn FnMut(i64, &mut String) -> Option<()>,
) -> Option<()> {
    let mut s = Scan {
        text,
        b: text.as_bytes(),
        keys: Vec::new(),
        max_depth,
        part,
    };
    let i = s.value(s.ws(0), 0, out)?;
    (s.ws(i) == s.b.len()).then_some(())
}

/// Whether an object key's value is left out of the text (ids and bookkeeping times).
fn skipped(k: &str) -> bool {
    super::super::doc::skip_key(k)
}

struct Scan<'a, 'p> {
    text: &'a str,
    b: &'a [u8],
    /// The keys of the objects being read (each object's after its parent's), to notice a
    /// key given twice.
    keys: Vec<&'a str>,
    max_depth: usize,
    part: &'p mut dyn FnMut(i64, &mut String) -> Option<()>,
}

impl<'a> Scan<'a, '_> {
    fn ws(&self, mut i: usize) -> usize {
        while matches!(self.b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            i += 1;
        }
        i
    }

    /// The index of the quote closing the string opened at `i`, and whether it holds an
    /// escape.
    fn string_end(&self, i: usize) -> Option<(usize, bool)> {
        let mut j = i + 1;
        let mut escapes = false;
        loop {
            match *self.b.get(j)? {
                b'"' => return Some((j, escapes)),
                b'\\' => {
                    escapes = true;
                    j += 2;
                }
                _ => j += 1,
            }
        }
    }

    /// Reads the value at `i` (no whitespace before it), appending its words when `keep`;
    /// returns where it ends.
    fn value(&mut self, i: usize, depth: usize, out: &mut String) -> Option<usize> {
        self.item(i, depth, Some(out))
    }

    fn item(&mut self, i: usize, depth: usize, mut out: Option<&mut String>) -> Option<usize> {
        if depth > self.max_depth {
            return None;
        }
        match *self.b.get(i)? {
            b'"' => {
                let (end, escapes) = self.string_end(i)?;
                if let Some(out) = out {
                    if escapes {
                        let s: String = serde_json::from_str(self.text.get(i..=end)?).ok()?;
                        out.push_str(&s);
                    } else {
                        out.push_str(self.text.get(i + 1..end)?);
                    }
                    out.push(' ');
                }
                Some(end + 1)
            }
            b'{' => {
                let base = self.keys.len();
                let mut j = self.ws(i + 1);
                if self.b.get(j) == Some(&b'}') {
                    return Some(j + 1);
                }
                loop {
                    let key: &'a str = match *self.b.get(j)? {
                        KEY => {
                            let code = self.b.get(j + 1)?.checked_sub(CODE_BASE)?;
                            j += 2;
                            KEYS.get(usize::from(code))?
                        }
                        b'"' => {
                            let (end, escapes) = self.string_end(j)?;
                            if escapes {
                                return None;
                            }
                            let key = self.text.get(j + 1..end)?;
                            j = self.ws(end + 1);
                            if self.b.get(j) != Some(&b':') {
                                return None;
                            }
                            j += 1;
                            key
                        }
                        _ => return None,
                    };
                    if self.keys[base..].contains(&key) {
                        return None;
                    }
                    self.keys.push(key);
                    j = self.ws(j);
                    let keep = if skipped(key) {
                        None
                    } else {
                        out.as_deref_mut()
                    };
                    j = self.item(j, depth + 1, keep)?;
                    j = self.ws(j);
                    match *self.b.get(j)? {
                        b',' => j = self.ws(j + 1),
                        b'}' => {
                            self.keys.truncate(base);
                            return Some(j + 1);
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                let mut j = self.ws(i + 1);
                if self.b.get(j) == Some(&b']') {
                    return Some(j + 1);
                }
                loop {
                    j = self.item(j, depth + 1, out.as_deref_mut())?;
                    j = self.ws(j);
                    match *self.b.get(j)? {
                        b',' => j = self.ws(j + 1),
                        b']' => return Some(j + 1),
                        _ => return None,
                    }
                }
            }
            TIME => {
                let digits = self.b.get(i + 1..i + 1 + TIME_LEN)?;
                if let Some(out) = out {
                    let mut micros: i64 = 0;
                    for d in digits {
                        let v = TIME_DIGITS.iter().position(|x| x == d)?;
                        micros = (micros << 6) | v as i64;
                    }
                    let t = chrono::DateTime::from_timestamp_micros(micros)?;
                    use std::fmt::Write;
                    write!(out, "{} ", t.naive_utc().format(super::TIME_FORMAT)).ok()?;
                }
                Some(i + 1 + TIME_LEN)
            }
            PART => {
                let end = self.b[i..].iter().position(|c| *c == PART_END)? + i;
                if let Some(out) = out {
                    let pid: i64 = self.text.get(i + 1..end)?.parse().ok()?;
                    (self.part)(pid, out)?;
                }
                Some(end + 1)
            }
            b't' | b'f' | b'n' => {
                let len = match self.b[i] {
                    b't' => 4,
                    b'f' => 5,
                    _ => 4,
                };
                let lit = self.b.get(i..i + len)?;
                matches!(lit, b"true" | b"false" | b"null").then_some(i + len)
            }
            b'-' | b'0'..=b'9' => {
                let end = self.b[i..]
                    .iter()
                    .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .map_or(self.b.len(), |p| i + p);
                if let Some(out) = out {
                    let lit = self.text.get(i..end)?;
                    if plain_integer(lit) {
                        out.push_str(lit);
                    } else {
                        let v: serde_json::Value = serde_json::from_str(lit).ok()?;
                        let serde_json::Value::Number(n) = v else {
                            return None;
                        };
                        out.push_str(&n.to_string());
                    }
                    out.push(' ');
                }
                Some(end)
            }
            _ => None,
        }
    }
}

/// An integer `serde_json` prints back as written: no sign but a minus, no leading zero, no
/// `-0`, and short enough to be an `i64`/`u64`.
fn plain_integer(lit: &str) -> bool {
    let digits = lit.strip_prefix('-').unwrap_or(lit);
    !digits.is_empty()
        && digits.len() <= 18
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" && !lit.starts_with('-') || !digits.starts_with('0'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mirror::Resource;
    use crate::mirror::packed::{Packer, PartCache};

    /// The words as the record's parsed value gives them (the reference).
    fn parsed(raw: &str) -> Vec<String> {
        let mut w: Vec<String> = crate::mirror::doc::body_text_parsed(raw)
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        w.sort();
        w
    }

    fn scanned(text: &str, c: &rusqlite::Connection) -> Option<Vec<String>> {
        let cache = PartCache::default();
        let mut out = String::new();
        words(text, &mut out, &mut |pid, out| {
            let part = cache.get(c, pid).ok()??;
            let mut inner = String::new();
            part_words(&part, &mut inner)?;
            out.push_str(&inner);
            Some(())
        })?;
        assert!(out.is_empty() || out.ends_with(' '));
        let mut w: Vec<String> = out
            .split(' ')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        w.sort();
        Some(w)
    }

    fn conn() -> rusqlite::Connection {
        let c = rusqlite::Connection::open_in_memory().unwrap();
        c.execute_batch(
            "CREATE TABLE parts (pid INTEGER PRIMARY KEY, hash INTEGER NOT NULL, json TEXT NOT NULL);
             CREATE INDEX parts_hash ON parts (hash);",
        )
        .unwrap();
        c
    }

    #[test]
    fn the_words_of_raw_and_packed_text_are_those_of_the_parsed_record() {
        let c = conn();
        let raw = r#"{ "id" : "con_1", "first_name":"J\"o\u00e9", "created_at":"2024-01-14T13:58:23.535415Z",
            "phone":null,"n":-1.5e3,"m":0,"big":123456789012345678901,"neg":-42,"f":42.50,
            "accounts":[{"id":"acc_1","name":"B [x] {y}","employees":12},{"id":"acc_2"}],
            "custom_fields":{"email":"in@side.example","at":"2024-01-14T13:58:23.535415Z","vip":true},
            "tags":["Köln","a b"],"weird key":[1,"]"],"email":"a@b.example","account_ids":["acc_1"],
            "assigned_user":{"id":"usr_1","name":"Olivia"},"ok":false,"empty":{},"none":[]}"#;
        let want = parsed(raw);
        assert!(want.contains(&"Köln".to_string()) && want.contains(&"42.5".to_string()));
        assert!(!want.contains(&"acc_1".to_string()));
        assert_eq!(scanned(raw, &c).as_ref(), Some(&want));
        let packed = Packer::new(&c).pack(raw, Resource::Contacts).unwrap();
        assert!(
            packed.contains('\u{1}') && packed.contains('\u{4}'),
            "{packed:?}"
        );
        assert_eq!(scanned(&packed, &c).as_ref(), Some(&want));
        for r in [Resource::Deals, Resource::Projects] {
            let packed = Packer::new(&c).pack(raw, r).unwrap();
            assert_eq!(scanned(&packed, &c).as_ref(), Some(&want));
        }
    }

    #[test]
    fn what_the_scan_cannot_match_exactly_it_leaves_to_the_parser() {
        let c = conn();
        // A key twice (the parsed value keeps the last), a key with escapes.
        for raw in [
            r#"{"email":"a@b.example","email":"last@b.example"}"#,
            r#"{"i\u0064":"x","name":"y"}"#,
        ] {
            assert_eq!(scanned(raw, &c), None, "{raw}");
        }
        // The same key in two objects is no repeat.
        let raw = r#"{"a":{"name":"x"},"b":{"name":"y"},"name":"z"}"#;
        assert_eq!(scanned(raw, &c), Some(parsed(raw)));
        // Deeper than the parser goes.
        let deep = format!("{}1{}", "[".repeat(200), "]".repeat(200));
        assert_eq!(scanned(&deep, &c), None);
        assert_eq!(parsed(&deep), Vec::<String>::new());
        // Not JSON, or cut.
        for bad in ["", "{", r#"{"a":"b""#, r#"{"a" "b"}"#, "[1,]x", "tru"] {
            assert_eq!(scanned(bad, &c), None, "{bad:?}");
        }
        for n in [
            "0",
            "-0",
            "1e3",
            "0.1",
            "-12",
            "007",
            "99999999999999999999",
            "1E+2",
        ] {
            let raw = format!(r#"{{"n":{n}}}"#);
            match scanned(&raw, &c) {
                Some(w) => assert_eq!(w, parsed(&raw), "{n}"),
                None => assert!(
                    serde_json::from_str::<serde_json::Value>(&raw).is_err(),
                    "{n}"
                ),
            }
        }
    }
}
