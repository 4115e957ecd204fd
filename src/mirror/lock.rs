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
        Ok(HolderLock {
            file: Some(file),
            path,
        })
    }
}

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
