//! The history the reports read, built from the mirror: each deal's state now (its stored
//! record, gone or not) and its changes undone newest first, so its state before each change
//! is known without the feed storing whole records. One pass over the deals, one over their
//! changes (in id order), inside one read snapshot.

use std::collections::HashMap;

use rust_decimal::Decimal;
use serde_json::Value;

use super::{DealHistory, DealState, Event, History, NO_CURRENCY, NO_STATUS};
use crate::api::Money;
use crate::mirror::{ChangeKind, DealFacts, Mirror, MirrorError};
use serde_json::value::RawValue;

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

/// An amount as stored JSON text (a string or a number); 0 when it is none or not exact.
fn amount_text(json: &str) -> Decimal {
    let m = if json.starts_with('"') {
        serde_json::from_str::<String>(json).map(|s| Money::parse(&s))
    } else if json == "null" {
        return Decimal::ZERO;
    } else {
        Ok(Money::parse(json))
    };
    m.ok().and_then(|m| m.decimal()).unwrap_or(Decimal::ZERO)
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
    pub fn of(d: DealFacts, default_currency: Option<&str>) -> Stored {
        Stored {
            label: d.name.clone().unwrap_or_else(|| d.id.clone()),
            state: DealState {
                status: status_word(d.status.as_deref()),
                value: d
                    .value
                    .as_ref()
                    .and_then(Money::decimal)
                    .unwrap_or(Decimal::ZERO),
                currency: currency_word(d.currency.as_deref(), default_currency),
            },
            id: d.id,
            gone: d.gone,
            updated_at: d.updated_at,
        }
    }
}

/// What undoing one change needs: when it was seen, its kind, and the old value of each of
/// the fields the reports read that it changed (`None`: unchanged). Small, so a million of
/// them fit in memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undo {
    pub at: i64,
    pub kind: ChangeKind,
    pub status: Option<String>,
    pub value: Option<Decimal>,
    pub currency: Option<String>,
}

impl Undo {
    /// From a change as stored: `fields` the JSON array of `[path, old, new]` (only the
    /// status, value and currency are read; a text that is not such an array changes none).
    pub fn of(
        at: i64,
        kind: ChangeKind,
        fields: Option<&str>,
        default_currency: Option<&str>,
    ) -> Undo {
        let mut u = Undo {
            at,
            kind,
            status: None,
            value: None,
            currency: None,
        };
        let triples: Vec<(&RawValue, &RawValue, &RawValue)> = fields
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or_default();
        for (path, old, _) in triples {
            let old = old.get();
            let text = || serde_json::from_str::<String>(old).ok();
            match path.get() {
                "\"status\"" => u.status = Some(status_word(text().as_deref())),
                "\"value\"" => u.value = Some(amount_text(old)),
                "\"currency\"" => {
                    u.currency = Some(currency_word(text().as_deref(), default_currency))
                }
                _ => {}
            }
        }
        u
    }

    /// `state` with the changed fields set back to their old values.
    fn undo(&self, state: &DealState) -> DealState {
        DealState {
            status: self.status.clone().unwrap_or_else(|| state.status.clone()),
            value: self.value.unwrap_or(state.value),
            currency: self
                .currency
                .clone()
                .unwrap_or_else(|| state.currency.clone()),
        }
    }
}

/// A deal's history from its state now and its changes (oldest first): each change undone,
/// newest first.
pub fn rebuild(now: Stored, changes: &[Undo]) -> DealHistory {
    // The fields as they were after the change being undone, and whether it existed then.
    let mut fields = now.state.clone();
    let mut there = !now.gone;
    let mut events = Vec::with_capacity(changes.len());
    for c in changes.iter().rev() {
        events.push(Event {
            at: c.at,
            state: there.then(|| fields.clone()),
        });
        match c.kind {
            ChangeKind::Created => there = false,
            ChangeKind::Gone => there = true,
            ChangeKind::Back => {
                fields = c.undo(&fields);
                there = false;
            }
            ChangeKind::Updated => fields = c.undo(&fields),
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
        let mut stored: Vec<Stored> = Vec::new();
        let mut slot: HashMap<String, usize> = HashMap::new();
        m.each_deal_stored(|d| {
            slot.insert(d.id.clone(), stored.len());
            stored.push(Stored::of(d, default_currency));
        })?;
        let mut undos: Vec<Vec<Undo>> = vec![Vec::new(); stored.len()];
        let mut oldest = None::<i64>;
        m.each_deal_change(|at, id, kind, fields| {
            oldest = Some(oldest.map_or(at, |o| o.min(at)));
            if let Some(i) = slot.get(id) {
                undos[*i].push(Undo::of(at, kind, fields, default_currency));
            }
        })?;
        // In id order, as the deals were read.
        let deals = stored
            .into_iter()
            .zip(undos)
            .map(|(s, u)| rebuild(s, &u))
            .collect();
        let oldest_kept = keep_days.map(|d| now - i64::from(d) * super::DAY);
        // A second before the first sync's end: the feed stores whole seconds, and a change a
        // later sync saw in that same second is still after the baseline.
        let first = match (m.deal_feed_from()?, oldest) {
            (Some(a), Some(b)) => a.min(b),
            (a, b) => a.or(b).unwrap_or(now + 1),
        } - 1;
        let from = first.max(oldest_kept.unwrap_or(i64::MIN));
        Ok(History { from, now, deals })
    })?
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn change(at: i64, kind: ChangeKind, fields: Vec<(&str, Value, Value)>) -> Undo {
        let text = (!fields.is_empty()).then(|| {
            let triples: Vec<(&str, Value, Value)> = fields;
            serde_json::to_string(&triples).unwrap()
        });
        Undo::of(at, kind, text.as_deref(), None)
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
        let h = rebuild(now, &changes);
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
