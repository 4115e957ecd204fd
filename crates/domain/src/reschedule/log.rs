//! The local record of reschedules sent: one JSON Lines file in the data dir
//! ([`FILE_NAME`]), written by `crmdash appointments reschedule` and the dashboard's dialog,
//! shown by `crmdash appointments log` and the dialog. API v1 cannot read an appointment
//! back, so this is how a coordinator sees what was done, also in earlier sessions. Safe
//! under concurrent writers (see [`crate::jsonl_store`]).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::jsonl_store::{self, FileLock};

/// One reschedule that the server accepted. Never holds a token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RescheduleLogEntry {
    /// The appointment id as typed (not percent-encoded).
    pub id: String,
    #[serde(default)]
    pub profile: String,
    /// The service's host (`crm.example.com`), to tell instances apart.
    #[serde(default)]
    pub host: String,
    /// The body exactly as sent.
    #[serde(default)]
    pub body: Map<String, Value>,
    /// `updated_at` from the response, as the server wrote it.
    #[serde(default)]
    pub updated_at: Option<String>,
    /// When crmdash sent it.
    pub at: DateTime<Utc>,
}

impl RescheduleLogEntry {
    /// The new start and end as the CLI's table and the dashboard's dialog show them: times
    /// as `2026-12-24 10:00` in `zone`, the end as `10:30` on the start's day (a time the body
    /// holds in another shape shown as sent).
    pub fn times_in(
        &self,
        settings: &crate::config::RescheduleSettings,
        zone: &crate::timeparse::Zone,
    ) -> (String, String) {
        fn key(k: &str) -> Option<&str> {
            Some(k.trim()).filter(|k| !k.is_empty())
        }
        let raw = |k: Option<&str>| k.and_then(|k| self.body.get(k));
        let instant = |v: Option<&Value>| {
            v.and_then(Value::as_str)
                .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
                .map(|t| zone.from_utc(t.to_utc()))
        };
        let as_sent = |v: Option<&Value>| match v {
            Some(Value::String(s)) => s.clone(),
            Some(other) => other.to_string(),
            None => String::new(),
        };
        let (start_key, end_key) = (key(&settings.start_field), key(&settings.end_field));
        let start = instant(raw(start_key));
        let end = instant(raw(end_key));
        let start_text = match start {
            Some(t) => t.format("%Y-%m-%d %H:%M").to_string(),
            None => as_sent(raw(start_key)),
        };
        let end_text = match (start, end) {
            (Some(s), Some(t)) if s.date_naive() == t.date_naive() => t.format("%H:%M").to_string(),
            (_, Some(t)) => t.format("%Y-%m-%d %H:%M").to_string(),
            (_, None) => as_sent(raw(end_key)),
        };
        (start_text, end_text)
    }
}

/// The log's file name in the data directory.
pub const FILE_NAME: &str = "reschedule-history.jsonl";

/// Earlier names of the log (the CLI's and the dashboard's own files): read once into
/// [`FILE_NAME`] and then renamed `<name>.migrated`, so no reschedule is lost or shown twice.
pub const LEGACY_NAMES: [&str; 2] = ["reschedule-log.jsonl", "reschedules.jsonl"];

/// The one reschedule log, written and shown by both the CLI and the dashboard.
pub fn default_path() -> Option<PathBuf> {
    crate::config::data_dir().map(|d| d.join(FILE_NAME))
}

/// The reschedule log of real profiles, or a `--demo` run's own in its folder.
pub fn path(demo: bool) -> Option<PathBuf> {
    if demo {
        crate::demo_dir::demo_root().ok().map(|d| d.join(FILE_NAME))
    } else {
        default_path()
    }
}

/// Appends one entry (one line, one write, under the log's lock), creating the file
/// (owner-only on Unix) and its directory; earlier logs beside it are migrated first.
pub fn append_log(path: &Path, entry: &RescheduleLogEntry) -> io::Result<()> {
    let _lock = FileLock::acquire(path, true)?;
    migrate_locked(path)?;
    jsonl_store::append_locked(path, entry)
}

/// The last `last` entries, oldest first. A missing file is an empty log; lines that do not
/// decode (a cut-off write, a hand edit) are skipped, not fatal.
pub fn read_log(path: &Path, last: usize) -> io::Result<Vec<RescheduleLogEntry>> {
    let legacy = legacy_paths(path).iter().any(|p| p.exists());
    let mut entries: Vec<RescheduleLogEntry> = if legacy {
        let _lock = FileLock::acquire(path, true)?;
        migrate_locked(path)?;
        jsonl_store::read_locked(path)?
    } else {
        jsonl_store::read_all(path)?
    };
    let skip = entries.len().saturating_sub(last);
    entries.drain(..skip);
    Ok(entries)
}

fn legacy_paths(path: &Path) -> Vec<PathBuf> {
    if path.file_name().and_then(|n| n.to_str()) != Some(FILE_NAME) {
        return Vec::new();
    }
    LEGACY_NAMES
        .iter()
        .map(|n| path.with_file_name(n))
        .collect()
}

/// Folds the legacy logs beside `path` into it, in time order, then renames them. Called
/// with the log's exclusive lock held.
fn migrate_locked(path: &Path) -> io::Result<()> {
    let legacy: Vec<PathBuf> = legacy_paths(path)
        .into_iter()
        .filter(|p| p.exists())
        .collect();
    if legacy.is_empty() {
        return Ok(());
    }
    let mut all: Vec<RescheduleLogEntry> = jsonl_store::read_locked(path)?;
    for p in &legacy {
        all.extend(jsonl_store::read_locked::<RescheduleLogEntry>(p)?);
    }
    all.sort_by_key(|e| e.at);
    all.dedup();
    jsonl_store::rewrite_locked(path, &all)?;
    for p in &legacy {
        let mut done = p.file_name().unwrap_or_default().to_os_string();
        done.push(".migrated");
        fs::rename(p, p.with_file_name(done))?;
    }
    Ok(())
}
