//! The waterfall of a period: per currency, the open value at its start, what entered the
//! open pipeline (`created`), grew (`increased`), shrank (`decreased`), was won, lost or went
//! away (`gone`), and the open value at its end. Every change of an open value is put in
//! exactly one term, so `start + created + increased - decreased - won - lost - gone == end`
//! holds exactly.
//!
//! A change from state A to state B (B's value and currency, after the change):
//! - A not open (not there, won or lost), B open: `created` += B (new, back, or reopened);
//! - A open, B not there: `gone` += A;
//! - A open, B there: the value moves first (same currency: B − A into `increased` or
//!   `decreased`; another currency: A into `decreased` of A's, B into `increased` of B's),
//!   then B won: `won` += B, B lost: `lost` += B.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::Serialize;

use super::{DealState, History, Stage};

/// The terms, in the order they are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Term {
    Created,
    Increased,
    Decreased,
    Won,
    Lost,
    Gone,
}

impl Term {
    pub const ALL: [Term; 6] = [
        Term::Created,
        Term::Increased,
        Term::Decreased,
        Term::Won,
        Term::Lost,
        Term::Gone,
    ];

    pub fn word(self) -> &'static str {
        match self {
            Term::Created => "created",
            Term::Increased => "increased",
            Term::Decreased => "decreased",
            Term::Won => "won",
            Term::Lost => "lost",
            Term::Gone => "gone",
        }
    }
}

/// One deal behind a term: its id, name and the amount it put into the term.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TermDeal {
    pub id: String,
    pub name: String,
    pub amount: Decimal,
}

/// The waterfall of one currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Waterfall {
    pub currency: String,
    pub start: Decimal,
    pub created: Decimal,
    pub increased: Decimal,
    pub decreased: Decimal,
    pub won: Decimal,
    pub lost: Decimal,
    pub gone: Decimal,
    pub end: Decimal,
    /// Per term, the deals behind it (in id order; a deal once per term, its amounts summed).
    pub deals: BTreeMap<Term, Vec<TermDeal>>,
}

impl Waterfall {
    pub fn term(&self, t: Term) -> Decimal {
        match t {
            Term::Created => self.created,
            Term::Increased => self.increased,
            Term::Decreased => self.decreased,
            Term::Won => self.won,
            Term::Lost => self.lost,
            Term::Gone => self.gone,
        }
    }

    fn term_mut(&mut self, t: Term) -> &mut Decimal {
        match t {
            Term::Created => &mut self.created,
            Term::Increased => &mut self.increased,
            Term::Decreased => &mut self.decreased,
            Term::Won => &mut self.won,
            Term::Lost => &mut self.lost,
            Term::Gone => &mut self.gone,
        }
    }

    /// `start + created + increased - decreased - won - lost - gone`.
    pub fn computed_end(&self) -> Decimal {
        self.start + self.created + self.increased
            - self.decreased
            - self.won
            - self.lost
            - self.gone
    }
}

fn entry<'a>(per: &'a mut BTreeMap<String, Waterfall>, c: &str) -> &'a mut Waterfall {
    per.entry(c.to_string()).or_insert_with(|| Waterfall {
        currency: c.to_string(),
        ..Waterfall::default()
    })
}

/// What one change puts into the terms: (term, currency, amount), amounts never negative.
pub fn moves(a: Option<&DealState>, b: Option<&DealState>) -> Vec<(Term, String, Decimal)> {
    let mut out = Vec::new();
    let open_a = a.filter(|s| s.is_open());
    match (open_a, b) {
        (None, Some(b)) if b.is_open() => out.push((Term::Created, b.currency.clone(), b.value)),
        (None, _) => {}
        (Some(a), None) => out.push((Term::Gone, a.currency.clone(), a.value)),
        (Some(a), Some(b)) => {
            if a.currency == b.currency {
                let d = b.value - a.value;
                if d > Decimal::ZERO {
                    out.push((Term::Increased, b.currency.clone(), d));
                } else if d < Decimal::ZERO {
                    out.push((Term::Decreased, b.currency.clone(), -d));
                }
            } else {
                out.push((Term::Decreased, a.currency.clone(), a.value));
                out.push((Term::Increased, b.currency.clone(), b.value));
            }
            match b.stage() {
                Stage::Won => out.push((Term::Won, b.currency.clone(), b.value)),
                Stage::Lost => out.push((Term::Lost, b.currency.clone(), b.value)),
                Stage::Open => {}
            }
        }
    }
    // A negative value moves the other way: it stays exact, and the identity still holds.
    out
}

/// The waterfall of `(from, to]`, one per currency (sorted by currency); with `with_deals`,
/// the deals behind each term.
pub fn waterfall(h: &History, from: i64, to: i64, with_deals: bool) -> Vec<Waterfall> {
    let mut per: BTreeMap<String, Waterfall> = BTreeMap::new();
    let mut behind: BTreeMap<(String, Term, String), TermDeal> = BTreeMap::new();
    for d in &h.deals {
        if let Some(s) = d.state_at(from).filter(|s| s.is_open()) {
            entry(&mut per, &s.currency).start += s.value;
        }
        if let Some(s) = d.state_at(to).filter(|s| s.is_open()) {
            entry(&mut per, &s.currency).end += s.value;
        }
        let mut before = d.state_at(from);
        for e in d.events.iter().filter(|e| e.at > from && e.at <= to) {
            for (term, cur, amount) in moves(before, e.state.as_ref()) {
                *entry(&mut per, &cur).term_mut(term) += amount;
                if with_deals {
                    behind
                        .entry((cur, term, d.id.clone()))
                        .or_insert_with(|| TermDeal {
                            id: d.id.clone(),
                            name: d.label.clone(),
                            amount: Decimal::ZERO,
                        })
                        .amount += amount;
                }
            }
            before = e.state.as_ref();
        }
    }
    for ((cur, term, _), td) in behind {
        entry(&mut per, &cur)
            .deals
            .entry(term)
            .or_default()
            .push(td);
    }
    per.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::super::{DealHistory, Event};
    use super::*;

    fn st(status: &str, value: i64, cur: &str) -> Option<DealState> {
        Some(DealState {
            status: status.into(),
            value: Decimal::from(value),
            currency: cur.into(),
        })
    }

    fn deal(
        id: &str,
        initial: Option<DealState>,
        events: Vec<(i64, Option<DealState>)>,
    ) -> DealHistory {
        DealHistory {
            id: id.into(),
            label: id.to_uppercase(),
            initial,
            events: events
                .into_iter()
                .map(|(at, state)| Event { at, state })
                .collect(),
            updated_at: None,
        }
    }

    #[test]
    fn each_term_of_a_small_history() {
        let h = History {
            from: 0,
            now: 100,
            deals: vec![
                deal(
                    "a",
                    st("open", 100, "EUR"),
                    vec![(20, st("open", 150, "EUR")), (30, st("won", 140, "EUR"))],
                ),
                deal("b", None, vec![(40, st("open", 70, "EUR"))]),
                deal("c", st("open", 30, "EUR"), vec![(50, None)]),
                deal(
                    "d",
                    st("open", 10, "USD"),
                    vec![(60, st("lost", 10, "USD"))],
                ),
                deal(
                    "e",
                    st("on_hold", 5, "EUR"),
                    vec![(5, st("open", 6, "EUR"))],
                ),
            ],
        };
        let w = waterfall(&h, 10, 100, true);
        assert_eq!(w.len(), 2);
        let eur = &w[0];
        assert_eq!(eur.currency, "EUR");
        let got: Vec<String> = [
            eur.start,
            eur.created,
            eur.increased,
            eur.decreased,
            eur.won,
            eur.lost,
            eur.gone,
            eur.end,
        ]
        .iter()
        .map(|d| d.to_string())
        .collect();
        assert_eq!(got, ["136", "70", "50", "10", "140", "0", "30", "76"]);
        assert_eq!(eur.computed_end(), eur.end);
        assert_eq!(eur.deals[&Term::Won][0].id, "a");
        assert_eq!(eur.deals[&Term::Gone][0].amount, Decimal::from(30));
        let usd = &w[1];
        assert_eq!(
            (usd.start, usd.lost, usd.end),
            (Decimal::from(10), Decimal::from(10), Decimal::ZERO)
        );
    }

    #[test]
    fn a_currency_change_leaves_one_and_enters_the_other() {
        let m = moves(
            st("open", 10, "EUR").as_ref(),
            st("open", 12, "USD").as_ref(),
        );
        assert_eq!(
            m,
            vec![
                (Term::Decreased, "EUR".to_string(), Decimal::from(10)),
                (Term::Increased, "USD".to_string(), Decimal::from(12)),
            ]
        );
        assert!(moves(st("won", 1, "EUR").as_ref(), st("lost", 1, "EUR").as_ref()).is_empty());
        assert_eq!(
            moves(st("lost", 1, "EUR").as_ref(), st("open", 2, "EUR").as_ref())[0].0,
            Term::Created
        );
    }
}
