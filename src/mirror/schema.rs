//! The database's schema, its version (`PRAGMA user_version`) and the migrations between
//! versions. `PRAGMA application_id` marks a file as a crmdash mirror: a file without it is
//! foreign and is moved aside, never written into.

use rusqlite::Connection;

/// "crmd" in ASCII.
pub const APPLICATION_ID: i64 = 0x6372_6d64;
/// The schema this build writes.
pub const VERSION: i64 = 7;

/// The columns a tab sorts by. Version 3 indexes each (live records only), so a page is read
/// in index order: the first page of 100,000 contacts in about a millisecond instead of a
/// sort of them all.
pub const SORT_COLUMNS: [&str; 10] = [
    "created_at",
    "updated_at",
    "name_lc",
    "first_lc",
    "last_lc",
    "email_lc",
    "status_lc",
    "value_num",
    "start_date",
    "end_date",
];

/// Version 1: records, relations, sync state and the full-text indexes.
const V1: &str = "
CREATE TABLE records (
    rid        INTEGER PRIMARY KEY,
    resource   TEXT NOT NULL,
    id         TEXT NOT NULL,
    raw        TEXT NOT NULL,
    label      TEXT NOT NULL,
    detail     TEXT NOT NULL,
    name_lc    TEXT,
    first_lc   TEXT,
    last_lc    TEXT,
    email_lc   TEXT,
    status_lc  TEXT,
    value_num  REAL,
    start_date TEXT,
    end_date   TEXT,
    created_at TEXT,
    updated_at TEXT,
    seen_pass  INTEGER NOT NULL DEFAULT 0,
    synced_at  TEXT NOT NULL,
    gone_at    TEXT,
    UNIQUE (resource, id)
);
CREATE INDEX records_created ON records (resource, created_at, id);
CREATE INDEX records_updated ON records (resource, updated_at, id);
CREATE TABLE links (
    resource  TEXT NOT NULL,
    id        TEXT NOT NULL,
    rel       TEXT NOT NULL,
    pos       INTEGER NOT NULL,
    target_id TEXT NOT NULL,
    PRIMARY KEY (resource, id, rel, pos)
) WITHOUT ROWID;
CREATE INDEX links_target ON links (rel, target_id);
CREATE TABLE sync_state (
    resource     TEXT PRIMARY KEY,
    watermark    TEXT,
    last_sync_at TEXT,
    last_full_at TEXT,
    pass_gen     INTEGER NOT NULL DEFAULT 0,
    pass         TEXT
);
";

/// Full-text tables, one per resource (so results come grouped and ranked per resource).
fn fts_tables(version: i64) -> String {
    let mut sql = String::new();
    for r in ["contacts", "deals", "projects"] {
        if version == 1 {
            // Contentless: the text lives in `records`; rows are deleted by rowid.
            sql.push_str(&format!(
                "CREATE VIRTUAL TABLE fts_{r} USING fts5(name, body, content='', contentless_delete=1, \
                 tokenize='unicode61 remove_diacritics 2', prefix='1 2 3');\n"
            ));
        } else {
            // Version 2: a trigram index of labels for the tolerant fallback search.
            sql.push_str(&format!(
                "CREATE VIRTUAL TABLE fuzzy_{r} USING fts5(name, content='', contentless_delete=1, \
                 tokenize='trigram remove_diacritics 1', detail='none');\n"
            ));
        }
    }
    sql
}

/// Version 4: the number of live records per resource, kept by triggers, so an unfiltered
/// page knows its total without counting 100,000 rows (about 5 ms) at every start.
const LIVE_COUNTS: &str = "
CREATE TABLE live_counts (resource TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
INSERT INTO live_counts (resource, n)
  SELECT resource, count(*) FROM records WHERE gone_at IS NULL GROUP BY resource;
CREATE TRIGGER live_insert AFTER INSERT ON records WHEN new.gone_at IS NULL BEGIN
  INSERT INTO live_counts (resource, n) VALUES (new.resource, 1)
    ON CONFLICT (resource) DO UPDATE SET n = n + 1;
END;
CREATE TRIGGER live_delete AFTER DELETE ON records WHEN old.gone_at IS NULL BEGIN
  UPDATE live_counts SET n = n - 1 WHERE resource = old.resource;
END;
CREATE TRIGGER live_gone AFTER UPDATE OF gone_at ON records
  WHEN old.gone_at IS NULL AND new.gone_at IS NOT NULL BEGIN
  UPDATE live_counts SET n = n - 1 WHERE resource = old.resource;
END;
CREATE TRIGGER live_back AFTER UPDATE OF gone_at ON records
  WHEN old.gone_at IS NOT NULL AND new.gone_at IS NULL BEGIN
  INSERT INTO live_counts (resource, n) VALUES (new.resource, 1)
    ON CONFLICT (resource) DO UPDATE SET n = n + 1;
END;
";

/// Version 5: facts about the file itself (when `PRAGMA quick_check` last passed).
const META: &str = "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;";

/// Creates the schema in an empty database.
pub fn create(conn: &Connection) -> rusqlite::Result<()> {
    migrate(conn)
}

/// Brings the database to [`VERSION`], one step per version, in one write transaction that
/// reads the version it starts from: two processes opening an old mirror at once migrate it
/// once (the second waits, then finds nothing to do). Indexes added by a step are filled
/// from the records already there.
pub fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let from: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if from >= VERSION {
        return tx.commit();
    }
    if from < 1 {
        tx.execute_batch(V1)?;
        tx.execute_batch(&fts_tables(1))?;
    }
    if from < 2 {
        tx.execute_batch(&fts_tables(2))?;
        for r in ["contacts", "deals", "projects"] {
            tx.execute(
                &format!(
                    "INSERT INTO fuzzy_{r} (rowid, name) SELECT rid, label FROM records \
                     WHERE resource = ?1 AND gone_at IS NULL"
                ),
                [r],
            )?;
        }
    }
    if from < 3 {
        for col in SORT_COLUMNS {
            tx.execute_batch(&format!(
                "CREATE INDEX IF NOT EXISTS live_{col} ON records (resource, {col}, id) WHERE gone_at IS NULL;"
            ))?;
        }
    }
    if from < 4 {
        tx.execute_batch(LIVE_COUNTS)?;
    }
    if from < 5 {
        tx.execute_batch(META)?;
    }
    if from < 7 {
        tx.execute_batch(super::changes::SCHEMA)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.pragma_update(None, "user_version", VERSION)?;
    tx.commit()
}
