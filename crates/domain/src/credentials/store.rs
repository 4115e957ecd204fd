//! `TokenStore`: the blocking get/set/delete of one token per profile, and its implementation
//! over a keyring-core credential store (Secret Service, keyutils on request, Keychain,
//! Credential Manager). Store errors are classified so the user is told the cause.

use std::sync::{Arc, Mutex};

use keyring_core::{CredentialStore, Error as KeyringError};
use secrecy::{ExposeSecret, SecretString};

/// Keyring service name of every crmdash entry; the user name is the profile.
pub const SERVICE: &str = "crmdash";
/// Picks the store on Linux: `secret-service` (default) or `keyutils` (the kernel keyring,
/// which forgets at reboot, so only on request).
pub const KEYRING_ENV: &str = "CRMDASH_KEYRING";

/// What kind of failure a store reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreErrorKind {
    /// The store cannot be reached at all (no D-Bus session, no Secret Service provider).
    Unavailable,
    /// Reached, but locked and not unlocked (prompt dismissed or impossible).
    Locked,
    /// Anything else.
    Failed,
}

/// A store failure. `cause` never holds a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{cause}")]
pub struct StoreError {
    pub kind: StoreErrorKind,
    pub cause: String,
}

impl StoreError {
    pub fn new(kind: StoreErrorKind, cause: impl Into<String>) -> Self {
        StoreError {
            kind,
            cause: cause.into(),
        }
    }
}

/// One token per profile. Calls may block (D-Bus, unlock prompts): call them through
/// [`super::Keyring`], which runs them off the async loop with a timeout.
pub trait TokenStore: Send + Sync + 'static {
    /// A short name for messages (`Secret Service`, `kernel keyutils`, ...).
    fn name(&self) -> String;
    /// The profile's token; `None` when there is none.
    fn get(&self, profile: &str) -> Result<Option<SecretString>, StoreError>;
    fn set(&self, profile: &str, token: &SecretString) -> Result<(), StoreError>;
    /// Removes the profile's token; false when there was none.
    fn delete(&self, profile: &str) -> Result<bool, StoreError>;
}

/// A keyring-core credential store used as a [`TokenStore`].
pub struct KeyringStore {
    store: Arc<CredentialStore>,
    name: String,
}

impl KeyringStore {
    /// Wraps any keyring-core store (tests pass `keyring_core::mock::Store::new()?`).
    pub fn new(store: Arc<CredentialStore>, name: impl Into<String>) -> Self {
        KeyringStore {
            store,
            name: name.into(),
        }
    }

    /// Opens the platform's store (see [`KEYRING_ENV`]). Blocks: connects to D-Bus on Linux.
    pub fn open_platform() -> Result<Self, StoreError> {
        let choice = std::env::var(KEYRING_ENV).unwrap_or_default();
        let choice = choice.trim().to_ascii_lowercase();
        platform::open(&choice)
    }

    fn entry(&self, profile: &str) -> Result<keyring_core::Entry, StoreError> {
        self.store
            .build(SERVICE, profile, None)
            .map_err(|e| classify(e, profile))
    }
}

impl TokenStore for KeyringStore {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn get(&self, profile: &str) -> Result<Option<SecretString>, StoreError> {
        match self.entry(profile)?.get_password() {
            Ok(p) => Ok(Some(SecretString::from(p))),
            Err(KeyringError::NoEntry) => Ok(None),
            Err(e) => Err(classify(e, profile)),
        }
    }

    fn set(&self, profile: &str, token: &SecretString) -> Result<(), StoreError> {
        self.entry(profile)?
            .set_password(token.expose_secret())
            .map_err(|e| classify(e, profile))
    }

    fn delete(&self, profile: &str) -> Result<bool, StoreError> {
        match self.entry(profile)?.delete_credential() {
            Ok(()) => Ok(true),
            Err(KeyringError::NoEntry) => Ok(false),
            Err(e) => Err(classify(e, profile)),
        }
    }
}

/// Opens the platform store on first use and again after a failure (the user may start
/// their keyring daemon while the dashboard runs).
#[derive(Default)]
pub struct PlatformStore {
    opened: Mutex<Option<Arc<KeyringStore>>>,
}

impl PlatformStore {
    fn store(&self) -> Result<Arc<KeyringStore>, StoreError> {
        let mut guard = self.opened.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(s) = guard.as_ref() {
            return Ok(s.clone());
        }
        let s = Arc::new(KeyringStore::open_platform()?);
        *guard = Some(s.clone());
        Ok(s)
    }
}

impl TokenStore for PlatformStore {
    fn name(&self) -> String {
        match self
            .opened
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
        {
            Some(s) => s.name(),
            None => platform::DEFAULT_NAME.to_string(),
        }
    }
    fn get(&self, profile: &str) -> Result<Option<SecretString>, StoreError> {
        self.store()?.get(profile)
    }
    fn set(&self, profile: &str, token: &SecretString) -> Result<(), StoreError> {
        self.store()?.set(profile, token)
    }
    fn delete(&self, profile: &str) -> Result<bool, StoreError> {
        self.store()?.delete(profile)
    }
}

/// Turns a keyring-core error into a cause a user can act on. Never formats entries or
/// secret bytes (`Ambiguous` and `BadEncoding` carry them).
pub fn classify(err: KeyringError, profile: &str) -> StoreError {
    use StoreErrorKind::*;
    match err {
        KeyringError::NoStorageAccess(e) => StoreError::new(Locked, platform::describe(&*e)),
        KeyringError::PlatformFailure(e) => {
            let cause = platform::describe(&*e);
            StoreError::new(platform::kind_of(&*e), cause)
        }
        KeyringError::NoDefaultStore => {
            StoreError::new(Unavailable, "no credential store is set up")
        }
        KeyringError::NoEntry => {
            StoreError::new(Failed, format!("no entry for profile '{profile}'"))
        }
        KeyringError::Ambiguous(entries) => StoreError::new(
            Failed,
            format!(
                "{} entries match service '{SERVICE}', user '{profile}': remove the extra ones with your keyring manager",
                entries.len()
            ),
        ),
        KeyringError::BadEncoding(_) | KeyringError::BadDataFormat(..) => StoreError::new(
            Failed,
            format!(
                "the stored entry for profile '{profile}' is not readable text: run `crmdash login --profile {profile}` again"
            ),
        ),
        other => StoreError::new(Failed, other.to_string()),
    }
}

#[cfg(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
))]
mod platform {
    use super::{KeyringStore, StoreError, StoreErrorKind};

    pub const DEFAULT_NAME: &str = "Secret Service";

    pub fn open(choice: &str) -> Result<KeyringStore, StoreError> {
        match choice {
            "" | "secret-service" | "secretservice" => {
                zbus_secret_service_keyring_store::Store::new()
                    .map(|s| KeyringStore::new(s, DEFAULT_NAME))
                    .map_err(|e| super::classify(e, ""))
            }
            #[cfg(target_os = "linux")]
            "keyutils" => linux_keyutils_keyring_store::Store::new()
                .map(|s| KeyringStore::new(s, "kernel keyutils"))
                .map_err(|e| super::classify(e, "")),
            other => Err(StoreError::new(
                StoreErrorKind::Unavailable,
                format!(
                    "{}={other} is not a known store (use secret-service, or keyutils on Linux)",
                    super::KEYRING_ENV
                ),
            )),
        }
    }

    fn service_error<'a>(
        e: &'a (dyn std::error::Error + 'static),
    ) -> Option<&'a secret_service::Error> {
        e.downcast_ref::<secret_service::Error>()
    }

    pub fn kind_of(e: &(dyn std::error::Error + Send + Sync + 'static)) -> StoreErrorKind {
        match service_error(e) {
            Some(secret_service::Error::Unavailable) => StoreErrorKind::Unavailable,
            Some(secret_service::Error::Zbus(zbus_err)) if is_connect_error(zbus_err) => {
                StoreErrorKind::Unavailable
            }
            _ => StoreErrorKind::Failed,
        }
    }

    /// zbus is not our direct dependency, so its connection failures (bad address, missing
    /// socket, refused handshake) are recognised by their message.
    fn is_connect_error(e: &dyn std::fmt::Display) -> bool {
        let s = e.to_string().to_ascii_lowercase();
        s.contains("address") || s.contains("connect") || s.contains("no such file")
    }

    /// The cause in words, naming D-Bus or the Secret Service provider when that is it.
    pub fn describe(e: &(dyn std::error::Error + Send + Sync + 'static)) -> String {
        match service_error(e) {
            Some(secret_service::Error::Unavailable) => no_provider_cause(),
            Some(secret_service::Error::Locked) => "the keyring collection is locked".to_string(),
            Some(secret_service::Error::Prompt) => {
                "the keyring collection is locked and the unlock prompt was dismissed".to_string()
            }
            Some(secret_service::Error::PromptDisconnected) => {
                "the keyring collection is locked and the unlock prompt could not complete"
                    .to_string()
            }
            Some(secret_service::Error::NoResult) => {
                "the keyring collection is locked (the Secret Service returned no result)"
                    .to_string()
            }
            Some(secret_service::Error::Zbus(z)) if is_connect_error(z) => {
                format!("{} ({z})", no_provider_cause())
            }
            Some(other) => format!("Secret Service error: {other}"),
            None => e.to_string(),
        }
    }

    fn no_provider_cause() -> String {
        let has_bus_env =
            std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some_and(|v| !v.is_empty());
        let has_runtime_bus = std::env::var_os("XDG_RUNTIME_DIR")
            .map(|d| std::path::Path::new(&d).join("bus").exists())
            .unwrap_or(false);
        if !has_bus_env && !has_runtime_bus {
            "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is not set)".to_string()
        } else {
            "no Secret Service provider answers on the D-Bus session bus (start gnome-keyring-daemon, KeePassXC or another Secret Service)".to_string()
        }
    }
}

#[cfg(not(all(
    unix,
    not(any(target_os = "macos", target_os = "ios", target_os = "android"))
)))]
mod platform {
    use super::{KeyringStore, StoreError, StoreErrorKind};

    pub const DEFAULT_NAME: &str = "OS keyring";

    pub fn open(choice: &str) -> Result<KeyringStore, StoreError> {
        if !choice.is_empty() && choice != "native" {
            return Err(StoreError::new(
                StoreErrorKind::Unavailable,
                format!(
                    "{}={choice} is not available on this platform",
                    super::KEYRING_ENV
                ),
            ));
        }
        // keyring's v1 glue registers the platform store (Keychain, Credential Manager) as
        // keyring-core's default once; we take that store and build entries through it.
        if let Err(e) = keyring::Entry::store_status() {
            return Err(StoreError::new(StoreErrorKind::Unavailable, e.to_string()));
        }
        keyring_core::get_default_store()
            .map(|s| KeyringStore::new(s, DEFAULT_NAME))
            .ok_or_else(|| {
                StoreError::new(StoreErrorKind::Unavailable, "no credential store is set up")
            })
    }

    pub fn kind_of(_: &(dyn std::error::Error + Send + Sync + 'static)) -> StoreErrorKind {
        StoreErrorKind::Failed
    }

    pub fn describe(e: &(dyn std::error::Error + Send + Sync + 'static)) -> String {
        e.to_string()
    }
}
