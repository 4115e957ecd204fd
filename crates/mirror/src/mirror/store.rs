//! The mirror's database: writing pages of records, marking records gone, and the sync state
//! each resource carries between runs. Opening it (creating, migrating, or moving a corrupt
//! or foreign file aside) is `open`'s.

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::changes::{self, Feed};
use super::doc::{Mirrored, sortable};
use super::packed::{Packer, PartCache};
use super::{MirrorError, Resource};

/// A record's row in `records`, in the column order of both the bulk insert and the upsert.
macro_rules! record_row {
    ($r:expr, $rec:expr, $packed:expr, $d:expr, $generation:expr) => {
        params![
            $r.noun(),
            $rec.id(),
            $packed,
            $d.name_lc,
            $d.first_lc,
            $d.last_lc,
            $d.email_lc,
            $d.status_lc,
            $d.value_num,
            $d.start_us,
            $d.end_us,
            $d.created_us,
            $d.updated_us,
            $generation.unwrap_or(0),
        ]
    };
}

/// Writes a record's links (those its resource keeps) through `add`, the links insert.
fn add_links(
    add: &mut rusqlite::CachedStatement<'_>,
    r: Resource,
    rid: i64,
    d: &super::doc::Doc,
) -> rusqlite::Result<()> {
    for (pos, l) in d.links.iter().enumerate() {
        if let Some(code) = super::schema::rel_code(r, l.rel) {
            add.execute(params![rid, pos as i64, code, l.target_id])?;
        }
    }
    Ok(())
}

/// An open mirror. Every method blocks on disk: call them from the blocking pool.
pub struct Mirror {
    pub(super) conn: Connection,
    pub(super) path: PathBuf,
    /// Relations already read (`packed`): a page reads each account and user once.
    pub(super) parts: PartCache,
    /// A sync's lock, held by its connection (dropped after it): released once the last of
    /// the sync's writes is done, even when the sync itself was dropped half way.
    pub(super) sync_lock: Option<super::SyncLock>,
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// What one resource's sync left behind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ResourceStatus {
    pub resource: Option<Resource>,
    pub records: u64,
    /// Records a full sync found missing on the server (kept, hidden from lists and search).
    pub gone: u64,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_full_at: Option<DateTime<Utc>>,
    /// Records changed after this were not seen yet (the next incremental sync asks for them).
    pub watermark: Option<String>,
    /// A full sync was interrupted; the next sync continues it.
    pub resumable: bool,
}

/// The whole mirror at a glance.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MirrorStatus {
    pub path: PathBuf,
    pub bytes: u64,
    pub resources: Vec<ResourceStatus>,
}

/// A full pass under way, saved with the records it read (every few thousand) so a killed
/// sync continues where it stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FullPass {
    /// Records seen by this pass are marked with it; the rest are gone when it completes.
    pub generation: i64,
    /// Where the pass's chain of reads ended (the next read chains onto it); a pass saved by
    /// an older crmdash has none and starts over (with the same generation).
    #[serde(default)]
    pub chain: Option<super::sync::Tail>,
    /// The newest `updated_at` on the server when the pass began: the watermark it leaves.
    pub start_mark: Option<String>,
    pub fetched: u64,
    pub requests: u64,
    /// The resource had no records when the pass began: its records are written without
    /// their search indexes, which are built once when the pass has read everything
    /// (`deferred`). Until then search does not find them (and says so).
    #[serde(default)]
    pub deferred: bool,
}

/// The sync state of one resource.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncState {
    pub watermark: Option<String>,
    pub last_sync_at: Option<DateTime<Utc>>,
    pub last_full_at: Option<DateTime<Utc>>,
    pub generation: i64,
    pub pass: Option<FullPass>,
}

impl SyncState {
    /// When the resource was last synced, if the mirror holds a complete copy of it (a full
    /// sync finished and none is under way): a reading of every record can come from disk.
    pub fn complete_since(&self) -> Option<DateTime<Utc>> {
        self.last_sync_at
            .filter(|_| self.last_full_at.is_some() && self.pass.is_none())
    }
}

/// How a page of records changed the mirror.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    pub inserted: u64,
    pub updated: u64,
    pub unchanged: u64,
}

pub(super) fn parse_time(s: Option<String>) -> Option<DateTime<Utc>> {
    s.and_then(|s| DateTime::parse_from_rfc3339(&s).ok())
        .map(|t| t.with_timezone(&Utc))
}

impl Mirror {
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(super) fn err(&self, e: rusqlite::Error) -> MirrorError {
        MirrorError::sqlite(&self.path, e)
    }

    /// The sync state of a resource (defaults when it was never synced).
    pub fn sync_state(&self, r: Resource) -> Result<SyncState, MirrorError> {
        let row = self
            .conn
            .query_row(
                "SELECT watermark, last_sync_at, last_full_at, pass_gen, pass FROM sync_state WHERE resource = ?1",
                [r.noun()],
                |row| {
                    Ok((
                        row.get::<_, Option<String>>(0)?,
                        row.get::<_, Option<String>>(1)?,
                        row.get::<_, Option<String>>(2)?,
                        row.get::<_, i64>(3)?,
                        row.get::<_, Option<String>>(4)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| self.err(e))?;
        let Some((watermark, last_sync, last_full, generation, pass)) = row else {
            return Ok(SyncState::default());
        };
        Ok(SyncState {
            watermark,
            last_sync_at: parse_time(last_sync),
            last_full_at: parse_time(last_full),
            generation,
            pass: pass.and_then(|p| serde_json::from_str(&p).ok()),
        })
    }

    pub(super) fn put_state(tx: &Connection, r: Resource, s: &SyncState) -> rusqlite::Result<()> {
        let pass = s
            .pass
            .as_ref()
            .map(|p| serde_json::to_string(p).unwrap_or_default());
        tx.execute(
            "INSERT INTO sync_state (resource, watermark, last_sync_at, last_full_at, pass_gen, pass)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (resource) DO UPDATE SET watermark = ?2, last_sync_at = ?3,
               last_full_at = ?4, pass_gen = ?5, pass = ?6",
            params![
                r.noun(),
                s.watermark,
                s.last_sync_at.map(sortable),
                s.last_full_at.map(sortable),
                s.generation,
                pass
            ],
        )?;
        // The deals' history starts at their first full sync: remembered once, never moved.
        if let (Resource::Deals, Some(full)) = (r, s.last_full_at) {
            tx.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES (?1, ?2)",
                params![
                    super::changes::FEED_FROM_DEALS,
                    full.timestamp().to_string()
                ],
            )?;
        }
        Ok(())
    }

    /// Saves a resource's sync state.
    pub fn set_sync_state(&self, r: Resource, s: &SyncState) -> Result<(), MirrorError> {
        Self::put_state(&self.conn, r, s).map_err(|e| self.err(e))
    }

    /// Writes a page of records (marked as seen by `generation` when given) and the state
    /// that follows it, in one transaction: a kill between pages loses nothing written.
    pub fn apply_page<T: Mirrored>(
        &mut self,
        records: &[T],
        generation: Option<i64>,
        state: &SyncState,
    ) -> Result<Applied, MirrorError> {
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let feed = Feed::for_state(state);
        let applied = Self::write_records(&tx, &path, records, generation, feed, true)?;
        Self::put_state(&tx, T::RESOURCE, state).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(applied)
    }

    /// Writes pages of records (each marked as seen by its generation when given) and, when
    /// given, the state they complete, in one transaction: the sync's writer commits a few
    /// thousand records at a time. Without `index` the records' search entries are left
    /// for [`Mirror::build_search_indexes`] (a first full pass).
    pub fn apply_batch<T: Mirrored>(
        &mut self,
        pages: &[(Vec<T>, Option<i64>)],
        state: Option<&SyncState>,
        index: bool,
    ) -> Result<Applied, MirrorError> {
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        let feed = Feed::for_state(&self.sync_state(T::RESOURCE)?);
        let tx = self.conn.transaction().map_err(err)?;
        let mut applied = Applied::default();
        for (records, generation) in pages {
            let a = Self::write_records(&tx, &path, records, *generation, feed, index)?;
            applied.inserted += a.inserted;
            applied.updated += a.updated;
            applied.unchanged += a.unchanged;
        }
        if let Some(s) = state {
            Self::put_state(&tx, T::RESOURCE, s).map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(applied)
    }

    /// Writes records the service just answered with (a contact created in the dashboard,
    /// by `contacts create` or an import), so search finds them before the next sync. The
    /// sync state is left alone: the next sync sees them again and finds them unchanged.
    pub fn upsert<T: Mirrored>(&mut self, records: &[T]) -> Result<Applied, MirrorError> {
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        let feed = Feed::for_state(&self.sync_state(T::RESOURCE)?);
        let tx = self.conn.transaction().map_err(err)?;
        let applied = Self::write_records(&tx, &path, records, None, feed, true)?;
        tx.commit().map_err(err)?;
        Ok(applied)
    }

    pub(super) fn write_records<T: Mirrored>(
        tx: &Connection,
        path: &Path,
        records: &[T],
        generation: Option<i64>,
        feed: Feed,
        index: bool,
    ) -> Result<Applied, MirrorError> {
        let err = |e| MirrorError::sqlite(path, e);
        let mut applied = Applied::default();
        let r = T::RESOURCE;
        let mut packer = Packer::new(tx);
        let parts = PartCache::default();
        {
            let mut find = tx
                .prepare_cached(
                    "SELECT rid, packed, gone_at FROM records WHERE resource = ?1 AND id = ?2",
                )
                .map_err(err)?;
            // One statement for new and changed records, marked seen by this pass (never
            // unmarked: a record written outside a pass keeps the pass that saw it).
            let mut upsert = tx
                .prepare_cached(
                    "INSERT INTO records (resource, id, packed, name_lc, first_lc, last_lc,
                       email_lc, status_lc, value_num, start_us, end_us, created_us, updated_us,
                       seen_pass)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                     ON CONFLICT (resource, id) DO UPDATE SET packed = excluded.packed,
                       name_lc = excluded.name_lc, first_lc = excluded.first_lc,
                       last_lc = excluded.last_lc, email_lc = excluded.email_lc,
                       status_lc = excluded.status_lc, value_num = excluded.value_num,
                       start_us = excluded.start_us, end_us = excluded.end_us,
                       created_us = excluded.created_us, updated_us = excluded.updated_us,
                       seen_pass = max(seen_pass, excluded.seen_pass), gone_at = NULL
                     RETURNING rid",
                )
                .map_err(err)?;
            let mut seen = tx
                .prepare_cached("UPDATE records SET seen_pass = ?2 WHERE rid = ?1")
                .map_err(err)?;
            let mut fts_del = tx
                .prepare_cached(&format!("DELETE FROM fts_{r} WHERE rowid = ?1"))
                .map_err(err)?;
            let mut fts_add = tx
                .prepare_cached(&format!(
                    "INSERT INTO fts_{r} (rowid, name, body) VALUES (?1, ?2, ?3)"
                ))
                .map_err(err)?;
            let mut fuzzy_del = tx
                .prepare_cached(&format!("DELETE FROM fuzzy_{r} WHERE rowid = ?1"))
                .map_err(err)?;
            let mut fuzzy_add = tx
                .prepare_cached(&format!(
                    "INSERT INTO fuzzy_{r} (rowid, name) VALUES (?1, ?2)"
                ))
                .map_err(err)?;
            let phones = r == Resource::Contacts;
            // Keyed by `rid`: a first sync's new records append their links (`schema`).
            let mut links_del = tx
                .prepare_cached("DELETE FROM links WHERE rid = ?1")
                .map_err(err)?;
            let mut links_add = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO links (rid, pos, rel, target_id)
                     VALUES (?1, ?2, ?3, ?4)",
                )
                .map_err(err)?;
            // A first sync's bulk phase (no search entries, no change feed yet): nearly every
            // record is new, so it is inserted at once, and looked for only when its id is
            // taken (a record read twice by overlapping reads).
            let mut insert_new = (!index && feed == Feed::Baseline)
                .then(|| {
                    tx.prepare_cached(
                        "INSERT INTO records (resource, id, packed, name_lc, first_lc, last_lc,
                           email_lc, status_lc, value_num, start_us, end_us, created_us,
                           updated_us, seen_pass)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                    )
                })
                .transpose()
                .map_err(err)?;
            // One id listed twice in a page is written once (the first copy), as the sync's
            // walk keeps it (`sync::walk::distinct`).
            let mut ids = std::collections::HashSet::with_capacity(records.len());
            for rec in records {
                if !ids.insert(rec.id()) {
                    continue;
                }
                let packed = packer.pack(rec.raw().get(), r).map_err(err)?;
                if let Some(insert) = insert_new.as_mut() {
                    let d = rec.columns();
                    let added = insert.execute(record_row!(r, rec, packed, d, generation));
                    match added {
                        Ok(_) => {
                            applied.inserted += 1;
                            add_links(&mut links_add, r, tx.last_insert_rowid(), &d)
                                .map_err(err)?;
                            continue;
                        }
                        // Stored already: found and compared below.
                        Err(rusqlite::Error::SqliteFailure(e, _))
                            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE => {}
                        Err(e) => return Err(err(e)),
                    }
                }
                let existing: Option<(i64, String, Option<String>)> = find
                    .query_row(params![r.noun(), rec.id()], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })
                    .optional()
                    .map_err(err)?;
                let stored = existing.is_some();
                let (rid, d) = match existing {
                    Some((rid, old, gone)) if old == packed && gone.is_none() => {
                        applied.unchanged += 1;
                        if let Some(g) = generation {
                            seen.execute(params![rid, g]).map_err(err)?;
                        }
                        continue;
                    }
                    existing => {
                        // The change feed compares the server's text before and after
                        // (unpacked only when the feed records: never for a baseline).
                        if matches!(feed, Feed::Record(_)) {
                            let old = match existing.as_ref() {
                                Some((_, o, g)) => {
                                    Some((parts.unpack(tx, o).map_err(err)?, g.is_some()))
                                }
                                None => None,
                            };
                            let old = old.as_ref().map(|(o, g)| (o.as_str(), *g));
                            changes::note(tx, feed, r, rec.id(), old, rec.raw().get())
                                .map_err(err)?;
                        }
                        // Without its search entries (a first sync's bulk phase) a record
                        // needs only its columns: its text is derived when they are built.
                        let d = if index { rec.doc() } else { rec.columns() };
                        let rid: i64 = upsert
                            .query_row(record_row!(r, rec, packed, d, generation), |row| row.get(0))
                            .map_err(err)?;
                        if existing.is_some() && index {
                            fts_del.execute([rid]).map_err(err)?;
                            fuzzy_del.execute([rid]).map_err(err)?;
                            if phones {
                                Self::phones_delete(tx, rid).map_err(err)?;
                            }
                        }
                        if existing.is_some() {
                            applied.updated += 1;
                        } else {
                            applied.inserted += 1;
                        }
                        (rid, d)
                    }
                };
                if index {
                    fts_add
                        .execute(params![rid, d.fts_name, d.fts_body])
                        .map_err(err)?;
                    fuzzy_add.execute(params![rid, d.fuzzy_name]).map_err(err)?;
                    if phones && !d.phone_digits.is_empty() {
                        tx.prepare_cached("INSERT INTO phones (rowid, digits) VALUES (?1, ?2)")
                            .and_then(|mut s| s.execute(params![rid, d.phone_digits]))
                            .map_err(err)?;
                    }
                }
                if r == Resource::Deals || r == Resource::Contacts {
                    // Links are written with their record only: a new one has none yet.
                    if stored {
                        links_del.execute([rid]).map_err(err)?;
                    }
                    add_links(&mut links_add, r, rid, &d).map_err(err)?;
                }
            }
        }
        Ok(applied)
    }

    fn phones_delete(tx: &Connection, rid: i64) -> rusqlite::Result<usize> {
        tx.prepare_cached("DELETE FROM phones WHERE rowid = ?1")?
            .execute([rid])
    }

    /// The raw JSON of a stored record (gone ones too) as the server last sent it, `None`
    /// when the mirror has none by that id. Works inside a write transaction (`tx` derefs to
    /// the connection): the way to read a record's previous copy before it is replaced.
    pub fn stored_raw(
        conn: &Connection,
        r: Resource,
        id: &str,
    ) -> Result<Option<String>, rusqlite::Error> {
        super::packed::stored_raw(conn, &PartCache::default(), r, id)
    }

    /// Marks every record of `r` not seen by `generation` as gone (hidden from lists and
    /// search) and saves `state`, in one transaction. Returns how many were marked.
    pub fn finish_full_pass(
        &mut self,
        r: Resource,
        generation: i64,
        state: &SyncState,
    ) -> Result<u64, MirrorError> {
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        // The state before this pass says whether the resource has a baseline yet.
        let feed = Feed::for_state(&self.sync_state(r)?);
        let tx = self.conn.transaction().map_err(err)?;
        // Most passes see every record: one read says so, and the statements below (each
        // of which would read the resource's records again) are skipped.
        if !Self::any_unseen(&tx, r, generation).map_err(err)? {
            Self::put_state(&tx, r, state).map_err(err)?;
            tx.commit().map_err(err)?;
            return Ok(0);
        }
        let now = sortable(Utc::now());
        changes::note_gone(&tx, feed, r, generation).map_err(err)?;
        let mut tables = vec![format!("fts_{r}"), format!("fuzzy_{r}")];
        if r == Resource::Contacts {
            tables.push("phones".to_string());
        }
        for table in tables {
            tx.execute(
                &format!(
                    "DELETE FROM {table} WHERE rowid IN (SELECT rid FROM records
                     WHERE resource = ?1 AND seen_pass < ?2 AND gone_at IS NULL)"
                ),
                params![r.noun(), generation],
            )
            .map_err(err)?;
        }
        let gone = tx
            .execute(
                "UPDATE records SET gone_at = ?3 WHERE resource = ?1 AND seen_pass < ?2 AND gone_at IS NULL",
                params![r.noun(), generation, now],
            )
            .map_err(err)?;
        Self::put_state(&tx, r, state).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(gone as u64)
    }

    /// Whether a live record of `r` was not seen by pass `generation` ([`Mirror::records_of`]).
    fn any_unseen(tx: &Connection, r: Resource, generation: i64) -> rusqlite::Result<bool> {
        let scan = Self::records_of(tx, r)?;
        tx.query_row(
            &format!(
                "SELECT EXISTS (SELECT 1 FROM {scan}
                 WHERE resource = ?1 AND seen_pass < ?2 AND gone_at IS NULL)"
            ),
            params![r.noun(), generation],
            |row| row.get(0),
        )
    }

    /// How to read every live record of `r` (a `FROM` clause): in table order (`NOT
    /// INDEXED`, each page read once) when `r` holds a good share of the file's live records,
    /// else through the (resource, id) index, which visits them in id order, each a lookup of
    /// its row elsewhere in the file (five times the time at 100,000 contacts).
    pub(super) fn records_of(tx: &Connection, r: Resource) -> rusqlite::Result<&'static str> {
        let (live, all): (i64, i64) = tx.query_row(
            "SELECT coalesce((SELECT n FROM live_counts WHERE resource = ?1), 0),
               coalesce((SELECT sum(n) FROM live_counts), 0)",
            [r.noun()],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        Ok(if live.saturating_mul(4) >= all {
            "records NOT INDEXED"
        } else {
            "records"
        })
    }

    /// Counts, sync times and file size.
    pub fn status(&self) -> Result<MirrorStatus, MirrorError> {
        let mut resources = Vec::new();
        for r in Resource::ALL {
            // The live count the triggers keep, and the gone ones from their own index:
            // no record is read.
            let (records, gone): (i64, i64) = self
                .conn
                .prepare_cached(
                    "SELECT coalesce((SELECT n FROM live_counts WHERE resource = ?1), 0),
                       (SELECT count(*) FROM records WHERE resource = ?1 AND gone_at IS NOT NULL)",
                )
                .and_then(|mut s| s.query_row([r.noun()], |row| Ok((row.get(0)?, row.get(1)?))))
                .map_err(|e| self.err(e))?;
            let s = self.sync_state(r)?;
            resources.push(ResourceStatus {
                resource: Some(r),
                records: records as u64,
                gone: gone as u64,
                last_sync_at: s.last_sync_at,
                last_full_at: s.last_full_at,
                watermark: s.watermark,
                resumable: s.pass.is_some(),
            });
        }
        let bytes = ["", "-wal", "-shm"]
            .iter()
            .filter_map(|suffix| {
                let mut p = self.path.clone().into_os_string();
                p.push(suffix);
                std::fs::metadata(p).ok().map(|m| m.len())
            })
            .sum();
        Ok(MirrorStatus {
            path: self.path.clone(),
            bytes,
            resources,
        })
    }
}
