//! Where mirrors live: one SQLite file per profile and base URL in the platform's cache dir
//! (`~/.cache/crmdash/mirror/` on Linux), in a 0700 directory, each file 0600.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::MirrorError;
use crate::config::CacheSettings;

/// The profile name used for `--demo` runs (whose sandbox port changes every run).
pub const DEMO_PROFILE: &str = "demo";

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
    /// The mirror of `profile` at `base_url` (for `--demo`: `demo` and any base URL, so the
    /// sandbox's changing port does not start a new mirror every run).
    pub fn new(root: PathBuf, profile: &str, base_url: &str) -> MirrorLocation {
        let url = if profile == DEMO_PROFILE {
            "demo"
        } else {
            base_url.trim().trim_end_matches('/')
        };
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

/// Creates the mirrors' directory (0700) or tightens its mode when it exists.
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
        use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
        match fs::DirBuilder::new().mode(0o700).create(root) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io("cannot create", e)),
        }
        let mode = fs::metadata(root)
            .map_err(|e| io("cannot read", e))?
            .permissions()
            .mode();
        if mode & 0o077 != 0 {
            fs::set_permissions(root, fs::Permissions::from_mode(0o700))
                .map_err(|e| io("cannot restrict the permissions of", e))?;
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

/// Every file of `profile`'s mirrors (all base URLs), or of every profile when `None`.
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
    let prefix = profile.map(|p| format!("{p}@"));
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let ours = name.contains(".sqlite3");
        if !ours || prefix.as_deref().is_some_and(|p| !name.starts_with(p)) {
            continue;
        }
        if let Ok(meta) = entry.metadata()
            && meta.is_file()
        {
            out.bytes += meta.len();
            out.files.push(entry.path());
        }
    }
    out.files.sort();
    Ok(out)
}

/// Deletes what [`files`] lists; returns what was deleted.
pub fn remove(root: &Path, profile: Option<&str>) -> Result<MirrorFiles, MirrorError> {
    let found = files(root, profile)?;
    for f in &found.files {
        match fs::remove_file(f) {
            Ok(()) => {}
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
    Ok(found)
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
