//! The detail pane: every field of a record as the server sent it, unknown fields and
//! included relations too, nested values indented, times also shown in the display zone.

use crossterm::event::{KeyEvent, MouseEvent};
use serde_json::Value;

use crate::api::Timestamp;
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::table::record::{DisplayZone, Record};
use crate::app::widgets::scroll::{Entry, ScrollText, Tone};
use crate::resource::Resource;

/// Fields shown first, in this order; the rest follow alphabetically.
const FIRST: &[&str] = &[
    "id",
    "name",
    "full_name",
    "first_name",
    "last_name",
    "email",
    "phone",
    "status",
    "value",
    "start_date",
    "end_date",
    "created_at",
    "updated_at",
];

pub struct DetailView {
    pub title: String,
    pub raw: std::sync::Arc<str>,
    /// The record's label, for the "Copied … as JSON" note.
    pub label: String,
    pub text: ScrollText,
    /// The record, for `R` (its related records from the mirror).
    pub link: Option<crate::app::mirror::RecordRef>,
}

impl DetailView {
    pub fn new(
        kind: Resource,
        record: &Record,
        zone: &DisplayZone,
        width: u16,
        height: u16,
    ) -> Self {
        let entries = entries(&record.raw, zone);
        let noun = kind.title_singular();
        DetailView {
            title: format!("{noun} {} · {}", record.id, record.label),
            raw: record.raw.clone(),
            label: record.label.clone(),
            text: ScrollText::new(entries, width, height),
            link: Some(crate::app::mirror::RecordRef {
                kind: crate::app::mirror::LinkKind::Record(kind),
                id: record.id.clone(),
                label: record.label.clone(),
                detail: String::new(),
                raw: record.raw.clone(),
                note: None,
            }),
        }
    }
}

/// The record's fields as indented entries.
pub fn entries(raw: &str, zone: &DisplayZone) -> Vec<Entry> {
    let mut out = Vec::new();
    match serde_json::from_str::<Value>(raw) {
        Ok(Value::Object(map)) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_by_key(|k| {
                (
                    FIRST.iter().position(|f| f == k).unwrap_or(FIRST.len()),
                    k.to_string(),
                )
            });
            for k in keys {
                push_value(&mut out, 0, k, &map[k], zone);
            }
        }
        Ok(other) => push_value(&mut out, 0, "value", &other, zone),
        Err(_) => out.push(Entry {
            indent: 0,
            key: None,
            value: raw.to_string(),
            tone: Tone::Value,
            hang: None,
        }),
    }
    out
}

fn looks_like_time(key: &str) -> bool {
    key.ends_with("_at") || key.ends_with("_date") || key == "date" || key.ends_with("_time")
}

fn push_value(out: &mut Vec<Entry>, indent: usize, key: &str, v: &Value, zone: &DisplayZone) {
    let entry = |value: String, tone: Tone| Entry {
        indent,
        key: Some(key.to_string()),
        value,
        tone,
        hang: None,
    };
    match v {
        Value::Null => out.push(entry("null".into(), Tone::Dim)),
        Value::String(s) if looks_like_time(key) => {
            let ts = Timestamp::parse(s);
            let shown = zone.format(&ts);
            let value = if ts.when().is_some() && shown != *s {
                format!("{shown}  ({s})")
            } else {
                s.clone()
            };
            out.push(entry(value, Tone::Value));
        }
        Value::String(s) => out.push(entry(s.clone(), Tone::Value)),
        Value::Bool(b) => out.push(entry(b.to_string(), Tone::Value)),
        Value::Number(n) => out.push(entry(n.to_string(), Tone::Value)),
        Value::Array(items) if items.is_empty() => out.push(entry("[]".into(), Tone::Dim)),
        Value::Array(items) => {
            out.push(entry(format!("{} item(s)", items.len()), Tone::Dim));
            for (i, item) in items.iter().enumerate() {
                push_value(out, indent + 2, &format!("[{i}]"), item, zone);
            }
        }
        Value::Object(map) if map.is_empty() => out.push(entry("{}".into(), Tone::Dim)),
        Value::Object(map) => {
            let label = crate::api::Related {
                id: map.get("id").and_then(crate::api::value_to_string),
                fields: map.clone(),
            }
            .label();
            out.push(entry(label, Tone::Dim));
            for (k, v) in map {
                push_value(out, indent + 2, k, v, zone);
            }
        }
    }
}

impl Dialog for DetailView {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "scroll", 1),
            Hint::new(&[Action::CopyJson], "copy JSON", 0),
            Hint::new(&[Action::Related], "related", 1),
            Hint::new(&[Action::Back], "close", 0),
            Hint::new(&[Action::Quit], "quit", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if self.text.on_key(key, cx.keymap) {
            return Outcome::Handled;
        }
        if cx.keymap.pick(key, &[Action::PrevRecord]).is_some() {
            return Outcome::Close;
        }
        match cx.keymap.action(key) {
            Some(Action::Related) => match &self.link {
                Some(l) if l.kind.has_related() => Outcome::Apply(DialogResult::Related(l.clone())),
                _ => Outcome::Ignored,
            },
            Some(Action::CopyJson) => Outcome::Apply(DialogResult::CopyJson {
                json: self.raw.to_string(),
                label: self.label.clone(),
            }),
            Some(Action::Back) | Some(Action::Detail) => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn on_mouse(&mut self, mouse: &MouseEvent) -> Outcome {
        match self.text.on_mouse(mouse) {
            true => Outcome::Handled,
            false => Outcome::Ignored,
        }
    }

    fn on_resize(&mut self, width: u16, height: u16) {
        self.text.reflow_modal(width, height);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_unknown_fields_are_indented() {
        let raw = r#"{"id":"1","custom":{"tier":"gold","tags":["a","b"]},"name":"X","updated_at":"2026-01-02T03:04:05Z","note":null}"#;
        let e = entries(raw, &DisplayZone::Named(chrono_tz::Tz::UTC));
        let flat: Vec<(usize, String, String)> = e
            .iter()
            .map(|e| (e.indent, e.key.clone().unwrap_or_default(), e.value.clone()))
            .collect();
        assert_eq!(flat[0], (0, "id".into(), "1".into()));
        assert_eq!(flat[1], (0, "name".into(), "X".into()));
        assert_eq!(
            flat[2],
            (
                0,
                "updated_at".into(),
                "2026-01-02 03:04  (2026-01-02T03:04:05Z)".into()
            )
        );
        assert!(flat.contains(&(2, "tier".into(), "gold".into())));
        assert!(flat.contains(&(4, "[1]".into(), "b".into())));
        assert!(flat.contains(&(0, "note".into(), "null".into())));
    }
}
