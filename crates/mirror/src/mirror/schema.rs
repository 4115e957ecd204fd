//! The database's schema, its version (`PRAGMA user_version`) and the migrations between
//! versions. `PRAGMA application_id` marks a file as a crmdash mirror: a file without it is
//! foreign and is moved aside, never written into.
//!
//! Version 6 (this one) keeps about a third of version 5's bytes per record: the raw record
//! packed (`packed`: each included relation once, known keys as codes), no label or detail
//! (derived when a hit is shown), times as integers, per resource only the indexes its sorts
//! use, a full-text index without positions, and phone digits in a trigram index of their own. Every
//! query the mirror runs is checked against these indexes (`plans` tests). Version 7 added the
//! change feed (`changes`); version 8 keys the relations (`links`) by the record's `rid`, so a
//! first sync appends them instead of writing them all over an index keyed by text ids (it
//! migrates 6 and 7 in place).

use rusqlite::Connection;

use super::Resource;

/// "crmd" in ASCII.
pub const APPLICATION_ID: i64 = 0x6372_6d64;
/// The schema this build writes.
pub const VERSION: i64 = 8;

/// `links.rel`: which relation of which resource a link is, as one small integer (a byte in
/// the table and in its index instead of the relation's name and the resource's noun; the
/// code says the resource, so an account's deals are never mixed with its contacts).
pub mod rel {
    /// A contact's account (`accounts` included with the contact).
    pub const CONTACT_ACCOUNT: i64 = 1;
    /// A deal's account.
    pub const DEAL_ACCOUNT: i64 = 2;
    /// One of a deal's contacts.
    pub const DEAL_CONTACT: i64 = 3;
}

/// The code of a record's relation in `links` (`None`: not kept).
pub fn rel_code(r: Resource, rel: &str) -> Option<i64> {
    match (r, rel) {
        (Resource::Contacts, "account") => Some(rel::CONTACT_ACCOUNT),
        (Resource::Deals, "account") => Some(rel::DEAL_ACCOUNT),
        (Resource::Deals, "contact") => Some(rel::DEAL_CONTACT),
        _ => None,
    }
}

/// The columns each resource's lists sort by, each with a partial index over the resource's
/// live records (`RESOURCE_by_COLUMN`): a page is read in index order, never by sorting
/// them all. A column a resource never sorts by has no index.
pub fn sort_columns(r: Resource) -> &'static [&'static str] {
    match r {
        Resource::Contacts => &[
            "created_us",
            "updated_us",
            "first_lc",
            "last_lc",
            "email_lc",
        ],
        Resource::Deals => &[
            "created_us",
            "updated_us",
            "name_lc",
            "status_lc",
            "value_num",
        ],
        Resource::Projects => &[
            "created_us",
            "updated_us",
            "name_lc",
            "status_lc",
            "start_us",
            "end_us",
        ],
    }
}

/// What every version keeps: sync state and facts about the file (when `PRAGMA
/// quick_check` last passed). Created when missing, never dropped.
const KEPT: &str = "
CREATE TABLE IF NOT EXISTS sync_state (
    resource     TEXT PRIMARY KEY,
    watermark    TEXT,
    last_sync_at TEXT,
    last_full_at TEXT,
    pass_gen     INTEGER NOT NULL DEFAULT 0,
    pass         TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
";

/// Version 6's records. `packed` is the record as the server sent it, packed (`packed.rs`;
/// read it with `packed::stored_raw`); the other columns are for sorting and filtering;
/// times are microseconds since 1970 (UTC).
const RECORDS: &str = "
CREATE TABLE records (
    rid        INTEGER PRIMARY KEY,
    resource   TEXT NOT NULL,
    id         TEXT NOT NULL,
    packed     TEXT NOT NULL,
    name_lc    TEXT,
    first_lc   TEXT,
    last_lc    TEXT,
    email_lc   TEXT,
    status_lc  TEXT,
    value_num  REAL,
    start_us   INTEGER,
    end_us     INTEGER,
    created_us INTEGER,
    updated_us INTEGER,
    seen_pass  INTEGER NOT NULL DEFAULT 0,
    gone_at    TEXT,
    UNIQUE (resource, id)
);
CREATE INDEX records_gone ON records (resource) WHERE gone_at IS NOT NULL;
CREATE TABLE parts (pid INTEGER PRIMARY KEY, hash INTEGER NOT NULL, json TEXT NOT NULL);
CREATE INDEX parts_hash ON parts (hash);
";

/// A record's relations, for lookups the other way round (an account's deals and contacts, a
/// contact's deals), keyed by the record's `rid` (version 8; 6 and 7 keyed them by resource
/// and id): a first sync appends records in `rid` order, so it appends their links too,
/// where text ids (which arrive in creation order, not id order) landed all over the index
/// and every commit and cache spill wrote its pages again. `pos` numbers a record's links;
/// `rel` is a [`rel`] code.
const LINKS: &str = "
CREATE TABLE links (
    rid       INTEGER NOT NULL,
    pos       INTEGER NOT NULL,
    rel       INTEGER NOT NULL,
    target_id TEXT NOT NULL,
    PRIMARY KEY (rid, pos)
) WITHOUT ROWID;
CREATE INDEX links_target ON links (rel, target_id);
";

/// Versions 6 and 7 to 8, in place: the links keyed by `rid` (read from the records by their
/// resource and id), in `rid` order, then the old table (and its index) dropped.
const LINKS_BY_RID: &str = "
CREATE TABLE links_8 (
    rid       INTEGER NOT NULL,
    pos       INTEGER NOT NULL,
    rel       INTEGER NOT NULL,
    target_id TEXT NOT NULL,
    PRIMARY KEY (rid, pos)
) WITHOUT ROWID;
INSERT INTO links_8 (rid, pos, rel, target_id)
  SELECT r.rid, l.pos,
         CASE l.resource || '.' || l.rel
           WHEN 'contacts.account' THEN 1
           WHEN 'deals.account' THEN 2
           WHEN 'deals.contact' THEN 3
         END AS code,
         l.target_id
  FROM links l JOIN records r ON r.resource = l.resource AND r.id = l.id
  WHERE code IS NOT NULL
  ORDER BY r.rid, l.pos;
DROP TABLE links;
ALTER TABLE links_8 RENAME TO links;
CREATE INDEX links_target ON links (rel, target_id);
";

/// The number of live records per resource, kept by triggers, so an unfiltered page knows
/// its total without counting 100,000 rows.
const LIVE_COUNTS: &str = "
CREATE TABLE live_counts (resource TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID;
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

/// The sort indexes of a resource (`CREATE INDEX IF NOT EXISTS`: a first sync drops them for
/// its bulk phase and creates them again at its end, `deferred`).
pub fn sort_indexes(r: Resource) -> String {
    let n = r.noun();
    let mut sql = String::new();
    for col in sort_columns(r) {
        sql.push_str(&format!(
            "CREATE INDEX IF NOT EXISTS {n}_by_{col} ON records ({col}, id) \
             WHERE resource = '{n}' AND gone_at IS NULL;\n"
        ));
    }
    sql
}

/// Per resource: the sort indexes, the full-text index and the trigram index.
fn per_resource(r: Resource) -> String {
    let n = r.noun();
    let mut sql = sort_indexes(r);
    // Contentless (the text is derived from the record), without positions (no phrase is
    // ever asked: every word is a prefix on its own), with prefix indexes so the first
    // keystrokes (`m`, `mu`) read one list instead of merging thousands (from the third
    // character on, the terms sharing a prefix are few: under a millisecond at 100,000).
    sql.push_str(&format!(
        "CREATE VIRTUAL TABLE fts_{n} USING fts5(name, body, content='', contentless_delete=1, \
         detail=column, tokenize='unicode61 remove_diacritics 2', prefix='1 2');\n"
    ));
    // Trigrams of names, for near matches (typos): which trigrams a name has, no positions.
    sql.push_str(&format!(
        "CREATE VIRTUAL TABLE fuzzy_{n} USING fts5(name, content='', contentless_delete=1, \
         tokenize='trigram remove_diacritics 1', detail='none');\n"
    ));
    // Contacts' phone digits: any run of 3+ of them is found as a substring, which needs
    // the trigrams' positions (a run of 4 digits is two trigrams in a row).
    if r == Resource::Contacts {
        sql.push_str(
            "CREATE VIRTUAL TABLE phones USING fts5(digits, content='', contentless_delete=1, \
             tokenize='trigram', detail='full');\n",
        );
    }
    sql
}

/// What versions 1 to 5 made that version 6 replaces (their tables' indexes go with them).
const BEFORE_6: &str = "
DROP TRIGGER IF EXISTS live_insert;
DROP TRIGGER IF EXISTS live_delete;
DROP TRIGGER IF EXISTS live_gone;
DROP TRIGGER IF EXISTS live_back;
DROP TABLE IF EXISTS live_counts;
DROP TABLE IF EXISTS links;
DROP TABLE IF EXISTS records;
DROP TABLE IF EXISTS fts_contacts;
DROP TABLE IF EXISTS fts_deals;
DROP TABLE IF EXISTS fts_projects;
DROP TABLE IF EXISTS fuzzy_contacts;
DROP TABLE IF EXISTS fuzzy_deals;
DROP TABLE IF EXISTS fuzzy_projects;
DROP TABLE IF EXISTS phones;
";

/// Creates the schema in an empty database.
pub fn create(conn: &Connection) -> rusqlite::Result<()> {
    migrate(conn)
}

/// Brings the database to [`VERSION`], one step per version, in one write transaction that
/// reads the version it starts from: two processes opening an old mirror at once migrate it
/// once (the second waits, then finds nothing to do).
///
/// From 6 or 7 to 8 the relations are rewritten keyed by `rid` (`LINKS_BY_RID`: a
/// few seconds for a million contacts), the records stay.
///
/// From 5 or earlier to 6 the records' layout changes entirely: the mirror is a cache, so
/// the step drops the records and their indexes (only the tables versions 1-5 made, by
/// name: a table another part of crmdash added stays) and forgets the sync positions, and
/// the next sync is a full one. Reads never migrate (`open`): until that sync they find no
/// mirror.
pub fn migrate(conn: &Connection) -> rusqlite::Result<()> {
    let tx = rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
    let from: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
    if from >= VERSION {
        return tx.commit();
    }
    tx.execute_batch(KEPT)?;
    if from < 6 {
        tx.execute_batch(BEFORE_6)?;
        tx.execute("DELETE FROM sync_state", [])?;
        tx.execute_batch(RECORDS)?;
        tx.execute_batch(LINKS)?;
        tx.execute_batch(LIVE_COUNTS)?;
        for r in Resource::ALL {
            tx.execute_batch(&per_resource(r))?;
        }
    }
    if from < 7 {
        tx.execute_batch(super::changes::SCHEMA)?;
    }
    if (6..8).contains(&from) {
        tx.execute_batch(LINKS_BY_RID)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID)?;
    tx.pragma_update(None, "user_version", VERSION)?;
    tx.commit()
}
