//! Logging in from the dashboard: the token typed into the login dialog is checked against
//! the service, kept in the OS keyring, and the profile's base URL saved beside it.

use std::path::PathBuf;

use secrecy::SecretString;

use crate::api::{Client, ClientOptions, ErrorKind};
use crate::app::dialogs::login::LoginOk;
use crate::credentials::Keyring;

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
