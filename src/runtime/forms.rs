//! The runtime's part of the write dialogs: finding the token after the first frame, logging
//! in from the dashboard (check the token, keep it in the keyring, save the base URL) and the
//! reschedule log's file I/O.

use std::path::PathBuf;

use secrecy::SecretString;

use super::TokenLookupFuture;
use crate::api::{Client, ClientOptions, ErrorKind};
use crate::app::login::{LoginOk, TokenLookup};
use crate::config::Settings;
use crate::credentials::{CredentialError, Keyring, TokenSource};
use crate::reschedule::{RescheduleLogEntry, append_log, read_log};

/// Where a token typed into the login dialog is checked and kept.
#[derive(Clone)]
pub struct LoginContext {
    pub profile: String,
    pub base_url: String,
    pub options: ClientOptions,
    pub keyring: Keyring,
    /// The config file that gets `[profiles.P] base_url` (a keyring token is only sent to
    /// its profile's saved URL); `None` writes nothing (tests).
    pub config_path: Option<PathBuf>,
}

/// Checks the token, then stores it. A refused token is an error; a keyring that cannot
/// store it is not (the session goes on with the token in memory, `stored` says why).
pub async fn login(ctx: LoginContext, token: SecretString) -> Result<LoginOk, String> {
    let client = Client::with_options(&ctx.base_url, token.clone(), ctx.options.clone())
        .map_err(|e| e.summary())?;
    if let Err(e) = crate::credentials::verify_token(&client).await {
        return Err(match e.kind {
            ErrorKind::Unauthorized => {
                "The service did not accept this token (401): check it and try again".to_string()
            }
            _ => format!("The token could not be checked: {}", e.summary()),
        });
    }
    let stored = match ctx.keyring.set(&ctx.profile, token).await {
        Ok(()) => match ctx.config_path.clone() {
            Some(path) => {
                // A config file rewrite: file I/O, kept off the dashboard's loop thread.
                let (profile, base_url) = (ctx.profile.clone(), ctx.base_url.clone());
                let saved = tokio::task::spawn_blocking(move || {
                    crate::config::save_profile_base_url(&path, &profile, &base_url)
                        .map_err(|e| e.to_string())
                })
                .await
                .unwrap_or_else(|e| Err(e.to_string()));
                saved.map(|()| ctx.keyring.store_name()).map_err(|e| {
                    format!("the token is in the keyring, but the base URL was not saved: {e}")
                })
            }
            None => Ok(ctx.keyring.store_name()),
        },
        Err(e) => Err(e.to_string()),
    };
    Ok(LoginOk { client, stored })
}

/// The dashboard's token lookup: `found` (the environment's token) or else the profile's
/// entry in `keyring`, and a client with it; what the login dialog says when there is none.
pub fn token_lookup(
    keyring: Keyring,
    found: Option<TokenSource>,
    profile: String,
    base_url: String,
    settings: Settings,
) -> TokenLookupFuture {
    Box::pin(async move {
        let source = match found {
            Some(source) => Ok(source),
            None => crate::credentials::keyring_token(&keyring, &profile, &settings).await,
        };
        match source {
            Ok(source) => {
                // Building the client reads root certificates (and a `ca_file`): file I/O
                // and parsing, kept off the loop's thread.
                let options = settings.client_options();
                let built = tokio::task::spawn_blocking(move || {
                    Client::with_options(&base_url, source.token, options)
                })
                .await;
                match built {
                    Ok(Ok(client)) => TokenLookup::Found(client),
                    Ok(Err(e)) => TokenLookup::Unusable(e.summary()),
                    Err(e) => TokenLookup::Unusable(format!("cannot set up the HTTP client: {e}")),
                }
            }
            Err(e) => missing(&profile, e),
        }
    })
}

/// Why requests fail when the profile has no token.
pub fn not_logged_in(profile: &str) -> String {
    format!("Not logged in: no API token for profile '{profile}' - run `crmdash login`")
}

/// No usable token: why, for the requests, and what the login dialog says about it.
fn missing(profile: &str, e: CredentialError) -> TokenLookup {
    match e {
        CredentialError::NotLoggedIn { .. } => TokenLookup::Missing {
            reason: not_logged_in(profile),
            problem: None,
        },
        e => {
            tracing::warn!("token lookup: {e}");
            TokenLookup::Missing {
                reason: e.to_string(),
                problem: Some(capitalized(&e.to_string())),
            }
        }
    }
}

fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// Appends (when given) and reads back the last `last` entries.
pub fn reschedule_log(
    path: &std::path::Path,
    append: Option<&RescheduleLogEntry>,
    last: usize,
) -> Result<Vec<RescheduleLogEntry>, String> {
    if let Some(entry) = append {
        append_log(path, entry)
            .map_err(|e| format!("could not write the log {}: {e}", path.display()))?;
    }
    read_log(path, last).map_err(|e| format!("could not read the log {}: {e}", path.display()))
}
