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
