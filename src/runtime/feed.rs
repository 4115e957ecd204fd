//! The change feed's reads for the dashboard (on the blocking pool): a record's history, the
//! newest changes for `:changes`, Today's input, and Today's seen marks. Text is made here
//! (in the display zone), so the app only places it.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use rust_decimal::Decimal;

use super::mirror::MirrorReader;
use crate::api::{ApiRecord, Contact, Deal, Project, Timestamp, When};
use crate::app::feed::{
    CHANGES_SHOWN, ChangeLine, FeedAnswer, FeedAsk, HISTORY_SHOWN, RescheduleSource,
};
use crate::app::mirror::{LinkKind, RecordRef};
use crate::app::table::record::CellFormat;
use crate::insights::changes::{currency_of, summary};
use crate::insights::today::{
    self, Facts, GroupKind, OpenDeal, ProjectDates, QUIET_AFTER_DAYS, QUIET_SHOWN, Reschedule,
    TodayInput,
};
use crate::mirror::{ChangeQuery, Cursor, Mirror, MirrorError, RecordChange, Selection};
use crate::resource::Resource;

/// The cursor that remembers the last visit of Today.
pub const VISIT_CURSOR: &str = "today.visit";
/// Today shows at most this many of the newest changes since the last visit.
const TODAY_CHANGES: usize = 5000;
/// Reschedules older than this are not "recent" on a first visit.
const RESCHEDULES_DAYS: i64 = 7;

impl MirrorReader {
    /// Answers a [`FeedAsk`] (`Ok(None)`: there is no mirror).
    pub fn feed(&self, ask: FeedAsk) -> Result<Option<FeedAnswer>, String> {
        let format = self.format.clone();
        let now = Utc::now();
        match ask {
            FeedAsk::History { kind, id } => {
                self.with(|m| history(m, kind, &id, &format).map(FeedAnswer::History))
            }
            FeedAsk::Recent => self.with(|m| recent(m, &format).map(FeedAnswer::Recent)),
            FeedAsk::Today { since, reschedules } => self.with(|m| {
                today(m, since, reschedules.as_ref(), now).map(|t| FeedAnswer::Today(Box::new(t)))
            }),
            FeedAsk::MarkSeen { group, seq } => self.with(|m| {
                m.set_cursor(group.cursor(), seq, now)
                    .map(|()| FeedAnswer::Marked)
            }),
        }
    }
}

/// A record's label, currency and raw JSON, from the mirror (none when it is not there).
fn facts(m: &Mirror, r: Resource, id: &str) -> Result<Facts, MirrorError> {
    fn of<T: ApiRecord>(rec: T) -> Facts {
        let currency = rec.extra().get("currency").and_then(|v| v.as_str());
        Facts {
            label: rec.label(),
            currency: currency.map(|c| c.trim().to_uppercase()),
            raw: Some(Arc::from(rec.raw().get())),
        }
    }
    Ok(match r {
        Resource::Contacts => m.get::<Contact>(id)?.map(of),
        Resource::Deals => m.get::<Deal>(id)?.map(of),
        Resource::Projects => m.get::<Project>(id)?.map(of),
    }
    .unwrap_or_default())
}

fn when(c: &RecordChange, format: &CellFormat) -> String {
    format.zone.format_instant(c.at)
}

fn history(
    m: &Mirror,
    kind: Resource,
    id: &str,
    format: &CellFormat,
) -> Result<Vec<String>, MirrorError> {
    let changes = m.changes(&ChangeQuery {
        resources: vec![kind],
        id: Some(id.to_string()),
        newest_first: true,
        limit: Some(HISTORY_SHOWN),
        ..ChangeQuery::default()
    })?;
    let current = facts(m, kind, id)?.currency.or(format.currency.clone());
    Ok(changes
        .iter()
        .map(|c| {
            let currency = currency_of(c, current.as_deref());
            format!("{}  {}", when(c, format), summary(c, currency))
        })
        .collect())
}

fn recent(m: &Mirror, format: &CellFormat) -> Result<Vec<ChangeLine>, MirrorError> {
    let changes = m.changes(&ChangeQuery {
        newest_first: true,
        limit: Some(CHANGES_SHOWN),
        ..ChangeQuery::default()
    })?;
    let mut known: HashMap<(Resource, String), Facts> = HashMap::new();
    let mut out = Vec::with_capacity(changes.len());
    for c in &changes {
        let key = (c.resource, c.id.clone());
        if !known.contains_key(&key) {
            known.insert(key.clone(), facts(m, c.resource, &c.id)?);
        }
        let f = &known[&key];
        let label = if f.label.is_empty() { &c.id } else { &f.label };
        let currency = currency_of(c, f.currency.as_deref().or(format.currency.as_deref()));
        out.push(ChangeLine {
            text: format!(
                "{}  {} {}  {}",
                when(c, format),
                c.resource.singular(),
                label,
                summary(c, currency)
            ),
            record: f.raw.clone().map(|raw| RecordRef {
                kind: LinkKind::Record(c.resource),
                id: c.id.clone(),
                label: label.clone(),
                detail: String::new(),
                raw,
                note: None,
            }),
        });
    }
    Ok(out)
}

fn date_of(t: Option<&Timestamp>) -> Option<NaiveDate> {
    match t?.when()? {
        When::Date(d) => Some(d),
        When::Instant(i) => Some(i.date_naive()),
    }
}

/// Today's input: the changes since the last visit (which this visit replaces, unless the
/// session already knows it), the open deals and projects, the recent reschedules and the
/// groups' seen marks.
pub fn today(
    m: &Mirror,
    since: Option<Option<Cursor>>,
    reschedules: Option<&RescheduleSource>,
    now: DateTime<Utc>,
) -> Result<TodayInput, MirrorError> {
    let since = match since {
        Some(known) => known,
        None => {
            let last = m.cursor(VISIT_CURSOR)?;
            m.set_cursor(VISIT_CURSOR, m.last_change_seq()?, now)?;
            last
        }
    };
    let mut seen = HashMap::new();
    for g in GroupKind::ALL {
        if let Some(c) = m.cursor(g.cursor())? {
            seen.insert(g, c);
        }
    }
    // Only what Today groups (deals' status and value, new contacts) is read, and only the
    // records of the lines it shows.
    let mut q = ChangeQuery {
        newest_first: true,
        limit: Some(TODAY_CHANGES),
        selection: Some(Selection::Today),
        ..ChangeQuery::default()
    };
    match since {
        Some(c) => q.after_seq = Some(c.seq),
        None => q.since = Some(now - chrono::Duration::days(1)),
    }
    let mut changes = m.changes(&q)?;
    changes.reverse();
    let mut facts_of = HashMap::new();
    for (r, id) in today::shown_records(&changes, &seen) {
        let f = facts(m, r, &id)?;
        facts_of.insert((r, id), f);
    }
    let open_deals = quiet_deals(m, now)?;
    let mut projects = Vec::new();
    m.each_live::<Project>(|p| {
        projects.push(ProjectDates {
            id: p.id.clone(),
            label: p.label(),
            status: p.status.as_ref().map(|s| s.to_lowercase()),
            start: date_of(p.start_date.as_ref()),
            end: date_of(p.end_date.as_ref()),
            raw: Some(Arc::from(p.raw.get())),
        })
    })?;
    let after = since.map_or(now - chrono::Duration::days(RESCHEDULES_DAYS), |c| c.at);
    let reschedules = reschedules
        .and_then(|s| {
            let entries = crate::reschedule::read_log(&s.log, 50).ok()?;
            Some(
                entries
                    .into_iter()
                    .filter(|e| e.at > after)
                    .map(|e| {
                        let (start, end) = e.times_in(&s.settings, &s.zone);
                        let when = if end.is_empty() {
                            start
                        } else {
                            format!("{start} – {end}")
                        };
                        Reschedule {
                            id: e.id.clone(),
                            at: e.at,
                            when,
                        }
                    })
                    .collect(),
            )
        })
        .unwrap_or_default();
    Ok(TodayInput {
        since,
        changes,
        facts: facts_of,
        open_deals,
        projects,
        reschedules,
        seen,
    })
}

/// The open deals that may be the most quiet: ranked by value × days since their
/// `updated_at`, the feed's last change of each read only as it comes up (it can only make a
/// deal less quiet), until the [`QUIET_SHOWN`] largest are exact. Deals without `updated_at`
/// are read from the feed first.
fn quiet_deals(m: &Mirror, now: DateTime<Utc>) -> Result<Vec<OpenDeal>, MirrorError> {
    let mut open = Vec::new();
    m.each_live::<Deal>(|d| {
        let status = d.status.as_deref().unwrap_or("").to_lowercase();
        if matches!(status.as_str(), "won" | "lost" | "cancelled" | "closed") {
            return;
        }
        let currency = d.extra.get("currency").and_then(|v| v.as_str());
        open.push(OpenDeal {
            id: d.id.clone(),
            label: d.label(),
            value: d.value.as_ref().and_then(|v| v.decimal()),
            currency: currency.map(|c| c.trim().to_uppercase()),
            last_change: d.updated_at.as_ref().and_then(Timestamp::instant),
            raw: Some(Arc::from(d.raw.get())),
        });
    })?;
    let exact = |m: &Mirror, d: &mut OpenDeal| -> Result<(), MirrorError> {
        let fed = m.last_change_at(Resource::Deals, &d.id)?;
        d.last_change = d.last_change.max(fed);
        Ok(())
    };
    let score = |d: &OpenDeal| {
        let days = (now - d.last_change?).num_days();
        (days >= QUIET_AFTER_DAYS).then(|| d.value.unwrap_or_default() * Decimal::from(days))
    };
    let mut pending: Vec<(Decimal, usize)> = Vec::new();
    for (i, d) in open.iter_mut().enumerate() {
        if d.last_change.is_none() {
            exact(m, d)?;
        }
        if let Some(s) = score(d) {
            pending.push((s, i));
        }
    }
    // Largest last, ties by id (as Today orders them): popped from the end.
    let order = |open: &[OpenDeal], a: &(Decimal, usize), b: &(Decimal, usize)| {
        a.0.cmp(&b.0).then_with(|| open[b.1].id.cmp(&open[a.1].id))
    };
    pending.sort_by(|a, b| order(&open, a, b));
    let mut checked = vec![false; open.len()];
    let mut shown = Vec::new();
    while shown.len() < QUIET_SHOWN
        && let Some((s, i)) = pending.pop()
    {
        if checked[i] {
            shown.push(i);
            continue;
        }
        checked[i] = true;
        exact(m, &mut open[i])?;
        match score(&open[i]) {
            Some(now_s) if now_s == s => shown.push(i),
            Some(now_s) => {
                let at = pending.partition_point(|p| order(&open, p, &(now_s, i)).is_lt());
                pending.insert(at, (now_s, i));
            }
            None => {}
        }
    }
    let mut keep = vec![false; open.len()];
    for i in shown {
        keep[i] = true;
    }
    Ok(open
        .into_iter()
        .zip(keep)
        .filter_map(|(d, k)| k.then_some(d))
        .collect())
}
