//! The detail pane: every field of a record as the server sent it, unknown fields and
//! included relations too, nested values indented, times also shown in the display zone.

use crossterm::event::{KeyEvent, MouseEvent};
use serde_json::value::RawValue;

use crate::api::Timestamp;
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::table::record::{CellFormat, Record};
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
    /// Opened from the table: `j`/`k` (`]`/`[`) show the next or previous row's record.
    pub browse: bool,
    /// The request for the record's history (from the change feed), once asked.
    pub history: Option<crate::app::effects::RequestId>,
}

impl DetailView {
    pub fn new(
        kind: Resource,
        record: &Record,
        format: &CellFormat,
        width: u16,
        height: u16,
    ) -> Self {
        let entries = entries(&record.raw, kind, format);
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
            browse: false,
            history: None,
        }
    }

    /// The same, stepping through the table's rows with `j`/`k`.
    pub fn browsing(mut self) -> Self {
        self.browse = true;
        self
    }
}

/// A JSON value with every number's literal text kept (a `serde_json::Value` would read
/// `99999999999999999999.99` as a float and show `1e20`).
enum Node {
    Null,
    Bool(bool),
    Number(String),
    Text(String),
    List(Vec<Node>),
    /// Keys in alphabetical order.
    Map(Vec<(String, Node)>),
}

impl Node {
    /// The tree of `raw`, `None` when it is not JSON or nests deeper than
    /// [`crate::api::MAX_JSON_DEPTH`] (each level is one call).
    fn parse(raw: &str) -> Option<Node> {
        crate::api::check_depth(raw.as_bytes()).ok()?;
        Node::parse_within(raw, crate::api::MAX_JSON_DEPTH)
    }

    fn parse_within(raw: &str, levels: usize) -> Option<Node> {
        let raw = raw.trim();
        let levels = levels.checked_sub(1)?;
        Some(match raw.as_bytes().first()? {
            b'{' => {
                let map: std::collections::BTreeMap<String, Box<RawValue>> =
                    serde_json::from_str(raw).ok()?;
                let mut out = Vec::with_capacity(map.len());
                for (k, v) in map {
                    out.push((k, Node::parse_within(v.get(), levels)?));
                }
                Node::Map(out)
            }
            b'[' => {
                let items: Vec<Box<RawValue>> = serde_json::from_str(raw).ok()?;
                let mut out = Vec::with_capacity(items.len());
                for v in items {
                    out.push(Node::parse_within(v.get(), levels)?);
                }
                Node::List(out)
            }
            b'"' => Node::Text(serde_json::from_str(raw).ok()?),
            b't' | b'f' => Node::Bool(serde_json::from_str(raw).ok()?),
            b'n' => Node::Null,
            _ => Node::Number(raw.to_string()),
        })
    }
}

/// How the pane shows values beyond their JSON: times in the display zone, a deal's amount
/// as the table shows it (`format`'s currency when the record names none).
struct Show<'a> {
    format: &'a CellFormat,
    /// The deal's currency, when the record is a deal.
    currency: Option<Option<String>>,
}

/// The record's fields as indented entries.
pub fn entries(raw: &str, kind: Resource, format: &CellFormat) -> Vec<Entry> {
    let mut out = Vec::new();
    let node = Node::parse(raw);
    let currency = match (&node, kind) {
        (Some(Node::Map(fields)), Resource::Deals) => Some(
            fields
                .iter()
                .find_map(|(k, v)| match v {
                    Node::Text(c) if k == "currency" && !c.trim().is_empty() => {
                        Some(c.trim().to_uppercase())
                    }
                    _ => None,
                })
                .or_else(|| format.currency.clone()),
        ),
        _ => None,
    };
    let show = Show { format, currency };
    match node {
        Some(Node::Map(mut fields)) => {
            fields.sort_by_key(|(k, _)| {
                (
                    FIRST.iter().position(|f| f == k).unwrap_or(FIRST.len()),
                    k.to_string(),
                )
            });
            for (k, v) in &fields {
                push_value(&mut out, 0, k, v, &show);
            }
        }
        Some(other) => push_value(&mut out, 0, "value", &other, &show),
        None => out.push(Entry {
            indent: 0,
            key: None,
            value: match crate::api::check_depth(raw.as_bytes()) {
                Ok(()) => raw.to_string(),
                Err(e) => format!("This record is not shown: {e}"),
            },
            tone: Tone::Value,
            hang: None,
        }),
    }
    out
}

fn looks_like_time(key: &str) -> bool {
    key.ends_with("_at") || key.ends_with("_date") || key == "date" || key.ends_with("_time")
}

/// `n` things, singular or plural.
fn count(n: usize, one: &str, many: &str) -> String {
    match n {
        1 => format!("1 {one}"),
        n => format!("{n} {many}"),
    }
}

/// A deal's amount (`value`, at the top): `1,369.00 SAR  (1369)`, as the table shows it
/// with the value as sent beside it.
fn amount(literal: &str, show: &Show) -> Option<String> {
    let currency = show.currency.as_ref()?;
    let money = crate::api::Money::parse(literal);
    let shown = crate::app::table::record::money_cell(Some(&money), currency.as_deref()).text;
    Some(if shown == literal {
        shown
    } else {
        format!("{shown}  ({literal})")
    })
}

fn push_value(out: &mut Vec<Entry>, indent: usize, key: &str, v: &Node, show: &Show) {
    let entry = |value: String, tone: Tone| Entry {
        indent,
        key: Some(key.to_string()),
        value,
        tone,
        hang: None,
    };
    // A nested object or list is headed by its name and how many it holds, never by a value
    // that is not its own.
    let heading = |what: String| Entry {
        indent,
        key: None,
        value: format!("{key} ({what})"),
        tone: Tone::Key,
        hang: None,
    };
    let top_amount = |literal: &str| match indent == 0 && key == "value" {
        true => amount(literal, show),
        false => None,
    };
    match v {
        Node::Null => out.push(entry("null".into(), Tone::Dim)),
        Node::Text(s) if looks_like_time(key) => {
            let ts = Timestamp::parse(s);
            let shown = show.format.zone.format(&ts);
            let value = if ts.when().is_some() && shown != *s {
                format!("{shown}  ({s})")
            } else {
                s.clone()
            };
            out.push(entry(value, Tone::Value));
        }
        Node::Text(s) => out.push(entry(
            top_amount(s).unwrap_or_else(|| s.clone()),
            Tone::Value,
        )),
        Node::Bool(b) => out.push(entry(b.to_string(), Tone::Value)),
        Node::Number(n) => out.push(entry(
            top_amount(n).unwrap_or_else(|| n.clone()),
            Tone::Value,
        )),
        Node::List(items) if items.is_empty() => out.push(entry("[]".into(), Tone::Dim)),
        Node::List(items) => {
            out.push(heading(count(items.len(), "item", "items")));
            for (i, item) in items.iter().enumerate() {
                push_value(out, indent + 2, &format!("[{i}]"), item, show);
            }
        }
        Node::Map(map) if map.is_empty() => out.push(entry("{}".into(), Tone::Dim)),
        Node::Map(map) => {
            out.push(heading(count(map.len(), "field", "fields")));
            for (k, v) in map {
                push_value(out, indent + 2, k, v, show);
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
            Hint::new(&[Action::Back, Action::Quit], "close", 0),
        ];
        // `j`/`k` step through the records: the arrows and the wheel scroll (said in the
        // pane's own footer).
        const BROWSE: &[Hint] = &[
            Hint::new(
                &[Action::DetailNext, Action::DetailPrev],
                "next/prev record",
                0,
            ),
            Hint::new(&[Action::CopyJson], "copy JSON", 1),
            Hint::new(&[Action::Related], "related", 2),
            Hint::new(&[Action::Back, Action::Quit], "close", 0),
        ];
        if self.browse { BROWSE } else { H }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if self.browse {
            match cx
                .keymap
                .pick(key, &[Action::DetailNext, Action::DetailPrev])
            {
                Some(Action::DetailNext) => return Outcome::Apply(DialogResult::StepRecord(1)),
                Some(_) => return Outcome::Apply(DialogResult::StepRecord(-1)),
                None => {}
            }
        }
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

    fn on_message(&mut self, msg: &crate::app::message::Message, _cx: &mut DialogCx) -> Outcome {
        match msg {
            crate::app::message::Message::Mirror(crate::app::mirror::MirrorMessage::Feed {
                id,
                result,
            }) if self.history == Some(*id) => {
                crate::app::feed::add_history(&mut self.text, result);
                Outcome::Handled
            }
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
    use crate::app::table::record::DisplayZone;

    fn flat(raw: &str, kind: Resource) -> Vec<(usize, String, String)> {
        let format = CellFormat::from(DisplayZone::Named(chrono_tz::Tz::UTC));
        entries(raw, kind, &format)
            .iter()
            .map(|e| (e.indent, e.key.clone().unwrap_or_default(), e.value.clone()))
            .collect()
    }

    #[test]
    fn a_record_nested_past_the_limit_is_one_line_saying_so() {
        let deep = format!(
            "{{\"id\":\"1\",\"x\":{}{}}}",
            "[".repeat(100_000),
            "]".repeat(100_000)
        );
        let e = flat(&deep, Resource::Contacts);
        assert_eq!(e.len(), 1);
        assert!(e[0].2.contains("more than 100 levels deep"), "{}", e[0].2);
        // Just inside the limit, the tree is shown.
        let ok = format!("{{\"x\":{}{}}}", "[".repeat(99), "]".repeat(99));
        assert!(flat(&ok, Resource::Contacts).len() > 50);
    }

    #[test]
    fn nested_unknown_fields_are_indented() {
        let raw = r#"{"id":"1","custom":{"tier":"gold","tags":["a","b"]},"name":"X","updated_at":"2026-01-02T03:04:05Z","note":null}"#;
        let flat = flat(raw, Resource::Contacts);
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

    #[test]
    fn a_nested_object_or_list_is_headed_by_its_name_and_count() {
        // Sandbox contact con_000048: `consent` was headed `consent: false` (its first
        // value), `custom_fields` `custom_fields: ?`.
        let raw = r#"{"id":"con_000048","consent":{"email":false,"sms":true,"recorded_at":"2026-03-01T10:00:00Z"},
            "custom_fields":{"a":1,"b":"x","c":null},"tags":["vip"],"account":{"id":"a1","name":"Acme"}}"#;
        let flat = flat(raw, Resource::Contacts);
        let at = |heading: &str| flat.iter().position(|e| e.2 == heading);
        let consent = at("consent (3 fields)").expect("consent heading");
        assert_eq!(flat[consent].1, "", "a heading has no value: {flat:?}");
        assert_eq!(flat[consent + 1], (2, "email".into(), "false".into()));
        assert!(at("custom_fields (3 fields)").is_some(), "{flat:?}");
        assert!(at("tags (1 item)").is_some(), "{flat:?}");
        assert!(at("account (2 fields)").is_some(), "{flat:?}");
        assert!(!flat.iter().any(|e| e.2 == "false" && e.0 == 0), "{flat:?}");
        assert!(!flat.iter().any(|e| e.2 == "?"), "{flat:?}");
    }

    #[test]
    fn a_deals_amount_shows_as_in_the_table_with_the_value_as_sent() {
        let raw = r#"{"id":"7","value":1369,"currency":"sar","probability":0.5,
            "big":99999999999999999999.99}"#;
        let flat = flat(raw, Resource::Deals);
        assert!(flat.contains(&(0, "value".into(), "1,369.00 SAR  (1369)".into())));
        // Numbers are shown digit for digit (never through a float).
        assert!(flat.contains(&(0, "big".into(), "99999999999999999999.99".into())));
        assert!(flat.contains(&(0, "probability".into(), "0.5".into())));
        let flat = self::flat(r#"{"id":"7","value":"1200.5"}"#, Resource::Deals);
        assert!(flat.contains(&(0, "value".into(), "1,200.50  (1200.5)".into())));
        // Another resource's `value` is not an amount.
        let flat = self::flat(r#"{"id":"7","value":1369}"#, Resource::Projects);
        assert!(flat.contains(&(0, "value".into(), "1369".into())));
    }
}
