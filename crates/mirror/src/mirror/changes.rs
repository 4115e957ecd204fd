//! The change feed: what every sync saw move. Where a record's content differs from the
//! mirror's copy, the write that stores it also appends one change (the record's resource and
//! id, when it was seen, its kind and each changed field with its old and new value), in the
//! same transaction. `crmdash changes`, `crmdash watch`, Today and the detail pane's history
//! read them; named cursors remember how far a reader got.
//!
//! Storage is compact (about 100 bytes a change with its indexes): small integers for the
//! resource and kind, seconds for the time, and the fields as one JSON array of
//! `[path, old, new]` triples. The table stands apart from `records`' columns.

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::Serialize;
use serde_json::Value;

use super::store::{Mirror, SyncState};
use super::{MirrorError, Resource};

mod deal_feed;
mod diff;
mod names;
mod raw;

pub use deal_feed::DealFacts;
pub(super) use deal_feed::FEED_FROM_DEALS;
pub use diff::diff_text;
pub use names::RecordFacts;
pub use raw::{
    RawChange, Selection, each_field, four_digit_year, push_json_str, push_time, write_json_line,
};

/// Version 7: the change feed and its readers' cursors.
pub(super) const SCHEMA: &str = "
CREATE TABLE changes (
    seq      INTEGER PRIMARY KEY,
    at       INTEGER NOT NULL,
    resource INTEGER NOT NULL,
    id       TEXT NOT NULL,
    kind     INTEGER NOT NULL,
    fields   TEXT
);
CREATE INDEX changes_at ON changes (at);
CREATE INDEX changes_record ON changes (resource, id);
CREATE TABLE change_cursors (
    name TEXT PRIMARY KEY,
    seq  INTEGER NOT NULL,
    at   INTEGER NOT NULL
) WITHOUT ROWID;
";

/// What happened to a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum ChangeKind {
    /// Seen for the first time (after the resource's first sync, which is a baseline).
    Created,
    /// One or more fields differ from the mirror's copy.
    Updated,
    /// A full sync did not find it on the service any more.
    Gone,
    /// Seen again after it was gone.
    Back,
}

impl ChangeKind {
    pub const fn word(self) -> &'static str {
        match self {
            ChangeKind::Created => "created",
            ChangeKind::Updated => "updated",
            ChangeKind::Gone => "gone",
            ChangeKind::Back => "back",
        }
    }

    const fn code(self) -> i64 {
        self as i64
    }

    fn from_code(c: i64) -> ChangeKind {
        match c {
            0 => ChangeKind::Created,
            1 => ChangeKind::Updated,
            2 => ChangeKind::Gone,
            _ => ChangeKind::Back,
        }
    }
}

fn resource_code(r: Resource) -> i64 {
    match r {
        Resource::Contacts => 0,
        Resource::Deals => 1,
        Resource::Projects => 2,
    }
}

fn resource_from_code(c: i64) -> Resource {
    match c {
        0 => Resource::Contacts,
        1 => Resource::Deals,
        _ => Resource::Projects,
    }
}

/// One changed field: its dotted path (`consent.email`), the value before and after (`null`
/// when absent).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FieldChange {
    pub field: String,
    pub old: Value,
    pub new: Value,
}

/// One change of one record.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordChange {
    /// Increases with every change stored: what cursors remember.
    pub seq: i64,
    /// When the sync saw it.
    pub at: DateTime<Utc>,
    pub resource: Resource,
    pub id: String,
    pub kind: ChangeKind,
    pub fields: Vec<FieldChange>,
}

impl RecordChange {
    /// Whether `field` (or a field under it: `consent` covers `consent.email`) changed.
    pub fn touches(&self, field: &str) -> bool {
        self.fields.iter().any(|f| path_under(&f.field, field))
    }

    pub fn field(&self, name: &str) -> Option<&FieldChange> {
        self.fields.iter().find(|f| f.field == name)
    }
}

fn path_under(path: &str, field: &str) -> bool {
    path == field
        || path
            .strip_prefix(field)
            .is_some_and(|rest| rest.starts_with('.'))
}

/// Which changes to read. Empty lists mean all.
#[derive(Debug, Clone, Default)]
pub struct ChangeQuery {
    /// Only changes stored after this one (a cursor's position).
    pub after_seq: Option<i64>,
    /// Only changes seen at or after this instant.
    pub since: Option<DateTime<Utc>>,
    pub resources: Vec<Resource>,
    pub kinds: Vec<ChangeKind>,
    /// Only changes touching this field (or a field under it).
    pub field: Option<String>,
    pub id: Option<String>,
    /// Newest first (the detail pane, the palette) instead of oldest first.
    pub newest_first: bool,
    pub limit: Option<usize>,
    /// Only the changes a reader shows (Today's), chosen in SQL.
    pub selection: Option<Selection>,
}

/// How a write of records feeds the change log: not at all while a resource's first sync
/// builds its baseline, else with the time the changes were seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Feed {
    Baseline,
    Record(i64),
}

impl Feed {
    /// A resource whose first full sync has not completed is still building its baseline.
    pub(super) fn for_state(state: &SyncState) -> Feed {
        if state.last_full_at.is_some() {
            Feed::Record(Utc::now().timestamp())
        } else {
            Feed::Baseline
        }
    }
}

/// Top-level fields that are not content: the included copies of related records (their
/// ids, `contact_ids` and the like, are compared) and the bookkeeping stamp.
fn ignored(r: Resource, key: &str) -> bool {
    key == "updated_at" || r.include(key).is_some()
}

/// The fields that differ between two parsed records (the reference [`diff_text`] agrees with).
#[cfg(test)]
pub fn diff(r: Resource, old: &Value, new: &Value) -> Vec<FieldChange> {
    let mut out = Vec::new();
    match (old.as_object(), new.as_object()) {
        (Some(o), Some(n)) => diff_objects(r, "", o, n, &mut out),
        _ if old != new => out.push(FieldChange {
            field: String::new(),
            old: old.clone(),
            new: new.clone(),
        }),
        _ => {}
    }
    out
}

#[cfg(test)]
fn diff_objects(
    r: Resource,
    prefix: &str,
    old: &serde_json::Map<String, Value>,
    new: &serde_json::Map<String, Value>,
    out: &mut Vec<FieldChange>,
) {
    let path = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    let top = prefix.is_empty();
    for (k, n) in new {
        if top && ignored(r, k) {
            continue;
        }
        let o = old.get(k).unwrap_or(&Value::Null);
        match (o, n) {
            (Value::Object(o), Value::Object(n)) => diff_objects(r, &path(k), o, n, out),
            (o, n) if o != n => out.push(FieldChange {
                field: path(k),
                old: o.clone(),
                new: n.clone(),
            }),
            _ => {}
        }
    }
    for (k, o) in old {
        if new.contains_key(k) || (top && ignored(r, k)) || o.is_null() {
            continue;
        }
        out.push(FieldChange {
            field: path(k),
            old: o.clone(),
            new: Value::Null,
        });
    }
}

fn encode(fields: &[FieldChange]) -> Option<String> {
    if fields.is_empty() {
        return None;
    }
    let triples: Vec<(&str, &Value, &Value)> = fields
        .iter()
        .map(|f| (f.field.as_str(), &f.old, &f.new))
        .collect();
    serde_json::to_string(&triples).ok()
}

fn decode(text: Option<&str>) -> Vec<FieldChange> {
    let Some(text) = text else {
        return Vec::new();
    };
    serde_json::from_str::<Vec<(String, Value, Value)>>(text)
        .unwrap_or_default()
        .into_iter()
        .map(|(field, old, new)| FieldChange { field, old, new })
        .collect()
}

/// The hook where records are written: `old` is the mirror's copy (its raw JSON and whether
/// it was gone), `new` what the service sent. Appends the change, if there is one.
pub(super) fn note(
    tx: &Connection,
    feed: Feed,
    r: Resource,
    id: &str,
    old: Option<(&str, bool)>,
    new: &str,
) -> rusqlite::Result<()> {
    let Feed::Record(at) = feed else {
        return Ok(());
    };
    let (kind, fields) = match old {
        None => (ChangeKind::Created, Vec::new()),
        Some((old, gone)) => {
            let fields = diff_text(r, old, new);
            match (gone, fields.is_empty()) {
                (true, _) => (ChangeKind::Back, fields),
                (false, true) => return Ok(()),
                (false, false) => (ChangeKind::Updated, fields),
            }
        }
    };
    insert(tx, at, r, id, kind, encode(&fields))
}

fn insert(
    tx: &Connection,
    at: i64,
    r: Resource,
    id: &str,
    kind: ChangeKind,
    fields: Option<String>,
) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO changes (at, resource, id, kind, fields) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![at, resource_code(r), id, kind.code(), fields])?;
    Ok(())
}

/// The hook where a full pass marks records gone: one `gone` change for each record of `r`
/// it did not see (called before they are marked).
pub(super) fn note_gone(
    tx: &Connection,
    feed: Feed,
    r: Resource,
    generation: i64,
) -> rusqlite::Result<()> {
    let Feed::Record(at) = feed else {
        return Ok(());
    };
    tx.execute(
        "INSERT INTO changes (at, resource, id, kind)
         SELECT ?1, ?2, id, ?3 FROM records
         WHERE resource = ?4 AND seen_pass < ?5 AND gone_at IS NULL ORDER BY id",
        params![
            at,
            resource_code(r),
            ChangeKind::Gone.code(),
            r.noun(),
            generation
        ],
    )?;
    Ok(())
}

/// Where a named reader of the feed got to, and when it was last moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cursor {
    pub seq: i64,
    pub at: DateTime<Utc>,
}

fn from_secs(s: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(s, 0).unwrap_or_default()
}

impl Mirror {
    /// The newest change's sequence number (0 when there is none).
    pub fn last_change_seq(&self) -> Result<i64, MirrorError> {
        self.conn
            .query_row("SELECT coalesce(max(seq), 0) FROM changes", [], |r| {
                r.get(0)
            })
            .map_err(|e| self.err(e))
    }

    /// When the feed last saw record `id` of `r` change (`None`: it holds no change of it).
    pub fn last_change_at(
        &self,
        r: Resource,
        id: &str,
    ) -> Result<Option<DateTime<Utc>>, MirrorError> {
        self.conn
            .prepare_cached("SELECT max(at) FROM changes WHERE resource = ?1 AND id = ?2")
            .and_then(|mut s| {
                s.query_row(params![resource_code(r), id], |row| {
                    row.get::<_, Option<i64>>(0)
                })
            })
            .map(|at| at.map(from_secs))
            .map_err(|e| self.err(e))
    }

    /// Deletes changes seen before `before`; returns how many.
    pub fn prune_changes(&self, before: DateTime<Utc>) -> Result<u64, MirrorError> {
        self.conn
            .execute("DELETE FROM changes WHERE at < ?1", [before.timestamp()])
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }

    /// A named cursor, if it was ever set.
    pub fn cursor(&self, name: &str) -> Result<Option<Cursor>, MirrorError> {
        self.conn
            .query_row(
                "SELECT seq, at FROM change_cursors WHERE name = ?1",
                [name],
                |r| {
                    Ok(Cursor {
                        seq: r.get(0)?,
                        at: from_secs(r.get(1)?),
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Moves a named cursor to `seq` (never backwards), stamped `at`.
    pub fn set_cursor(&self, name: &str, seq: i64, at: DateTime<Utc>) -> Result<(), MirrorError> {
        self.conn
            .execute(
                "INSERT INTO change_cursors (name, seq, at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (name) DO UPDATE SET seq = max(seq, ?2), at = ?3",
                params![name, seq, at.timestamp()],
            )
            .map(|_| ())
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_reads_dotted_paths_and_leaves_out_the_stamp_and_includes() {
        let old = json!({"id": "d1", "status": "open", "value": "12000.00",
            "consent": {"email": false, "sms": true}, "updated_at": "a",
            "contacts": [{"id": "c1", "name": "A"}], "tags": ["x"], "probability": 10});
        let new = json!({"id": "d1", "status": "won", "value": "12000.00",
            "consent": {"email": true, "sms": true}, "updated_at": "b",
            "contacts": [{"id": "c1", "name": "B"}], "tags": ["x", "y"]});
        let d = diff(Resource::Deals, &old, &new);
        let got: Vec<(&str, Value, Value)> = d
            .iter()
            .map(|f| (f.field.as_str(), f.old.clone(), f.new.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("consent.email", json!(false), json!(true)),
                ("status", json!("open"), json!("won")),
                ("tags", json!(["x"]), json!(["x", "y"])),
                ("probability", json!(10), Value::Null),
            ]
        );
    }

    #[test]
    fn the_stamp_alone_is_no_change() {
        let old = json!({"id": "c", "name": "A", "updated_at": "1"});
        let new = json!({"id": "c", "name": "A", "updated_at": "2"});
        assert!(diff(Resource::Contacts, &old, &new).is_empty());
    }

    #[test]
    fn fields_round_trip_and_a_field_covers_its_subfields() {
        let fields = vec![FieldChange {
            field: "consent.email".into(),
            old: json!(false),
            new: json!(true),
        }];
        let text = encode(&fields);
        assert_eq!(text.as_deref(), Some(r#"[["consent.email",false,true]]"#));
        let c = RecordChange {
            seq: 1,
            at: Utc::now(),
            resource: Resource::Contacts,
            id: "c".into(),
            kind: ChangeKind::Updated,
            fields: decode(text.as_deref()),
        };
        assert!(c.touches("consent"));
        assert!(c.touches("consent.email"));
        assert!(!c.touches("cons"));
    }
}
