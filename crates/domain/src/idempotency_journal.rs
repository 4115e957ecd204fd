//! crmdash's own journal of the Idempotency-Keys it sent on creates, so that a retried
//! create replays instead of being refused as a duplicate.
//!
//! A create's duplicate check (look the email up first) is right for a new key and wrong for a
//! retry: after a dropped answer the first attempt's contact exists, and the check would
//! refuse the retry that the key exists to make safe. So before a create is sent its key is
//! written here ([`Journal::sent`]); once the server answers, the contact's id
//! ([`Journal::created`]). A run that finds its key in the journal skips the duplicate check
//! and sends the same key again: the server replays its first answer (same id, nothing new
//! created).
//!
//! The journal is one JSON Lines file in the data directory ([`FILE_NAME`]), shared by
//! concurrent crmdash processes (appends are single writes under a lock, see
//! [`crate::jsonl_store`]). Keys are scoped to a service (its base URL), since the same key
//! means nothing to another instance. It holds keys, base URLs, contact ids and times: never a
//! token or any contact data. Entries older than [`RETENTION_DAYS`] are dropped when the file
//! grows past [`PRUNE_BYTES`].
//!
//! For a batch (an import), read the journal once with [`Journal::snapshot`] and ask the
//! snapshot per row; record each row's key with [`Journal::sent`] right before sending it.

use std::collections::HashMap;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::api::IdempotencyKey;
use crate::jsonl_store::{self, FileLock};

/// The journal's file name in the data directory.
pub const FILE_NAME: &str = "idempotency-journal.jsonl";
/// Past this size, the next write drops entries older than [`RETENTION_DAYS`].
pub const PRUNE_BYTES: u64 = 8 * 1024 * 1024;
/// How long a key is remembered at least.
pub const RETENTION_DAYS: i64 = 90;

/// What crmdash knows of a key it sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyState {
    /// Sent; the answer was not (yet) seen: the create may or may not have happened.
    Sent,
    /// The server answered with success.
    Created,
}

/// One line of the journal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalEntry {
    /// The service, as [`scope_of`] spells its base URL.
    pub scope: String,
    pub key: String,
    pub state: KeyState,
    /// The created contact's id, when the answer carried one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub at: DateTime<Utc>,
}

/// The scope of keys sent to the service at `base_url`.
pub fn scope_of(base_url: &url::Url) -> String {
    base_url.as_str().trim_end_matches('/').to_string()
}

/// The journal file.
#[derive(Debug, Clone)]
pub struct Journal {
    path: PathBuf,
}

impl Journal {
    /// The journal in crmdash's data directory (`None` when the platform has none).
    pub fn in_data_dir() -> Option<Journal> {
        crate::config::data_dir().map(|d| Journal::at(d.join(FILE_NAME)))
    }

    /// A journal at this path (tests, other locations).
    pub fn at(path: impl Into<PathBuf>) -> Journal {
        Journal { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// What the journal knows of `key` at `scope` (its latest entry), if anything.
    pub fn lookup(&self, scope: &str, key: &IdempotencyKey) -> io::Result<Option<JournalEntry>> {
        Ok(self.snapshot(scope)?.get(key).cloned())
    }

    /// Every key of `scope`, read once: for a batch of creates.
    pub fn snapshot(&self, scope: &str) -> io::Result<Snapshot> {
        let entries: Vec<JournalEntry> = jsonl_store::read_all(&self.path)?;
        let mut keys = HashMap::new();
        for e in entries.into_iter().filter(|e| e.scope == scope) {
            merge(&mut keys, e);
        }
        Ok(Snapshot { keys })
    }

    /// Records that a create with `key` is about to be sent. Call it before sending, so a
    /// crash or a dropped answer still leaves the key known.
    pub fn sent(&self, scope: &str, key: &IdempotencyKey) -> io::Result<()> {
        self.write(JournalEntry {
            scope: scope.to_string(),
            key: key.as_str().to_string(),
            state: KeyState::Sent,
            id: None,
            at: Utc::now(),
        })
    }

    /// Records the server's success for `key`, with the created record's id when known.
    pub fn created(&self, scope: &str, key: &IdempotencyKey, id: Option<&str>) -> io::Result<()> {
        self.write(JournalEntry {
            scope: scope.to_string(),
            key: key.as_str().to_string(),
            state: KeyState::Created,
            id: id.map(str::to_string),
            at: Utc::now(),
        })
    }

    fn write(&self, entry: JournalEntry) -> io::Result<()> {
        let _lock = FileLock::acquire(&self.path, true)?;
        let big = std::fs::metadata(&self.path).is_ok_and(|m| m.len() > PRUNE_BYTES);
        if big {
            self.prune_locked()?;
        }
        jsonl_store::append_locked(&self.path, &entry)
    }

    /// Keeps the latest entry of each key younger than the retention.
    fn prune_locked(&self) -> io::Result<()> {
        let cutoff = Utc::now() - chrono::TimeDelta::days(RETENTION_DAYS);
        let mut latest: HashMap<(String, String), JournalEntry> = HashMap::new();
        for e in jsonl_store::read_locked::<JournalEntry>(&self.path)? {
            if e.at >= cutoff {
                let k = (e.scope.clone(), e.key.clone());
                let keep = latest.get(&k).is_none_or(|old| better(&e, old));
                if keep {
                    latest.insert(k, e);
                }
            }
        }
        let mut kept: Vec<JournalEntry> = latest.into_values().collect();
        kept.sort_by_key(|e| e.at);
        jsonl_store::rewrite_locked(&self.path, &kept)
    }
}

/// `new` replaces `old` unless it would forget a created id: `Created` beats `Sent`.
fn better(new: &JournalEntry, old: &JournalEntry) -> bool {
    !(old.state == KeyState::Created && new.state == KeyState::Sent)
}

fn merge(keys: &mut HashMap<String, JournalEntry>, e: JournalEntry) {
    let keep = keys.get(&e.key).is_none_or(|old| better(&e, old));
    if keep {
        keys.insert(e.key.clone(), e);
    }
}

/// The journal's keys of one service at one moment.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    keys: HashMap<String, JournalEntry>,
}

impl Snapshot {
    /// The latest entry of `key`: `Created` (with its id) once any run saw success.
    pub fn get(&self, key: &IdempotencyKey) -> Option<&JournalEntry> {
        self.keys.get(key.as_str())
    }

    /// Whether crmdash ever sent `key`: a create with it must replay, not be refused.
    pub fn was_sent(&self, key: &IdempotencyKey) -> bool {
        self.keys.contains_key(key.as_str())
    }

    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_remembered_per_service_and_created_wins() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::at(dir.path().join(FILE_NAME));
        let k1 = IdempotencyKey::from_stable("k1").unwrap();
        let k2 = IdempotencyKey::from_stable("k2").unwrap();
        assert!(j.lookup("https://a", &k1).unwrap().is_none());
        j.sent("https://a", &k1).unwrap();
        assert_eq!(
            j.lookup("https://a", &k1).unwrap().unwrap().state,
            KeyState::Sent
        );
        j.created("https://a", &k1, Some("42")).unwrap();
        // A later run sends it again: the id stays known.
        j.sent("https://a", &k1).unwrap();
        let e = j.lookup("https://a", &k1).unwrap().unwrap();
        assert_eq!((e.state, e.id.as_deref()), (KeyState::Created, Some("42")));
        assert!(j.lookup("https://b", &k1).unwrap().is_none());
        let snap = j.snapshot("https://a").unwrap();
        assert!(snap.was_sent(&k1) && !snap.was_sent(&k2));
        assert_eq!(snap.len(), 1);
    }

    #[test]
    fn pruning_keeps_recent_keys_and_their_ids() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::at(dir.path().join(FILE_NAME));
        let old = JournalEntry {
            scope: "s".into(),
            key: "old".into(),
            state: KeyState::Created,
            id: None,
            at: Utc::now() - chrono::TimeDelta::days(RETENTION_DAYS + 1),
        };
        jsonl_store::append(j.path(), &old).unwrap();
        let k = IdempotencyKey::from_stable("new").unwrap();
        j.created("s", &k, Some("7")).unwrap();
        j.sent("s", &k).unwrap();
        {
            let _lock = FileLock::acquire(j.path(), true).unwrap();
            j.prune_locked().unwrap();
        }
        let all: Vec<JournalEntry> = jsonl_store::read_all(j.path()).unwrap();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].id.as_deref(), Some("7"));
    }
}
