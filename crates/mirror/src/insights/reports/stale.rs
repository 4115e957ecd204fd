//! Stale deals: the open deals not updated for `days` days (their last change is the newest of
//! their `updated_at` and the feed's last change of them), ranked within their currency by
//! value × days quiet (as Today ranks quiet deals), then by id.

use rust_decimal::Decimal;

use super::{DAY, History};

/// Days without an update after which an open deal is stale, unless asked otherwise.
pub const DEFAULT_DAYS: u32 = 21;

/// One stale deal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaleDeal {
    pub currency: String,
    /// Its place in its currency, from 1.
    pub rank: u64,
    pub id: String,
    pub name: String,
    pub status: String,
    pub value: Decimal,
    /// Its last change (seconds since 1970).
    pub last_change: i64,
    /// Whole days since.
    pub days: i64,
}

/// The open deals quiet for at least `days` days at `h.now`, by currency, then rank. A deal
/// with no known time at all is left out (nothing says how long it has been quiet).
pub fn stale(h: &History, days: u32) -> Vec<StaleDeal> {
    let mut out: Vec<(Decimal, StaleDeal)> = h
        .deals
        .iter()
        .filter_map(|d| {
            let s = d.current().filter(|s| s.is_open())?;
            let last = d.last_change()?;
            let quiet = (h.now - last).div_euclid(DAY);
            (quiet >= i64::from(days)).then(|| {
                (
                    s.value * Decimal::from(quiet),
                    StaleDeal {
                        currency: s.currency.clone(),
                        rank: 0,
                        id: d.id.clone(),
                        name: d.label.clone(),
                        status: s.status.clone(),
                        value: s.value,
                        last_change: last,
                        days: quiet,
                    },
                )
            })
        })
        .collect();
    out.sort_by(|(sa, a), (sb, b)| {
        a.currency
            .cmp(&b.currency)
            .then_with(|| sb.cmp(sa))
            .then_with(|| a.id.cmp(&b.id))
    });
    let mut rank = 0;
    let mut currency = None::<String>;
    out.into_iter()
        .map(|(_, mut d)| {
            if currency.as_deref() != Some(d.currency.as_str()) {
                currency = Some(d.currency.clone());
                rank = 0;
            }
            rank += 1;
            d.rank = rank;
            d
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::{DealHistory, DealState, Event};
    use super::*;

    fn deal(
        id: &str,
        status: &str,
        v: i64,
        cur: &str,
        updated: i64,
        fed: Option<i64>,
    ) -> DealHistory {
        let s = DealState {
            status: status.into(),
            value: Decimal::from(v),
            currency: cur.into(),
        };
        DealHistory {
            id: id.into(),
            label: id.into(),
            initial: Some(s.clone()),
            events: fed
                .map(|at| vec![Event { at, state: Some(s) }])
                .unwrap_or_default(),
            updated_at: Some(updated),
        }
    }

    #[test]
    fn open_and_quiet_ranked_within_currency() {
        let now = 100 * DAY;
        let h = History {
            from: 0,
            now,
            deals: vec![
                deal("a", "open", 10, "EUR", 50 * DAY, None),
                deal("b", "open", 100, "EUR", 70 * DAY, None),
                deal("c", "open", 100, "EUR", 10 * DAY, Some(90 * DAY)),
                deal("d", "won", 100, "EUR", 10 * DAY, None),
                deal("e", "on_hold", 1, "USD", 10 * DAY, None),
            ],
        };
        let got: Vec<(String, u64, String, i64)> = stale(&h, 21)
            .into_iter()
            .map(|d| (d.currency, d.rank, d.id, d.days))
            .collect();
        assert_eq!(
            got,
            [
                ("EUR".to_string(), 1, "b".to_string(), 30),
                ("EUR".to_string(), 2, "a".to_string(), 50),
                ("USD".to_string(), 1, "e".to_string(), 90),
            ]
        );
    }
}
