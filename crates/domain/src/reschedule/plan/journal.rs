//! The run journal of reschedule plans: what became of each change (an appointment id with
//! its exact body, [`super::PlanRow::key`]) at one service, so that a re-run after Ctrl-C,
//! a crash or `kill -9` sends only what is not done, and never a change twice.
//!
//! API v1's reschedule takes no Idempotency-Key (the seed names one for contact creation
//! only), so the server cannot tell a repeat. Instead a row is claimed here (`sending`) just
//! before its request goes out, under the file's lock, and its answer recorded after
//! (`done`, or `failed` when the service refused it: nothing was changed). A row left at
//! `sending` is in doubt: the request may have been applied and its answer lost. A re-run
//! does not send it again unless asked (`--resend-in-doubt`); two runs at once never both
//! send one row, since the claim re-reads what other runs wrote since.
//!
//! One JSON Lines file in the data directory ([`FILE_NAME`]), shared like the reschedule
//! log (see [`crate::jsonl_store`]); it holds ids, keys, hosts and times, never a token.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::jsonl_store::{self, FileLock};

/// The journal's file name in the data directory.
pub const FILE_NAME: &str = "reschedule-plans.jsonl";
/// Past this size, a run's first claim drops entries older than [`RETENTION_DAYS`].
pub const PRUNE_BYTES: u64 = 8 * 1024 * 1024;
/// How long a change is remembered at least.
pub const RETENTION_DAYS: i64 = 90;

/// What is known of one change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowState {
    /// Its request is about to go out, or went out and no answer was recorded.
    Sending,
    /// The service moved the appointment.
    Done,
    /// The service refused it (an answer, so nothing was changed): a re-run may send it.
    Failed,
}

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The service (`host:port`, as the reschedule log spells it).
    pub host: String,
    pub key: String,
    pub id: String,
    pub state: RowState,
    pub at: DateTime<Utc>,
    /// Which run wrote it (its process id and start), to tell its own claims apart.
    pub run: String,
}

/// The journal file, as one run uses it.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    host: String,
    run: String,
    /// Latest entry per key of this host, and how far the file was read.
    seen: Mutex<(HashMap<String, JournalEntry>, u64)>,
    /// When each key's entry found at the start was written.
    initial: HashMap<String, DateTime<Utc>>,
}

/// Whether a claim went through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Claim {
    /// Recorded as `sending`: send it.
    Go,
    /// Another run sent (or is sending) it since this run started.
    Taken(JournalEntry),
}

impl Journal {
    /// The journal in crmdash's data directory (`None` when the platform has none).
    pub fn default_path(demo: bool) -> Option<PathBuf> {
        crate::reschedule::log::path(demo).map(|p| p.with_file_name(FILE_NAME))
    }

    /// Opens the journal at `path` for a run against `host`, reading what it holds.
    pub fn open(path: impl Into<PathBuf>, host: &str) -> io::Result<Journal> {
        let mut j = Journal {
            path: path.into(),
            host: host.to_string(),
            run: format!(
                "{}@{}.{:08x}",
                std::process::id(),
                Utc::now().timestamp_millis(),
                rand::random::<u32>()
            ),
            seen: Mutex::new((HashMap::new(), 0)),
            initial: HashMap::new(),
        };
        {
            let _lock = FileLock::acquire(&j.path, false)?;
            j.catch_up()?;
        }
        let initial = j.lock().0.iter().map(|(k, e)| (k.clone(), e.at)).collect();
        j.initial = initial;
        Ok(j)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The latest entry of `key`, as last read.
    pub fn state(&self, key: &str) -> Option<JournalEntry> {
        self.lock().0.get(key).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<String, JournalEntry>, u64)> {
        self.seen.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Reads the lines appended since the last read (with a lock held). A shorter file was
    /// rewritten (pruned): read it whole again.
    fn catch_up(&self) -> io::Result<()> {
        let mut seen = self.lock();
        let mut file = match File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let len = file.metadata()?.len();
        if len < seen.1 {
            *seen = (HashMap::new(), 0);
        }
        file.seek(SeekFrom::Start(seen.1))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        // Only whole lines: a line being written is read next time.
        let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
        for line in bytes[..whole].split(|b| *b == b'\n') {
            if let Ok(e) = serde_json::from_slice::<JournalEntry>(line)
                && e.host == self.host
            {
                seen.0.insert(e.key.clone(), e);
            }
        }
        seen.1 += whole as u64;
        Ok(())
    }

    /// Claims `key` for this run just before its request goes out: refused when another
    /// run wrote `sending` or `done` for it since this run last read the journal.
    pub fn claim(&self, key: &str, id: &str) -> io::Result<Claim> {
        let _lock = FileLock::acquire(&self.path, true)?;
        let big = std::fs::metadata(&self.path).is_ok_and(|m| m.len() > PRUNE_BYTES);
        if big {
            prune_locked(&self.path)?;
        }
        self.catch_up()?;
        if let Some(e) = self.state(key)
            && e.run != self.run
            && matches!(e.state, RowState::Sending | RowState::Done)
            && self.claimed_elsewhere(&e)
        {
            return Ok(Claim::Taken(e));
        }
        self.write_locked(key, id, RowState::Sending)?;
        Ok(Claim::Go)
    }

    /// Whether an entry of another run stands against a claim: always, except the entry
    /// this run found at its start (an in-doubt row the caller chose to send again).
    fn claimed_elsewhere(&self, e: &JournalEntry) -> bool {
        self.initial.get(&e.key) != Some(&e.at)
    }

    /// Records the answer of a claimed row.
    pub fn answered(&self, key: &str, id: &str, state: RowState) -> io::Result<()> {
        let _lock = FileLock::acquire(&self.path, true)?;
        self.write_locked(key, id, state)
    }

    fn write_locked(&self, key: &str, id: &str, state: RowState) -> io::Result<()> {
        let entry = JournalEntry {
            host: self.host.clone(),
            key: key.to_string(),
            id: id.to_string(),
            state,
            at: Utc::now(),
            run: self.run.clone(),
        };
        jsonl_store::append_locked(&self.path, &entry)?;
        let mut seen = self.lock();
        seen.0.insert(key.to_string(), entry);
        Ok(())
    }
}

/// Keeps the latest entry of each (host, key) younger than the retention.
fn prune_locked(path: &Path) -> io::Result<()> {
    let cutoff = Utc::now() - chrono::TimeDelta::days(RETENTION_DAYS);
    let mut latest: HashMap<(String, String), JournalEntry> = HashMap::new();
    for e in jsonl_store::read_locked::<JournalEntry>(path)? {
        if e.at >= cutoff {
            latest.insert((e.host.clone(), e.key.clone()), e);
        }
    }
    let mut kept: Vec<JournalEntry> = latest.into_values().collect();
    kept.sort_by_key(|e| e.at);
    jsonl_store::rewrite_locked(path, &kept)
}
