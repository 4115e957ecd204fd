//! The one record of every write crmdash sends: creates, reschedules, import rows and bulk
//! runs, from the CLI and the dashboard alike, in one append-only JSON Lines file in the data
//! directory ([`FILE_NAME`]). Each entry says which profile and service (host with port), what
//! was sent, what the service answered, the Idempotency-Key, and who sent it.
//!
//! Appends are one line, one write, under the file's lock (see [`crate::jsonl_store`]), so
//! concurrent CLI runs and a dashboard share it safely. The first time the journal is written
//! or read, the earlier logs beside it (the reschedule log, the idempotency journal's created
//! keys) are merged in, once: after that the journal file exists and they are not read again.
//! Those files keep their own jobs (the reschedule dialog's history, replaying a retried
//! create's key); the journal is the record.
//!
//! Call [`record`] for each write answered (or refused by the service, or of unknown outcome):
//! a write refused by crmdash itself (`crate::safety`, validation) was not sent and is not
//! journalled. Never holds a token.

mod merge;
mod query;

use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::ApiError;
use crate::jsonl_store::{self, FileLock};
use crmdash_api::gate::{IntentJournal, WriteIntent};

pub use query::{Filter, read, unsent};

/// The journal's file name in the data directory.
pub const FILE_NAME: &str = "write-journal.jsonl";

pub use crmdash_api::gate::{Who, WriteKind};

/// What the service answered.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answer {
    /// The service accepted the write.
    pub ok: bool,
    /// The HTTP status, when an answer arrived.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The service's message on failure.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The answer replayed an earlier one with the same Idempotency-Key.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub replayed: bool,
    /// The request may have reached the service, but no answer came back.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub outcome_unknown: bool,
    /// `updated_at` of the record written, as the server wrote it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_at: Option<String>,
    /// Only the intent is recorded: the write was about to be sent and no answer was recorded
    /// after it (the process ended first, or the answer is still on its way). In doubt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pending: bool,
    /// Confirmed in the dashboard and waiting out its undo window: not sent yet. Still so at
    /// the next start (the dashboard was killed), it counts as dropped ([`unsent`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub held: bool,
    /// Never sent: the dashboard ended (quit, a signal) while it waited in its undo window.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
    /// Never sent: taken back in its undo window.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub taken_back: bool,
    /// A dropped write the dashboard's next start offered as a draft (it is not offered again).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub offered: bool,
    /// Read back only: this write was in doubt, and a later one of the same write (its
    /// Idempotency-Key, or for a reschedule the same appointment and body) was answered: that
    /// answer, which settles it (`replayed` when the first had reached the service).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_by: Option<String>,
}

impl Answer {
    /// A success with this status.
    pub fn accepted(status: u16) -> Answer {
        Answer {
            ok: true,
            status: Some(status),
            ..Answer::default()
        }
    }

    /// The answer of a failed request.
    pub fn failed(e: &ApiError) -> Answer {
        Answer {
            ok: false,
            status: e.status,
            message: Some(e.message.clone()),
            outcome_unknown: e.outcome_unknown,
            ..Answer::default()
        }
    }

    /// `ok 201`, `replayed 201`, `failed 422: …`, `unknown: …`: the answer in a few words.
    pub fn summary(&self) -> String {
        let status = self.status.map(|s| format!(" {s}")).unwrap_or_default();
        let message = self
            .message
            .as_deref()
            .map(|m| format!(": {m}"))
            .unwrap_or_default();
        if let (true, Some(later)) = (self.pending, &self.settled_by) {
            format!("settled by a retry: {later}")
        } else if self.pending {
            "in doubt: sent, no answer recorded".to_string()
        } else if self.held {
            "held: in its undo window, not sent".to_string()
        } else if self.dropped && self.offered {
            "dropped, not sent: the dashboard ended in its undo window (offered as a draft)"
                .to_string()
        } else if self.dropped {
            "dropped, not sent: the dashboard ended in its undo window".to_string()
        } else if self.taken_back {
            "taken back, not sent".to_string()
        } else if self.ok && self.replayed {
            format!("replayed{status}")
        } else if self.ok {
            format!("ok{status}")
        } else if self.outcome_unknown {
            format!("unknown{status}{message}")
        } else {
            format!("failed{status}{message}")
        }
    }
}

/// One write sent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteRecord {
    /// The gate's ticket id (`crmdash_api::gate`): the intent, written before the request
    /// left, and the answer, written after, share it; [`read`] shows them as one write.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// When it was sent.
    pub at: DateTime<Utc>,
    pub kind: WriteKind,
    pub who: Who,
    pub profile: String,
    /// The service's host with its port (`crm.example.com`, `127.0.0.1:39639`).
    pub host: String,
    /// The record written: the appointment's id, or the created contact's id once known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// The body as sent.
    #[serde(default)]
    pub sent: Value,
    /// The Idempotency-Key sent with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub answer: Answer,
    /// The import or bulk run this write belongs to (one id for all of a run's writes), or
    /// the import's file line (`people.csv:17`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<String>,
    /// The earlier log this entry was merged in from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub merged_from: Option<String>,
}

impl WriteRecord {
    /// A write of `kind` by `who` to `profile` at the service at `base_url`, sent now.
    pub fn new(
        kind: WriteKind,
        who: Who,
        profile: &str,
        base_url: &str,
        sent: Value,
        answer: Answer,
    ) -> WriteRecord {
        WriteRecord {
            id: None,
            at: Utc::now(),
            kind,
            who,
            profile: profile.to_string(),
            host: crate::config::host_label(base_url),
            target: None,
            sent,
            key: None,
            answer,
            run: None,
            merged_from: None,
        }
    }
}

impl WriteRecord {
    /// The intent of a write the gate let through, recorded under `id` before it is sent.
    pub fn intent(id: &str, intent: &WriteIntent) -> WriteRecord {
        let mut r = WriteRecord::new(
            intent.kind,
            intent.who,
            &intent.profile,
            &intent.base_url,
            intent.sent.clone(),
            Answer {
                pending: true,
                ..Answer::default()
            },
        );
        r.id = Some(id.to_string());
        r.target = intent.target.clone();
        r.key = intent.key.clone();
        r.run = intent.run.clone();
        r
    }

    /// This entry as the answer to the write whose ticket is `ticket`.
    pub fn answering(mut self, ticket: &str) -> WriteRecord {
        self.id = Some(ticket.to_string());
        self
    }
}

/// The write journal as the gate's [`IntentJournal`]: each intent is one line, synced to the
/// disk before the request leaves. No journal (no data directory) refuses every write.
#[derive(Debug, Clone)]
pub struct JournalFile {
    pub path: Option<PathBuf>,
}

impl IntentJournal for JournalFile {
    fn intend(&self, id: &str, intent: &WriteIntent) -> io::Result<()> {
        let Some(path) = &self.path else {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "no data directory for the write journal",
            ));
        };
        record_durably(path, &WriteRecord::intent(id, intent)).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot write the write journal {}: {e}", path.display()),
            )
        })
    }
}

/// The journal of real profiles (in the data directory), or a `--demo` run's own in its
/// folder (thrown away with it).
pub fn path(demo: bool) -> Option<PathBuf> {
    if demo {
        crate::demo_dir::demo_root().ok().map(|d| d.join(FILE_NAME))
    } else {
        crate::config::data_dir().map(|d| d.join(FILE_NAME))
    }
}

/// Appends one write to the journal at `path` (one line, one write, under the journal's lock),
/// merging the earlier logs beside it in first when the journal is new. What every write path
/// calls once per write sent: the CLI, the dashboard, imports and bulk runs.
pub fn record(path: &Path, entry: &WriteRecord) -> io::Result<()> {
    let _lock = FileLock::acquire(path, true)?;
    merge::merge_once_locked(path)?;
    jsonl_store::append_locked(path, entry)
}

/// [`record`], synced to the disk before it returns (an intent must outlive a kill -9).
pub fn record_durably(path: &Path, entry: &WriteRecord) -> io::Result<()> {
    let _lock = FileLock::acquire(path, true)?;
    merge::merge_once_locked(path)?;
    jsonl_store::append_locked_synced(path, entry)
}

/// [`record`] for a command's own journal, with a warning on stderr when it cannot be
/// written (the write itself happened: the command does not fail for its record).
pub fn record_or_warn(path: Option<&Path>, entry: &WriteRecord) {
    match path {
        Some(p) => {
            if let Err(e) = record(p, entry) {
                crate::say!(
                    "warning: could not write the write journal {}: {e}",
                    p.display()
                );
            }
        }
        None => crate::say!("warning: no data directory for the write journal"),
    }
}
