//! What can go wrong with the mirror, in words a user can act on.

use std::path::PathBuf;

use crate::api::ApiError;

#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    /// `[cache] enabled = false`.
    #[error(
        "the local mirror is turned off (`[cache] enabled = false` in the config file): nothing is kept on disk"
    )]
    Disabled,
    /// No cache directory is known (no home directory) and none is configured.
    #[error(
        "no cache directory for the local mirror (no home directory): set [cache] dir in the config file"
    )]
    NoLocation,
    /// The mirror does not exist yet.
    #[error("no local mirror for profile '{profile}' yet: run `crmdash sync` first")]
    NotSynced { profile: String },
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the local mirror {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        source: rusqlite::Error,
    },
    /// Another process holds the profile's sync lock.
    #[error("another sync of this mirror is running{} (lock {}): try again when it ends", holder.as_deref().map(|p| format!(" (process {p})")).unwrap_or_default(), path.display())]
    Busy {
        path: PathBuf,
        holder: Option<String>,
    },
    /// The mirror's file is damaged (or is not a crmdash mirror). Reads never repair it:
    /// `crmdash sync` moves it aside and rebuilds it.
    #[error("the local mirror {} is damaged ({reason}): run `crmdash sync` to move it aside and rebuild it", path.display())]
    Damaged { path: PathBuf, reason: String },
    /// A dashboard has the mirror open: deleting it now would leave the dashboard reading a
    /// deleted file (and its next sync rebuilding everything).
    #[error("{} open in a crmdash dashboard ({}): quit {} first, then try again", if held.len() == 1 { "the local mirror is" } else { "the local mirrors are" }, held.iter().map(|(p, pid)| format!("process {pid}: {}", p.display())).collect::<Vec<_>>().join(", "), if held.len() == 1 { "it" } else { "them" })]
    InUse { held: Vec<(PathBuf, u32)> },
    #[error(transparent)]
    Api(#[from] ApiError),
    /// A blocking task stopped (panicked or the runtime is shutting down).
    #[error("the mirror's disk work stopped: {0}")]
    Stopped(String),
}

impl MirrorError {
    pub(crate) fn sqlite(path: &std::path::Path, source: rusqlite::Error) -> Self {
        MirrorError::Sqlite {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The database file is damaged or not a database: moving it aside and rebuilding helps.
    pub fn is_corruption(&self) -> bool {
        match self {
            MirrorError::Sqlite { source, .. } => is_corrupt(source),
            MirrorError::Damaged { .. } => true,
            _ => false,
        }
    }

    /// A read's error as the policy has it: corruption found by a read is [`Damaged`],
    /// said, never repaired nor noted by the read (a read writes nothing into the cache
    /// folder; the next sync's own check finds the damage).
    ///
    /// [`Damaged`]: MirrorError::Damaged
    pub fn for_read(self) -> MirrorError {
        match self {
            MirrorError::Sqlite { path, source } if is_corrupt(&source) => MirrorError::Damaged {
                path,
                reason: source.to_string(),
            },
            other => other,
        }
    }
}

pub(crate) fn is_corrupt(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase)
    )
}
