//! What changed between a record's two texts, cheaply: each side is split into its top-level
//! fields as raw text (no values built), fields whose bytes are equal are equal, and only
//! the fields whose bytes differ are parsed (and compared as values, so a different spelling
//! of the same value is no change). Nested objects are compared the same way, by dotted path.
//!
//! One plain scan of each text finds its members ([`top_members`]) without parsing them or
//! building a map; a record's two texts nearly always hold the same keys in the same order.

use std::collections::BTreeMap;

use serde_json::Value;
use serde_json::value::RawValue;

use super::{FieldChange, ignored};
use crate::resource::Resource;

/// An object's members as raw text, in key order (the order `serde_json::Map` keeps; the
/// last of repeated keys wins, as it does there). `None` when the text is not an object.
fn members(text: &str) -> Option<BTreeMap<std::borrow::Cow<'_, str>, &RawValue>> {
    serde_json::from_str(text).ok()
}

fn parse(raw: Option<&RawValue>) -> Value {
    raw.and_then(|r| serde_json::from_str(r.get()).ok())
        .unwrap_or(Value::Null)
}

/// The fields that differ between two raw records, by dotted path: those of the new record
/// in key order, then fields that went away. `updated_at` and included relations are left
/// out. Texts that are not objects are compared whole.
pub fn diff_text(r: Resource, old: &str, new: &str) -> Vec<FieldChange> {
    let mut out = Vec::new();
    if old == new {
        return out;
    }
    if let Some(scanned) = diff_scanned(r, old, new) {
        return scanned;
    }
    match (members(old), members(new)) {
        (Some(o), Some(n)) => diff_members(r, "", &o, &n, &mut out),
        _ => {
            let (o, n) = (parse_text(old), parse_text(new));
            if o != n {
                out.push(FieldChange {
                    field: String::new(),
                    old: o,
                    new: n,
                });
            }
        }
    }
    out
}

/// [`diff_text`] by a plain scan of each text for its members ([`top_members`]): `None` when
/// a text is no object, a key holds an escape or comes twice (the general way reads those).
/// The texts are valid JSON (what the service sent, as the sync decoded it, and the mirror's
/// copy of such a text), so the scan only finds where each member's value starts and ends;
/// only members whose bytes differ are parsed. The fields come out as the general way's maps
/// give them: changed and new keys in key order, then the keys that went away.
fn diff_scanned(r: Resource, old: &str, new: &str) -> Option<Vec<FieldChange>> {
    let (o, n) = (top_members(old)?, top_members(new)?);
    if repeated(&o) || repeated(&n) {
        return None;
    }
    let mut matched = vec![false; o.len()];
    let mut changed: Vec<(&str, Option<&str>, &str)> = Vec::new();
    // The same key is nearly always next where the last one was found.
    let mut next = 0;
    for &(k, nv) in &n {
        let at = if o.get(next).is_some_and(|m| m.0 == k) {
            Some(next)
        } else {
            o.iter().position(|m| m.0 == k)
        };
        if let Some(j) = at {
            matched[j] = true;
            next = j + 1;
        }
        let ov = at.map(|j| o[j].1);
        if ov != Some(nv) && !ignored(r, k) {
            changed.push((k, ov, nv));
        }
    }
    changed.sort_unstable_by(|a, b| a.0.cmp(b.0));
    let mut out = Vec::new();
    for (k, ov, nv) in changed {
        if let (Some(om), Some(nm)) = (ov.and_then(members), members(nv)) {
            diff_members(r, k, &om, &nm, &mut out);
            continue;
        }
        let (ov, nv) = (ov.map_or(Value::Null, parse_text), parse_text(nv));
        if ov != nv {
            out.push(FieldChange {
                field: k.to_string(),
                old: ov,
                new: nv,
            });
        }
    }
    let mut gone: Vec<(&str, &str)> = o
        .iter()
        .zip(&matched)
        .filter(|(m, seen)| !**seen && !ignored(r, m.0))
        .map(|(m, _)| *m)
        .collect();
    gone.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for (k, ov) in gone {
        let ov = parse_text(ov);
        if !ov.is_null() {
            out.push(FieldChange {
                field: k.to_string(),
                old: ov,
                new: Value::Null,
            });
        }
    }
    Some(out)
}

/// Whether a key comes twice among `members`.
fn repeated(members: &[(&str, &str)]) -> bool {
    let mut keys: Vec<&str> = members.iter().map(|m| m.0).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// The members of a JSON object's text, in order: each key (without its quotes) and its
/// value's text. `None` when the text is no object, or a key holds an escape.
fn top_members(text: &str) -> Option<Vec<(&str, &str)>> {
    let b = text.as_bytes();
    let ws = |mut i: usize| {
        while matches!(b.get(i), Some(b' ' | b'\n' | b'\t' | b'\r')) {
            i += 1;
        }
        i
    };
    // The end of the string whose opening quote is at `i` (past its closing quote).
    let string_end = |mut i: usize| -> Option<usize> {
        i += 1;
        loop {
            match *b.get(i)? {
                b'"' => return Some(i + 1),
                b'\\' => i += 2,
                _ => i += 1,
            }
        }
    };
    // The end of the value starting at `i`.
    let value_end = |mut i: usize| -> Option<usize> {
        match *b.get(i)? {
            b'"' => string_end(i),
            b'{' | b'[' => {
                let mut depth = 0usize;
                loop {
                    match *b.get(i)? {
                        b'"' => {
                            i = string_end(i)?;
                            continue;
                        }
                        b'{' | b'[' => depth += 1,
                        b'}' | b']' => {
                            depth -= 1;
                            if depth == 0 {
                                return Some(i + 1);
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            }
            _ => {
                while !matches!(
                    b.get(i),
                    None | Some(b',' | b'}' | b']' | b' ' | b'\n' | b'\t' | b'\r')
                ) {
                    i += 1;
                }
                Some(i)
            }
        }
    };
    let mut i = ws(0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut out = Vec::with_capacity(32);
    i = ws(i + 1);
    if b.get(i) == Some(&b'}') {
        return (ws(i + 1) == b.len()).then_some(out);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(i)?;
        let key = &text[i + 1..key_end - 1];
        if key.contains('\\') {
            return None;
        }
        i = ws(key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let start = ws(i + 1);
        let end = value_end(start)?;
        out.push((key, &text[start..end]));
        i = ws(end);
        match b.get(i) {
            Some(b',') => i = ws(i + 1),
            Some(b'}') => return (ws(i + 1) == b.len()).then_some(out),
            _ => return None,
        }
    }
}

fn parse_text(text: &str) -> Value {
    serde_json::from_str(text).unwrap_or(Value::Null)
}

fn diff_members(
    r: Resource,
    prefix: &str,
    old: &BTreeMap<std::borrow::Cow<'_, str>, &RawValue>,
    new: &BTreeMap<std::borrow::Cow<'_, str>, &RawValue>,
    out: &mut Vec<FieldChange>,
) {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    let top = prefix.is_empty();
    for (k, n) in new {
        if top && ignored(r, k) {
            continue;
        }
        let o = old.get(k).copied();
        if o.is_some_and(|o| o.get() == n.get()) {
            continue;
        }
        let nested = (o.and_then(|o| members(o.get())), members(n.get()));
        if let (Some(om), Some(nm)) = &nested {
            diff_members(r, &path(k), om, nm, out);
            continue;
        }
        let (ov, nv) = (parse(o), parse(Some(n)));
        if ov != nv {
            out.push(FieldChange {
                field: path(k),
                old: ov,
                new: nv,
            });
        }
    }
    for (k, o) in old {
        if new.contains_key(k) || (top && ignored(r, k)) {
            continue;
        }
        let ov = parse(Some(o));
        if ov.is_null() {
            continue;
        }
        out.push(FieldChange {
            field: path(k),
            old: ov,
            new: Value::Null,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The value-tree diff this one replaces, kept as the reference it must agree with.
    fn by_values(r: Resource, old: &Value, new: &Value) -> Vec<FieldChange> {
        super::super::diff(r, old, new)
    }

    #[test]
    fn agrees_with_the_value_diff_and_ignores_spelling() {
        let cases = [
            (
                r#"{"id":"d1","status":"open","value":"12000.00","consent":{"email":false,"sms":true},"updated_at":"a","contacts":[{"id":"c1","name":"A"}],"tags":["x"],"probability":10}"#,
                r#"{"id":"d1","status":"won","value":"12000.00","consent":{"email":true,"sms":true},"updated_at":"b","contacts":[{"id":"c1","name":"B"}],"tags":["x","y"]}"#,
            ),
            // Same values, other spelling (spaces, key order, escapes): no change.
            (
                r#"{"id":"c","name":"A\u00e9","consent":{"sms":true,"email":false}}"#,
                r#"{ "consent": {"email": false, "sms": true}, "name": "Aé", "id": "c" }"#,
            ),
            // A field that became an object, an object that became null, one that went away.
            (
                r#"{"id":"c","address":"Main St","meta":{"a":1},"gone":"x","nil":null}"#,
                r#"{"id":"c","address":{"street":"Main St"},"meta":null}"#,
            ),
            ("[1,2]", "[1,3]"),
        ];
        for (old, new) in cases {
            let expected = by_values(
                Resource::Deals,
                &serde_json::from_str(old).unwrap(),
                &serde_json::from_str(new).unwrap(),
            );
            assert_eq!(
                diff_text(Resource::Deals, old, new),
                expected,
                "{old} → {new}"
            );
        }
        assert!(
            diff_text(
                Resource::Deals,
                r#"{"id":"c","name":"A\u00e9"}"#,
                r#"{"name":"Aé","id":"c"}"#
            )
            .is_empty()
        );
        // The scan reads these, and agrees with the values.
        let scanned = [
            (
                r#"{"id":"c","name":"A","consent":{"email":false,"sms":true},"tags":["x"],"n":1,"updated_at":"a","accounts":[{"id":"a1"}]}"#,
                r#"{"id":"c","name":"B\"q","consent":{"email":true,"sms":true},"tags":["x", "y"],"n":1.0,"updated_at":"b","accounts":[{"id":"a2"}]}"#,
            ),
            (
                r#" { "b" : "x,}]" , "a" : [ {"k":"}"} ] , "c" : null } "#,
                r#"{"b":"x,}]","a":[{"k":"]"}],"c":{"d":"\u00e9"}}"#,
            ),
            (
                r#"{"id":"c","name":"A\u00e9"}"#,
                r#"{"id":"c","name":"Aé"}"#,
            ),
            (r#"{}"#, r#"{ }"#),
            (r#"{"a":1,"b":2,"z":null}"#, r#"{"b":2,"a":3}"#),
            (
                r#"{"a":1,"x":"gone","c":{"d":1}}"#,
                r#"{"n":"new","a":1,"c":{"d":2,"e":3}}"#,
            ),
            (r#"{"a":1}"#, r#"{"a":1,"b":2,"c":null}"#),
        ];
        for (old, new) in scanned {
            let expected = by_values(
                Resource::Contacts,
                &serde_json::from_str(old).unwrap(),
                &serde_json::from_str(new).unwrap(),
            );
            assert_eq!(
                diff_scanned(Resource::Contacts, old, new).as_ref(),
                Some(&expected),
                "{old} → {new}"
            );
            assert_eq!(diff_text(Resource::Contacts, old, new), expected);
        }
        // Anything else is left to the general way.
        for (old, new) in [
            (r#"{"a":1,"a":2}"#, r#"{"a":1,"a":3}"#),
            (r#"{"a":1,"b":2}"#, r#"{"b":2,"a":3,"b":4}"#),
            (r#"{"\u0061":1}"#, r#"{"\u0061":2}"#),
            ("[1]", "[2]"),
        ] {
            assert_eq!(diff_scanned(Resource::Contacts, old, new), None, "{old}");
            let expected = by_values(
                Resource::Contacts,
                &serde_json::from_str(old).unwrap(),
                &serde_json::from_str(new).unwrap(),
            );
            assert_eq!(diff_text(Resource::Contacts, old, new), expected, "{old}");
        }
        let moved = diff_text(
            Resource::Contacts,
            r#"{"id":"c","address":"Main St"}"#,
            r#"{"id":"c","address":{"street":"Main St"}}"#,
        );
        assert_eq!(moved[0].field, "address");
        assert_eq!(moved[0].new, json!({"street": "Main St"}));
    }
}
