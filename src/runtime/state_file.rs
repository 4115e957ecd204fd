//! The dashboard's remembered state (tabs, sorts, page sizes, profile): read once at start,
//! written atomically whenever the app asks, and a failure kept to be said once the terminal
//! is restored (a message on the dashboard's own screen would be gone by then).

use std::path::{Path, PathBuf};

use crate::app::persist::PersistedState;

#[derive(Default)]
pub(super) struct StateFile {
    /// `None`: nothing is remembered (tests, no state directory).
    path: Option<PathBuf>,
    /// The last failure to save, until a save succeeds.
    error: Option<String>,
    /// `[ui] per_page` when the config file sets it: saved with the remembered state, so a
    /// later change of the file is told from an old value.
    config_per_page: Option<u32>,
}

impl StateFile {
    pub fn new(path: Option<PathBuf>) -> StateFile {
        StateFile {
            path,
            ..StateFile::default()
        }
    }

    pub fn set_config_per_page(&mut self, per_page: Option<u32>) {
        self.config_per_page = per_page;
    }

    pub fn save(&mut self, state: &PersistedState) {
        let Some(path) = &self.path else { return };
        let state = PersistedState {
            config_per_page: self.config_per_page,
            ..state.clone()
        };
        match write_state(path, &state) {
            Ok(()) => self.error = None,
            Err(e) => {
                tracing::warn!(path = %path.display(), error = %e, "cannot save dashboard state");
                self.error = Some(format!(
                    "the dashboard's state (tabs, sorts, page sizes) was not saved to {}: {e}",
                    path.display()
                ));
            }
        }
    }

    pub fn error(&self) -> Option<String> {
        self.error.clone()
    }
}

/// Reads the remembered state; a missing or unreadable file is the default (a broken one is
/// logged, never fatal).
pub fn read_state(path: &Path) -> PersistedState {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            tracing::warn!(path = %path.display(), error = %e, "ignoring unreadable dashboard state");
            PersistedState::default()
        }),
        Err(_) => PersistedState::default(),
    }
}

/// Writes atomically, as the config file is written (a temporary file of its own beside it,
/// synced, renamed over it): two dashboards saving at once never share a temporary name.
pub fn write_state(path: &Path, state: &PersistedState) -> std::io::Result<()> {
    let json = serde_json::to_vec_pretty(state).map_err(std::io::Error::other)?;
    crate::config::write_atomically(path, &json)
}
