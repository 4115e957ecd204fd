//! The pipeline over time: reports computed from each deal's history as the change feed saw
//! it (`waterfall`, `time_in_status`, `velocity`, `forecast`, `stale`). The arithmetic takes
//! plain data ([`History`]: per deal, its state before the feed's first change of it and after
//! each change), so it is tested without SQLite; `load` builds that history from the mirror in
//! one pass over the deals and one over their changes.
//!
//! Amounts are exact decimals, kept per currency and never summed across currencies. Times are
//! seconds since 1970 (UTC), as the change feed stores them.

use rust_decimal::Decimal;

pub mod forecast;
pub mod load;
#[cfg(test)]
mod proptests;
pub mod stale;
pub mod time_in_status;
pub mod velocity;
pub mod waterfall;

pub use crate::insights::pipeline::{NO_CURRENCY, NO_STATUS};

/// What every report says of itself, where a person reads it.
pub const LIMITS: [&str; 4] = [
    "history starts at the first sync of the deals and goes back at most [cache] history_days",
    "changes between two syncs collapse into one, seen at the second sync",
    "amounts are not converted between currencies",
    "a deal without an exact value counts as 0",
];

/// Seconds in a day.
pub const DAY: i64 = 86_400;

/// A deal's state at one time: its status (lower-cased), value and currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealState {
    pub status: String,
    pub value: Decimal,
    pub currency: String,
}

/// Where a status puts a deal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    Open,
    Won,
    Lost,
}

/// `won` is won; `lost`, `cancelled` and `closed` are lost; any other status is open (as
/// Today reads them).
pub fn stage(status: &str) -> Stage {
    match status {
        "won" => Stage::Won,
        "lost" | "cancelled" | "closed" => Stage::Lost,
        _ => Stage::Open,
    }
}

impl DealState {
    pub fn stage(&self) -> Stage {
        stage(&self.status)
    }

    pub fn is_open(&self) -> bool {
        self.stage() == Stage::Open
    }
}

/// One change of a deal: when the feed saw it, and the state after it (`None`: the deal does
/// not exist, or is gone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub at: i64,
    pub state: Option<DealState>,
}

/// One deal's known history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DealHistory {
    pub id: String,
    pub label: String,
    /// Its state before the feed's first change of it (`None`: it did not exist yet).
    pub initial: Option<DealState>,
    /// Its changes, oldest first.
    pub events: Vec<Event>,
    /// Its `updated_at` as the mirror holds it.
    pub updated_at: Option<i64>,
}

impl DealHistory {
    /// Its state at `t` (after every change seen at or before `t`).
    pub fn state_at(&self, t: i64) -> Option<&DealState> {
        let after = self.events.partition_point(|e| e.at <= t);
        match after {
            0 => self.initial.as_ref(),
            n => self.events[n - 1].state.as_ref(),
        }
    }

    /// Its state now (after its last change).
    pub fn current(&self) -> Option<&DealState> {
        self.events
            .last()
            .map_or(self.initial.as_ref(), |e| e.state.as_ref())
    }

    /// Each stretch of its known life from `from` to `to`: (start, end, state), `None` while it
    /// did not exist.
    pub fn spans(&self, from: i64, to: i64) -> Vec<(i64, i64, Option<&DealState>)> {
        let mut out = Vec::new();
        let mut start = from;
        let mut state = self.initial.as_ref();
        for e in &self.events {
            if e.at > to {
                break;
            }
            if e.at > start {
                out.push((start, e.at, state));
                start = e.at;
            }
            state = e.state.as_ref();
        }
        if to > start {
            out.push((start, to, state));
        }
        out
    }

    /// The last time it changed: the newest of its `updated_at` and its last change in the feed.
    pub fn last_change(&self) -> Option<i64> {
        self.events.last().map(|e| e.at).max(self.updated_at)
    }
}

/// Every deal's history, and from when it is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct History {
    /// The first sync of the deals (or the oldest change kept): nothing before it is known.
    pub from: i64,
    /// When it was read.
    pub now: i64,
    pub deals: Vec<DealHistory>,
}

/// Days (one decimal) in `secs` seconds, exact.
pub fn days(secs: i64) -> Decimal {
    let mut d = (Decimal::from(secs) / Decimal::from(DAY)).round_dp(1);
    d.rescale(1);
    d
}

/// `numerator / denominator` rounded to four places (`None` for 0 / 0).
pub fn ratio(numerator: u64, denominator: u64) -> Option<Decimal> {
    (denominator > 0).then(|| {
        (Decimal::from(numerator) / Decimal::from(denominator))
            .round_dp(4)
            .normalize()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(status: &str, value: i64) -> Option<DealState> {
        Some(DealState {
            status: status.into(),
            value: Decimal::from(value),
            currency: "EUR".into(),
        })
    }

    #[test]
    fn state_at_reads_the_last_change_at_or_before() {
        let h = DealHistory {
            id: "d".into(),
            label: "D".into(),
            initial: None,
            events: vec![
                Event {
                    at: 10,
                    state: st("open", 5),
                },
                Event {
                    at: 20,
                    state: st("won", 5),
                },
            ],
            updated_at: Some(15),
        };
        assert_eq!(h.state_at(9), None);
        assert_eq!(h.state_at(10), st("open", 5).as_ref());
        assert_eq!(h.state_at(25), st("won", 5).as_ref());
        assert_eq!(h.current(), st("won", 5).as_ref());
        assert_eq!(h.last_change(), Some(20));
        let spans: Vec<(i64, i64, bool)> = h
            .spans(0, 30)
            .into_iter()
            .map(|(a, b, s)| (a, b, s.is_some()))
            .collect();
        assert_eq!(spans, [(0, 10, false), (10, 20, true), (20, 30, true)]);
        assert_eq!(stage("cancelled"), Stage::Lost);
        assert_eq!(stage("on_hold"), Stage::Open);
        assert_eq!(days(DAY * 3 / 2).to_string(), "1.5");
        assert_eq!(ratio(2, 3).map(|r| r.to_string()), Some("0.6667".into()));
    }
}
