//! The history the reports read, built from the mirror: each deal's state now (its stored
//! record, gone or not) and its changes undone newest first, so its state before each change
//! is known without the feed storing whole records. One pass over the deals, one over their
//! changes (in id order), inside one read snapshot.

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde_json::Value;

use super::{DealHistory, DealState, Event, History, NO_CURRENCY, NO_STATUS};
use crate::api::{ApiRecord, Deal, Money};
use crate::mirror::{ChangeKind, FieldChange, Mirror, MirrorError, RecordChange};

/// A deal as the mirror holds it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    pub id: String,
    pub label: String,
    pub state: DealState,
    pub gone: bool,
    pub updated_at: Option<i64>,
}

/// A status as the reports compare it: trimmed, lower-cased, `(none)` when empty.
pub fn status_word(s: Option<&str>) -> String {
    s.map(|s| s.trim().to_lowercase())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| NO_STATUS.to_string())
}

/// A currency: trimmed, upper-cased, else `default`, else `(none)`.
pub fn currency_word(s: Option<&str>, default: Option<&str>) -> String {
    let code = |c: &str| Some(c.trim().to_uppercase()).filter(|c| !c.is_empty());
    s.and_then(code)
        .or_else(|| default.and_then(code))
        .unwrap_or_else(|| NO_CURRENCY.to_string())
}

/// An amount as the service sent it (text or number); 0 when it is none or not exact.
pub fn amount_of(v: &Value) -> Decimal {
    let m = match v {
        Value::String(s) => Money::parse(s),
        Value::Number(n) => Money::parse(&n.to_string()),
        _ => return Decimal::ZERO,
    };
    m.decimal().unwrap_or(Decimal::ZERO)
}

impl Stored {
    pub fn of(deal: &Deal, gone: bool, default_currency: Option<&str>) -> Stored {
        Stored {
            id: deal.id.clone(),
            label: deal.label(),
            state: DealState {
                status: status_word(deal.status.as_deref()),
                value: deal
                    .value
                    .as_ref()
                    .and_then(Money::decimal)
                    .unwrap_or(Decimal::ZERO),
                currency: currency_word(
                    deal.extra.get("currency").and_then(Value::as_str),
                    default_currency,
                ),
            },
            gone,
            updated_at: deal
                .updated_at
                .as_ref()
                .and_then(crate::api::Timestamp::instant)
                .map(|t| t.timestamp()),
        }
    }
}

/// `state` with the changed fields set back to their old values.
fn undo(state: &DealState, fields: &[FieldChange], default_currency: Option<&str>) -> DealState {
    let mut s = state.clone();
    for f in fields {
        match f.field.as_str() {
            "status" => s.status = status_word(f.old.as_str()),
            "value" => s.value = amount_of(&f.old),
            "currency" => s.currency = currency_word(f.old.as_str(), default_currency),
            _ => {}
        }
    }
    s
}

/// A deal's history from its state now and its changes (oldest first): each change undone,
/// newest first.
pub fn rebuild(
    now: Stored,
    changes: &[RecordChange],
    default_currency: Option<&str>,
) -> DealHistory {
    // The fields as they were after the change being undone, and whether it existed then.
    let mut fields = now.state.clone();
    let mut there = !now.gone;
    let mut events = Vec::with_capacity(changes.len());
    for c in changes.iter().rev() {
        events.push(Event {
            at: c.at.timestamp(),
            state: there.then(|| fields.clone()),
        });
        match c.kind {
            ChangeKind::Created => there = false,
            ChangeKind::Gone => there = true,
            ChangeKind::Back => {
                fields = undo(&fields, &c.fields, default_currency);
                there = false;
            }
            ChangeKind::Updated => fields = undo(&fields, &c.fields, default_currency),
        }
    }
    events.reverse();
    DealHistory {
        id: now.id,
        label: now.label,
        initial: there.then_some(fields),
        events,
        updated_at: now.updated_at,
    }
}

/// Every deal's history from the mirror, known from its first full sync of the deals (or its
/// oldest change kept, when older), but never from before `now - keep_days`.
pub fn load(
    m: &Mirror,
    default_currency: Option<&str>,
    keep_days: Option<u32>,
    now: i64,
) -> Result<History, MirrorError> {
    m.in_snapshot(|m| {
        let mut stored: HashMap<String, Stored> = HashMap::new();
        m.each_deal_stored(|d, gone| {
            stored.insert(d.id.clone(), Stored::of(&d, gone, default_currency));
        })?;
        let mut deals = Vec::with_capacity(stored.len());
        let mut group: Vec<RecordChange> = Vec::new();
        let mut flush = |group: &mut Vec<RecordChange>, deals: &mut Vec<DealHistory>| {
            if let Some(s) = group.first().and_then(|c| stored.remove(&c.id)) {
                deals.push(rebuild(s, group, default_currency));
            }
            group.clear();
        };
        m.each_deal_change(|c| {
            if group.first().is_some_and(|g| g.id != c.id) {
                flush(&mut group, &mut deals);
            }
            group.push(c);
        })?;
        flush(&mut group, &mut deals);
        for (_, s) in stored {
            deals.push(rebuild(s, &[], default_currency));
        }
        deals.sort_by(|a, b| a.id.cmp(&b.id));
        let oldest_kept = keep_days.map(|d| now - i64::from(d) * super::DAY);
        // A second before the first sync's end: the feed stores whole seconds, and a change a
        // later sync saw in that same second is still after the baseline.
        let first = m.deal_feed_from()?.map_or(now, |t| t - 1);
        let from = first.max(oldest_kept.unwrap_or(i64::MIN));
        Ok(History { from, now, deals })
    })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(at: i64, kind: ChangeKind, fields: Vec<(&str, Value, Value)>) -> RecordChange {
        RecordChange {
            seq: at,
            at: chrono::DateTime::from_timestamp(at, 0).unwrap(),
            resource: crate::resource::Resource::Deals,
            id: "d".into(),
            kind,
            fields: fields
                .into_iter()
                .map(|(f, old, new)| FieldChange {
                    field: f.into(),
                    old,
                    new,
                })
                .collect(),
        }
    }

    fn st(status: &str, v: i64, cur: &str) -> DealState {
        DealState {
            status: status.into(),
            value: Decimal::from(v),
            currency: cur.into(),
        }
    }

    #[test]
    fn changes_are_undone_newest_first() {
        let now = Stored {
            id: "d".into(),
            label: "D".into(),
            state: st("won", 120, "EUR"),
            gone: true,
            updated_at: Some(5),
        };
        let changes = vec![
            change(10, ChangeKind::Created, vec![]),
            change(
                20,
                ChangeKind::Updated,
                vec![
                    ("value", json!("100.00"), json!(120)),
                    ("currency", Value::Null, json!("eur")),
                ],
            ),
            change(
                30,
                ChangeKind::Updated,
                vec![("status", json!("Open"), json!("won"))],
            ),
            change(40, ChangeKind::Gone, vec![]),
        ];
        let h = rebuild(now, &changes, None);
        assert_eq!(h.initial, None);
        let states: Vec<Option<DealState>> = h.events.iter().map(|e| e.state.clone()).collect();
        assert_eq!(
            states,
            [
                Some(st("open", 100, NO_CURRENCY)),
                Some(st("open", 120, "EUR")),
                Some(st("won", 120, "EUR")),
                None,
            ]
        );
        assert_eq!(amount_of(&json!("12.5")).to_string(), "12.5");
        assert_eq!(amount_of(&json!("n/a")), Decimal::ZERO);
    }
}
