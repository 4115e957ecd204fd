//! One sync per mirror at a time: an exclusive lock on a file beside the database, released
//! by the OS when the process ends (even by kill -9), so a stale lock never blocks.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::{MirrorError, paths};

/// Held while a sync runs; dropping it releases the lock.
#[derive(Debug)]
pub struct SyncLock {
    _file: File,
    path: PathBuf,
}

impl SyncLock {
    /// Takes the lock at `path`, or says which process holds it.
    pub fn acquire(path: &Path) -> Result<SyncLock, MirrorError> {
        let io = |action, e| MirrorError::Io {
            action,
            path: path.to_path_buf(),
            source: e,
        };
        paths::ensure_private_file(path)?;
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(|e| io("cannot open", e))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(MirrorError::Busy {
                    path: path.to_path_buf(),
                    holder: (!holder.is_empty()).then(|| holder.to_string()),
                });
            }
            Err(TryLockError::Error(e)) => return Err(io("cannot lock", e)),
        }
        // Who holds it, for the message another run prints.
        let _ = file.set_len(0);
        let _ = file.rewind();
        let _ = write!(file, "{}", std::process::id());
        let _ = file.flush();
        Ok(SyncLock {
            _file: file,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A dashboard's hold on a mirror: an exclusive lock on `PROFILE@KEY.sqlite3.open-PID`,
/// taken while it reads the mirror, released (and the file deleted) when dropped or by the
/// OS when the process ends. `cache clear` refuses to delete a mirror a dashboard holds:
/// the dashboard would go on reading the deleted file and its next sync rebuild it all.
#[derive(Debug)]
pub struct HolderLock {
    file: Option<File>,
    path: PathBuf,
}

impl HolderLock {
    /// Marks the mirror at `db_path` as held by this process.
    pub fn acquire(db_path: &Path) -> Result<HolderLock, MirrorError> {
        if let Some(dir) = db_path.parent() {
            paths::ensure_dir(dir)?;
        }
        let mut name = db_path.as_os_str().to_owned();
        name.push(format!("{}{}", paths::OPEN_MARK, std::process::id()));
        let path = PathBuf::from(name);
        // Locked under a name no one looks for, then renamed into place: `cache clear` never
        // sees the mark unlocked (it would take the mirror for unused and delete it).
        let mut fresh = path.clone().into_os_string();
        fresh.push(".new");
        let fresh = PathBuf::from(fresh);
        paths::ensure_private_file(&fresh)?;
        let io = |action, e| MirrorError::Io {
            action,
            path: path.clone(),
            source: e,
        };
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&fresh)
            .map_err(|e| io("cannot open", e))?;
        file.try_lock().map_err(|e| io("cannot lock", e.into()))?;
        std::fs::rename(&fresh, &path).map_err(|e| io("cannot rename", e))?;
        sweep_stale_marks(db_path, &path);
        Ok(HolderLock {
            file: Some(file),
            path,
        })
    }
}

/// A `.new` mark this old is no dashboard's start under way (it is renamed within
/// milliseconds of being made): its process ended before the rename.
const STALE_NEW_MARK: std::time::Duration = std::time::Duration::from_secs(60);

/// Deletes the marks of dashboards that ended without dropping their hold (killed, or the
/// machine went down): a mark whose lock can be taken has no holder. `ours` is kept. Only
/// a mark still the file that was locked is deleted (a process given the same id may have
/// renamed a new mark into its place meanwhile).
#[cfg(unix)]
fn sweep_stale_marks(db_path: &Path, ours: &Path) {
    use std::os::unix::fs::MetadataExt;
    let (Some(dir), Some(db)) = (
        db_path.parent(),
        db_path.file_name().and_then(|n| n.to_str()),
    ) else {
        return;
    };
    let prefix = format!("{db}{}", paths::OPEN_MARK);
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        if path == ours || !name.starts_with(&prefix) {
            continue;
        }
        if name.ends_with(".new")
            && entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_none_or(|age| age < STALE_NEW_MARK)
        {
            continue;
        }
        let Ok(file) = OpenOptions::new().read(true).write(true).open(&path) else {
            continue;
        };
        if file.try_lock().is_err() {
            continue; // held: a dashboard is running
        }
        let same = match (file.metadata(), std::fs::symlink_metadata(&path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        };
        if same {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Elsewhere a file cannot be told from the one renamed over it here: marks are left.
#[cfg(not(unix))]
fn sweep_stale_marks(_db_path: &Path, _ours: &Path) {}

impl Drop for HolderLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        drop(self.file.take());
    }
}

/// The processes (by id) that hold one of `files` open in a dashboard right now. Marks left
/// by a process that ended are not held (their lock went with it).
pub fn holders(files: &[PathBuf]) -> Vec<(PathBuf, u32)> {
    let mut held = Vec::new();
    for f in files {
        let Some(name) = f.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        let Some((_, pid)) = name.rsplit_once(paths::OPEN_MARK) else {
            continue;
        };
        let Ok(file) = OpenOptions::new().read(true).write(true).open(f) else {
            continue;
        };
        if let Err(TryLockError::WouldBlock) = file.try_lock() {
            let db = name
                .strip_suffix(&format!("{}{pid}", paths::OPEN_MARK))
                .unwrap_or(name);
            held.push((f.with_file_name(db), pid.parse().unwrap_or(0)));
        }
    }
    held
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_dashboard_s_hold_sweeps_marks_whose_holder_ended_and_keeps_held_ones() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("default@0123456789ab.sqlite3");
        let mark = |pid: &str| {
            let mut n = db.clone().into_os_string();
            n.push(format!("{}{pid}", paths::OPEN_MARK));
            PathBuf::from(n)
        };
        // Left by dashboards killed with -9: nothing holds their lock.
        std::fs::write(mark("4000001"), "").unwrap();
        std::fs::write(mark("4000002"), "").unwrap();
        // A `.new` mark just made: a start under way elsewhere, kept however it looks.
        std::fs::write(mark("4000003.new"), "").unwrap();
        // Another mirror's mark, and a file that only looks similar: not ours to sweep.
        let other = dir.path().join("default@ba9876543210.sqlite3.open-4000004");
        std::fs::write(&other, "").unwrap();
        let foreign = dir.path().join("notes.open-1");
        std::fs::write(&foreign, "").unwrap();
        // A running dashboard's mark: held, so it stays.
        let held = mark("4000005");
        std::fs::write(&held, "").unwrap();
        let holder = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&held)
            .unwrap();
        holder.try_lock().unwrap();

        let lock = HolderLock::acquire(&db).unwrap();
        assert!(lock.path.exists());
        assert!(!mark("4000001").exists());
        assert!(!mark("4000002").exists());
        assert!(mark("4000003.new").exists());
        assert!(other.exists() && foreign.exists());
        assert!(held.exists(), "a held mark is never swept");
        assert_eq!(holders(std::slice::from_ref(&held)).len(), 1);
        drop(lock);
        drop(holder);
    }
}
