//! How a change reads, the same in `crmdash changes`, `crmdash watch`, the detail pane's
//! history and the palette's `:changes`: one line (`status open → won · value 12,000.00 →
//! 13,500.00 EUR`) and one JSON object (`{seq, at, resource, id, kind, fields}`).

use serde::Serialize;
use serde_json::Value;

use crate::mirror::{ChangeKind, FieldChange, RecordChange};
use crate::resource::Resource;

/// Fields holding an amount in the record's `currency`.
const MONEY_FIELDS: [&str; 2] = ["value", "budget"];

/// A field's value as a person reads it: text as is, `—` for none, lists joined by `, `.
pub fn value_text(v: &Value) -> String {
    match v {
        Value::Null => "—".to_string(),
        Value::String(s) if s.is_empty() => "—".to_string(),
        Value::String(s) => s.clone(),
        Value::Array(items) if items.is_empty() => "—".to_string(),
        Value::Array(items) => items.iter().map(value_text).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

fn money_text(v: &Value) -> String {
    let raw = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        other => return value_text(other),
    };
    let m = crate::api::Money::parse(&raw);
    crate::insights::pipeline::format_money(&m, None)
}

/// One field's change: `status open → won`, `value 12,000.00 → 13,500.00 EUR` (amounts
/// grouped, the currency said once when known).
pub fn field_text(f: &FieldChange, currency: Option<&str>) -> String {
    if MONEY_FIELDS.contains(&f.field.as_str()) {
        let unit = currency.map(|c| format!(" {c}")).unwrap_or_default();
        return format!(
            "{} {} → {}{unit}",
            f.field,
            money_text(&f.old),
            money_text(&f.new)
        );
    }
    format!(
        "{} {} → {}",
        f.field,
        value_text(&f.old),
        value_text(&f.new)
    )
}

/// A change in one line: the kind for created and gone, its fields (` · ` between them)
/// otherwise, `back` before them for a record that returned.
pub fn summary(c: &RecordChange, currency: Option<&str>) -> String {
    let fields = || {
        c.fields
            .iter()
            .map(|f| field_text(f, currency))
            .collect::<Vec<_>>()
            .join(" · ")
    };
    match c.kind {
        ChangeKind::Created | ChangeKind::Gone => c.kind.word().to_string(),
        ChangeKind::Updated => fields(),
        ChangeKind::Back if c.fields.is_empty() => "back".to_string(),
        ChangeKind::Back => format!("back · {}", fields()),
    }
}

/// The currency a change's amounts are in: the new one when it changed, else `current`
/// (the record's, from the mirror).
pub fn currency_of<'a>(c: &'a RecordChange, current: Option<&'a str>) -> Option<&'a str> {
    match c.field("currency").map(|f| &f.new) {
        Some(Value::String(s)) => Some(s.as_str()),
        _ => current,
    }
}

/// The JSON object `changes --format json|jsonl` and `watch` print, and `watch --exec` gives
/// its program on stdin: `{seq, at, resource, id, kind, fields: [{field, old, new}]}`, keys
/// in that order.
#[derive(Debug, Serialize)]
pub struct ChangeJson<'a> {
    pub seq: i64,
    pub at: String,
    pub resource: Resource,
    pub id: &'a str,
    pub kind: ChangeKind,
    pub fields: &'a [FieldChange],
}

impl<'a> ChangeJson<'a> {
    pub fn new(c: &'a RecordChange) -> Self {
        ChangeJson {
            seq: c.seq,
            at: crate::timeparse::to_utc_rfc3339(c.at),
            resource: c.resource,
            id: &c.id,
            kind: c.kind,
            fields: &c.fields,
        }
    }
}

/// [`ChangeJson`] on one line (written by the one writer `crmdash changes` prints with).
pub fn json_line(c: &RecordChange) -> String {
    c.json_line()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(kind: ChangeKind, fields: Vec<(&str, Value, Value)>) -> RecordChange {
        RecordChange {
            seq: 7,
            at: chrono::DateTime::from_timestamp(1_795_514_520, 0).unwrap(),
            resource: Resource::Deals,
            id: "deal_1".into(),
            kind,
            fields: fields
                .into_iter()
                .map(|(f, o, n)| FieldChange {
                    field: f.into(),
                    old: o,
                    new: n,
                })
                .collect(),
        }
    }

    #[test]
    fn a_deal_change_reads_as_the_issue_shows_it() {
        let c = change(
            ChangeKind::Updated,
            vec![
                ("status", json!("open"), json!("won")),
                ("value", json!("12000.00"), json!(13500)),
            ],
        );
        assert_eq!(
            summary(&c, Some("EUR")),
            "status open → won · value 12,000.00 → 13,500.00 EUR"
        );
        assert_eq!(
            summary(&change(ChangeKind::Back, vec![]), None),
            "back".to_string()
        );
        let cleared = change(
            ChangeKind::Updated,
            vec![("phone", json!("+49"), Value::Null)],
        );
        assert_eq!(summary(&cleared, None), "phone +49 → —");
    }

    #[test]
    fn json_has_stable_keys() {
        let c = change(
            ChangeKind::Updated,
            vec![("status", json!("open"), json!("won"))],
        );
        assert_eq!(
            json_line(&c),
            r#"{"seq":7,"at":"2026-11-24T10:02:00Z","resource":"deals","id":"deal_1","kind":"updated","fields":[{"field":"status","old":"open","new":"won"}]}"#
        );
    }
}
