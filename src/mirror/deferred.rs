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

use std::time::Duration;

use rusqlite::{OptionalExtension, params};

use super::changes::Feed;
use super::doc::Mirrored;
use super::packed::PartCache;
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
        let parts = PartCache::default();
        let mut built = 0u64;
        {
            let mut rows = tx
                .prepare(
                    "SELECT rid, packed FROM records
                     WHERE resource = ?1 AND gone_at IS NULL ORDER BY rid",
                )
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
            let mut it = rows.query([r.noun()]).map_err(err)?;
            while let Some(row) = it.next().map_err(err)? {
                let rid: i64 = row.get(0).map_err(err)?;
                let packed: String = row.get(1).map_err(err)?;
                let raw = parts.unpack(&tx, &packed).map_err(err)?;
                let Some(rec) = serde_json::value::RawValue::from_string(raw)
                    .ok()
                    .and_then(|raw| T::from_raw(raw).ok())
                else {
                    continue;
                };
                let d = rec.doc();
                fts.execute(params![rid, d.fts_name, d.fts_body])
                    .map_err(err)?;
                fuzzy.execute(params![rid, d.fuzzy_name]).map_err(err)?;
                if r == Resource::Contacts && !d.phone_digits.is_empty() {
                    phones.execute(params![rid, d.phone_digits]).map_err(err)?;
                }
                built += 1;
            }
        }
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
