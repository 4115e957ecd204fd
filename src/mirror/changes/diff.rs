//! What changed between a record's two texts, cheaply: each side is split into its top-level
//! fields as raw text (no values built), fields whose bytes are equal are equal, and only
//! the fields whose bytes differ are parsed (and compared as values, so a different spelling
//! of the same value is no change). Nested objects are compared the same way, by dotted path.

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
        let moved = diff_text(
            Resource::Contacts,
            r#"{"id":"c","address":"Main St"}"#,
            r#"{"id":"c","address":{"street":"Main St"}}"#,
        );
        assert_eq!(moved[0].field, "address");
        assert_eq!(moved[0].new, json!({"street": "Main St"}));
    }
}
