//! Time in status: for each deal, the time it spent in each status since crmdash first saw it
//! (a lower bound: before the history starts, and between two syncs, nothing is known); per
//! status the median and the 90th percentile of those times over the deals that were in it;
//! and the open deals longest in their current status.

use std::collections::BTreeMap;

use rust_decimal::Decimal;

use super::{History, days};

/// One status's figures (times in days, one decimal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusTime {
    pub status: String,
    /// Deals seen in it.
    pub deals: u64,
    pub median_days: Decimal,
    pub p90_days: Decimal,
}

/// An open deal and how long it has been in its status (at least).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Longest {
    pub id: String,
    pub name: String,
    pub status: String,
    pub value: Decimal,
    pub currency: String,
    /// Since when it is in its status (the history's start when it was already in it).
    pub since: i64,
    pub days: Decimal,
}

/// The report.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TimeInStatus {
    /// Statuses by name.
    pub statuses: Vec<StatusTime>,
    /// The open deals longest in their status, longest first (ties by id), at most `top`.
    pub longest: Vec<Longest>,
}

/// The nearest-rank percentile `p` (1..=100) of sorted `v`: the smallest value with at least
/// p % of the values at or below it.
pub fn percentile(sorted: &[i64], p: u32) -> i64 {
    if sorted.is_empty() {
        return 0;
    }
    let n = sorted.len() as u64;
    let rank = (u64::from(p) * n).div_ceil(100).max(1);
    sorted[(rank - 1) as usize]
}

/// Per deal, seconds in each status from the history's start to `h.now`.
pub fn per_deal(h: &History) -> Vec<BTreeMap<&str, i64>> {
    h.deals
        .iter()
        .map(|d| {
            let mut m: BTreeMap<&str, i64> = BTreeMap::new();
            for (a, b, s) in d.spans(h.from, h.now) {
                if let Some(s) = s {
                    *m.entry(s.status.as_str()).or_default() += b - a;
                }
            }
            m
        })
        .collect()
}

/// When the deal entered its current state's status (the history's start at the latest).
fn in_status_since(d: &super::DealHistory, from: i64) -> i64 {
    let mut since = from;
    let mut prev = d.initial.as_ref();
    for e in &d.events {
        let changed = match (prev, e.state.as_ref()) {
            (Some(p), Some(n)) => p.status != n.status,
            (None, None) => false,
            _ => true,
        };
        if changed {
            since = e.at.max(from);
        }
        prev = e.state.as_ref();
    }
    since
}

pub fn time_in_status(h: &History, top: usize) -> TimeInStatus {
    let mut times: BTreeMap<String, Vec<i64>> = BTreeMap::new();
    for m in per_deal(h) {
        for (status, secs) in m {
            times.entry(status.to_string()).or_default().push(secs);
        }
    }
    let statuses = times
        .into_iter()
        .map(|(status, mut v)| {
            v.sort_unstable();
            StatusTime {
                status,
                deals: v.len() as u64,
                median_days: days(percentile(&v, 50)),
                p90_days: days(percentile(&v, 90)),
            }
        })
        .collect();
    let mut longest: Vec<Longest> = h
        .deals
        .iter()
        .filter_map(|d| {
            let cur = d.current().filter(|s| s.is_open())?;
            let since = in_status_since(d, h.from);
            Some(Longest {
                id: d.id.clone(),
                name: d.label.clone(),
                status: cur.status.clone(),
                value: cur.value,
                currency: cur.currency.clone(),
                since,
                days: days(h.now - since),
            })
        })
        .collect();
    longest.sort_by(|a, b| a.since.cmp(&b.since).then_with(|| a.id.cmp(&b.id)));
    longest.truncate(top);
    TimeInStatus { statuses, longest }
}

#[cfg(test)]
mod tests {
    use super::super::{DAY, DealHistory, DealState, Event};
    use super::*;

    fn st(status: &str) -> Option<DealState> {
        Some(DealState {
            status: status.into(),
            value: Decimal::ONE,
            currency: "EUR".into(),
        })
    }

    #[test]
    fn nearest_rank_percentiles() {
        let v = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
        assert_eq!(percentile(&v, 50), 5);
        assert_eq!(percentile(&v, 90), 9);
        assert_eq!(percentile(&[7], 90), 7);
        assert_eq!(percentile(&[], 50), 0);
    }

    #[test]
    fn time_is_counted_from_the_history_start_and_longest_first() {
        let h = History {
            from: 0,
            now: 10 * DAY,
            deals: vec![
                DealHistory {
                    id: "a".into(),
                    label: "A".into(),
                    initial: st("open"),
                    events: vec![Event {
                        at: 4 * DAY,
                        state: st("won"),
                    }],
                    updated_at: None,
                },
                DealHistory {
                    id: "b".into(),
                    label: "B".into(),
                    initial: None,
                    events: vec![Event {
                        at: 2 * DAY,
                        state: st("open"),
                    }],
                    updated_at: None,
                },
            ],
        };
        let r = time_in_status(&h, 10);
        assert_eq!(r.statuses.len(), 2);
        assert_eq!(r.statuses[0].status, "open");
        assert_eq!(r.statuses[0].deals, 2);
        assert_eq!(r.statuses[0].median_days.to_string(), "4.0");
        assert_eq!(r.statuses[0].p90_days.to_string(), "8.0");
        assert_eq!(r.statuses[1].median_days.to_string(), "6.0");
        assert_eq!(r.longest.len(), 1);
        assert_eq!(
            (r.longest[0].id.as_str(), r.longest[0].since),
            ("b", 2 * DAY)
        );
    }
}
