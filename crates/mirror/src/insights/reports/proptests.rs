//! The reports on random histories, each compared with a plain computation written here
//! independently (states sampled hour by hour, closes counted pair by pair), and the
//! waterfall's identity checked exactly.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use rust_decimal::Decimal;

use super::{DealHistory, DealState, Event, History};

const HOUR: i64 = 3600;
/// The histories span this many hours.
const HOURS: i64 = 24 * 75;
const STATUSES: [&str; 5] = ["open", "on_hold", "won", "lost", "cancelled"];
const CURRENCIES: [&str; 3] = ["EUR", "USD", "(none)"];

fn state() -> impl Strategy<Value = Option<DealState>> {
    prop::option::weighted(
        0.85,
        (0..STATUSES.len(), 0..CURRENCIES.len(), -500i64..5_000_000).prop_map(|(s, c, v)| {
            DealState {
                status: STATUSES[s].to_string(),
                value: Decimal::new(v, 2),
                currency: CURRENCIES[c].to_string(),
            }
        }),
    )
}

fn deal(i: usize) -> impl Strategy<Value = DealHistory> {
    (
        state(),
        prop::collection::vec((0..HOURS, state()), 0..8),
        prop::option::of(0..HOURS),
    )
        .prop_map(move |(initial, mut evs, updated)| {
            evs.sort_by_key(|(h, _)| *h);
            DealHistory {
                id: format!("deal_{i:03}"),
                label: format!("Deal {i}"),
                initial,
                events: evs
                    .into_iter()
                    .map(|(h, state)| Event {
                        at: h * HOUR,
                        state,
                    })
                    .collect(),
                updated_at: updated.map(|h| h * HOUR),
            }
        })
}

fn history() -> impl Strategy<Value = History> {
    (1usize..25).prop_flat_map(|n| {
        let deals: Vec<_> = (0..n).map(deal).collect();
        deals.prop_map(|deals| History {
            from: 0,
            now: HOURS * HOUR,
            deals,
        })
    })
}

/// The state at `t`, by reading every change in turn.
fn naive_state(d: &DealHistory, t: i64) -> Option<DealState> {
    let mut s = d.initial.clone();
    for e in &d.events {
        if e.at <= t {
            s = e.state.clone();
        }
    }
    s
}

fn open(s: &Option<DealState>) -> Option<&DealState> {
    s.as_ref()
        .filter(|s| !matches!(s.status.as_str(), "won" | "lost" | "cancelled" | "closed"))
}

/// The waterfall's terms per currency: [start, created, increased, decreased, won, lost,
/// gone, end], open value compared before and after each change.
fn naive_waterfall(h: &History, from: i64, to: i64) -> BTreeMap<String, [Decimal; 8]> {
    let mut out: BTreeMap<String, [Decimal; 8]> = BTreeMap::new();
    let mut add = |c: &str, i: usize, v: Decimal| out.entry(c.to_string()).or_default()[i] += v;
    for d in &h.deals {
        if let Some(s) = open(&naive_state(d, from)) {
            add(&s.currency, 0, s.value);
        }
        if let Some(s) = open(&naive_state(d, to)) {
            add(&s.currency, 7, s.value);
        }
        let mut prev = naive_state(d, from);
        for e in d.events.iter().filter(|e| e.at > from && e.at <= to) {
            let next = e.state.clone();
            match (open(&prev), &next) {
                (Some(a), None) => add(&a.currency, 6, a.value),
                (Some(a), Some(b)) => {
                    if a.currency != b.currency {
                        add(&a.currency, 3, a.value);
                        add(&b.currency, 2, b.value);
                    } else if b.value >= a.value {
                        add(&b.currency, 2, b.value - a.value);
                    } else {
                        add(&b.currency, 3, a.value - b.value);
                    }
                    match b.status.as_str() {
                        "won" => add(&b.currency, 4, b.value),
                        "lost" | "cancelled" | "closed" => add(&b.currency, 5, b.value),
                        _ => {}
                    }
                }
                (None, n) => {
                    if let Some(b) = open(n) {
                        add(&b.currency, 1, b.value);
                    }
                }
            }
            prev = next;
        }
    }
    out
}

fn nearest_rank(v: &mut [i64], p: usize) -> i64 {
    v.sort_unstable();
    let mut k = 0;
    while k < v.len() && (k + 1) * 100 < p * v.len() {
        k += 1;
    }
    v[k]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn waterfall_terms_add_up_and_match_a_plain_count(
        h in history(),
        a in 0..HOURS,
        len in 0..HOURS,
    ) {
        let (from, to) = (a * HOUR, (a + len).min(HOURS) * HOUR);
        let got = super::waterfall::waterfall(&h, from, to, true);
        let naive = naive_waterfall(&h, from, to);
        let currencies: BTreeSet<&str> = got.iter().map(|w| w.currency.as_str()).collect();
        prop_assert_eq!(currencies, naive.keys().map(String::as_str).collect::<BTreeSet<_>>());
        for w in &got {
            prop_assert_eq!(
                w.start + w.created + w.increased - w.decreased - w.won - w.lost - w.gone,
                w.end
            );
            let n = naive[&w.currency];
            prop_assert_eq!(
                [w.start, w.created, w.increased, w.decreased, w.won, w.lost, w.gone, w.end],
                n
            );
            for t in super::waterfall::Term::ALL {
                let listed: Decimal = w.deals.get(&t).map_or(Decimal::ZERO, |v| {
                    v.iter().map(|d| d.amount).sum()
                });
                prop_assert_eq!(listed, w.term(t));
            }
        }
    }

    #[test]
    fn time_in_status_matches_hour_by_hour_sampling(h in history()) {
        let got = super::time_in_status::time_in_status(&h, 5);
        let mut per: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for d in &h.deals {
            let mut mine: BTreeMap<String, i64> = BTreeMap::new();
            for hour in 0..HOURS {
                if let Some(s) = naive_state(d, hour * HOUR) {
                    *mine.entry(s.status).or_default() += HOUR;
                }
            }
            for (s, secs) in mine {
                per.entry(s).or_default().push(secs);
            }
        }
        prop_assert_eq!(got.statuses.len(), per.len());
        for (st, mut v) in per {
            let row = got.statuses.iter().find(|r| r.status == st).expect("status listed");
            prop_assert_eq!(row.deals, v.len() as u64);
            prop_assert_eq!(row.median_days, super::days(nearest_rank(&mut v, 50)));
            prop_assert_eq!(row.p90_days, super::days(nearest_rank(&mut v, 90)));
        }
        // The longest in their status: open now, the earliest entry into the current status.
        let mut longest: Vec<(i64, String)> = Vec::new();
        for d in &h.deals {
            let cur = naive_state(d, HOURS * HOUR);
            let Some(c) = open(&cur) else { continue };
            let mut since = HOURS;
            while since > 0
                && naive_state(d, (since - 1) * HOUR).is_some_and(|s| s.status == c.status)
            {
                since -= 1;
            }
            longest.push((since * HOUR, d.id.clone()));
        }
        longest.sort();
        longest.truncate(5);
        let got_longest: Vec<(i64, String)> =
            got.longest.iter().map(|l| (l.since, l.id.clone())).collect();
        prop_assert_eq!(got_longest, longest);
    }

    #[test]
    fn velocity_matches_closes_counted_pair_by_pair(h in history()) {
        let utc: crate::timeparse::Zone = "UTC".parse().expect("utc");
        let got = super::velocity::velocity(&h, h.from, h.now, utc);
        let mut want: BTreeMap<(String, String), (u64, u64, i64, u64)> = BTreeMap::new();
        let closed = |s: &Option<DealState>| s.as_ref().and_then(|s| match s.status.as_str() {
            "won" => Some(true),
            "lost" | "cancelled" | "closed" => Some(false),
            _ => None,
        });
        for d in &h.deals {
            let mut states = vec![(h.from, d.initial.clone())];
            states.extend(d.events.iter().map(|e| (e.at, e.state.clone())));
            let first_open = states.iter().find(|(_, s)| open(s).is_some()).map(|(t, _)| *t);
            for pair in states.windows(2) {
                let (before, (at, after)) = (closed(&pair[0].1), (&pair[1].0, &pair[1].1));
                let Some(won) = closed(after) else { continue };
                // The period is (from, to]: a close seen at `from` is before it.
                if before == Some(won) || *at <= h.from {
                    continue;
                }
                let t = chrono::DateTime::from_timestamp(*at, 0).expect("time");
                let s = after.as_ref().expect("closed");
                let e = want.entry((t.format("%Y-%m").to_string(), s.currency.clone())).or_default();
                if won {
                    e.0 += 1;
                    if let Some(o) = first_open.filter(|o| o <= at) {
                        e.2 += at - o;
                        e.3 += 1;
                    }
                } else {
                    e.1 += 1;
                }
            }
        }
        let got_map: BTreeMap<(String, String), (u64, u64, i64, u64)> = got
            .iter()
            .map(|r| (
                (r.month.format("%Y-%m").to_string(), r.currency.clone()),
                (r.won, r.lost, r.open_to_won_secs, r.timed_wins),
            ))
            .collect();
        prop_assert_eq!(got_map, want);
    }

    #[test]
    fn forecast_and_stale_match_plain_counts(h in history(), quiet in 0u32..40) {
        let now = h.now;
        let mut seen: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut open_now: BTreeMap<(String, String), (u64, Decimal)> = BTreeMap::new();
        let mut stale: Vec<(String, Decimal, String)> = Vec::new();
        for d in &h.deals {
            let cur = naive_state(d, now);
            if let Some(c) = open(&cur) {
                let e = open_now.entry((c.status.clone(), c.currency.clone())).or_default();
                e.0 += 1;
                e.1 += c.value;
                let last = d.events.iter().map(|e| e.at).chain(d.updated_at).max();
                if let Some(days) = last.map(|l| (now - l) / super::DAY).filter(|q| *q >= i64::from(quiet)) {
                    stale.push((c.currency.clone(), -(c.value * Decimal::from(days)), d.id.clone()));
                }
                continue;
            }
            let Some(won) = cur.as_ref().map(|c| c.status == "won") else { continue };
            let mut statuses: Vec<String> = std::iter::once(&d.initial)
                .chain(d.events.iter().map(|e| &e.state))
                .filter_map(|s| open(s).map(|s| s.status.clone()))
                .collect();
            statuses.sort();
            statuses.dedup();
            for s in statuses {
                let e = seen.entry(s).or_default();
                e.0 += 1;
                e.1 += u64::from(won);
            }
        }
        let got = super::forecast::forecast(&h);
        prop_assert_eq!(got.len(), open_now.len());
        for r in &got {
            let (n, v) = open_now[&(r.status.clone(), r.currency.clone())];
            prop_assert_eq!((r.deals, r.open_value), (n, v));
            let (closed, won) = seen.get(&r.status).copied().unwrap_or_default();
            prop_assert_eq!((r.history.closed, r.history.won), (closed, won));
            let want = (closed >= super::forecast::MIN_CLOSED)
                .then(|| (v * Decimal::from(won) / Decimal::from(closed)).round_dp(2));
            prop_assert_eq!(r.weighted, want);
        }
        stale.sort();
        let got: Vec<(String, String)> = super::stale::stale(&h, quiet)
            .into_iter()
            .map(|s| (s.currency, s.id))
            .collect();
        let want: Vec<(String, String)> = stale.into_iter().map(|(c, _, id)| (c, id)).collect();
        prop_assert_eq!(got, want);
    }
}
