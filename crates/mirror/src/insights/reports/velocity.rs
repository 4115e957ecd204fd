//! Velocity: by month (in the display zone) and currency, the deals won and lost in it (a
//! deal counts when the feed saw its status become won, or lost, from any other), the win
//! rate won / (won + lost), and the average days from when crmdash first saw the deal open to
//! when it saw it won (a lower bound for deals open before the history starts).

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate};
use rust_decimal::Decimal;

use super::{DAY, DealHistory, History, Stage, ratio};
use crate::timeparse::Zone;

/// One month and currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MonthRow {
    /// The first day of the month.
    pub month: NaiveDate,
    pub currency: String,
    pub won: u64,
    pub won_value: Decimal,
    pub lost: u64,
    pub lost_value: Decimal,
    /// Seconds from first seen open to won, summed over the wins that were seen open.
    pub open_to_won_secs: i64,
    /// Wins that were seen open first.
    pub timed_wins: u64,
}

impl MonthRow {
    /// won / (won + lost), four places; `None` without a close.
    pub fn win_rate(&self) -> Option<Decimal> {
        ratio(self.won, self.won + self.lost)
    }

    /// Average days from first seen open to won (one decimal); `None` without a timed win.
    pub fn avg_days_to_win(&self) -> Option<Decimal> {
        (self.timed_wins > 0).then(|| {
            let mut d = (Decimal::from(self.open_to_won_secs)
                / Decimal::from(DAY)
                / Decimal::from(self.timed_wins))
            .round_dp(1);
            d.rescale(1);
            d
        })
    }
}

/// When crmdash first saw the deal open: the history's start when it was open then, else its
/// first change into an open status.
pub fn first_seen_open(d: &DealHistory, from: i64) -> Option<i64> {
    if d.initial.as_ref().is_some_and(|s| s.is_open()) {
        return Some(from);
    }
    d.events
        .iter()
        .find(|e| e.state.as_ref().is_some_and(|s| s.is_open()))
        .map(|e| e.at)
}

/// The first of the month `at` falls in, in `zone`.
pub fn month_of(at: i64, zone: Zone) -> NaiveDate {
    let t = DateTime::from_timestamp(at, 0).unwrap_or_default();
    let d = zone.from_utc(t).date_naive();
    d - chrono::Duration::days(i64::from(chrono::Datelike::day0(&d)))
}

/// The closes seen in `(from, to]`, by month and currency (sorted by both).
pub fn velocity(h: &History, from: i64, to: i64, zone: Zone) -> Vec<MonthRow> {
    let mut rows: BTreeMap<(NaiveDate, String), MonthRow> = BTreeMap::new();
    for d in &h.deals {
        let opened = first_seen_open(d, h.from);
        let mut before = d.initial.as_ref().map(|s| s.stage());
        for e in &d.events {
            let now = e.state.as_ref();
            let stage = now.map(|s| s.stage());
            let closed = matches!(stage, Some(Stage::Won | Stage::Lost)) && stage != before;
            before = stage;
            let Some(s) = now.filter(|_| closed && e.at > from && e.at <= to) else {
                continue;
            };
            let month = month_of(e.at, zone);
            let row = rows
                .entry((month, s.currency.clone()))
                .or_insert_with(|| MonthRow {
                    month,
                    currency: s.currency.clone(),
                    ..MonthRow::default()
                });
            if s.stage() == Stage::Won {
                row.won += 1;
                row.won_value += s.value;
                if let Some(o) = opened.filter(|o| *o <= e.at) {
                    row.open_to_won_secs += e.at - o;
                    row.timed_wins += 1;
                }
            } else {
                row.lost += 1;
                row.lost_value += s.value;
            }
        }
    }
    rows.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::super::{DealState, Event};
    use super::*;

    fn st(status: &str, v: i64) -> Option<DealState> {
        Some(DealState {
            status: status.into(),
            value: Decimal::from(v),
            currency: "EUR".into(),
        })
    }

    #[test]
    fn wins_losses_rate_and_days_by_month() {
        // 2026-11-01T00:00:00Z
        let nov = 1_793_491_200;
        let deal = |id: &str, initial, events: Vec<(i64, Option<DealState>)>| DealHistory {
            id: id.into(),
            label: id.into(),
            initial,
            events: events
                .into_iter()
                .map(|(at, state)| Event { at, state })
                .collect(),
            updated_at: None,
        };
        let h = History {
            from: nov - 10 * DAY,
            now: nov + 20 * DAY,
            deals: vec![
                deal("a", st("open", 5), vec![(nov + DAY, st("won", 7))]),
                deal(
                    "b",
                    None,
                    vec![(nov, st("open", 1)), (nov + 3 * DAY, st("won", 2))],
                ),
                deal("c", st("open", 4), vec![(nov + 2 * DAY, st("lost", 4))]),
                deal("d", st("open", 4), vec![(nov - 2 * DAY, st("lost", 4))]),
            ],
        };
        let utc: Zone = "UTC".parse().unwrap();
        let rows = velocity(&h, h.from, h.now, utc);
        assert_eq!(rows.len(), 2);
        let r = &rows[1];
        assert_eq!(r.month.to_string(), "2026-11-01");
        assert_eq!((r.won, r.lost), (2, 1));
        assert_eq!(r.won_value, Decimal::from(9));
        assert_eq!(r.win_rate().unwrap().to_string(), "0.6667");
        // a: 11 days (open since the history's start), b: 3 days.
        assert_eq!(r.avg_days_to_win().unwrap().to_string(), "7.0");
        assert_eq!(rows[0].win_rate().unwrap().to_string(), "0");
    }
}
