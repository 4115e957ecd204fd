//! The plan as shown before anything is sent, by the CLI and the dashboard alike: per row,
//! the old times where the reschedule log knows them, the new times in the configured zone,
//! and what a run will do with it.

use super::run::{Outcome, decide};
use super::{Plan, PlanRow, journal::Journal, last_known};
use crate::config::RescheduleSettings;
use crate::reschedule::{RescheduleLogEntry, RescheduleTimes};
use crate::timeparse::Zone;

/// One row of the preview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PreviewRow {
    pub line: u64,
    pub id: String,
    /// The last times crmdash moved it to (start, end), `None` when it never did.
    pub old: Option<(String, String)>,
    pub start: String,
    pub end: String,
    /// Sent, or why not (`None`: it will be sent).
    pub skip: Option<Outcome>,
    /// A remark: an end on the next day, why it is skipped.
    pub note: String,
}

/// The preview's columns.
pub const COLUMNS: [&str; 7] = [
    "line",
    "id",
    "old start",
    "old end",
    "new start",
    "new end",
    "note",
];

impl PreviewRow {
    /// The cells under [`COLUMNS`].
    pub fn cells(&self) -> Vec<String> {
        let (old_start, old_end) = self
            .old
            .clone()
            .unwrap_or_else(|| ("(new to crmdash)".to_string(), String::new()));
        vec![
            self.line.to_string(),
            self.id.clone(),
            old_start,
            old_end,
            self.start.clone(),
            self.end.clone(),
            self.note.clone(),
        ]
    }
}

/// `2026-12-07 09:00` and `10:00` (the end's day only when it is another).
pub fn times_text(times: &RescheduleTimes, zone: &Zone) -> (String, String) {
    let start = zone.from_utc(times.start.to_utc());
    let end = times.end.map(|e| zone.from_utc(e.to_utc()));
    let end_text = match end {
        Some(e) if e.date_naive() == start.date_naive() => e.format("%H:%M").to_string(),
        Some(e) => e.format("%Y-%m-%d %H:%M").to_string(),
        None => "(kept length)".to_string(),
    };
    (start.format("%Y-%m-%d %H:%M").to_string(), end_text)
}

/// The preview of `plan`'s good rows.
pub fn preview(
    plan: &Plan,
    journal: &Journal,
    log: &[RescheduleLogEntry],
    host: &str,
    settings: &RescheduleSettings,
    zone: &Zone,
    resend_in_doubt: bool,
) -> Vec<PreviewRow> {
    let known = last_known(log, host);
    plan.rows
        .iter()
        .map(|row: &PlanRow| {
            let (start, end) = times_text(&row.times, zone);
            let skip = decide(journal, row, resend_in_doubt);
            let note = match (&skip, &row.note) {
                (Some(r), _) if r.outcome == Outcome::AlreadyDone => {
                    "done by an earlier run".into()
                }
                (Some(r), _) if r.outcome == Outcome::InDoubt => {
                    "in doubt: an earlier run got no answer; not sent".into()
                }
                (_, Some(n)) => n.clone(),
                _ => String::new(),
            };
            PreviewRow {
                line: row.line,
                id: row.id.clone(),
                old: known
                    .get(row.id.as_str())
                    .map(|e| e.times_in(settings, zone)),
                start,
                end,
                skip: skip.map(|r| r.outcome),
                note,
            }
        })
        .collect()
}

/// `20 rows: 17 to send, 2 done by an earlier run, 1 in doubt`.
pub fn sentence(rows: &[PreviewRow]) -> String {
    let count = |o: Option<Outcome>| rows.iter().filter(|r| r.skip == o).count();
    let mut parts = vec![format!("{} to send", count(None))];
    let done = count(Some(Outcome::AlreadyDone));
    if done > 0 {
        parts.push(format!("{done} done by an earlier run"));
    }
    let doubt = count(Some(Outcome::InDoubt));
    if doubt > 0 {
        parts.push(format!("{doubt} in doubt (not sent; --resend-in-doubt)"));
    }
    let n = rows.len();
    format!(
        "{n} {}: {}",
        if n == 1 { "row" } else { "rows" },
        parts.join(", ")
    )
}
