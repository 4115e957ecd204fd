//! Where mirrors live: one SQLite file per profile and base URL in the platform's cache dir
//! (`~/.cache/crmdash/mirror/` on Linux), in a 0700 directory, each file 0600.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::MirrorError;
use crate::config::CacheSettings;

pub use crate::demo_dir::{
    DEMO_OWNER_LOCK, DEMO_PREFIX, DEMO_PROFILE, discard_demo, sweep_stale_demos,
};

/// This run's demo folder (made on first use).
pub fn demo_root() -> Result<PathBuf, MirrorError> {
    crate::demo_dir::demo_root().map_err(|e| MirrorError::Io {
        action: "cannot create",
        path: std::env::temp_dir().join(format!("{DEMO_PREFIX}*")),
        source: e,
    })
}

/// One mirror's place: the directory of all mirrors and this one's file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MirrorLocation {
    pub root: PathBuf,
    pub profile: String,
    /// Short hash of the base URL: a profile pointed at another service gets another file.
    pub key: String,
}

/// The platform's cache dir for mirrors, unless the config names one.
pub fn default_root() -> Option<PathBuf> {
    directories::ProjectDirs::from("", "", "crmdash").map(|d| d.cache_dir().join("mirror"))
}

/// The mirrors' directory for these settings, or why there is none. (Known even when the
/// mirror is turned off, so leftovers can be found and deleted.)
pub fn root(settings: &CacheSettings) -> Result<PathBuf, MirrorError> {
    settings
        .dir
        .clone()
        .or_else(default_root)
        .ok_or(MirrorError::NoLocation)
}

impl MirrorLocation {
    /// The mirror of `profile` at `base_url`.
    pub fn new(root: PathBuf, profile: &str, base_url: &str) -> MirrorLocation {
        let url = base_url.trim().trim_end_matches('/');
        let digest = Sha256::digest(url.as_bytes());
        MirrorLocation {
            root,
            profile: profile.to_string(),
            key: hex::encode(&digest[..6]),
        }
    }

    pub fn for_settings(
        settings: &CacheSettings,
        profile: &str,
        base_url: &str,
    ) -> Result<MirrorLocation, MirrorError> {
        if !settings.enabled {
            return Err(MirrorError::Disabled);
        }
        Ok(MirrorLocation::new(root(settings)?, profile, base_url))
    }

    /// The mirror of this `--demo` run, in its own folder ([`demo_root`]).
    pub fn demo(settings: &CacheSettings) -> Result<MirrorLocation, MirrorError> {
        if !settings.enabled {
            return Err(MirrorError::Disabled);
        }
        Ok(MirrorLocation::new(demo_root()?, DEMO_PROFILE, "demo"))
    }

    /// `ROOT/PROFILE@KEY.sqlite3`.
    pub fn db_path(&self) -> PathBuf {
        self.root
            .join(format!("{}@{}.sqlite3", self.profile, self.key))
    }

    /// The sync lock beside the database.
    pub fn lock_path(&self) -> PathBuf {
        self.root
            .join(format!("{}@{}.sqlite3.lock", self.profile, self.key))
    }
}

/// Creates the mirrors' directory with mode 0700 when it is missing. A directory that is
/// there already is left as it is: it may be a folder the user shares with other programs
/// (`[cache] dir`), and every mirror file is 0600 on its own.
pub fn ensure_dir(root: &Path) -> Result<(), MirrorError> {
    let io = |action, e| MirrorError::Io {
        action,
        path: root.to_path_buf(),
        source: e,
    };
    if let Some(parent) = root.parent() {
        fs::create_dir_all(parent).map_err(|e| io("cannot create", e))?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        match fs::DirBuilder::new().mode(0o700).create(root) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && root.is_dir() => {}
            Err(e) => return Err(io("cannot create", e)),
        }
    }
    #[cfg(not(unix))]
    fs::create_dir_all(root).map_err(|e| io("cannot create", e))?;
    Ok(())
}

/// Creates `path` empty with mode 0600 when missing; tightens it when it exists.
pub fn ensure_private_file(path: &Path) -> Result<(), MirrorError> {
    let io = |action, e| MirrorError::Io {
        action,
        path: path.to_path_buf(),
        source: e,
    };
    let mut opts = fs::OpenOptions::new();
    opts.create(true).append(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
        opts.mode(0o600);
        opts.open(path).map_err(|e| io("cannot create", e))?;
        let mode = fs::metadata(path)
            .map_err(|e| io("cannot read", e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            fs::set_permissions(path, fs::Permissions::from_mode(0o600))
                .map_err(|e| io("cannot restrict the permissions of", e))?;
        }
    }
    #[cfg(not(unix))]
    opts.open(path).map_err(|e| io("cannot create", e))?;
    Ok(())
}

/// The files of mirrors on disk (databases, their journals, locks, files moved aside).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MirrorFiles {
    pub files: Vec<PathBuf>,
    pub bytes: u64,
}

/// The suffixes a mirror's files carry after `PROFILE@KEY.sqlite3`: its journals, its sync
/// lock, a note of damage found, a damaged copy moved aside, a dashboard's hold on it, one
/// being created.
const SUFFIXES: [&str; 6] = ["-wal", "-shm", "-journal", ".lock", DAMAGED_NOTE, ""];
/// `PROFILE@KEY.sqlite3.damaged`: a read found the mirror damaged (the next sync checks it).
pub const DAMAGED_NOTE: &str = ".damaged";
const STAMPED: [&str; 3] = [".corrupt-", OPEN_MARK, CREATING_MARK];
/// `PROFILE@KEY.sqlite3.open-PID`: a dashboard holds the mirror (see [`super::HolderLock`]).
pub const OPEN_MARK: &str = ".open-";
/// `PROFILE@KEY.sqlite3.creating-PID`: a new mirror being built before it takes its place.
pub const CREATING_MARK: &str = ".creating-";

/// Splits a file name of crmdash's naming scheme, `PROFILE@KEY.sqlite3[SUFFIX]` (KEY: 12
/// lowercase hex digits), into its profile and the database's file name; `None` for any
/// other name (another program's file is never taken for a mirror's).
pub fn parse_name(name: &str) -> Option<(&str, &str)> {
    let (db, suffix) = match name.find(".sqlite3") {
        Some(i) => name.split_at(i + ".sqlite3".len()),
        None => return None,
    };
    let suffix_ok = SUFFIXES.contains(&suffix)
        || STAMPED.iter().any(|m| {
            suffix.strip_prefix(m).is_some_and(|rest| {
                !rest.is_empty()
                    && rest
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-')
            })
        });
    let (profile, key) = db.strip_suffix(".sqlite3")?.rsplit_once('@')?;
    let key_ok = key.len() == 12
        && key
            .chars()
            .all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c));
    (suffix_ok && key_ok && !profile.is_empty()).then_some((profile, db))
}

/// Whether the file at `path` proves to be a crmdash mirror: an SQLite header whose
/// application id (bytes 68..72) is crmdash's. Read from the header, never opened as a
/// database; an empty, unreadable, non-SQLite or unmarked file proves nothing.
pub fn own_database(path: &Path) -> bool {
    use std::io::Read;
    let mut header = [0u8; 72];
    let Ok(mut f) = fs::File::open(path) else {
        return false;
    };
    if f.read_exact(&mut header).is_err() || !header.starts_with(b"SQLite format 3\0") {
        return false;
    }
    let app_id = i64::from(u32::from_be_bytes([
        header[68], header[69], header[70], header[71],
    ]));
    app_id == super::schema::APPLICATION_ID
}

/// Every file of `profile`'s mirrors (all base URLs), or of every profile when `None`: only
/// names of crmdash's scheme; a database only when its header proves it crmdash's, its
/// journals, lock and notes only beside such a database (or with none left beside them).
pub fn files(root: &Path, profile: Option<&str>) -> Result<MirrorFiles, MirrorError> {
    let mut out = MirrorFiles::default();
    let entries = match fs::read_dir(root) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => {
            return Err(MirrorError::Io {
                action: "cannot read",
                path: root.to_path_buf(),
                source: e,
            });
        }
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((owner, db)) = parse_name(name) else {
            continue;
        };
        if profile.is_some_and(|p| p != owner) {
            continue;
        }
        let Ok(meta) = entry.metadata() else { continue };
        // Files moved aside may be a foreign database found at the mirror's place: the name
        // (with its stamp) is ours, we gave it, so they go too.
        let main = entry.path().with_file_name(db);
        let stamped = STAMPED.iter().any(|m| name[db.len()..].starts_with(m));
        let proven = if name == db {
            own_database(&main)
        } else {
            stamped || !main.exists() || own_database(&main)
        };
        if !meta.is_file() || !proven {
            continue;
        }
        out.bytes += meta.len();
        out.files.push(entry.path());
    }
    out.files.sort();
    Ok(out)
}

/// Deletes the files `found` lists; returns what was deleted.
pub fn remove(found: &MirrorFiles) -> Result<MirrorFiles, MirrorError> {
    let mut removed = MirrorFiles::default();
    for f in &found.files {
        let len = fs::metadata(f).map(|m| m.len()).unwrap_or(0);
        match fs::remove_file(f) {
            Ok(()) => {
                removed.bytes += len;
                removed.files.push(f.clone());
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => {
                return Err(MirrorError::Io {
                    action: "cannot delete",
                    path: f.clone(),
                    source: e,
                });
            }
        }
    }
    Ok(removed)
}

/// `12.3 MB`, `840 kB`, `512 B`.
pub fn human_size(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["B", "kB", "MB", "GB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1000.0 && unit < UNITS.len() - 1 {
        v /= 1000.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod demo_sweep_tests {
    use super::*;

    #[test]
    fn a_demo_folder_whose_run_is_gone_is_swept_one_still_running_is_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let make = |name: &str, lock: bool| {
            let d = tmp.path().join(name);
            fs::create_dir(&d).unwrap();
            fs::write(d.join("reschedule-history.jsonl"), b"{}\n").unwrap();
            if lock {
                fs::write(d.join(DEMO_OWNER_LOCK), b"").unwrap();
            }
            d
        };
        let gone = make("crmdash-demo-gone", true);
        let running = make("crmdash-demo-running", true);
        let being_made = make("crmdash-demo-new", false);
        let other = make("other-program", true);
        // The running demo's hold (an flock per open file, so it excludes this process too).
        let held = fs::OpenOptions::new()
            .write(true)
            .open(running.join(DEMO_OWNER_LOCK))
            .unwrap();
        held.try_lock().unwrap();

        assert_eq!(sweep_stale_demos(tmp.path()), vec![gone.clone()]);
        assert!(!gone.exists());
        assert!(running.exists() && being_made.exists() && other.exists());

        drop(held);
        assert_eq!(sweep_stale_demos(tmp.path()), vec![running.clone()]);
        assert!(being_made.exists() && other.exists());
    }
}
