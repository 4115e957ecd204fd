//! Configuration: the TOML file (`~/.config/crmdash/config.toml`, `CRMDASH_CONFIG` overrides),
//! env and flags -> `Settings`. Precedence: flag > env > profile in config > default.

mod edit;
pub use edit::write_atomically;
mod keys;
mod load;
mod resolve;
pub mod views;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use edit::save_profile_base_url;
pub use keys::{KeySpec, KeySpecError};
pub use load::{Loaded, load};
pub use resolve::{
    ConfigError, DEFAULT_PROFILE, EnvOverrides, Resolved, Source, check_profile_name, host_label,
    normalize_base_url, resolve, resolve_profile,
};

/// Overrides the config file's path.
pub const CONFIG_ENV: &str = "CRMDASH_CONFIG";

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "crmdash")
}

/// The config file: `$CRMDASH_CONFIG`, else `config.toml` in the platform's config dir
/// (`~/.config/crmdash/config.toml` on Linux). `None` when no home directory is known.
pub fn config_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os(CONFIG_ENV).filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    project_dirs().map(|d| d.config_dir().join("config.toml"))
}

/// The platform's data dir for crmdash (`~/.local/share/crmdash` on Linux).
pub fn data_dir() -> Option<PathBuf> {
    project_dirs().map(|d| d.data_dir().to_path_buf())
}

/// Where logs go: the state dir (`~/.local/state/crmdash` on Linux), or the data dir on
/// platforms without one (macOS, Windows).
pub fn state_dir() -> Option<PathBuf> {
    let dirs = project_dirs()?;
    Some(
        dirs.state_dir()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| dirs.data_dir().to_path_buf()),
    )
}

/// Everything the config file can say. Unknown keys warn, not fail.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Settings {
    pub default_profile: Option<String>,
    pub profiles: BTreeMap<String, Profile>,
    pub reschedule: RescheduleSettings,
    pub ui: UiSettings,
    /// Key rebinding: action name -> key specs (`"ctrl-s"`, `"alt-up"`, `"q"`).
    pub keys: BTreeMap<String, Vec<String>>,
    pub network: NetworkSettings,
    pub cache: CacheSettings,
    /// `[dupes]`: when two contacts count as the same person (`crmdash contacts dupes`,
    /// the import's near-duplicate check).
    pub dupes: DupesSettings,
    /// `[safety]`: the dashboard's undo window (see `crate::safety`).
    pub safety: SafetySettings,
    /// `[actions.NAME]`: programs run on records (`crate::user_actions`).
    pub actions: BTreeMap<String, crate::user_actions::ActionConfig>,
    /// What loading the file found wrong (bad values, unknown keys), one line each: the CLI
    /// prints them, the dashboard shows them all (`?`). Not part of the file.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

impl Settings {
    /// The display clock's zone name: `[ui] timezone`.
    pub fn display_zone(&self) -> &str {
        &self.ui.timezone
    }

    /// The zone reschedule times are typed in: `[reschedule] timezone` when set apart, else the
    /// display clock's.
    pub fn reschedule_zone(&self) -> &str {
        match self.reschedule.timezone.trim() {
            "" => &self.ui.timezone,
            _ => &self.reschedule.timezone,
        }
    }
}

impl Settings {
    /// The HTTP client's options these settings ask for (`[network] ca_file`); every client
    /// (CLI, dashboard, login) is made with them.
    pub fn client_options(&self) -> crate::api::ClientOptions {
        crate::api::ClientOptions {
            ca_file: self.network.ca_file.clone(),
            ..crate::api::ClientOptions::default()
        }
    }
}

/// `[profiles.NAME]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Profile {
    pub base_url: Option<String>,
    /// The web UI's address of one record, for `o` in the dashboard:
    /// `https://crm.example.com/{resource}/{id}` (`{resource}` is `contacts`, `deals` or
    /// `projects`; `{id}` the record's id). Never given the token.
    pub web_url: Option<String>,
    /// Refuses every write of this profile (create, reschedule, import, bulk): a profile
    /// to look with, not to change (see `crate::safety`).
    pub read_only: bool,
    /// A live profile: the dashboard shows its name in a warning colour and a write asks for
    /// the name typed; the CLI writes only with `--yes` and an explicit `--profile NAME`.
    pub protected: bool,
}

/// `[reschedule]`: which body keys carry an appointment's new time (the seed does not say).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RescheduleSettings {
    /// Body key of the new start. Default `start_time`.
    pub start_field: String,
    /// Body key of the new end; empty sends no end. Default `end_time`.
    pub end_field: String,
    /// `local` or an IANA zone name (`Europe/Berlin`): the zone times are typed in. Empty
    /// (not set): the display clock's, `[ui] timezone` ([`Settings::reschedule_zone`]).
    pub timezone: String,
    /// True while the fields are the built-in defaults rather than set in the file: the dialog
    /// flags them as defaults to confirm for the user's service.
    #[serde(skip)]
    pub fields_are_defaults: bool,
}

pub const DEFAULT_START_FIELD: &str = "start_time";
pub const DEFAULT_END_FIELD: &str = "end_time";

impl Default for RescheduleSettings {
    fn default() -> Self {
        RescheduleSettings {
            start_field: DEFAULT_START_FIELD.to_string(),
            end_field: DEFAULT_END_FIELD.to_string(),
            timezone: String::new(),
            fields_are_defaults: true,
        }
    }
}

/// `[ui]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct UiSettings {
    /// `default`, `16` (16-colour fallback) or `none`; `NO_COLOR` forces `none`.
    pub theme: String,
    /// Auto-refresh period; 0 = off.
    pub refresh_seconds: u64,
    /// Initial page size (10, 25, 50 or 100).
    pub per_page: u32,
    /// True when the file itself sets a usable `per_page` (else it is the default): a
    /// changed value wins over the page size remembered from the last run.
    #[serde(skip)]
    pub per_page_set: bool,
    /// Mouse capture; false keeps the terminal's own text selection.
    pub mouse: bool,
    /// The command `o` opens a record's web page with (the URL is its last argument),
    /// e.g. `"firefox --new-tab"`; default `xdg-open` (`open` on macOS).
    pub opener: Option<String>,
    /// Currency shown with amounts whose record names none (`"EUR"`); unset shows none.
    pub currency: Option<String>,
    /// The country (ISO 3166 code like `"DE"`) of phone numbers written without an
    /// international prefix, when duplicates are looked for; unset compares only numbers
    /// with one.
    pub region: Option<String>,
    /// The first screen: `"today"` opens Today over the table; unset (or `"table"`) does not.
    pub start: Option<String>,
    /// The display clock: `local` or an IANA zone name (`Europe/Berlin`), the zone every time
    /// shown to a person is read in (machine formats stay RFC 3339 UTC).
    pub timezone: String,
}

impl Default for UiSettings {
    fn default() -> Self {
        UiSettings {
            theme: "default".to_string(),
            refresh_seconds: 0,
            per_page: 25,
            per_page_set: false,
            mouse: true,
            opener: None,
            currency: None,
            region: None,
            start: None,
            timezone: "local".to_string(),
        }
    }
}

/// `[safety]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct SafetySettings {
    /// How long a write confirmed in the dashboard waits, taken back with `u` or Esc, before
    /// it is sent; 0 sends at once. At most [`MAX_UNDO_SECONDS`].
    pub undo_seconds: u64,
}

/// The default undo window.
pub const DEFAULT_UNDO_SECONDS: u64 = 5;
/// The longest undo window the config file may ask for.
pub const MAX_UNDO_SECONDS: u64 = 60;

impl Default for SafetySettings {
    fn default() -> Self {
        SafetySettings {
            undo_seconds: DEFAULT_UNDO_SECONDS,
        }
    }
}

/// `[network]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct NetworkSettings {
    /// Extra CA certificate (PEM) for self-hosted instances.
    pub ca_file: Option<PathBuf>,
}

/// `[cache]`: the local mirror (see `mirror`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct CacheSettings {
    /// False keeps nothing on disk: no mirror, no sync, no search.
    pub enabled: bool,
    /// Where mirrors are kept; default the platform's cache dir (`~/.cache/crmdash/mirror`).
    pub dir: Option<PathBuf>,
    /// A sync is a full one (which also finds deleted records) when the last full sync is
    /// older than this many hours.
    pub full_sync_after_hours: u64,
    /// The dashboard syncs in the background when it starts and then every this many
    /// minutes; 0 turns the dashboard's background sync off (`crmdash sync` still works).
    pub sync_every_minutes: u64,
    /// List requests a sync keeps in flight at most (1 to 32); a rate limit halves it for a
    /// while.
    pub sync_jobs: usize,
    /// The change feed keeps what every sync saw change for this many days.
    pub history_days: u32,
}

/// `[cache] history_days` when the file says nothing.
pub const DEFAULT_HISTORY_DAYS: u32 = 90;

impl Default for CacheSettings {
    fn default() -> Self {
        CacheSettings {
            enabled: true,
            dir: None,
            full_sync_after_hours: 24,
            sync_every_minutes: 15,
            sync_jobs: DEFAULT_SYNC_JOBS,
            history_days: DEFAULT_HISTORY_DAYS,
        }
    }
}

/// `[dupes]` in the config file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct DupesSettings {
    /// A pair scoring at least this is a near duplicate (0 to 1).
    pub threshold: f64,
    /// Names at least this close (Jaro–Winkler, 0 to 1) count as the same name.
    pub name_similarity: f64,
}

/// Chosen on the sandbox's labelled set (docs/duplicates.md): every planted kind scores 0.95
/// or more, the different people who look alike score at most 0.5.
pub const DEFAULT_THRESHOLD: f64 = 0.85;
pub const DEFAULT_NAME_SIMILARITY: f64 = 0.9;

impl Default for DupesSettings {
    fn default() -> Self {
        DupesSettings {
            threshold: DEFAULT_THRESHOLD,
            name_similarity: DEFAULT_NAME_SIMILARITY,
        }
    }
}

/// Pages a sync reads at once unless `[cache] sync_jobs` says otherwise.
pub const DEFAULT_SYNC_JOBS: usize = 8;
