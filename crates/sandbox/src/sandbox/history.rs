//! A plausible past for the deals, for `--demo` only: what moved in the months before the
//! demo's first sync, made up (seeded, so every demo shows the same) so that each deal ends
//! exactly in the state the sandbox holds now. Deals were won and lost (after a while open or
//! on hold), grew and shrank, moved between open and on hold. Nothing on the sandbox changes:
//! the demo writes these into its mirror's change feed, labelled as demo data, so the reports
//! over time have months to show.

use chrono::{DateTime, Duration, Utc};
use serde_json::{Value, json};

use super::churn::ChangedField;
use super::rng::SeedRng;
use super::state::Shared;

/// Stream id of the history's random numbers (distinct from the seed data's and the churn's).
const RNG_KIND: u64 = 0xC5_0000;
/// Out of 100 deals, how many moved in the period.
const ACTIVE_PERCENT: u64 = 60;

/// One past change of a deal: when, and its fields' values before and after.
#[derive(Debug, Clone, PartialEq)]
pub struct PastChange {
    pub at: DateTime<Utc>,
    pub id: String,
    pub fields: Vec<ChangedField>,
}

/// A deal's value as cents, from the text or number the sandbox holds (`None` when it is
/// neither).
fn cents(v: &Value) -> Option<i64> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
    let frac = format!("{frac:0<2}");
    format!("{int}{}", &frac[..2]).parse().ok()
}

fn money(c: i64) -> Value {
    let sign = if c < 0 { "-" } else { "" };
    json!(format!("{sign}{}.{:02}", c.abs() / 100, c.abs() % 100))
}

fn field(name: &'static str, old: Value, new: Value) -> ChangedField {
    ChangedField {
        field: name,
        old,
        new,
    }
}

/// One deal's past, oldest first, ending in `status` and `value` (in cents): `None` for a
/// deal that did not move.
fn past_of(
    rng: &mut SeedRng,
    status: &str,
    value: i64,
    start: DateTime<Utc>,
    days: i64,
) -> Vec<(DateTime<Utc>, Vec<ChangedField>)> {
    if !rng.chance(ACTIVE_PERCENT) {
        return Vec::new();
    }
    // Three moments in order inside the period: a value change, a status move, the close.
    let mut at: Vec<i64> = (0..3).map(|_| rng.range(3600, days * 86_400)).collect();
    at.sort_unstable();
    let when = |s: i64| start + Duration::seconds(s);
    let mut out = Vec::new();
    // Grown or shrunk by 5 to 40 %, before the last change.
    let pct = rng.range(5, 41);
    let earlier = if rng.chance(55) {
        value - value * pct / 100
    } else {
        value + value * pct / 100
    };
    let closed = matches!(status, "won" | "lost");
    let before_close = if rng.chance(25) { "on_hold" } else { "open" };
    match (closed, rng.below(3)) {
        (true, 0) => out.push((
            when(at[2]),
            vec![
                field("status", json!(before_close), json!(status)),
                field("value", money(earlier), money(value)),
            ],
        )),
        (true, _) => {
            if before_close == "on_hold" {
                out.push((
                    when(at[0]),
                    vec![field("status", json!("open"), json!("on_hold"))],
                ));
            }
            out.push((
                when(at[1]),
                vec![field("value", money(earlier), money(value))],
            ));
            out.push((
                when(at[2]),
                vec![field("status", json!(before_close), json!(status))],
            ));
        }
        (false, 0) => {
            let other = if status == "on_hold" {
                "open"
            } else {
                "on_hold"
            };
            out.push((
                when(at[1]),
                vec![field("status", json!(other), json!(status))],
            ));
        }
        (false, _) => out.push((
            when(at[2]),
            vec![field("value", money(earlier), money(value))],
        )),
    }
    out
}

impl Shared {
    /// The deals' made-up past over the `days` days before `end`, oldest first (see the
    /// module's comment). Deals whose value is not an amount keep it.
    pub fn deal_history(&self, days: i64, end: DateTime<Utc>) -> Vec<PastChange> {
        let start = end - Duration::days(days);
        let store = self.store();
        let mut out = Vec::new();
        for (i, row) in store.deals.rows.iter().enumerate() {
            let json = row.json();
            let status = json.get("status").and_then(Value::as_str).unwrap_or("open");
            let Some(value) = json.get("value").and_then(cents) else {
                continue;
            };
            let mut rng = SeedRng::for_record(self.settings.seed, RNG_KIND, i as u64);
            for (at, fields) in past_of(&mut rng, status, value, start, days) {
                out.push(PastChange {
                    at,
                    id: row.id().to_string(),
                    fields,
                });
            }
        }
        out.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_deal_ends_where_the_sandbox_holds_it() {
        let end = DateTime::parse_from_rfc3339("2026-11-29T00:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        for seed in 0..50u64 {
            let mut rng = SeedRng::for_record(seed, RNG_KIND, 0);
            for (status, value) in [
                ("won", 100_000),
                ("lost", 550),
                ("open", 7_700),
                ("on_hold", 1),
            ] {
                let past = past_of(&mut rng, status, value, end - Duration::days(120), 120);
                let mut last_status = None;
                let mut last_value = None;
                let mut prev = None;
                for (at, fields) in &past {
                    assert!(prev.is_none_or(|p| p <= *at) && *at < end);
                    prev = Some(*at);
                    for f in fields {
                        match f.field {
                            "status" => last_status = Some(f.new.clone()),
                            _ => last_value = Some(f.new.clone()),
                        }
                    }
                }
                assert!(last_status.is_none_or(|s| s == json!(status)));
                assert!(last_value.is_none_or(|v| cents(&v) == Some(value)));
            }
        }
        assert_eq!(cents(&json!("12.5")), Some(1250));
        assert_eq!(cents(&json!(7)), Some(700));
    }
}
