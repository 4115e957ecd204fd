//! Opening the mirror's database: creating it (private, in a private directory), migrating
//! it, checking it now and then, and moving a damaged or foreign file aside so a fresh mirror
//! takes its place. A read that finds damage leaves a note, so the next sync checks at once.

use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Utc};
use rusqlite::{Connection, OpenFlags, OptionalExtension};

use super::doc::sortable;
use super::error::is_corrupt;
use super::store::{Mirror, parse_time};
use super::{MirrorError, paths, schema};

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
                Self::try_open(path, Use::Sync).map_err(|e| MirrorError::sqlite(path, e))?
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
        match Self::try_open(path, Use::Read) {
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
        match Self::try_open(path, Use::Sync).map_err(sq)? {
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
        let sync_lock = self.sync_lock.take();
        *self = Self::create(&self.path)?;
        self.sync_lock = sync_lock;
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
    /// version is migrated by a sync (one process at a time, the others wait and find it
    /// done), and is no mirror yet to a read.
    fn try_open(path: &Path, mode: Use) -> rusqlite::Result<Found> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)?;
        match Self::prepare(&conn, mode) {
            Ok(None) => Ok(Found::Ready(Mirror {
                conn,
                path: path.to_path_buf(),
                parts: Default::default(),
                sync_lock: None,
            })),
            Ok(Some(Found::Empty)) => Ok(Found::Empty),
            Ok(Some(other)) => Ok(other),
            Err(e) if is_corrupt(&e) => Ok(Found::Unusable(Unusable::Damaged(e))),
            Err(e) => Err(e),
        }
    }

    /// `None` when the connection is ready, else what was found instead. Reads the file's
    /// header fields and the schema's size only: nothing on open walks the records.
    fn prepare(conn: &Connection, mode: Use) -> rusqlite::Result<Option<Found>> {
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
            if mode == Use::Read {
                // This build's statements need this build's schema (version 6 rebuilt
                // the records, 8 the relations): until a sync migrates an older file (and,
                // before 6, fills it again), a read finds no mirror there.
                return Ok(Some(Found::Empty));
            }
            schema::migrate(conn)?;
        }
        // A read leaves the journal mode alone: a first sync's bulk phase runs with a
        // rollback journal (`deferred`), and a reader switching the file back would wait
        // for the sync's transaction.
        if mode == Use::Sync {
            set_wal(conn)?;
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "cache_size", mode.cache_kib())?;
        Ok(None)
    }
}

/// What a connection is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    /// A sync: migrates, writes pages of records and their indexes.
    Sync,
    /// A read (the dashboard, `search`, lists): never migrates or writes records.
    Read,
}

impl Use {
    /// SQLite's page cache, sized on purpose (`PRAGMA cache_size`, negative: KiB). A read
    /// touches a page of an index and the rows it shows: 1 MiB holds the hot pages of a
    /// 100,000-contact mirror's search and first page, and is what an idle dashboard keeps
    /// (SQLite's default is 2 MiB). A sync's writes update several indexes per record: a
    /// larger cache keeps their pages between batches instead of writing them again.
    fn cache_kib(self) -> i64 {
        match self {
            Use::Sync => -16 * 1024,
            Use::Read => -1024,
        }
    }
}

/// The dashboard's reading connection, sized on purpose: it stays open for the session, so
/// what SQLite keeps is resident memory for as long as the dashboard runs. A screen of rows
/// reads a few index pages and the rows' pages (4 KiB each): 512 KiB of page cache holds a
/// first page, a search and the pages around them many times over, where the default (2 MiB,
/// or the reads' 1 MiB) would fill with pages of pages long left. No memory map
/// (`mmap_size = 0`): mapped pages count in the process's resident set as they are touched,
/// and a scroll through a large mirror would touch many. Temporary b-trees (a sort no index
/// answers) stay in memory: they are small for a page of rows.
pub fn tune_for_dashboard(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "cache_size", DASHBOARD_CACHE_KIB)?;
    conn.pragma_update(None, "mmap_size", 0)?;
    conn.pragma_update(None, "temp_store", "MEMORY")?;
    Ok(())
}

impl Mirror {
    /// This connection becomes the dashboard's: [`tune_for_dashboard`].
    pub fn tune_for_dashboard(&self) -> Result<(), MirrorError> {
        tune_for_dashboard(&self.conn)
            .map_err(|e| MirrorError::sqlite(Path::new(self.conn.path().unwrap_or_default()), e))
    }

    /// Frees the pages SQLite keeps in this connection's cache (`PRAGMA shrink_memory`): the
    /// dashboard's idle trim. The next read takes its pages from the system's file cache again
    /// (a `pread` each, microseconds), so a quiet dashboard does not keep up to
    /// [`DASHBOARD_CACHE_KIB`] resident for pages it may never read again.
    pub fn release_cache(&self) -> Result<(), MirrorError> {
        self.conn
            .execute_batch("PRAGMA shrink_memory")
            .map_err(|e| self.err(e))
    }

    /// This connection reads a large part of the file once and ends (`crmdash changes` over a
    /// long window): SQLite reads its pages from a memory map of the file (up to 1 GiB)
    /// instead of copying each one through a `read` call. Not for the dashboard (see [`tune_for_dashboard`]). The mirror
    /// is never truncated (no vacuum), so the map cannot lose pages under a reader.
    pub fn map_for_scan(&self) -> Result<(), MirrorError> {
        self.conn
            .pragma_update(None, "mmap_size", 1i64 << 30)
            .map_err(|e| self.err(e))
    }
}

/// The dashboard connection's page cache (`PRAGMA cache_size`, negative: KiB).
pub const DASHBOARD_CACHE_KIB: i64 = -512;

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

#[cfg(test)]
mod dashboard_tests {
    use super::*;

    #[test]
    fn the_dashboard_connection_is_sized_on_purpose() {
        // A file: an in-memory database has no memory map to size.
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(dir.path().join("m.sqlite3")).unwrap();
        tune_for_dashboard(&conn).unwrap();
        let get = |p: &str| {
            conn.pragma_query_value(None, p, |r| r.get::<_, i64>(0))
                .unwrap()
        };
        assert_eq!(get("cache_size"), DASHBOARD_CACHE_KIB);
        assert_eq!(get("mmap_size"), 0);
        assert_eq!(get("temp_store"), 2, "MEMORY");
    }

    #[test]
    fn the_idle_trim_empties_the_dashboard_connection_s_page_cache() {
        let dir = tempfile::tempdir().unwrap();
        let m = Mirror::open(&dir.path().join("m.sqlite3")).unwrap().mirror;
        m.conn
            .execute_batch(
                "CREATE TABLE filler(x);
                 WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                 INSERT INTO filler SELECT randomblob(200) FROM n;",
            )
            .unwrap();
        m.tune_for_dashboard().unwrap();
        let cache_used = || {
            let (mut now, mut high) = (0, 0);
            // SAFETY: the handle is the open connection's, used on this thread only; the call
            // reads a counter.
            let rc = unsafe {
                rusqlite::ffi::sqlite3_db_status(
                    m.conn.handle(),
                    rusqlite::ffi::SQLITE_DBSTATUS_CACHE_USED,
                    &mut now,
                    &mut high,
                    0,
                )
            };
            assert_eq!(rc, rusqlite::ffi::SQLITE_OK);
            now
        };
        let read = || {
            m.conn
                .query_row(
                    "SELECT count(*) FROM filler WHERE length(x) = 200",
                    [],
                    |r| r.get::<_, i64>(0),
                )
                .unwrap()
        };
        assert_eq!(read(), 2000);
        let full = cache_used();
        // 2,000 rows of 200 bytes: about a hundred 4 KiB pages.
        assert!(full > 200 * 1024, "{full} bytes cached");
        m.release_cache().unwrap();
        let trimmed = cache_used();
        assert!(trimmed < full / 4, "{full} -> {trimmed} bytes cached");
        // The next read takes its pages from the file again.
        assert_eq!(read(), 2000);
        assert!(cache_used() > trimmed);
    }
}
