//! The earlier logs, merged into a new journal once: the reschedule log (with its own legacy
//! names) and the idempotency journal's keys. Called with the journal's exclusive lock held;
//! once the journal file exists nothing is merged again.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use serde_json::Value;

use super::{Answer, Who, WriteKind, WriteRecord};
use crate::idempotency_journal::{self, JournalEntry, KeyState};
use crate::jsonl_store;
use crate::reschedule::{self, RescheduleLogEntry};

/// Writes the journal at `path` from the earlier logs beside it when it does not exist yet.
pub(super) fn merge_once_locked(path: &Path) -> io::Result<()> {
    if path.exists() {
        return Ok(());
    }
    let mut all = Vec::new();
    let reschedules = path.with_file_name(reschedule::log::FILE_NAME);
    let legacy = reschedule::log::LEGACY_NAMES
        .iter()
        .any(|n| path.with_file_name(n).exists());
    if reschedules.exists() || legacy {
        // `read_log` folds the reschedule log's own earlier names in first.
        all.extend(
            reschedule::read_log(&reschedules, usize::MAX)?
                .into_iter()
                .map(from_reschedule),
        );
    }
    let keys = path.with_file_name(idempotency_journal::FILE_NAME);
    if keys.exists() {
        all.extend(created_keys(&keys)?);
    }
    all.sort_by_key(|e| e.at);
    jsonl_store::rewrite_locked(path, &all)
}

fn from_reschedule(e: RescheduleLogEntry) -> WriteRecord {
    WriteRecord {
        id: None,
        at: e.at,
        kind: WriteKind::Reschedule,
        who: Who::Unknown,
        profile: e.profile,
        host: e.host,
        target: Some(e.id),
        sent: Value::Object(e.body),
        key: None,
        answer: Answer {
            updated_at: e.updated_at,
            ..Answer::accepted(200)
        },
        run: None,
        merged_from: Some(reschedule::log::FILE_NAME.to_string()),
    }
}

/// One entry per key: created (with its id) when any run saw success, else of unknown outcome.
fn created_keys(path: &Path) -> io::Result<Vec<WriteRecord>> {
    let mut latest: BTreeMap<(String, String), JournalEntry> = BTreeMap::new();
    for e in jsonl_store::read_all::<JournalEntry>(path)? {
        let k = (e.scope.clone(), e.key.clone());
        let keep = latest
            .get(&k)
            .is_none_or(|old| !(old.state == KeyState::Created && e.state == KeyState::Sent));
        if keep {
            latest.insert(k, e);
        }
    }
    Ok(latest
        .into_values()
        .map(|e| {
            let created = e.state == KeyState::Created;
            WriteRecord {
                id: None,
                at: e.at,
                kind: WriteKind::Create,
                who: Who::Cli,
                profile: String::new(),
                host: crate::config::host_label(&e.scope),
                target: e.id,
                sent: Value::Null,
                key: Some(e.key),
                answer: Answer {
                    ok: created,
                    outcome_unknown: !created,
                    ..Answer::default()
                },
                run: None,
                merged_from: Some(idempotency_journal::FILE_NAME.to_string()),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::IdempotencyKey;
    use chrono::Utc;

    #[test]
    fn earlier_logs_are_merged_once_in_time_order() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join(super::super::FILE_NAME);
        let old = RescheduleLogEntry {
            id: "A1".into(),
            profile: "work".into(),
            host: "crm.example.com".into(),
            body: serde_json::from_str(r#"{"start_time":"2026-12-24T10:00:00Z"}"#).unwrap(),
            updated_at: None,
            at: Utc::now() - chrono::TimeDelta::hours(2),
        };
        // Under a legacy name: the reschedule log folds it in first.
        jsonl_store::append(&dir.path().join(reschedule::log::LEGACY_NAMES[0]), &old).unwrap();
        let keys =
            idempotency_journal::Journal::at(dir.path().join(idempotency_journal::FILE_NAME));
        let k = IdempotencyKey::from_stable("k1").unwrap();
        keys.sent("http://127.0.0.1:9/public/v1", &k).unwrap();
        keys.created("http://127.0.0.1:9/public/v1", &k, Some("7"))
            .unwrap();

        let new = WriteRecord::new(
            WriteKind::Create,
            Who::Dashboard,
            "work",
            "https://crm.example.com",
            Value::Null,
            Answer::accepted(201),
        );
        super::super::record(&journal, &new).unwrap();
        super::super::record(&journal, &new).unwrap();
        let all: Vec<WriteRecord> = jsonl_store::read_all(&journal).unwrap();
        assert_eq!(all.len(), 4, "{all:#?}");
        assert_eq!(all[0].kind, WriteKind::Reschedule);
        assert_eq!(all[0].target.as_deref(), Some("A1"));
        assert_eq!(all[1].key.as_deref(), Some("k1"));
        assert_eq!(all[1].target.as_deref(), Some("7"));
        assert!(all[1].answer.ok);
        assert_eq!(all[1].host, "127.0.0.1:9");
        assert!(all[2..].iter().all(|e| e.merged_from.is_none()));
    }
}
