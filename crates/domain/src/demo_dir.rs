//! `--demo`'s own folder in the temp dir: made for the run, deleted when it ends, swept when a
//! run was killed before it could clean up.

use std::fs;
use std::path::{Path, PathBuf};

/// The profile name used for `--demo` runs.
pub const DEMO_PROFILE: &str = "demo";

/// `--demo`'s own folder (its mirror, search index and remembered dashboard state): made
/// (0700) for the run, deleted when it ends ([`discard_demo`]). A later demo, whose sandbox
/// gives ids to other people, never finds an earlier demo's records, and a real profile's
/// mirror never sees a demo's.
static DEMO_DIR: std::sync::Mutex<Option<(tempfile::TempDir, fs::File)>> =
    std::sync::Mutex::new(None);

/// The prefix of every demo folder in the temp dir.
pub const DEMO_PREFIX: &str = "crmdash-demo-";
/// The file in a demo folder its run holds locked (flock) while it lives: when the run is
/// gone (killed, its terminal closed) the kernel releases the lock, whatever its pid became.
pub const DEMO_OWNER_LOCK: &str = "owner.lock";

/// Deletes the demo folders in `tmp` whose run is gone: their owner lock can be taken. A
/// folder without one is left for a minute (its run may be making it right now).
pub fn sweep_stale_demos(tmp: &Path) -> Vec<PathBuf> {
    let mut swept = Vec::new();
    let Ok(entries) = fs::read_dir(tmp) else {
        return swept;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        if !name.to_str().is_some_and(|n| n.starts_with(DEMO_PREFIX)) {
            continue;
        }
        // Never follow a link another user planted in a shared temp dir.
        if !entry.file_type().is_ok_and(|t| t.is_dir()) {
            continue;
        }
        let dir = entry.path();
        let gone = match fs::OpenOptions::new()
            .write(true)
            .open(dir.join(DEMO_OWNER_LOCK))
        {
            Ok(f) => f.try_lock().is_ok(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|t| t.elapsed().ok())
                .is_some_and(|age| age > std::time::Duration::from_secs(60)),
            Err(_) => false,
        };
        if gone && fs::remove_dir_all(&dir).is_ok() {
            swept.push(dir);
        }
    }
    swept
}

/// This run's demo folder (made on first use).
pub fn demo_root() -> std::io::Result<PathBuf> {
    let mut dir = DEMO_DIR.lock().unwrap_or_else(|e| e.into_inner());
    if dir.is_none() {
        let tmp = std::env::temp_dir();
        // Earlier demos killed or hung up before they could clean up.
        sweep_stale_demos(&tmp);
        let made = tempfile::Builder::new()
            .prefix(DEMO_PREFIX)
            .tempdir_in(&tmp)?;
        // Locked under another name, then renamed: a sweep by a demo starting beside this
        // one never finds `owner.lock` unlocked (a missing one counts as 60 s of grace).
        let fresh = made.path().join(format!("{DEMO_OWNER_LOCK}.new"));
        let owner = fs::File::create(&fresh)?;
        owner.try_lock().map_err(std::io::Error::from)?;
        fs::rename(&fresh, made.path().join(DEMO_OWNER_LOCK))?;
        *dir = Some((made, owner));
    }
    Ok(dir
        .as_ref()
        .map(|(d, _)| d.path().to_path_buf())
        .unwrap_or_default())
}

/// Deletes this run's demo folder, if one was made (at the end of every `--demo` run).
pub fn discard_demo() {
    if let Some((dir, owner)) = DEMO_DIR.lock().unwrap_or_else(|e| e.into_inner()).take() {
        drop(owner);
        drop(dir);
    }
}
