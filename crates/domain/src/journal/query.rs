//! Reading the journal back: by kind, since a time, the last N; what `crmdash log` and the
//! dashboard's `:log` show.

use std::io;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::{WriteKind, WriteRecord, merge};
use crate::jsonl_store::{self, FileLock};

/// Which entries to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only these kinds (all when empty).
    pub kinds: Vec<WriteKind>,
    /// Only writes sent at or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Only the last N of those.
    pub last: Option<usize>,
}

impl Filter {
    fn keeps(&self, e: &WriteRecord) -> bool {
        (self.kinds.is_empty() || self.kinds.contains(&e.kind))
            && self.since.is_none_or(|t| e.at >= t)
    }
}

/// The entries `filter` keeps, oldest first. A missing journal is empty (after merging the
/// earlier logs in, when there are any); lines that do not decode are skipped.
pub fn read(path: &Path, filter: &Filter) -> io::Result<Vec<WriteRecord>> {
    let entries: Vec<WriteRecord> = if path.exists() {
        jsonl_store::read_all(path)?
    } else {
        let _lock = FileLock::acquire(path, true)?;
        merge::merge_once_locked(path)?;
        jsonl_store::read_locked(path)?
    };
    let mut kept: Vec<WriteRecord> = settle_retried(one_per_write(entries))
        .into_iter()
        .filter(|e| filter.keeps(e))
        .collect();
    if let Some(n) = filter.last {
        let skip = kept.len().saturating_sub(n);
        kept.drain(..skip);
    }
    Ok(kept)
}

/// The dashboard's writes that were never sent and not yet offered again, oldest first: those
/// dropped when it ended in their undo window, and those still held at a time older than
/// `stale` (the dashboard that held them was killed; a younger one may still be counting down
/// in another dashboard).
pub fn unsent(path: &Path, stale: DateTime<Utc>) -> io::Result<Vec<WriteRecord>> {
    if !path.exists() {
        return Ok(Vec::new());
    }
    let entries: Vec<WriteRecord> = jsonl_store::read_all(path)?;
    Ok(one_per_write(entries)
        .into_iter()
        .filter(|e| {
            e.who == super::Who::Dashboard
                && ((e.answer.dropped && !e.answer.offered) || (e.answer.held && e.at < stale))
        })
        .collect())
}

/// A write in doubt (its intent, no answer) that a later retry of the same write settled: the
/// same Idempotency-Key, or with none (a reschedule) the same kind, host, appointment and body.
/// It keeps its place and says what settled it.
fn settle_retried(mut entries: Vec<WriteRecord>) -> Vec<WriteRecord> {
    let same = |e: &WriteRecord| match &e.key {
        Some(k) => format!("{}|{}|key|{k}", e.kind.name(), e.host),
        None => format!(
            "{}|{}|{}|{}",
            e.kind.name(),
            e.host,
            e.target.as_deref().unwrap_or(""),
            e.sent
        ),
    };
    let mut answered: std::collections::HashMap<String, String> = Default::default();
    for e in entries.iter_mut().rev() {
        let a = &e.answer;
        // An acceptance, or a refusal of the body itself (a 4xx other than 408 and 429): the
        // first send met the same fate. A 5xx or no answer settles nothing.
        let refused = a
            .status
            .is_some_and(|s| (400..500).contains(&s) && s != 408 && s != 429);
        let settles = !a.pending && !a.held && !a.dropped && !a.taken_back && !a.outcome_unknown;
        if settles && (a.ok || refused) {
            answered.insert(same(e), a.summary());
        } else if a.pending {
            e.answer.settled_by = answered.get(&same(e)).cloned();
        }
    }
    entries
}

/// One entry per write: an answer replaces its intent (same ticket id) in the intent's place,
/// keeping the time it was sent; an intent with no answer stays, in doubt. A write held in
/// the dashboard's undo window shares its id with what came of it (sent, dropped, taken back),
/// and a late line saying it is held never replaces what came of it.
fn one_per_write(entries: Vec<WriteRecord>) -> Vec<WriteRecord> {
    let mut out: Vec<WriteRecord> = Vec::with_capacity(entries.len());
    let mut at: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    for e in entries {
        match e.id.as_ref().and_then(|id| at.get(id).copied()) {
            Some(_) if e.answer.held => {}
            Some(i) => {
                // Sent when its intent was written, not when it was first held.
                let sent_at = if out[i].answer.held { e.at } else { out[i].at };
                out[i] = WriteRecord { at: sent_at, ..e };
            }
            None => {
                if let Some(id) = &e.id {
                    at.insert(id.clone(), out.len());
                }
                out.push(e);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Answer, Who, record};

    #[test]
    fn an_answer_replaces_its_intent_and_an_unanswered_intent_is_in_doubt() {
        use crmdash_api::gate::WriteIntent;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let intent = |key: &str| WriteIntent {
            kind: WriteKind::Api,
            who: Who::Cli,
            profile: "p".into(),
            base_url: "http://127.0.0.1:9".into(),
            target: None,
            sent: serde_json::json!({"method": "POST"}),
            key: Some(key.into()),
            run: None,
            reserved_id: None,
        };
        let first = WriteRecord::intent("t1", &intent("k1"));
        let sent_at = first.at;
        super::super::record_durably(&path, &first).unwrap();
        super::super::record_durably(&path, &WriteRecord::intent("t2", &intent("k2"))).unwrap();
        let mut answer = WriteRecord::new(
            WriteKind::Api,
            Who::Cli,
            "p",
            "http://127.0.0.1:9",
            serde_json::Value::Null,
            Answer::accepted(201),
        )
        .answering("t1");
        answer.key = Some("k1".into());
        record(&path, &answer).unwrap();
        let all = read(&path, &Filter::default()).unwrap();
        assert_eq!(all.len(), 2, "{all:?}");
        assert_eq!(all[0].answer.summary(), "ok 201");
        assert_eq!(all[0].at, sent_at);
        assert!(all[1].answer.pending);
        assert_eq!(
            all[1].answer.summary(),
            "in doubt: sent, no answer recorded"
        );
        assert_eq!(all[1].key.as_deref(), Some("k2"));
    }

    #[test]
    fn a_retry_with_the_same_key_settles_a_write_in_doubt_and_a_503_does_not() {
        use crmdash_api::gate::WriteIntent;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let intent = |key: &str| WriteIntent {
            kind: WriteKind::Create,
            who: Who::Cli,
            profile: "p".into(),
            base_url: "http://127.0.0.1:9".into(),
            target: None,
            sent: serde_json::json!({"email": "a@b.c"}),
            key: Some(key.into()),
            run: None,
            reserved_id: None,
        };
        let answer = |ticket: &str, key: &str, a: Answer| {
            let mut r = WriteRecord::new(
                WriteKind::Create,
                Who::Cli,
                "p",
                "http://127.0.0.1:9",
                serde_json::Value::Null,
                a,
            )
            .answering(ticket);
            r.key = Some(key.into());
            r
        };
        // k1: killed after its intent, then retried: replayed. k2: killed, its retry got a 503.
        super::super::record_durably(&path, &WriteRecord::intent("t1", &intent("k1"))).unwrap();
        super::super::record_durably(&path, &WriteRecord::intent("t2", &intent("k2"))).unwrap();
        super::super::record_durably(&path, &WriteRecord::intent("t3", &intent("k1"))).unwrap();
        let replayed = Answer {
            replayed: true,
            ..Answer::accepted(201)
        };
        record(&path, &answer("t3", "k1", replayed)).unwrap();
        super::super::record_durably(&path, &WriteRecord::intent("t4", &intent("k2"))).unwrap();
        let failed = Answer {
            status: Some(503),
            ..Answer::default()
        };
        record(&path, &answer("t4", "k2", failed)).unwrap();
        let all = read(&path, &Filter::default()).unwrap();
        let said: Vec<String> = all.iter().map(|e| e.answer.summary()).collect();
        assert_eq!(
            said,
            [
                "settled by a retry: replayed 201",
                "in doubt: sent, no answer recorded",
                "replayed 201",
                "failed 503",
            ]
        );
    }

    #[test]
    fn filters_by_kind_time_and_count() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("j.jsonl");
        let t0 = Utc::now();
        for (i, kind) in [WriteKind::Create, WriteKind::Reschedule, WriteKind::Create]
            .into_iter()
            .enumerate()
        {
            let mut e = WriteRecord::new(
                kind,
                Who::Cli,
                "p",
                "http://127.0.0.1:8080",
                serde_json::Value::Null,
                Answer::accepted(200),
            );
            e.at = t0 + chrono::TimeDelta::minutes(i as i64);
            e.target = Some(i.to_string());
            record(&path, &e).unwrap();
        }
        let ids = |f: Filter| -> Vec<String> {
            read(&path, &f)
                .unwrap()
                .into_iter()
                .filter_map(|e| e.target)
                .collect()
        };
        assert_eq!(ids(Filter::default()), ["0", "1", "2"]);
        let creates = Filter {
            kinds: vec![WriteKind::Create],
            ..Filter::default()
        };
        assert_eq!(ids(creates.clone()), ["0", "2"]);
        let since = Filter {
            since: Some(t0 + chrono::TimeDelta::seconds(30)),
            ..Filter::default()
        };
        assert_eq!(ids(since), ["1", "2"]);
        let last = Filter {
            last: Some(1),
            ..creates
        };
        assert_eq!(ids(last), ["2"]);
        assert!(
            read(&dir.path().join("none.jsonl"), &Filter::default())
                .unwrap()
                .is_empty()
        );
    }
}
