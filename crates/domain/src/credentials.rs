//! Token storage: the OS keyring behind a small trait, `CRMDASH_TOKEN` as override, and the
//! rule that a profile's keyring token only goes to that profile's saved base URL.
//! The token is a `SecretString` throughout: it is never logged, printed or written to a file.

mod store;

use std::sync::{Arc, LazyLock};
use std::time::Duration;

use secrecy::SecretString;

use crate::config::{Settings, normalize_base_url};

pub use store::{
    KEYRING_ENV, KeyringStore, PlatformStore, SERVICE, StoreError, StoreErrorKind, TokenStore,
    classify,
};

/// The token from the environment; overrides the keyring (CI, containers).
pub const TOKEN_ENV: &str = "CRMDASH_TOKEN";
/// How long a keyring call may take before we give up on it (an unlock prompt can wait forever).
pub const KEYRING_TIMEOUT: Duration = Duration::from_secs(10);

/// What went wrong getting or keeping a token, in words a user can act on.
/// No variant carries the token.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CredentialError {
    #[error(
        "no token for profile '{profile}': run `crmdash login --profile {profile}`, or set CRMDASH_TOKEN"
    )]
    NotLoggedIn { profile: String },
    #[error(
        "refusing to send the keyring token of profile '{profile}' to {requested}: it is saved for {saved}. A --base-url or CRMDASH_BASE_URL that differs from the saved one never gets a keyring token; log in to a separate profile (`crmdash login --profile NAME --base-url {requested}`), unset the override, or set CRMDASH_TOKEN"
    )]
    BaseUrlMismatch {
        profile: String,
        saved: String,
        requested: String,
    },
    #[error(
        "profile '{profile}' has a keyring token but no saved base URL, so it is not sent anywhere: run `crmdash login --profile {profile} --base-url URL`, or set CRMDASH_TOKEN"
    )]
    NoSavedBaseUrl { profile: String },
    #[error(
        "the OS keyring ({store}) is unreachable: {cause}. Set CRMDASH_TOKEN to pass the token through the environment instead"
    )]
    KeyringUnavailable { store: String, cause: String },
    #[error(
        "the OS keyring ({store}) is locked: {cause}. Unlock it (e.g. in your desktop session) and retry, or set CRMDASH_TOKEN"
    )]
    KeyringLocked { store: String, cause: String },
    #[error(
        "the OS keyring ({store}) did not answer within {seconds} s (an unlock prompt may be waiting): answer it and retry, or set CRMDASH_TOKEN"
    )]
    KeyringTimeout { store: String, seconds: u64 },
    #[error("the OS keyring ({store}) could not {action} the token: {cause}")]
    Keyring {
        store: String,
        action: &'static str,
        cause: String,
    },
    #[error("the token is empty")]
    EmptyToken,
    #[error(
        "the token contains spaces, control or non-ASCII characters: paste only the token itself"
    )]
    MalformedToken,
}

/// Where a token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenOrigin {
    /// `CRMDASH_TOKEN`.
    Env,
    /// The OS keyring entry of the profile.
    Keyring,
}

impl std::fmt::Display for TokenOrigin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TokenOrigin::Env => TOKEN_ENV,
            TokenOrigin::Keyring => "keyring",
        })
    }
}

/// A token and where it came from. `Debug` shows `[REDACTED]` for the token.
#[derive(Debug, Clone)]
pub struct TokenSource {
    pub token: SecretString,
    pub origin: TokenOrigin,
}

/// Trims a pasted token and refuses what cannot be a bearer token.
pub fn check_token(raw: &str) -> Result<SecretString, CredentialError> {
    let t = raw.trim();
    if t.is_empty() {
        return Err(CredentialError::EmptyToken);
    }
    if !t.chars().all(|c| c.is_ascii_graphic()) {
        return Err(CredentialError::MalformedToken);
    }
    Ok(SecretString::from(t.to_string()))
}

/// `CRMDASH_TOKEN`, checked; unset or empty is `None`.
pub fn env_token() -> Result<Option<SecretString>, CredentialError> {
    match std::env::var(TOKEN_ENV) {
        Ok(v) if !v.trim().is_empty() => check_token(&v).map(Some),
        _ => Ok(None),
    }
}

/// The last four characters of a token, for `auth status` (`…abcd`).
pub fn token_hint(token: &SecretString) -> String {
    use secrecy::ExposeSecret;
    let chars: Vec<char> = token.expose_secret().chars().collect();
    if chars.len() < 12 {
        return "…".to_string();
    }
    let tail: String = chars[chars.len() - 4..].iter().collect();
    format!("…{tail}")
}

/// The async face of a [`TokenStore`]: each call runs on its own thread, bounded by a timeout.
#[derive(Clone)]
pub struct Keyring {
    store: Arc<dyn TokenStore>,
    timeout: Duration,
}

static PLATFORM: LazyLock<Keyring> =
    LazyLock::new(|| Keyring::with_store(Arc::new(PlatformStore::default())));

impl Keyring {
    /// The OS keyring (opened on first use; `CRMDASH_KEYRING=keyutils` picks the kernel
    /// keyring on Linux).
    pub fn platform() -> Keyring {
        PLATFORM.clone()
    }

    /// Any store, e.g. keyring-core's mock store in tests.
    pub fn with_store(store: Arc<dyn TokenStore>) -> Keyring {
        Keyring {
            store,
            timeout: KEYRING_TIMEOUT,
        }
    }

    pub fn with_timeout(mut self, timeout: Duration) -> Keyring {
        self.timeout = timeout;
        self
    }

    /// The store's name for messages.
    pub fn store_name(&self) -> String {
        self.store.name()
    }

    pub async fn get(&self, profile: &str) -> Result<Option<SecretString>, CredentialError> {
        let p = profile.to_string();
        self.run("read", move |s| s.get(&p)).await
    }

    pub async fn set(&self, profile: &str, token: SecretString) -> Result<(), CredentialError> {
        let p = profile.to_string();
        self.run("store", move |s| s.set(&p, &token)).await
    }

    /// Deletes the profile's entry; false when there was none.
    pub async fn delete(&self, profile: &str) -> Result<bool, CredentialError> {
        let p = profile.to_string();
        self.run("delete", move |s| s.delete(&p)).await
    }

    /// Runs `op` on a plain thread rather than `spawn_blocking`: a call stuck on an unlock
    /// prompt must not keep the tokio runtime from shutting down, and a thread without a
    /// runtime context is one where zbus can never find (and panic on) ours (keyring-rs#132).
    async fn run<T: Send + 'static>(
        &self,
        action: &'static str,
        op: impl FnOnce(&dyn TokenStore) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, CredentialError> {
        let store = self.store.clone();
        let name = store.name();
        let (tx, rx) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("crmdash-keyring".into())
            .spawn(move || {
                let result =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| op(store.as_ref())));
                let _ = tx.send(result);
            });
        if let Err(e) = spawned {
            return Err(CredentialError::Keyring {
                store: name,
                action,
                cause: format!("cannot start a thread: {e}"),
            });
        }
        let outcome = match tokio::time::timeout(self.timeout, rx).await {
            Err(_) => {
                return Err(CredentialError::KeyringTimeout {
                    store: name,
                    seconds: self.timeout.as_secs().max(1),
                });
            }
            Ok(Err(_)) | Ok(Ok(Err(_))) => {
                return Err(CredentialError::Keyring {
                    store: name,
                    action,
                    cause: "the keyring library failed unexpectedly".into(),
                });
            }
            Ok(Ok(Ok(r))) => r,
        };
        outcome.map_err(|e| {
            let store = self.store.name();
            match e.kind {
                StoreErrorKind::Unavailable => CredentialError::KeyringUnavailable {
                    store,
                    cause: e.cause,
                },
                StoreErrorKind::Locked => CredentialError::KeyringLocked {
                    store,
                    cause: e.cause,
                },
                StoreErrorKind::Failed => CredentialError::Keyring {
                    store,
                    action,
                    cause: e.cause,
                },
            }
        })
    }
}

/// The token for `profile` talking to `base_url`: `CRMDASH_TOKEN` if set, else the profile's
/// keyring entry, which is only handed out for the profile's saved base URL.
pub async fn resolve_token(
    profile: &str,
    base_url: &str,
    settings: &Settings,
) -> Result<TokenSource, CredentialError> {
    resolve_token_with(
        &Keyring::platform(),
        env_token()?,
        profile,
        base_url,
        settings,
    )
    .await
}

/// [`resolve_token`] with the keyring and the env token given (tests, the dashboard).
pub async fn resolve_token_with(
    keyring: &Keyring,
    env_token: Option<SecretString>,
    profile: &str,
    base_url: &str,
    settings: &Settings,
) -> Result<TokenSource, CredentialError> {
    match token_without_keyring(env_token, profile, base_url, settings)? {
        Some(source) => Ok(source),
        None => keyring_token(keyring, profile, settings).await,
    }
}

/// The part of [`resolve_token_with`] that never touches the keyring: the env token when set
/// (`Some`), the refusal of a base URL that differs from the profile's saved one, else `None`
/// (the keyring must be asked). Fast: the dashboard calls it before its first frame.
pub fn token_without_keyring(
    env_token: Option<SecretString>,
    profile: &str,
    base_url: &str,
    settings: &Settings,
) -> Result<Option<TokenSource>, CredentialError> {
    if let Some(token) = env_token {
        return Ok(Some(TokenSource {
            token,
            origin: TokenOrigin::Env,
        }));
    }
    // Refuse before touching the keyring: no unlock prompt for a request we will not send.
    if let Some(saved) = saved_base_url(profile, settings) {
        let (saved, requested) = (normalize_base_url(saved), normalize_base_url(base_url));
        if saved != requested {
            return Err(CredentialError::BaseUrlMismatch {
                profile: profile.to_string(),
                saved,
                requested,
            });
        }
    }
    Ok(None)
}

/// The profile's keyring entry, handed out only when the profile has a saved base URL (which
/// [`token_without_keyring`] has already compared with the one in use). Blocking keyring
/// calls run on their own thread with a timeout.
pub async fn keyring_token(
    keyring: &Keyring,
    profile: &str,
    settings: &Settings,
) -> Result<TokenSource, CredentialError> {
    let token = keyring
        .get(profile)
        .await?
        .ok_or_else(|| CredentialError::NotLoggedIn {
            profile: profile.to_string(),
        })?;
    if saved_base_url(profile, settings).is_none() {
        return Err(CredentialError::NoSavedBaseUrl {
            profile: profile.to_string(),
        });
    }
    Ok(TokenSource {
        token,
        origin: TokenOrigin::Keyring,
    })
}

/// Asks the service whether it accepts `client`'s token: one one-item list request (deals
/// when the contacts list refuses the paging with a 422). Used by `crmdash login` and the
/// dashboard's login dialog before a token is stored.
pub async fn verify_token(client: &crate::api::Client) -> Result<(), crate::api::ApiError> {
    use crate::api::{ContactQuery, DealQuery, ErrorKind, Paging};
    let paging = Paging {
        page: None,
        per_page: Some(1),
    };
    let contacts = ContactQuery {
        paging,
        ..Default::default()
    };
    match client.list_contacts(&contacts).await {
        Ok(_) => Ok(()),
        Err(e) if e.kind == ErrorKind::Validation => {
            let deals = DealQuery {
                paging,
                ..Default::default()
            };
            client.list_deals(&deals).await.map(|_| ())
        }
        Err(e) => Err(e),
    }
}

fn saved_base_url<'a>(profile: &str, settings: &'a Settings) -> Option<&'a str> {
    settings
        .profiles
        .get(profile)
        .and_then(|p| p.base_url.as_deref())
        .filter(|u| !u.trim().is_empty())
}

#[cfg(test)]
mod tests;
