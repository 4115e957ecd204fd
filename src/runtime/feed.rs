//! The change feed's reads for the dashboard (on the blocking pool): a record's history, the
//! newest changes for `:changes`, Today's input, and Today's seen marks. Text is made here
//! (in the display zone), so the app only places it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use super::mirror::MirrorReader;
use crate::api::{ApiRecord, Contact, Deal, Project, Timestamp, When};
use crate::app::feed::{
    CHANGES_SHOWN, ChangeLine, FeedAnswer, FeedAsk, HISTORY_SHOWN, RescheduleSource,
};
use crate::app::mirror::{LinkKind, RecordRef};
use crate::app::table::record::CellFormat;
use crate::insights::changes::{currency_of, summary};
use crate::insights::today::{Facts, GroupKind, OpenDeal, ProjectDates, Reschedule, TodayInput};
use crate::mirror::{ChangeQuery, Cursor, Mirror, MirrorError, RecordChange};
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
    let mut q = ChangeQuery {
        newest_first: true,
        limit: Some(TODAY_CHANGES),
        ..ChangeQuery::default()
    };
    match since {
        Some(c) => q.after_seq = Some(c.seq),
        None => q.since = Some(now - chrono::Duration::days(1)),
    }
    let mut changes = m.changes(&q)?;
    changes.reverse();
    let mut facts_of = HashMap::new();
    let wanted: HashSet<(Resource, &str)> = changes
        .iter()
        .filter(|c| c.resource != Resource::Projects)
        .map(|c| (c.resource, c.id.as_str()))
        .collect();
    for (r, id) in wanted {
        facts_of.insert((r, id.to_string()), facts(m, r, id)?);
    }
    let last_changes = m.last_change_times(Resource::Deals)?;
    let mut open_deals = Vec::new();
    m.each_live::<Deal>(|d| {
        let status = d.status.as_deref().unwrap_or("").to_lowercase();
        if matches!(status.as_str(), "won" | "lost" | "cancelled" | "closed") {
            return;
        }
        let updated = d.updated_at.as_ref().and_then(Timestamp::instant);
        let changed = last_changes.get(&d.id).copied();
        let currency = d.extra.get("currency").and_then(|v| v.as_str());
        open_deals.push(OpenDeal {
            id: d.id.clone(),
            label: d.label(),
            value: d.value.as_ref().and_then(|v| v.decimal()),
            currency: currency.map(|c| c.trim().to_uppercase()),
            last_change: updated.max(changed),
            raw: Some(Arc::from(d.raw.get())),
        });
    })?;
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
    let mut seen = HashMap::new();
    for g in GroupKind::ALL {
        if let Some(c) = m.cursor(g.cursor())? {
            seen.insert(g, c);
        }
    }
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
