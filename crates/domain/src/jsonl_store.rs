//! Append-only JSON Lines files in the data directory that several crmdash processes (CLI
//! runs, the dashboard) write at the same time: the reschedule log and the idempotency
//! journal.
//!
//! Every operation holds an advisory lock (`flock`) on a sidecar file `<name>.lock`, exclusive
//! to write, shared to read, so a rewrite (migration, pruning) never races an append. Each
//! entry is one `write` of one line to a file opened with `O_APPEND`, so even a process that
//! ignores the lock cannot interleave bytes inside a line. Files are created owner-only.
//! A line that does not decode (a write cut short, a hand edit) is skipped, never fatal.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The lock file beside `path`.
fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".lock");
    path.with_file_name(name)
}

/// An advisory lock on `path`'s sidecar lock file, released when dropped.
pub struct FileLock {
    _file: File,
}

impl FileLock {
    /// Waits for the lock: `exclusive` to change the file, shared to read it. Creates the
    /// directory and the lock file when missing.
    pub fn acquire(path: &Path, exclusive: bool) -> io::Result<FileLock> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            fs::create_dir_all(dir)?;
        }
        let file = private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(lock_path(path))?;
        #[cfg(unix)]
        {
            use std::os::unix::io::AsRawFd;
            let op = if exclusive {
                libc::LOCK_EX
            } else {
                libc::LOCK_SH
            };
            loop {
                // SAFETY: flock on a descriptor this function owns; no memory is passed.
                let rc = unsafe { libc::flock(file.as_raw_fd(), op) };
                if rc == 0 {
                    break;
                }
                let e = io::Error::last_os_error();
                if e.kind() != io::ErrorKind::Interrupted {
                    return Err(e);
                }
            }
        }
        #[cfg(not(unix))]
        let _ = exclusive;
        Ok(FileLock { _file: file })
    }
}

fn private_options() -> OpenOptions {
    let mut options = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
}

/// Appends one entry as one line, under the exclusive lock.
pub fn append<T: Serialize>(path: &Path, entry: &T) -> io::Result<()> {
    let _lock = FileLock::acquire(path, true)?;
    append_locked(path, entry)
}

/// Appends one entry while the caller holds the exclusive lock. A previous write cut short
/// (no final newline) is closed first, so it cannot swallow this entry.
pub fn append_locked<T: Serialize>(path: &Path, entry: &T) -> io::Result<()> {
    append_line(path, entry, false)
}

/// [`append_locked`], synced to the disk before it returns (a line that must outlive a crash).
pub fn append_locked_synced<T: Serialize>(path: &Path, entry: &T) -> io::Result<()> {
    append_line(path, entry, true)
}

fn append_line<T: Serialize>(path: &Path, entry: &T, sync: bool) -> io::Result<()> {
    let mut file = private_options()
        .read(true)
        .append(true)
        .create(true)
        .open(path)?;
    let mut line = String::new();
    if !ends_with_newline(&mut file)? {
        line.push('\n');
    }
    line.push_str(&serde_json::to_string(entry).map_err(io::Error::other)?);
    line.push('\n');
    // One write per entry (O_APPEND): a line never interleaves with another process's.
    file.write_all(line.as_bytes())?;
    file.flush()?;
    if sync {
        file.sync_data()?;
    }
    Ok(())
}

fn ends_with_newline(file: &mut File) -> io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(true);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] == b'\n')
}

/// Every entry that decodes, oldest first, under the shared lock. A missing file is empty.
pub fn read_all<T: DeserializeOwned>(path: &Path) -> io::Result<Vec<T>> {
    let _lock = FileLock::acquire(path, false)?;
    read_locked(path)
}

/// [`read_all`] while the caller holds a lock.
pub fn read_locked<T: DeserializeOwned>(path: &Path) -> io::Result<Vec<T>> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    Ok(bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect())
}

/// Replaces the file's entries (temporary file, then rename) while the caller holds the
/// exclusive lock.
pub fn rewrite_locked<T: Serialize>(path: &Path, entries: &[T]) -> io::Result<()> {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = path.with_file_name(name);
    let mut text = String::new();
    for e in entries {
        text.push_str(&serde_json::to_string(e).map_err(io::Error::other)?);
        text.push('\n');
    }
    let result = (|| {
        let mut f = private_options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct E {
        n: u32,
    }

    #[test]
    fn appends_survive_a_cut_line_and_concurrent_writers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("x.jsonl");
        append(&path, &E { n: 0 }).unwrap();
        // A write cut short by a crash.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"n\":").unwrap();
        let threads: Vec<_> = (1..=8)
            .map(|t| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for i in 0..50 {
                        append(&path, &E { n: t * 1000 + i }).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let all: Vec<E> = read_all(&path).unwrap();
        assert_eq!(all.len(), 1 + 8 * 50);
        assert_eq!(all[0], E { n: 0 });
        rewrite_locked(&path, &all[..3]).unwrap();
        assert_eq!(read_all::<E>(&path).unwrap().len(), 3);
        assert!(
            read_all::<E>(&dir.path().join("none.jsonl"))
                .unwrap()
                .is_empty()
        );
    }
}
