//! Deal totals for the pipeline view and `crmdash deals summary`: count and exact total per
//! status and currency, won and lost per month. Pure: no I/O, no terminal, no floats.
//!
//! Amounts are never summed across currencies (the service sorts raw numbers, it does not
//! convert), and a value that is missing or not an exact decimal is counted apart, never
//! guessed at.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{Datelike, NaiveDate};
use rust_decimal::Decimal;

use crate::api::{Deal, When};
use crate::timeparse::Zone;

pub use crate::output::money::{deal_currency, format_amount, format_money};

/// How the deals are read (a page walk) is its own module; its report comes with the totals.
pub use super::page_walk::{Coverage, PageStep, PageWalk};

/// The label of deals that carry no currency and have no configured default.
pub const NO_CURRENCY: &str = "(none)";
/// The label of deals without a status.
pub const NO_STATUS: &str = "(none)";

/// The statuses a pipeline reads left to right, when the service uses them; any other status
/// follows in alphabetical order.
const STATUS_ORDER: [&str; 4] = ["open", "on_hold", "won", "lost"];

/// Which date puts a won or lost deal into a month.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MonthBy {
    /// The first close-date field a deal carries (`CLOSE_FIELDS`), else its `updated_at`: the
    /// default, since API v1 does not say whether the service sends one.
    Auto,
    /// The record's `updated_at`: when it last changed, usually when it was closed.
    UpdatedAt,
    /// Another field of the record (e.g. `expected_close_date`); a deal without it falls back
    /// to `updated_at`, and the summary counts how many did.
    Field(String),
}

/// Fields a service may send for when a deal closed (or is expected to), in the order `Auto`
/// tries them.
pub const CLOSE_FIELDS: [&str; 4] = [
    "expected_close_date",
    "close_date",
    "closed_at",
    "expected_close",
];

impl MonthBy {
    pub fn parse(s: &str) -> Self {
        match s.trim() {
            "" | "auto" => MonthBy::Auto,
            "updated_at" => MonthBy::UpdatedAt,
            other => MonthBy::Field(other.to_string()),
        }
    }

    pub fn name(&self) -> &str {
        match self {
            MonthBy::Auto => "auto",
            MonthBy::UpdatedAt => "updated_at",
            MonthBy::Field(f) => f,
        }
    }
}

/// How the summary reads deals: the default currency for deals without one, the zone in which
/// an instant falls into a month, the date field for months, and today (the last month shown).
#[derive(Debug, Clone, PartialEq)]
pub struct SummaryOptions {
    pub default_currency: Option<String>,
    pub zone: Zone,
    pub month_by: MonthBy,
    pub today: NaiveDate,
    /// How many months, ending with today's, the won/lost series covers.
    pub months: u32,
}

/// Count and exact total of one group of deals.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bucket {
    pub count: u64,
    /// Sum of the values that are exact decimals.
    pub total: Decimal,
    /// Deals in this group whose value is missing or not an exact decimal (not in `total`).
    pub without_value: u64,
}

impl Bucket {
    fn add(&mut self, value: Option<Decimal>) {
        self.count += 1;
        match value {
            Some(v) => self.total += v,
            None => self.without_value += 1,
        }
    }
}

/// Won and lost in one month and currency.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WonLost {
    pub won: Bucket,
    pub lost: Bucket,
}

/// The whole summary.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PipelineSummary {
    /// Deals read.
    pub deals: u64,
    /// (status, currency) -> bucket, in pipeline order (see `statuses`).
    pub by_status: BTreeMap<(String, String), Bucket>,
    /// Every currency seen, sorted.
    pub currencies: BTreeSet<String>,
    /// (first day of month, currency) -> won and lost, only months inside the window.
    pub by_month: BTreeMap<(NaiveDate, String), WonLost>,
    /// The months of the window, oldest first.
    pub months: Vec<NaiveDate>,
    /// Won or lost deals dated by `updated_at` because the chosen field was missing.
    pub month_fallbacks: u64,
    /// Won or lost deals with no usable date at all (not in `by_month`).
    pub undated: u64,
    /// Won or lost deals by the field that dated them (`updated_at`, `expected_close_date`…).
    pub month_fields: BTreeMap<String, u64>,
}

impl PipelineSummary {
    pub fn new(opts: &SummaryOptions) -> Self {
        PipelineSummary {
            months: month_window(opts.today, opts.months),
            ..Default::default()
        }
    }

    /// Adds one deal.
    pub fn add(&mut self, deal: &Deal, opts: &SummaryOptions) {
        self.deals += 1;
        let status = deal
            .status
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .unwrap_or(NO_STATUS)
            .to_string();
        let currency = currency_of(deal, opts.default_currency.as_deref());
        let value = deal.value.as_ref().and_then(|m| m.decimal());
        self.currencies.insert(currency.clone());
        self.by_status
            .entry((status.clone(), currency.clone()))
            .or_default()
            .add(value);
        let won = status.eq_ignore_ascii_case("won");
        if !won && !status.eq_ignore_ascii_case("lost") {
            return;
        }
        let Some(month) = self.month_of(deal, opts) else {
            self.undated += 1;
            return;
        };
        if self.months.first().is_some_and(|first| month < *first)
            || self.months.last().is_some_and(|last| month > *last)
        {
            return;
        }
        let row = self.by_month.entry((month, currency)).or_default();
        if won {
            row.won.add(value)
        } else {
            row.lost.add(value)
        }
    }

    fn month_of(&mut self, deal: &Deal, opts: &SummaryOptions) -> Option<NaiveDate> {
        let mut dated = |field: &str, d: NaiveDate| {
            *self.month_fields.entry(field.to_string()).or_default() += 1;
            Some(first_of_month(d))
        };
        match &opts.month_by {
            MonthBy::Field(field) => {
                if let Some(d) = field_date(deal, field, opts.zone) {
                    return dated(field, d);
                }
                self.month_fallbacks += 1;
            }
            MonthBy::Auto => {
                for field in CLOSE_FIELDS {
                    if let Some(d) = field_date(deal, field, opts.zone) {
                        return dated(field, d);
                    }
                }
            }
            MonthBy::UpdatedAt => {}
        }
        let when = deal.updated_at.as_ref()?.when()?;
        dated("updated_at", date_in_zone(when, opts.zone))
    }

    /// What dated the won and lost deals: `updated_at`, or `expected_close_date 12,
    /// updated_at 3` when several fields did.
    pub fn month_basis(&self) -> String {
        match self.month_fields.len() {
            0 => "updated_at".to_string(),
            1 => self.month_fields.keys().next().cloned().unwrap_or_default(),
            _ => self
                .month_fields
                .iter()
                .map(|(f, n)| format!("{f} {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        }
    }

    /// The statuses present, in pipeline order.
    pub fn statuses(&self) -> Vec<&str> {
        let present: BTreeSet<&str> = self.by_status.keys().map(|(s, _)| s.as_str()).collect();
        let mut out: Vec<&str> = STATUS_ORDER
            .iter()
            .copied()
            .filter(|s| present.contains(s))
            .collect();
        out.extend(present.iter().filter(|s| !STATUS_ORDER.contains(s)));
        out
    }

    /// One status's buckets, one per currency, in currency order.
    pub fn status_rows<'a>(
        &'a self,
        status: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a Bucket)> {
        self.by_status
            .iter()
            .filter(move |((s, _), _)| s == status)
            .map(|((_, c), b)| (c.as_str(), b))
    }

    /// Rows in display order: (status, currency, bucket).
    pub fn rows(&self) -> Vec<(&str, &str, &Bucket)> {
        self.statuses()
            .into_iter()
            .flat_map(|s| self.status_rows(s).map(move |(c, b)| (s, c, b)))
            .collect()
    }
}

/// The deal's currency: its `currency` field (upper-cased), else the default, else `(none)`.
pub fn currency_of(deal: &Deal, default: Option<&str>) -> String {
    deal_currency(deal, default).unwrap_or_else(|| NO_CURRENCY.to_string())
}

/// A date field of the deal (known or kept in `extra`): a date alone stays that date; an
/// instant is read in `zone`.
fn field_date(deal: &Deal, field: &str, zone: Zone) -> Option<NaiveDate> {
    let ts = match field {
        "updated_at" => deal.updated_at.clone(),
        "created_at" => deal.created_at.clone(),
        _ => deal
            .extra
            .get(field)
            .and_then(|v| v.as_str())
            .map(crate::api::Timestamp::parse),
    }?;
    Some(date_in_zone(ts.when()?, zone))
}

/// The calendar day of `when` in `zone` (a date alone is that date, never shifted).
pub(crate) fn date_in_zone(when: When, zone: Zone) -> NaiveDate {
    match when {
        When::Date(d) => d,
        When::Instant(t) => zone.from_utc(t).date_naive(),
    }
}

fn first_of_month(d: NaiveDate) -> NaiveDate {
    d.with_day(1).expect("day 1 exists in every month")
}

/// `n` first-of-month dates ending with `today`'s month, oldest first.
pub fn month_window(today: NaiveDate, n: u32) -> Vec<NaiveDate> {
    let mut out = Vec::with_capacity(n as usize);
    let mut m = first_of_month(today);
    for _ in 0..n {
        out.push(m);
        m = m
            .checked_sub_months(chrono::Months::new(1))
            .unwrap_or(NaiveDate::MIN);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_walk_stops_at_the_last_page_a_repeat_or_the_cap() {
        let meta = |last| {
            Some(crate::api::Meta {
                last_page: Some(last),
                ..Default::default()
            })
        };
        let mut w = PageWalk::new(2);
        assert_eq!(
            w.page(Some("a"), 100, meta(5)),
            PageStep::Take { more: true }
        );
        assert_eq!(w.next_page(), 2);
        assert_eq!(
            w.page(Some("b"), 100, meta(5)),
            PageStep::Take { more: false }
        );
        assert!(w.coverage.partial);
        let mut w = PageWalk::new(50);
        w.page(Some("a"), 100, None);
        assert_eq!(w.page(Some("a"), 100, None), PageStep::Stop);
        assert_eq!(w.coverage.pages, 1);
        let mut w = PageWalk::new(50);
        assert_eq!(w.page(Some("a"), 7, None), PageStep::Take { more: false });
        assert!(!w.coverage.partial);
        assert_eq!(PageWalk::new(50).page(None, 0, None), PageStep::Stop);
    }
    use crate::api::decode_page;

    fn deals(json: &str) -> Vec<Deal> {
        let page = decode_page::<Deal>(json.as_bytes()).unwrap();
        page.data
    }

    fn opts() -> SummaryOptions {
        SummaryOptions {
            default_currency: None,
            zone: Zone::Named(chrono_tz::UTC),
            month_by: MonthBy::UpdatedAt,
            today: NaiveDate::from_ymd_opt(2026, 11, 24).unwrap(),
            months: 12,
        }
    }

    fn summarize(json: &str, o: &SummaryOptions) -> PipelineSummary {
        let mut s = PipelineSummary::new(o);
        for d in deals(json) {
            s.add(&d, o);
        }
        s
    }

    #[test]
    fn totals_are_exact_and_never_mix_currencies() {
        let s = summarize(
            r#"{"data":[
              {"id":"1","status":"open","value":"0.10","currency":"EUR"},
              {"id":"2","status":"open","value":0.20,"currency":"eur"},
              {"id":"3","status":"open","value":"1000000000000000000.01","currency":"USD"},
              {"id":"4","status":"open","value":null,"currency":"USD"},
              {"id":"5","status":"won","value":"5"}
            ]}"#,
            &opts(),
        );
        let eur = &s.by_status[&("open".into(), "EUR".into())];
        assert_eq!((eur.count, eur.total.to_string()), (2, "0.30".into()));
        let usd = &s.by_status[&("open".into(), "USD".into())];
        assert_eq!(usd.total.to_string(), "1000000000000000000.01");
        assert_eq!((usd.count, usd.without_value), (2, 1));
        assert!(
            s.by_status
                .contains_key(&("won".into(), NO_CURRENCY.into()))
        );
        assert_eq!(s.deals, 5);
    }

    #[test]
    fn default_currency_fills_only_missing_ones() {
        let mut o = opts();
        o.default_currency = Some("chf".into());
        let s = summarize(
            r#"[{"id":"1","status":"open","value":1},{"id":"2","status":"open","value":1,"currency":"EUR"}]"#,
            &o,
        );
        let set: Vec<&str> = s.currencies.iter().map(String::as_str).collect();
        assert_eq!(set, ["CHF", "EUR"]);
    }

    #[test]
    fn statuses_read_in_pipeline_order_then_alphabetically() {
        let s = summarize(
            r#"[{"id":"1","status":"zeta"},{"id":"2","status":"lost"},{"id":"3","status":"open"},
                {"id":"4","status":"alpha"},{"id":"5","status":"won"},{"id":"6"}]"#,
            &opts(),
        );
        assert_eq!(
            s.statuses(),
            ["open", "won", "lost", "(none)", "alpha", "zeta"]
        );
    }

    #[test]
    fn months_by_updated_at_in_the_zone_and_inside_the_window() {
        let mut o = opts();
        o.zone = "Europe/Berlin".parse().unwrap();
        let s = summarize(
            r#"[{"id":"1","status":"won","value":"10","currency":"EUR","updated_at":"2026-10-31T23:30:00Z"},
                {"id":"2","status":"lost","value":"3","currency":"EUR","updated_at":"2026-10-15T10:00:00Z"},
                {"id":"3","status":"won","value":"7","currency":"EUR","updated_at":"2025-11-30T10:00:00Z"},
                {"id":"4","status":"won","value":"7","currency":"EUR"},
                {"id":"5","status":"open","value":"7","currency":"EUR","updated_at":"2026-10-15T10:00:00Z"}]"#,
            &o,
        );
        assert_eq!(s.months.len(), 12);
        assert_eq!(s.months[0], NaiveDate::from_ymd_opt(2025, 12, 1).unwrap());
        let nov = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        let oct = NaiveDate::from_ymd_opt(2026, 10, 1).unwrap();
        // 23:30 UTC on 31 October is 00:30 on 1 November in Berlin.
        assert_eq!(s.by_month[&(nov, "EUR".into())].won.total.to_string(), "10");
        assert_eq!(s.by_month[&(oct, "EUR".into())].lost.total.to_string(), "3");
        assert_eq!(s.by_month.len(), 2, "November 2025 is outside the window");
        assert_eq!(s.undated, 1);
    }

    #[test]
    fn a_date_field_is_never_shifted_and_missing_ones_fall_back() {
        let mut o = opts();
        o.zone = "Pacific/Auckland".parse().unwrap();
        o.month_by = MonthBy::parse("expected_close_date");
        let s = summarize(
            r#"[{"id":"1","status":"won","value":"1","currency":"EUR","expected_close_date":"2026-09-30","updated_at":"2026-01-01T00:00:00Z"},
                {"id":"2","status":"won","value":"2","currency":"EUR","updated_at":"2026-08-10T00:00:00Z"}]"#,
            &o,
        );
        let sep = NaiveDate::from_ymd_opt(2026, 9, 1).unwrap();
        let aug = NaiveDate::from_ymd_opt(2026, 8, 1).unwrap();
        assert_eq!(s.by_month[&(sep, "EUR".into())].won.count, 1);
        assert_eq!(s.by_month[&(aug, "EUR".into())].won.count, 1);
        assert_eq!(s.month_fallbacks, 1);
    }

    #[test]
    fn auto_uses_a_close_date_when_the_deal_has_one_and_names_what_dated_the_months() {
        let mut o = opts();
        o.month_by = MonthBy::parse("auto");
        assert_eq!(o.month_by, MonthBy::Auto);
        let s = summarize(
            r#"[{"id":"1","status":"won","value":"1","currency":"EUR","expected_close_date":"2026-09-30","updated_at":"2026-01-01T00:00:00Z"},
                {"id":"2","status":"lost","value":"2","currency":"EUR","close_date":"2026-07-02","updated_at":"2026-01-01T00:00:00Z"},
                {"id":"3","status":"won","value":"4","currency":"EUR","updated_at":"2026-08-10T00:00:00Z"},
                {"id":"4","status":"open","value":"8","currency":"EUR","expected_close_date":"2026-08-10"}]"#,
            &o,
        );
        let month = |m| NaiveDate::from_ymd_opt(2026, m, 1).unwrap();
        assert_eq!(s.by_month[&(month(9), "EUR".into())].won.count, 1);
        assert_eq!(s.by_month[&(month(7), "EUR".into())].lost.count, 1);
        assert_eq!(s.by_month[&(month(8), "EUR".into())].won.count, 1);
        // Auto has nothing to fall back from: a deal without a close date is dated as usual.
        assert_eq!(s.month_fallbacks, 0);
        assert_eq!(
            s.month_basis(),
            "close_date 1, expected_close_date 1, updated_at 1"
        );
        let only_updated = summarize(
            r#"[{"id":"3","status":"won","value":"4","currency":"EUR","updated_at":"2026-08-10T00:00:00Z"}]"#,
            &o,
        );
        assert_eq!(only_updated.month_basis(), "updated_at");
    }

    #[test]
    fn amounts_keep_every_digit_and_group_thousands() {
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(format_amount(d("338858.3"), true), "338,858.30");
        assert_eq!(format_amount(d("12"), false), "12.00");
        assert_eq!(format_amount(d("-1234567.125"), true), "-1,234,567.125");
        assert_eq!(format_amount(d("999"), true), "999.00");
        assert_eq!(format_amount(d("0"), true), "0.00");
    }

    #[test]
    fn month_window_crosses_years() {
        let w = month_window(NaiveDate::from_ymd_opt(2026, 2, 28).unwrap(), 3);
        let w: Vec<String> = w.iter().map(|d| d.to_string()).collect();
        assert_eq!(w, ["2025-12-01", "2026-01-01", "2026-02-01"]);
    }
}
