//! Today: what moved since the last visit, grouped and counted, as plain values. Built from
//! the change feed and the mirror's open deals and projects (no network); the dashboard's
//! Today screen draws it, `x` marks a group seen.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use rust_decimal::Decimal;
use serde_json::Value;

use crate::insights::pipeline::format_amount;
use crate::mirror::{ChangeKind, Cursor, RecordChange};
use crate::resource::Resource;

/// A quiet deal: its rank (value × days), the deal, and the days it has been quiet.
type Quiet<'a> = (Decimal, &'a OpenDeal, i64);

/// Quiet deals ranked by value × days within their own currency (amounts of two currencies are
/// never compared), then taken in turns: each currency's first, then each one's second… The
/// currencies go in order of their name (deals without one last).
fn rank_within_currency(quiet: Vec<Quiet<'_>>) -> Vec<Quiet<'_>> {
    let mut by_currency: BTreeMap<(bool, String), Vec<Quiet<'_>>> = BTreeMap::new();
    for q in quiet {
        let c = q.1.currency.clone();
        by_currency
            .entry((c.is_none(), c.unwrap_or_default()))
            .or_default()
            .push(q);
    }
    let mut lists: Vec<std::vec::IntoIter<Quiet<'_>>> = by_currency
        .into_values()
        .map(|mut l| {
            l.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.id.cmp(&b.1.id)));
            l.into_iter()
        })
        .collect();
    let mut out = Vec::new();
    loop {
        let before = out.len();
        for l in lists.iter_mut() {
            out.extend(l.next());
        }
        if out.len() == before {
            return out;
        }
    }
}

/// A deal with no change for this many days has gone quiet.
pub const QUIET_AFTER_DAYS: i64 = 14;
/// At most this many quiet deals are listed (the largest first).
pub const QUIET_SHOWN: usize = 10;
/// A group made of changes lists at most its newest this many (its count says how many
/// there are): only their records are read.
pub const LINES_SHOWN: usize = 50;

/// The groups, in the order shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GroupKind {
    Won,
    Lost,
    Moved,
    Values,
    NewContacts,
    ProjectsWeek,
    Quiet,
    Reschedules,
}

impl GroupKind {
    pub const ALL: [GroupKind; 8] = [
        GroupKind::Won,
        GroupKind::Lost,
        GroupKind::Moved,
        GroupKind::Values,
        GroupKind::NewContacts,
        GroupKind::ProjectsWeek,
        GroupKind::Quiet,
        GroupKind::Reschedules,
    ];

    pub fn title(self) -> &'static str {
        match self {
            GroupKind::Won => "Deals won",
            GroupKind::Lost => "Deals lost",
            GroupKind::Moved => "Deals moved",
            GroupKind::Values => "Deal values changed",
            GroupKind::NewContacts => "New contacts",
            GroupKind::ProjectsWeek => "Projects this week",
            GroupKind::Quiet => "Open deals gone quiet",
            GroupKind::Reschedules => "Your reschedules",
        }
    }

    /// The cursor that remembers the group was seen.
    pub fn cursor(self) -> &'static str {
        match self {
            GroupKind::Won => "today.won",
            GroupKind::Lost => "today.lost",
            GroupKind::Moved => "today.moved",
            GroupKind::Values => "today.values",
            GroupKind::NewContacts => "today.contacts",
            GroupKind::ProjectsWeek => "today.projects",
            GroupKind::Quiet => "today.quiet",
            GroupKind::Reschedules => "today.reschedules",
        }
    }

    /// Made of changes (seen up to a change) rather than of the state of things (seen for
    /// the day).
    pub fn from_changes(self) -> bool {
        matches!(
            self,
            GroupKind::Won
                | GroupKind::Lost
                | GroupKind::Moved
                | GroupKind::Values
                | GroupKind::NewContacts
        )
    }
}

/// A record as Today needs it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Facts {
    pub label: String,
    pub currency: Option<String>,
    /// The record as the mirror holds it (to open it).
    pub raw: Option<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct OpenDeal {
    pub id: String,
    pub label: String,
    pub value: Option<Decimal>,
    pub currency: Option<String>,
    /// Its last change: the newest of its `updated_at` and the feed's last change of it.
    pub last_change: Option<DateTime<Utc>>,
    pub raw: Option<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProjectDates {
    pub id: String,
    pub label: String,
    pub status: Option<String>,
    pub start: Option<NaiveDate>,
    pub end: Option<NaiveDate>,
    pub raw: Option<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Reschedule {
    pub id: String,
    pub at: DateTime<Utc>,
    /// The new times as the dialog shows them (`2026-12-24 10:00 – 10:30`).
    pub when: String,
}

/// Everything Today is made of, read from the mirror at once.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TodayInput {
    /// The last visit (`None` on the first: the last day is shown).
    pub since: Option<Cursor>,
    /// Changes after the last visit, oldest first.
    pub changes: Vec<RecordChange>,
    /// Labels and currencies of the changed records.
    pub facts: HashMap<(Resource, String), Facts>,
    pub open_deals: Vec<OpenDeal>,
    pub projects: Vec<ProjectDates>,
    pub reschedules: Vec<Reschedule>,
    /// When each group was marked seen.
    pub seen: HashMap<GroupKind, Cursor>,
}

/// One line of a group: the text, and the record it opens.
#[derive(Debug, Clone, PartialEq)]
pub struct TodayLine {
    pub resource: Option<Resource>,
    pub id: String,
    pub label: String,
    pub text: String,
    /// The change it comes from (0 for lines about the state of things).
    pub seq: i64,
    /// The record, to open it (none for an appointment, which is not mirrored).
    pub raw: Option<Arc<str>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TodayGroup {
    pub kind: GroupKind,
    /// The newest lines (at most [`LINES_SHOWN`] of a group made of changes).
    pub lines: Vec<TodayLine>,
    /// How many there are in all.
    pub total: usize,
}

fn text(v: &Value) -> Option<&str> {
    v.as_str()
}

fn amount(v: &Value) -> Option<Decimal> {
    match v {
        Value::String(s) => crate::api::Money::parse(s).decimal(),
        Value::Number(n) => crate::api::Money::parse(&n.to_string()).decimal(),
        _ => None,
    }
}

/// `+1,500.00 EUR`, `-20.00`.
pub fn difference(old: Option<Decimal>, new: Option<Decimal>, currency: Option<&str>) -> String {
    let unit = currency.map(|c| format!(" {c}")).unwrap_or_default();
    match (old, new) {
        (Some(o), Some(n)) => {
            let d = n - o;
            let sign = if d.is_sign_negative() { "" } else { "+" };
            format!("{sign}{}{unit}", format_amount(d, true))
        }
        (None, Some(n)) => format!("now {}{unit}", format_amount(n, true)),
        _ => "cleared".to_string(),
    }
}

fn week_of(today: NaiveDate) -> (NaiveDate, NaiveDate) {
    let monday = today - chrono::Duration::days(i64::from(today.weekday().num_days_from_monday()));
    (monday, monday + chrono::Duration::days(6))
}

fn day(d: NaiveDate) -> String {
    d.format("%a %-d %b").to_string()
}

/// Whether a group marked seen at `seen` is still seen on `today` (a day's state groups).
fn seen_today(seen: Option<&Cursor>, today: NaiveDate, zone: &crate::timeparse::Zone) -> bool {
    seen.is_some_and(|c| zone.from_utc(c.at).date_naive() == today)
}

/// The groups, in [`GroupKind::ALL`] order, empty ones included (the screen leaves them out).
pub fn build(
    input: &TodayInput,
    today: NaiveDate,
    now: DateTime<Utc>,
    zone: &crate::timeparse::Zone,
) -> Vec<TodayGroup> {
    let mut groups: HashMap<GroupKind, Vec<TodayLine>> = HashMap::new();
    let mut totals: HashMap<GroupKind, usize> = HashMap::new();
    let facts = |r: Resource, id: &str| {
        input
            .facts
            .get(&(r, id.to_string()))
            .cloned()
            .unwrap_or_default()
    };
    walk(&input.changes, &input.seen, |g, c, shown| {
        *totals.entry(g).or_default() += 1;
        if !shown {
            return;
        }
        let f = facts(c.resource, &c.id);
        let text = match g {
            GroupKind::NewContacts => String::new(),
            GroupKind::Values => {
                let Some(v) = c.field("value") else { return };
                let cur = crate::insights::changes::currency_of(c, f.currency.as_deref());
                let (o, n) = (amount(&v.old), amount(&v.new));
                let show =
                    |d: Option<Decimal>| d.map_or("—".to_string(), |d| format_amount(d, true));
                format!("{} → {}  {}", show(o), show(n), difference(o, n, cur))
            }
            _ => {
                let Some(s) = c.field("status") else { return };
                let (old, new) = (text(&s.old).unwrap_or("—"), text(&s.new).unwrap_or("—"));
                format!("{old} → {new}")
            }
        };
        groups.entry(g).or_default().push(TodayLine {
            resource: Some(c.resource),
            id: c.id.clone(),
            label: if f.label.is_empty() {
                c.id.clone()
            } else {
                f.label.clone()
            },
            text,
            seq: c.seq,
            raw: f.raw.clone(),
        });
    });
    let (monday, sunday) = week_of(today);
    if !seen_today(input.seen.get(&GroupKind::ProjectsWeek), today, zone) {
        let lines = groups.entry(GroupKind::ProjectsWeek).or_default();
        for p in &input.projects {
            let closed = matches!(p.status.as_deref(), Some("completed" | "cancelled"));
            let this_week = |d: NaiveDate| d >= monday && d <= sunday;
            // Overdue this week: its end passed this week (or today) and it is not closed.
            let what = match (p.start, p.end) {
                (_, Some(e)) if this_week(e) && e < today && !closed => {
                    Some(format!("overdue since {}", day(e)))
                }
                (Some(s), _) if this_week(s) => Some(format!("starts {}", day(s))),
                (_, Some(e)) if this_week(e) && !closed => Some(format!("ends {}", day(e))),
                _ => None,
            };
            if let Some(text) = what {
                lines.push(TodayLine {
                    resource: Some(Resource::Projects),
                    id: p.id.clone(),
                    label: p.label.clone(),
                    text,
                    seq: 0,
                    raw: p.raw.clone(),
                });
            }
        }
    }
    if !seen_today(input.seen.get(&GroupKind::Quiet), today, zone) {
        let quiet: Vec<(Decimal, &OpenDeal, i64)> = input
            .open_deals
            .iter()
            .filter_map(|d| {
                let days = (now - d.last_change?).num_days();
                (days >= QUIET_AFTER_DAYS)
                    .then(|| (d.value.unwrap_or_default() * Decimal::from(days), d, days))
            })
            .collect();
        let lines = groups.entry(GroupKind::Quiet).or_default();
        for (_, d, days) in rank_within_currency(quiet).into_iter().take(QUIET_SHOWN) {
            let value = d.value.map(|v| format_amount(v, true)).unwrap_or_default();
            // Never an amount without its currency.
            let unit = match (&d.value, d.currency.as_deref()) {
                (None, _) => String::new(),
                (Some(_), Some(c)) => format!(" {c}"),
                (Some(_), None) => " (currency not given)".to_string(),
            };
            lines.push(TodayLine {
                resource: Some(Resource::Deals),
                id: d.id.clone(),
                label: d.label.clone(),
                text: format!("{value}{unit} · quiet {days} days")
                    .trim_start_matches(" · ")
                    .to_string(),
                seq: 0,
                raw: d.raw.clone(),
            });
        }
    }
    let seen_reschedules = input.seen.get(&GroupKind::Reschedules).map(|c| c.at);
    let lines = groups.entry(GroupKind::Reschedules).or_default();
    for r in input.reschedules.iter().rev() {
        if seen_reschedules.is_some_and(|s| r.at <= s) {
            continue;
        }
        lines.push(TodayLine {
            resource: None,
            id: r.id.clone(),
            label: format!("appointment {}", r.id),
            text: format!("→ {}", r.when),
            seq: 0,
            raw: None,
        });
    }
    GroupKind::ALL
        .into_iter()
        .map(|kind| {
            let lines = groups.remove(&kind).unwrap_or_default();
            let total = totals.get(&kind).copied().unwrap_or(0).max(lines.len());
            TodayGroup { kind, lines, total }
        })
        .collect()
}

/// The groups a change counts in: a deal's status (won, lost or moved) and its value, a
/// contact that was created.
fn groups_of(c: &RecordChange) -> [Option<GroupKind>; 2] {
    match (c.resource, c.kind) {
        (Resource::Contacts, ChangeKind::Created) => [Some(GroupKind::NewContacts), None],
        (Resource::Deals, ChangeKind::Updated | ChangeKind::Back) => {
            let status = c.field("status").map(|s| match text(&s.new) {
                Some("won") => GroupKind::Won,
                Some("lost") => GroupKind::Lost,
                _ => GroupKind::Moved,
            });
            [status, c.field("value").map(|_| GroupKind::Values)]
        }
        _ => [None, None],
    }
}

/// Calls `f` for each change (newest first) in each group it counts in and was not seen,
/// saying whether it is one of the group's shown lines.
fn walk<'c>(
    changes: &'c [RecordChange],
    seen: &HashMap<GroupKind, Cursor>,
    mut f: impl FnMut(GroupKind, &'c RecordChange, bool),
) {
    let mut counts: HashMap<GroupKind, usize> = HashMap::new();
    for c in changes.iter().rev() {
        for g in groups_of(c).into_iter().flatten() {
            if c.seq <= seen.get(&g).map_or(0, |s| s.seq) {
                continue;
            }
            let n = counts.entry(g).or_default();
            *n += 1;
            f(g, c, *n <= LINES_SHOWN);
        }
    }
}

/// The records the groups' shown lines are about: the only ones whose facts are read.
pub fn shown_records(
    changes: &[RecordChange],
    seen: &HashMap<GroupKind, Cursor>,
) -> std::collections::HashSet<(Resource, String)> {
    let mut out = std::collections::HashSet::new();
    walk(changes, seen, |_, c, shown| {
        if shown {
            out.insert((c.resource, c.id.clone()));
        }
    });
    out
}

/// `since Tue 16:40` (the last visit, in the display zone), `since yesterday` on a first.
pub fn since_words(since: Option<&Cursor>, zone: &crate::timeparse::Zone) -> String {
    match since {
        Some(c) => format!("since {}", zone.from_utc(c.at).format("%a %H:%M")),
        None => "since yesterday".to_string(),
    }
}
