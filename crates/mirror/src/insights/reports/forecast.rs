//! Forecast: the open value weighted by the team's own win rate from each status, learnt from
//! its history only. A status's rate is won / (won + lost) over the deals crmdash saw in that
//! status and that are closed now (won or lost); below [`MIN_CLOSED`] such deals it says
//! "not enough history" and how many it needs, rather than invent a default rate.

use std::collections::{BTreeMap, BTreeSet};

use rust_decimal::Decimal;

use super::{History, Stage, ratio};

/// A status's rate is used from this many closed deals seen in it.
pub const MIN_CLOSED: u64 = 10;

/// What the history says of one status.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StatusRate {
    /// Deals seen in the status that are closed now.
    pub closed: u64,
    /// Of them, won.
    pub won: u64,
}

impl StatusRate {
    /// The rate, when there is enough history.
    pub fn rate(&self) -> Option<Decimal> {
        if self.closed < MIN_CLOSED {
            return None;
        }
        ratio(self.won, self.closed)
    }
}

/// One open status and currency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ForecastRow {
    pub status: String,
    pub currency: String,
    /// Open deals in it now and their value.
    pub deals: u64,
    pub open_value: Decimal,
    pub history: StatusRate,
    /// `open_value × won / closed`, rounded to cents; `None` without enough history.
    pub weighted: Option<Decimal>,
}

impl ForecastRow {
    /// `not enough history (need 10 closed deals from status open, have 3)`, or nothing.
    pub fn note(&self) -> Option<String> {
        self.weighted.is_none().then(|| {
            format!(
                "not enough history (need {MIN_CLOSED} closed deals from status {}, have {})",
                self.status, self.history.closed
            )
        })
    }
}

/// Per status, the closed deals seen in it and how many were won.
pub fn rates(h: &History) -> BTreeMap<String, StatusRate> {
    let mut out: BTreeMap<String, StatusRate> = BTreeMap::new();
    for d in &h.deals {
        let Some(now) = d.current() else { continue };
        let won = match now.stage() {
            Stage::Won => true,
            Stage::Lost => false,
            Stage::Open => continue,
        };
        let seen: BTreeSet<&str> = d
            .initial
            .iter()
            .chain(d.events.iter().filter_map(|e| e.state.as_ref()))
            .filter(|s| s.is_open())
            .map(|s| s.status.as_str())
            .collect();
        for s in seen {
            let r = out.entry(s.to_string()).or_default();
            r.closed += 1;
            r.won += u64::from(won);
        }
    }
    out
}

/// The open deals now, per status and currency (sorted by both), weighted where the history
/// allows.
pub fn forecast(h: &History) -> Vec<ForecastRow> {
    let rates = rates(h);
    let mut rows: BTreeMap<(String, String), ForecastRow> = BTreeMap::new();
    for d in &h.deals {
        let Some(s) = d.current().filter(|s| s.is_open()) else {
            continue;
        };
        let row = rows
            .entry((s.status.clone(), s.currency.clone()))
            .or_insert_with(|| ForecastRow {
                status: s.status.clone(),
                currency: s.currency.clone(),
                deals: 0,
                open_value: Decimal::ZERO,
                history: rates.get(&s.status).cloned().unwrap_or_default(),
                weighted: None,
            });
        row.deals += 1;
        row.open_value += s.value;
    }
    rows.into_values()
        .map(|mut r| {
            r.weighted = (r.history.closed >= MIN_CLOSED).then(|| {
                (r.open_value * Decimal::from(r.history.won) / Decimal::from(r.history.closed))
                    .round_dp(2)
            });
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{DealHistory, DealState, Event};
    use super::*;

    fn st(status: &str, v: i64) -> Option<DealState> {
        Some(DealState {
            status: status.into(),
            value: Decimal::from(v),
            currency: "EUR".into(),
        })
    }

    fn deal(i: usize, initial: Option<DealState>, last: Option<DealState>) -> DealHistory {
        DealHistory {
            id: format!("d{i}"),
            label: String::new(),
            initial,
            events: last
                .map(|s| {
                    vec![Event {
                        at: 10,
                        state: Some(s),
                    }]
                })
                .unwrap_or_default(),
            updated_at: None,
        }
    }

    #[test]
    fn weighted_by_the_status_rate_or_not_enough_history() {
        let mut deals = Vec::new();
        for i in 0..12 {
            let end = if i < 3 { "won" } else { "lost" };
            deals.push(deal(i, st("open", 1), st(end, 1)));
        }
        deals.push(deal(20, st("open", 100), None));
        deals.push(deal(21, st("on_hold", 50), None));
        deals.push(deal(22, st("on_hold", 10), st("won", 10)));
        let h = History {
            from: 0,
            now: 20,
            deals,
        };
        let rows = forecast(&h);
        assert_eq!(rows.len(), 2);
        let hold = &rows[0];
        assert_eq!(hold.status, "on_hold");
        assert_eq!(hold.weighted, None);
        assert_eq!(
            hold.note().unwrap(),
            "not enough history (need 10 closed deals from status on_hold, have 1)"
        );
        let open = &rows[1];
        assert_eq!((open.history.closed, open.history.won), (12, 3));
        assert_eq!(open.weighted, Some(Decimal::from(25)));
        assert_eq!(open.note(), None);
    }
}
