//! A first sync's bulk phase. When a full pass starts on a resource the mirror holds no
//! record of, its records are written without their search entries (full-text, trigram and
//! phone indexes), and those are built once, in one transaction, when the pass has read
//! everything: an index filled a few thousand records per transaction rewrites its pages (and
//! FTS5 merges its segments) over and over, which made a first sync write 3.5 times the
//! mirror's size. The pass is saved with `deferred` set, so an interrupted first sync leaves a
//! mirror whose lists answer and whose search says the resource is not indexed yet; the next
//! sync continues the pass the same way and builds the indexes at its end.
//!
//! For the same phase the file leaves write-ahead logging when no other connection has it
//! open (`bulk_journal`): the log writes every page twice (log, then file), a rollback journal
//! keeps only the old content of pages a transaction changes, and pages appended to a growing
//! file have none. Write-ahead logging comes back when the indexes are built (and at the next
//! sync's open, should this one be killed meanwhile).

use std::collections::HashMap;
use std::time::Duration;

use rusqlite::{OptionalExtension, params};

use super::changes::Feed;
use super::doc::{Doc, Mirrored};
use super::packed::PartCache;
use super::packed::fields::{Stored, each_top_level};
use super::packed::text::{part_words as part_words_of, words};
use super::store::{Applied, SyncState};
use super::{Mirror, MirrorError, Resource};

/// A statement named a sort index a first sync's bulk phase dropped.
pub(super) fn no_such_index(e: &rusqlite::Error) -> bool {
    e.to_string().contains("no such index")
}

/// Runs `read` with `hint` (an `INDEXED BY` clause naming a sort index), and again with none
/// when a first sync's bulk phase has dropped that index: the same rows, sorted by SQLite.
/// The error comes before any row (when the statement is prepared, or prepared again at its
/// first step), so nothing `read` hands on is handed twice.
pub(super) fn or_unindexed<T>(
    hint: &str,
    mut read: impl FnMut(&str) -> Result<T, MirrorError>,
) -> Result<T, MirrorError> {
    match read(hint) {
        Err(MirrorError::Sqlite { source, .. }) if no_such_index(&source) => read(""),
        other => other,
    }
}

/// The top-level fields a record's names are made of ([`Mirrored::names`]).
const NAME_KEYS: [&str; 7] = [
    "id",
    "first_name",
    "last_name",
    "full_name",
    "email",
    "phone",
    "name",
];

/// FTS5's `hashsize` while a build fills the full-text index (its default is 1 MiB).
const BUILD_HASH_SIZE: i64 = 8 << 20;

/// Relations whose words a build keeps at most (a CRM with more accounts starts over).
const PART_WORDS_MAX: usize = 8192;

/// A stored record's search entries read from its packed text, without unpacking and
/// decoding the whole record: its names from a record of its name fields alone (decoded as
/// the whole one would be), its words in one scan in which each included relation's words
/// are found once (`part_words`, by part). `None` when the packed text holds what only the
/// whole record can say (a name field that is not plain JSON, a key given twice...): the
/// caller decodes the record.
fn search_doc<T: Mirrored>(
    conn: &rusqlite::Connection,
    parts: &PartCache,
    part_words: &mut HashMap<i64, Option<String>>,
    packed: &str,
) -> Option<Doc> {
    let mut names = String::with_capacity(160);
    names.push('{');
    let mut plain = true;
    each_top_level(packed, |k, v| {
        if !NAME_KEYS.contains(&k) {
            return;
        }
        match v {
            Stored::Json(text) => {
                if names.len() > 1 {
                    names.push(',');
                }
                names.push('"');
                names.push_str(k);
                names.push_str("\":");
                names.push_str(text);
            }
            Stored::Time(_) | Stored::Packed(_) => plain = false,
        }
    })?;
    if !plain {
        return None;
    }
    names.push('}');
    let rec = T::from_raw(serde_json::value::RawValue::from_string(names).ok()?).ok()?;
    let mut d = Doc::default();
    rec.names(&mut d);
    if part_words.len() >= PART_WORDS_MAX {
        part_words.clear();
    }
    let mut body = String::with_capacity(packed.len());
    words(packed, &mut body, &mut |pid: i64, out: &mut String| {
        let w = part_words.entry(pid).or_insert_with(|| {
            let text = parts.get(conn, pid).ok()??;
            let mut w = String::new();
            part_words_of(&text, &mut w).map(|()| w)
        });
        out.push_str(w.as_deref()?);
        Some(())
    })?;
    d.fts_body = body;
    Some(d)
}

impl Mirror {
    /// Whether the mirror holds any record (live or gone) of `r`.
    pub fn has_records(&self, r: Resource) -> Result<bool, MirrorError> {
        self.conn
            .prepare_cached("SELECT 1 FROM records WHERE resource = ?1 LIMIT 1")
            .and_then(|mut s| s.query_row([r.noun()], |_| Ok(())).optional())
            .map(|found| found.is_some())
            .map_err(|e| self.err(e))
    }

    /// Whether `r`'s records wait for their search entries (a first sync under way or
    /// interrupted): search cannot find them until a sync builds them.
    pub fn index_pending(&self, r: Resource) -> Result<bool, MirrorError> {
        Ok(self.sync_state(r)?.pass.is_some_and(|p| p.deferred))
    }

    /// Leaves (`true`) or returns to (`false`) write-ahead logging for a bulk phase. Leaving
    /// it needs the file to itself: when another connection has it open (a dashboard), the
    /// file stays in WAL mode and the sync writes as usual. Returns whether the file is now in
    /// rollback-journal mode.
    pub fn bulk_journal(&self, bulk: bool) -> Result<bool, MirrorError> {
        let want = if bulk { "DELETE" } else { "WAL" };
        // Not the usual 10 s: a reader holding the file is an answer, not a reason to wait.
        let _ = self
            .conn
            .busy_timeout(Duration::from_millis(if bulk { 0 } else { 10_000 }));
        let mode: rusqlite::Result<String> =
            self.conn
                .pragma_update_and_check(None, "journal_mode", want, |r| r.get(0));
        let _ = self.conn.busy_timeout(Duration::from_secs(10));
        match mode {
            Ok(m) => Ok(!m.eq_ignore_ascii_case("wal")),
            // Busy: someone else has the file open.
            Err(e) if bulk && e.sqlite_error_code() == Some(rusqlite::ErrorCode::DatabaseBusy) => {
                Ok(false)
            }
            Err(e) => Err(self.err(e)),
        }
    }

    /// The bulk phase's writes: pages of records (without search entries) and the state they
    /// complete, inside the transaction an earlier call left open (begun when none is); the
    /// writer commits it ever more rarely ([`Mirror::commit_open`]), since every commit
    /// writes again the pages of the indexes keyed by id (records arrive by creation time),
    /// while the records' own pages are appended once whatever the commits.
    pub fn apply_open<T: Mirrored>(
        &mut self,
        pages: &[(Vec<T>, Option<i64>)],
        state: Option<&SyncState>,
    ) -> Result<Applied, MirrorError> {
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        let feed = Feed::for_state(&self.sync_state(T::RESOURCE)?);
        if self.conn.is_autocommit() {
            self.conn.execute_batch("BEGIN IMMEDIATE").map_err(err)?;
        }
        let mut applied = Applied::default();
        for (records, generation) in pages {
            let a = Self::write_records(&self.conn, &path, records, *generation, feed, false)?;
            applied.inserted += a.inserted;
            applied.updated += a.updated;
            applied.unchanged += a.unchanged;
        }
        if let Some(s) = state {
            Self::put_state(&self.conn, T::RESOURCE, s).map_err(err)?;
        }
        Ok(applied)
    }

    /// Commits what [`Mirror::apply_open`] wrote, if anything.
    pub fn commit_open(&mut self) -> Result<(), MirrorError> {
        if !self.conn.is_autocommit() {
            self.conn.execute_batch("COMMIT").map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Drops `r`'s sort indexes for a bulk phase: each would take its pages' share of every
    /// transaction (records arrive by creation, the indexes are by name, email…); created
    /// at the end, each is sorted once and written once. Lists meanwhile read without them
    /// (`rows`: slower, same rows).
    pub fn drop_sort_indexes(&self, r: Resource) -> Result<(), MirrorError> {
        let n = r.noun();
        for col in super::schema::sort_columns(r) {
            self.conn
                .execute_batch(&format!("DROP INDEX IF EXISTS {n}_by_{col};"))
                .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Builds the search entries of every record of `T`'s resource written without them and
    /// its sort indexes, in one transaction that also clears the pass's `deferred` mark: a
    /// kill meanwhile leaves the mark, and the next sync builds them again.
    pub fn build_search_indexes<T: Mirrored>(&mut self) -> Result<u64, MirrorError> {
        let r = T::RESOURCE;
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        let mut state = self.sync_state(r)?;
        let tx = self.conn.transaction().map_err(err)?;
        let mut tables = vec![format!("fts_{r}"), format!("fuzzy_{r}")];
        if r == Resource::Contacts {
            tables.push("phones".to_string());
        }
        // Records written meanwhile by `upsert` (a contact created in the dashboard) have
        // entries already: start from none, so no record gets two.
        for t in &tables {
            tx.execute(&format!("INSERT INTO {t} ({t}) VALUES ('delete-all')"), [])
                .map_err(err)?;
        }
        // Pending entries are written out (a segment, merged with others as they pile up)
        // each time they reach the hash size: 8 MiB instead of FTS5's 1 MiB makes an eighth
        // of the segments and merges for a quarter less CPU. Set for this build only (the
        // config row is removed before the commit; this connection keeps the size).
        tx.execute(
            &format!("INSERT INTO fts_{r} (fts_{r}, rank) VALUES ('hashsize', ?1)"),
            [BUILD_HASH_SIZE],
        )
        .map_err(err)?;
        let parts = PartCache::default();
        let mut built = 0u64;
        let from = Self::records_of(&tx, r).map_err(err)?;
        {
            let mut rows = tx
                .prepare(&format!(
                    "SELECT rid, packed FROM {from}
                     WHERE resource = ?1 AND gone_at IS NULL ORDER BY rid"
                ))
                .map_err(err)?;
            let mut fts = tx
                .prepare(&format!(
                    "INSERT INTO fts_{r} (rowid, name, body) VALUES (?1, ?2, ?3)"
                ))
                .map_err(err)?;
            let mut fuzzy = tx
                .prepare(&format!(
                    "INSERT INTO fuzzy_{r} (rowid, name) VALUES (?1, ?2)"
                ))
                .map_err(err)?;
            let mut phones = tx
                .prepare("INSERT INTO phones (rowid, digits) VALUES (?1, ?2)")
                .map_err(err)?;
            // The words of each included relation (an account, a user), found once.
            let mut part_words: HashMap<i64, Option<String>> = HashMap::new();
            let mut it = rows.query([r.noun()]).map_err(err)?;
            while let Some(row) = it.next().map_err(err)? {
                let rid: i64 = row.get(0).map_err(err)?;
                let packed = row
                    .get_ref(1)
                    .and_then(|v| {
                        v.as_str().map_err(|e| {
                            rusqlite::Error::FromSqlConversionFailure(
                                1,
                                rusqlite::types::Type::Text,
                                Box::new(e),
                            )
                        })
                    })
                    .map_err(err)?;
                let d = match search_doc::<T>(&tx, &parts, &mut part_words, packed) {
                    Some(d) => d,
                    None => {
                        let raw = parts.unpack(&tx, packed).map_err(err)?;
                        let Some(rec) = serde_json::value::RawValue::from_string(raw)
                            .ok()
                            .and_then(|raw| T::from_raw(raw).ok())
                        else {
                            continue;
                        };
                        rec.doc()
                    }
                };
                fts.execute(params![rid, d.fts_name, d.fts_body])
                    .map_err(err)?;
                fuzzy.execute(params![rid, d.fuzzy_name]).map_err(err)?;
                if r == Resource::Contacts && !d.phone_digits.is_empty() {
                    phones.execute(params![rid, d.phone_digits]).map_err(err)?;
                }
                built += 1;
            }
        }
        tx.execute(
            &format!("DELETE FROM fts_{r}_config WHERE k = 'hashsize'"),
            [],
        )
        .map_err(err)?;
        tx.execute_batch(&super::schema::sort_indexes(r))
            .map_err(err)?;
        if let Some(p) = state.pass.as_mut() {
            p.deferred = false;
        }
        Self::put_state(&tx, r, &state).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(built)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{ApiRecord, Client, Contact, Deal, Paging, Project};
    use crate::mirror::sync::SyncQuery;
    use crate::sandbox::{Sandbox, SandboxConfig};

    /// What the build stores for a record read the slow way: unpacked, decoded whole.
    fn decoded<T: Mirrored>(conn: &rusqlite::Connection, packed: &str) -> Doc {
        let raw = PartCache::default().unpack(conn, packed).unwrap();
        T::from_raw(serde_json::value::RawValue::from_string(raw).unwrap())
            .unwrap()
            .doc()
    }

    fn sorted_words(text: &str) -> Vec<&str> {
        let mut w: Vec<&str> = text.split(' ').filter(|w| !w.is_empty()).collect();
        w.sort_unstable();
        w
    }

    /// Compares the build's reading of every stored record of `T` with the decoded one;
    /// returns how many took the packed-text way.
    fn compare<T: Mirrored>(m: &Mirror) -> (usize, usize) {
        let parts = PartCache::default();
        let mut part_words = HashMap::new();
        let mut stmt = m
            .conn
            .prepare("SELECT packed FROM records WHERE resource = ?1")
            .unwrap();
        let stored: Vec<String> = stmt
            .query_map([T::RESOURCE.noun()], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let mut fast = 0;
        for packed in &stored {
            let want = decoded::<T>(&m.conn, packed);
            let Some(got) = search_doc::<T>(&m.conn, &parts, &mut part_words, packed) else {
                continue;
            };
            fast += 1;
            assert_eq!(got.fts_name, want.fts_name, "{packed:?}");
            assert_eq!(got.fuzzy_name, want.fuzzy_name, "{packed:?}");
            assert_eq!(got.phone_digits, want.phone_digits, "{packed:?}");
            assert_eq!(
                sorted_words(&got.fts_body),
                sorted_words(&want.fts_body),
                "{packed:?}"
            );
        }
        (fast, stored.len())
    }

    async fn everything<Q: SyncQuery>(client: &Client) -> Vec<Q::Item> {
        let mut out = Vec::new();
        for page in 1.. {
            let q = Q::everything(Paging {
                page: Some(page),
                per_page: Some(100),
            });
            let got = client.list(&q).await.unwrap();
            let n = got.data.len();
            out.extend(got.data);
            if n < 100 {
                break;
            }
        }
        out
    }

    fn store<T: Mirrored>(m: &mut Mirror, records: Vec<T>) {
        m.apply_open(&[(records, Some(1))], None).unwrap();
        m.commit_open().unwrap();
    }

    #[test]
    fn the_build_reads_from_packed_text_what_the_decoded_record_says() {
        let rt = tokio::runtime::Runtime::new().unwrap();
        let sb = rt
            .block_on(Sandbox::start(SandboxConfig {
                contacts: 1500,
                near_duplicates: true,
                ..SandboxConfig::default()
            }))
            .unwrap();
        let client = Client::new(&sb.base_url(), sb.token().into()).unwrap();
        let (contacts, deals, projects) = rt.block_on(async {
            (
                everything::<crate::api::ContactQuery>(&client).await,
                everything::<crate::api::DealQuery>(&client).await,
                everything::<crate::api::ProjectQuery>(&client).await,
            )
        });
        assert!(contacts.len() > 1500 && !deals.is_empty() && !projects.is_empty());
        let dir = tempfile::tempdir().unwrap();
        let mut m = Mirror::open(&dir.path().join("m.sqlite3")).unwrap().mirror;
        store(&mut m, contacts);
        store(&mut m, deals);
        store(&mut m, projects);
        // Records of odd shapes: keys twice, keys with escapes, names that are numbers,
        // objects or times, relations that are not objects, deep nesting, escapes in text.
        let odd: Vec<(&str, &str)> = vec![
            (
                "con_odd1",
                r#"{"id":"con_odd1","first_name":"Ann","first_name":"Bea","email":"a@b.example","accounts":[{"id":"acc_1","name":"Becker GmbH"},{"id":"acc_1","name":"Becker GmbH"}],"tags":["x","y"]}"#,
            ),
            (
                "con_odd2",
                r#"{"id":"con_odd2","last_n\u0061me":"Zed","custom_fields":{"k":"v\"w\u00e9"}}"#,
            ),
            (
                "con_odd3",
                r#"{"id":"con_odd3","first_name":42,"last_name":{"a":1},"phone":"+49 (30) 1234","assigned_user":"usr_9","assigned_users":[{"data":{"id":"u1"}},7]}"#,
            ),
            (
                "con_odd4",
                r#"{"id":"con_odd4","full_name":"2024-01-14T13:58:23.535415Z","n":[[[[["deep",1.50,-0,1e2]]]]],"consent":{"sms":true,"recorded_at":"2024-01-14T13:58:23.535415Z"}}"#,
            ),
            (
                "con_odd5",
                r#"{"id":"con_odd5","custom_fields":{"a":{"x":1},"b":{"x":2,"x":3}},"email":null}"#,
            ),
        ];
        let odd: Vec<Contact> = odd
            .into_iter()
            .map(|(_, raw)| {
                Contact::from_raw(serde_json::value::RawValue::from_string(raw.into()).unwrap())
                    .unwrap()
            })
            .collect();
        store(&mut m, odd);
        let (fast, all) = compare::<Contact>(&m);
        // Every generated contact takes the fast way; the odd ones may not.
        assert!(fast >= all - 5 && all > 1500, "{fast} of {all}");
        let (fast, all) = compare::<Deal>(&m);
        assert_eq!(fast, all);
        let (fast, all) = compare::<Project>(&m);
        assert_eq!(fast, all);
        // The build itself writes an entry for every live record.
        let built = m.build_search_indexes::<Contact>().unwrap();
        let live: i64 = m
            .conn
            .query_row(
                "SELECT count(*) FROM records WHERE resource = 'contacts'",
                [],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(built, live as u64);
    }
}
