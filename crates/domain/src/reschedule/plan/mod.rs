//! A reschedule plan: many appointments moved at once, from CSV or JSON Lines rows of
//! `id,start[,end]` in the shared time grammar. Every row is read and checked before anything
//! is sent ([`Plan::bad`] names each problem with its line); the rows then go out through
//! [`run`], which the CLI (`crmdash appointments reschedule --plan`) and the dashboard
//! (`:plan PATH`) share, with a [`journal`] so that a re-run sends only what is not done.

pub mod journal;
pub mod preview;
pub mod read;
pub mod run;

use std::collections::HashMap;

use chrono::{DateTime, FixedOffset, Utc};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::{EndSpec, RescheduleLogEntry, RescheduleTimes, build_body, parse_end};
use crate::config::RescheduleSettings;
use crate::timeparse::{self, Zone};

pub use read::{BadRow, RawRow, read_rows};

/// How every row is read, apart from its own cells.
#[derive(Debug, Clone, Default)]
pub struct PlanOptions {
    /// `--shift +1d`: moves each row's start (and an end given as a time) by this offset of
    /// the grammar (`+1d`, `-2h`, `+1w`, `+1h30m`; days keep the clock time across DST).
    pub shift: Option<String>,
    /// `--end 30m`: the End of rows without one (a length, a clock time or a time).
    pub default_end: Option<String>,
    /// Further keys sent with every row (`--set`).
    pub extra: Map<String, Value>,
}

/// One row ready to send.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRow {
    pub line: u64,
    pub id: String,
    pub times: RescheduleTimes,
    /// The exact body.
    pub body: Map<String, Value>,
    /// Stable per (id, body): the journal's name for this change.
    pub key: String,
    /// A remark for the preview (an end on the next day).
    pub note: Option<String>,
}

/// A plan read from a file: the rows to send and the rows that are wrong.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub rows: Vec<PlanRow>,
    pub bad: Vec<BadRow>,
}

impl Plan {
    /// Reads and checks every row of `text`. `now` anchors relative times (`mon 09:00`).
    pub fn parse(
        text: &str,
        opts: &PlanOptions,
        settings: &RescheduleSettings,
        zone: &Zone,
        now: DateTime<Utc>,
    ) -> Result<Plan, String> {
        if let Some(shift) = &opts.shift {
            check_shift(shift, zone, now)?;
        }
        let default_end = match opts.default_end.as_deref().map(str::trim) {
            Some(t) if !t.is_empty() => {
                Some(parse_end(t, zone, now).map_err(|e| format!("--end: {e}"))?)
            }
            _ => None,
        };
        let mut plan = Plan::default();
        let mut seen: HashMap<String, u64> = HashMap::new();
        for raw in read_rows(text) {
            let row = raw.and_then(|raw| {
                let row =
                    resolve(&raw, opts, default_end, settings, zone, now).map_err(|message| {
                        BadRow {
                            line: raw.line,
                            message,
                        }
                    })?;
                if let Some(first) = seen.insert(row.id.clone(), row.line) {
                    return Err(BadRow {
                        line: row.line,
                        message: format!("appointment {} is moved by line {first} already", row.id),
                    });
                }
                Ok(row)
            });
            match row {
                Ok(r) => plan.rows.push(r),
                Err(b) => plan.bad.push(b),
            }
        }
        if plan.rows.is_empty() && plan.bad.is_empty() {
            return Err("the plan has no rows (id,start[,end] per line)".into());
        }
        Ok(plan)
    }
}

/// `--shift` is a signed offset of the grammar, nothing else (`tomorrow` is not a shift).
fn check_shift(shift: &str, zone: &Zone, now: DateTime<Utc>) -> Result<(), String> {
    let t = shift.trim();
    if !(t.starts_with('+') || t.starts_with('-')) || t.contains(char::is_whitespace) {
        return Err(format!(
            "--shift {t:?}: a shift is a signed offset like +1d, -2h, +1w or +1h30m"
        ));
    }
    timeparse::parse_zoned(t, zone, now)
        .map(|_| ())
        .map_err(|e| format!("--shift: {e}"))
}

/// `t` moved by `shift` (the grammar's offset, read from `t` instead of from now).
fn shifted(
    t: DateTime<FixedOffset>,
    shift: Option<&str>,
    zone: &Zone,
) -> Result<DateTime<FixedOffset>, String> {
    match shift {
        None => Ok(t),
        Some(s) => timeparse::parse_zoned(s.trim(), zone, t.to_utc())
            .map_err(|e| format!("shifting {} by {s}: {e}", super::format_time(&t))),
    }
}

fn resolve(
    raw: &RawRow,
    opts: &PlanOptions,
    default_end: Option<EndSpec>,
    settings: &RescheduleSettings,
    zone: &Zone,
    now: DateTime<Utc>,
) -> Result<PlanRow, String> {
    if raw.id.is_empty() {
        return Err("no id".into());
    }
    let id = super::extract_appointment_id(&raw.id).ok_or_else(|| {
        format!(
            "{:?} is neither an appointment id nor a link containing one",
            raw.id
        )
    })?;
    if raw.start.is_empty() {
        return Err(format!("appointment {id}: no start"));
    }
    let shift = opts.shift.as_deref();
    let start = timeparse::parse_zoned(&raw.start, zone, now)
        .map_err(|e| format!("start: {e}"))
        .and_then(|t| shifted(t, shift, zone))?;
    let end = if raw.end.is_empty() {
        default_end.unwrap_or(EndSpec::None)
    } else {
        match parse_end(&raw.end, zone, now).map_err(|e| format!("end: {e}"))? {
            EndSpec::At(t) => EndSpec::At(shifted(t, shift, zone)?),
            other => other,
        }
    };
    let times = RescheduleTimes::new(start, end, zone).map_err(|e| e.to_string())?;
    let note = super::ends_next_day(&times, end, zone);
    let body = build_body(&times, settings, &opts.extra).map_err(|e| e.to_string())?;
    let key = row_key(&id, &body);
    Ok(PlanRow {
        line: raw.line,
        id,
        times,
        body,
        key,
        note,
    })
}

/// The change's name: a hash of the id and the body with its keys in order, so the same move
/// of the same appointment has the same key in every run.
pub fn row_key(id: &str, body: &Map<String, Value>) -> String {
    let sorted: std::collections::BTreeMap<&String, &Value> = body.iter().collect();
    let mut h = Sha256::new();
    h.update(id.as_bytes());
    h.update([0]);
    h.update(serde_json::to_vec(&sorted).unwrap_or_default());
    h.finalize()
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The last time crmdash moved each appointment at `host` (from the reschedule log): what
/// the preview shows as the old times, and what the dialog completes.
pub fn last_known<'a>(
    log: &'a [RescheduleLogEntry],
    host: &str,
) -> HashMap<&'a str, &'a RescheduleLogEntry> {
    let mut last = HashMap::new();
    for e in log.iter().filter(|e| e.host == host) {
        last.insert(e.id.as_str(), e);
    }
    last
}

#[cfg(test)]
mod tests;
