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
    let mut kept: Vec<WriteRecord> = entries.into_iter().filter(|e| filter.keeps(e)).collect();
    if let Some(n) = filter.last {
        let skip = kept.len().saturating_sub(n);
        kept.drain(..skip);
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::{Answer, Who, record};

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
