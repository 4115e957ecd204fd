//! The mirror's database: opening (creating, migrating, or moving a corrupt or foreign file
//! aside and starting over), writing pages of records, marking records gone, and the sync
//! state each resource carries between runs.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};
use serde::{Deserialize, Serialize};

use super::doc::{Mirrored, sortable};
use super::error::is_corrupt;
use super::{MirrorError, Resource, paths, schema};

/// An open mirror. Every method blocks on disk: call them from the blocking pool.
pub struct Mirror {
    pub(super) conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for Mirror {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Mirror")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

/// An opened mirror, and where a damaged or foreign file found at its place was moved.
#[derive(Debug)]
pub struct Opened {
    pub mirror: Mirror,
    pub moved_aside: Option<PathBuf>,
}

/// Why a file at the mirror's place cannot be used as it is.
enum Unusable {
    /// Not a crmdash mirror (another program's database, or a newer schema).
    Foreign(String),
    Damaged(rusqlite::Error),
}

impl Unusable {
    fn reason(&self) -> String {
        match self {
            Unusable::Foreign(s) => s.clone(),
            Unusable::Damaged(e) => e.to_string(),
        }
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

/// A full pass under way, saved with every page so a killed sync continues where it stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FullPass {
    /// Records seen by this pass are marked with it; the rest are gone when it completes.
    pub generation: i64,
    pub next_page: u32,
    /// `meta.total` of the last page read (a drop means records were deleted mid-pass).
    pub last_total: Option<u64>,
    /// The newest `updated_at` on the server when the pass began: the watermark it leaves.
    pub start_mark: Option<String>,
    pub fetched: u64,
    pub requests: u64,
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

fn parse_time(s: Option<String>) -> Option<DateTime<Utc>> {
    s.and_then(|s| DateTime::parse_from_rfc3339(&s).ok())
        .map(|t| t.with_timezone(&Utc))
}

/// What was found at a mirror's place.
enum Found {
    Ready(Mirror),
    /// An empty database (no crmdash schema yet): as if there were none.
    Empty,
    Unusable(Unusable),
}

/// How often a sync runs `PRAGMA quick_check` on a mirror that gave no sign of damage.
pub const CHECK_EVERY: chrono::TimeDelta = chrono::TimeDelta::hours(24);

impl Mirror {
    /// Opens the mirror at `path` for a sync, creating it (0600, in a 0700 directory it
    /// creates) when there is none. A file that is not a database, is damaged, or is not a
    /// crmdash mirror is renamed `*.corrupt-TIMESTAMP` and a fresh mirror takes its place.
    /// Only a sync (holding the mirror's [`super::SyncLock`]) calls this.
    pub fn open(path: &Path) -> Result<Opened, MirrorError> {
        if let Some(dir) = path.parent() {
            paths::ensure_dir(dir)?;
        }
        let found = match std::fs::metadata(path) {
            Ok(m) if m.len() > 0 => {
                Self::try_open(path).map_err(|e| MirrorError::sqlite(path, e))?
            }
            _ => Found::Empty,
        };
        match found {
            Found::Ready(mirror) => Ok(Opened {
                mirror,
                moved_aside: None,
            }),
            Found::Empty => Ok(Opened {
                mirror: Self::create(path)?,
                moved_aside: None,
            }),
            Found::Unusable(why) => {
                let reason = why.reason();
                tracing::warn!(path = %path.display(), %reason, "mirror unusable; moving it aside");
                let aside = move_aside(path)?;
                Ok(Opened {
                    mirror: Self::create(path)?,
                    moved_aside: Some(aside),
                })
            }
        }
    }

    /// Opens an existing mirror for reading, or `None` when there is none. A read never
    /// creates, moves or rebuilds anything: a damaged or foreign file is
    /// [`MirrorError::Damaged`]; nothing is written beside it (the next sync checks it).
    pub fn open_existing(path: &Path) -> Result<Option<Opened>, MirrorError> {
        match std::fs::metadata(path) {
            Ok(m) if m.len() > 0 => {}
            Ok(_) => return Ok(None),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(MirrorError::Io {
                    action: "cannot read",
                    path: path.to_path_buf(),
                    source: e,
                });
            }
        }
        match Self::try_open(path) {
            Ok(Found::Ready(mirror)) => Ok(Some(Opened {
                mirror,
                moved_aside: None,
            })),
            Ok(Found::Empty) => Ok(None),
            Ok(Found::Unusable(why)) => Err(MirrorError::Damaged {
                path: path.to_path_buf(),
                reason: why.reason(),
            }
            .for_read()),
            Err(e) => Err(MirrorError::sqlite(path, e).for_read()),
        }
    }

    /// Builds a fresh mirror beside `path` and moves it into place in one rename: other
    /// processes see no mirror or a complete one, never one half made.
    fn create(path: &Path) -> Result<Mirror, MirrorError> {
        let mut tmp = path.as_os_str().to_owned();
        tmp.push(format!("{}{}", paths::CREATING_MARK, std::process::id()));
        let tmp = PathBuf::from(tmp);
        let sq = |e| MirrorError::sqlite(path, e);
        for stale in [&tmp, path] {
            remove_with_journals(stale);
        }
        paths::ensure_private_file(&tmp)?;
        {
            let conn = Connection::open_with_flags(
                &tmp,
                OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(sq)?;
            set_wal(&conn).map_err(sq)?;
            schema::create(&conn).map_err(sq)?;
            conn.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES ('checked_at', ?1)",
                [sortable(Utc::now())],
            )
            .map_err(sq)?;
            // Closing checkpoints the journal into the file, so the rename moves all of it.
            conn.close().map_err(|(_, e)| sq(e))?;
        }
        std::fs::rename(&tmp, path).map_err(|e| MirrorError::Io {
            action: "cannot move into place",
            path: tmp.clone(),
            source: e,
        })?;
        match Self::try_open(path).map_err(sq)? {
            Found::Ready(mirror) => Ok(mirror),
            Found::Empty => Err(MirrorError::Stopped(format!(
                "the new mirror {} has no tables",
                path.display()
            ))),
            Found::Unusable(why) => Err(MirrorError::Stopped(why.reason())),
        }
    }

    /// Moves this mirror's file aside and opens a fresh one in its place (after a corruption
    /// error); returns where the old file went.
    pub fn rebuild(&mut self) -> Result<PathBuf, MirrorError> {
        let placeholder = Connection::open_in_memory().map_err(|e| self.err(e))?;
        drop(std::mem::replace(&mut self.conn, placeholder));
        let aside = move_aside(&self.path)?;
        *self = Self::create(&self.path)?;
        Ok(aside)
    }

    /// Whether a sync should check the file: never checked, checked longer than
    /// [`CHECK_EVERY`] ago, or a damage note of an earlier version lies beside it.
    pub fn check_due(&self, now: DateTime<Utc>) -> bool {
        if damage_noted(&self.path) {
            return true;
        }
        let last: Option<String> = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'checked_at'", [], |r| {
                r.get(0)
            })
            .optional()
            .ok()
            .flatten();
        parse_time(last).is_none_or(|t| now - t >= CHECK_EVERY)
    }

    /// `PRAGMA quick_check`: `None` when the file is sound (and the time is noted), else what
    /// SQLite found (a corruption error counts as found).
    pub fn quick_check(&self) -> Result<Option<String>, MirrorError> {
        let rows: rusqlite::Result<Vec<String>> = self
            .conn
            .prepare("PRAGMA quick_check")
            .and_then(|mut st| st.query_map([], |r| r.get::<_, String>(0))?.collect());
        let problems = match rows {
            Ok(rows) if rows.len() == 1 && rows[0] == "ok" => None,
            Ok(rows) => Some(rows.into_iter().take(3).collect::<Vec<_>>().join("; ")),
            Err(e) if is_corrupt(&e) => Some(e.to_string()),
            Err(e) => return Err(self.err(e)),
        };
        if problems.is_none() {
            self.conn
                .execute(
                    "INSERT OR REPLACE INTO meta (key, value) VALUES ('checked_at', ?1)",
                    [sortable(Utc::now())],
                )
                .map_err(|e| self.err(e))?;
            clear_damage_note(&self.path);
        }
        Ok(problems)
    }

    /// The file as it is: `Found::Empty` when it holds no schema yet; a schema of an older
    /// version is migrated (one process at a time, the others wait and find it done).
    fn try_open(path: &Path) -> rusqlite::Result<Found> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        match Self::prepare(&conn) {
            Ok(None) => Ok(Found::Ready(Mirror {
                conn,
                path: path.to_path_buf(),
            })),
            Ok(Some(Found::Empty)) => Ok(Found::Empty),
            Ok(Some(other)) => Ok(other),
            Err(e) if is_corrupt(&e) => Ok(Found::Unusable(Unusable::Damaged(e))),
            Err(e) => Err(e),
        }
    }

    /// `None` when the connection is ready, else what was found instead.
    fn prepare(conn: &Connection) -> rusqlite::Result<Option<Found>> {
        conn.busy_timeout(Duration::from_secs(10))?;
        // One read transaction: a consistent view even while another process migrates.
        let (app_id, version, tables) = {
            let tx = conn.unchecked_transaction()?;
            let app_id: i64 = tx.pragma_query_value(None, "application_id", |r| r.get(0))?;
            let version: i64 = tx.pragma_query_value(None, "user_version", |r| r.get(0))?;
            let tables: i64 =
                tx.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))?;
            tx.commit()?;
            (app_id, version, tables)
        };
        if app_id == 0 && version == 0 && tables == 0 {
            return Ok(Some(Found::Empty));
        } else if app_id != schema::APPLICATION_ID {
            return Ok(Some(Found::Unusable(Unusable::Foreign(format!(
                "not a crmdash mirror (application_id {app_id:#x})"
            )))));
        } else if version > schema::VERSION {
            return Ok(Some(Found::Unusable(Unusable::Foreign(format!(
                "written by a newer crmdash (schema {version}, this one knows {})",
                schema::VERSION
            )))));
        } else if version < schema::VERSION {
            schema::migrate(conn)?;
        }
        set_wal(conn)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(None)
    }

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
                [r.as_str()],
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

    fn put_state(tx: &Connection, r: Resource, s: &SyncState) -> rusqlite::Result<()> {
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
                r.as_str(),
                s.watermark,
                s.last_sync_at.map(sortable),
                s.last_full_at.map(sortable),
                s.generation,
                pass
            ],
        )?;
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
        let applied = Self::write_records(&tx, &path, records, generation)?;
        Self::put_state(&tx, T::RESOURCE, state).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(applied)
    }

    /// Writes records the service just answered with (a contact created in the dashboard,
    /// by `contacts create` or an import), so search finds them before the next sync. The
    /// sync state is left alone: the next sync sees them again and finds them unchanged.
    pub fn upsert<T: Mirrored>(&mut self, records: &[T]) -> Result<Applied, MirrorError> {
        let path = self.path.clone();
        let err = |e| MirrorError::sqlite(&path, e);
        let tx = self.conn.transaction().map_err(err)?;
        let applied = Self::write_records(&tx, &path, records, None)?;
        tx.commit().map_err(err)?;
        Ok(applied)
    }

    fn write_records<T: Mirrored>(
        tx: &rusqlite::Transaction<'_>,
        path: &Path,
        records: &[T],
        generation: Option<i64>,
    ) -> Result<Applied, MirrorError> {
        let err = |e| MirrorError::sqlite(path, e);
        let mut applied = Applied::default();
        let now = sortable(Utc::now());
        let r = T::RESOURCE;
        {
            let mut find = tx
                .prepare_cached(
                    "SELECT rid, raw, gone_at FROM records WHERE resource = ?1 AND id = ?2",
                )
                .map_err(err)?;
            // One statement for new and changed records; `seen_pass` is set apart (below).
            let mut upsert = tx
                .prepare_cached(
                    "INSERT INTO records (resource, id, raw, label, detail, name_lc, first_lc, last_lc,
                       email_lc, status_lc, value_num, start_date, end_date, created_at, updated_at,
                       seen_pass, synced_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)
                     ON CONFLICT (resource, id) DO UPDATE SET raw = excluded.raw,
                       label = excluded.label, detail = excluded.detail, name_lc = excluded.name_lc,
                       first_lc = excluded.first_lc, last_lc = excluded.last_lc,
                       email_lc = excluded.email_lc, status_lc = excluded.status_lc,
                       value_num = excluded.value_num, start_date = excluded.start_date,
                       end_date = excluded.end_date, created_at = excluded.created_at,
                       updated_at = excluded.updated_at, synced_at = excluded.synced_at,
                       gone_at = NULL
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
            let mut links_del = tx
                .prepare_cached("DELETE FROM links WHERE resource = ?1 AND id = ?2")
                .map_err(err)?;
            let mut links_add = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO links (resource, id, rel, pos, target_id)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(err)?;
            for rec in records {
                let raw = rec.raw().get();
                let existing: Option<(i64, String, Option<String>)> = find
                    .query_row(params![r.as_str(), rec.id()], |row| {
                        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
                    })
                    .optional()
                    .map_err(err)?;
                let rid = match existing {
                    Some((rid, old, gone)) if old == raw && gone.is_none() => {
                        applied.unchanged += 1;
                        if let Some(g) = generation {
                            seen.execute(params![rid, g]).map_err(err)?;
                        }
                        continue;
                    }
                    existing => {
                        let d = rec.doc();
                        let rid: i64 = upsert
                            .query_row(
                                params![
                                    r.as_str(),
                                    rec.id(),
                                    raw,
                                    d.label,
                                    d.detail,
                                    d.name_lc,
                                    d.first_lc,
                                    d.last_lc,
                                    d.email_lc,
                                    d.status_lc,
                                    d.value_num,
                                    d.start_date,
                                    d.end_date,
                                    d.created_at,
                                    d.updated_at,
                                    generation.unwrap_or(0),
                                    now
                                ],
                                |row| row.get(0),
                            )
                            .map_err(err)?;
                        if existing.is_some() {
                            fts_del.execute([rid]).map_err(err)?;
                            fuzzy_del.execute([rid]).map_err(err)?;
                            applied.updated += 1;
                        } else {
                            applied.inserted += 1;
                        }
                        (rid, d)
                    }
                };
                let (rid, d) = rid;
                if let Some(g) = generation {
                    seen.execute(params![rid, g]).map_err(err)?;
                }
                fts_add
                    .execute(params![rid, d.fts_name, d.fts_body])
                    .map_err(err)?;
                fuzzy_add.execute(params![rid, d.label]).map_err(err)?;
                links_del
                    .execute(params![r.as_str(), rec.id()])
                    .map_err(err)?;
                for (pos, l) in d.links.iter().enumerate() {
                    links_add
                        .execute(params![
                            r.as_str(),
                            rec.id(),
                            l.rel,
                            pos as i64,
                            l.target_id
                        ])
                        .map_err(err)?;
                }
            }
        }
        Ok(applied)
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
        let tx = self.conn.transaction().map_err(err)?;
        let now = sortable(Utc::now());
        for table in ["fts", "fuzzy"] {
            tx.execute(
                &format!(
                    "DELETE FROM {table}_{r} WHERE rowid IN (SELECT rid FROM records
                     WHERE resource = ?1 AND seen_pass < ?2 AND gone_at IS NULL)"
                ),
                params![r.as_str(), generation],
            )
            .map_err(err)?;
        }
        let gone = tx
            .execute(
                "UPDATE records SET gone_at = ?3 WHERE resource = ?1 AND seen_pass < ?2 AND gone_at IS NULL",
                params![r.as_str(), generation, now],
            )
            .map_err(err)?;
        Self::put_state(&tx, r, state).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(gone as u64)
    }

    /// Counts, sync times and file size.
    pub fn status(&self) -> Result<MirrorStatus, MirrorError> {
        let mut resources = Vec::new();
        for r in Resource::ALL {
            let (records, gone): (i64, i64) = self
                .conn
                .query_row(
                    "SELECT count(*) - count(gone_at), count(gone_at) FROM records WHERE resource = ?1",
                    [r.as_str()],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
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

/// Write-ahead logging: readers (the dashboard) never wait for the writer (a sync).
fn set_wal(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get::<_, String>(0))?;
    Ok(())
}

/// Renames the database (and its journal files) to `*.corrupt-YYYYMMDDTHHMMSS`; returns the
/// new name of the database file. It keeps its 0600 mode; `cache clear` deletes it too.
fn move_aside(path: &Path) -> Result<PathBuf, MirrorError> {
    let stamp = Utc::now().format("%Y%m%dT%H%M%S%.3f");
    let mut target = path.as_os_str().to_owned();
    target.push(format!(".corrupt-{stamp}"));
    let target = PathBuf::from(target);
    std::fs::rename(path, &target).map_err(|e| MirrorError::Io {
        action: "cannot move aside",
        path: path.to_path_buf(),
        source: e,
    })?;
    for suffix in ["-wal", "-shm"] {
        let mut journal = path.as_os_str().to_owned();
        journal.push(suffix);
        let _ = std::fs::remove_file(journal);
    }
    clear_damage_note(path);
    Ok(target)
}

/// Deletes a database file and its journals, if there.
fn remove_with_journals(path: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        let _ = std::fs::remove_file(PathBuf::from(p));
    }
}

/// `PROFILE@KEY.sqlite3.damaged`: earlier versions noted there that a read found the mirror
/// damaged; a sync still honours (and clears) such a note, nothing writes one any more.
fn damage_note(path: &Path) -> PathBuf {
    let mut p = path.as_os_str().to_owned();
    p.push(paths::DAMAGED_NOTE);
    PathBuf::from(p)
}

fn damage_noted(path: &Path) -> bool {
    damage_note(path).exists()
}

fn clear_damage_note(path: &Path) {
    let _ = std::fs::remove_file(damage_note(path));
}
