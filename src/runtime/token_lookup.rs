//! Finding the token after the first frame: the environment's token or the profile's
//! keyring entry, and a client made with it off the loop's thread; when there is none, what
//! the requests and the login dialog say about it.

use super::TokenLookupFuture;
use crate::api::Client;
use crate::app::dialogs::login::TokenLookup;
use crate::config::Settings;
use crate::credentials::{CredentialError, Keyring, TokenSource};

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
                problem: Some(crate::app::dialogs::login::capitalize(&e.to_string())),
            }
        }
    }
}
