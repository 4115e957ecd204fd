//! Logging in from the dashboard: the token lookup at start (the keyring read, after the
//! first frame), and the token typed into the login dialog, checked against the service, kept
//! in the OS keyring, and the profile's base URL saved beside it.

use std::path::PathBuf;

use secrecy::SecretString;
use tokio::sync::mpsc::UnboundedSender;
use tokio::task::AbortHandle;

use crate::api::{Client, ClientOptions, ErrorKind};
use crate::app::dialogs::login::{LoginOk, TokenLookup};
use crate::app::{Message, RequestId};
use crate::credentials::Keyring;

/// Finds the token and makes the client (the keyring read, off the loop).
pub type TokenLookupFuture = futures::future::BoxFuture<'static, TokenLookup>;

/// The engine's side of logging in.
#[derive(Default)]
pub(super) struct Login {
    /// Where a token from the login dialog is checked and kept (no token at start).
    context: Option<LoginContext>,
    /// The token lookup `Engine::start` runs (after the first frame: the keyring may be slow).
    lookup: Option<TokenLookupFuture>,
}

impl Login {
    pub fn set_context(&mut self, cx: LoginContext) {
        self.context = Some(cx);
    }

    pub fn set_lookup(&mut self, lookup: TokenLookupFuture) {
        self.lookup = Some(lookup);
    }

    /// Starts the token lookup, if there is one (once); it answers `Message::TokenLookup`.
    pub fn start_lookup(&mut self, tx: &UnboundedSender<Message>) {
        if let Some(lookup) = self.lookup.take() {
            let tx = tx.clone();
            tokio::spawn(async move {
                let _ = tx.send(Message::TokenLookup(Box::new(lookup.await)));
            });
        }
    }

    /// Checks and keeps a token from the login dialog; answers `Message::LoggedIn`. The task,
    /// when one started, is the caller's to track (a cancel aborts it).
    pub fn check(
        &self,
        id: RequestId,
        token: SecretString,
        base_url: Option<String>,
        tx: &UnboundedSender<Message>,
    ) -> Option<AbortHandle> {
        let tx = tx.clone();
        let Some(ctx) = self.context.clone() else {
            let _ = tx.send(Message::LoggedIn {
                id,
                result: Box::new(Err("logging in is not possible here".into())),
            });
            return None;
        };
        let handle = tokio::spawn(async move {
            let result = login(ctx, token, base_url).await;
            let _ = tx.send(Message::LoggedIn {
                id,
                result: Box::new(result),
            });
        });
        Some(handle.abort_handle())
    }
}

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

/// Checks the token against `typed_url` (the base URL typed in the dialog) or else the
/// context's, then stores it. A refused token is an error; a keyring that cannot store it is
/// not (the session goes on with the token in memory, `stored` says why). A typed base URL is
/// saved in the profile once the service accepted the token, keyring or not (with the URL
/// saved, `CRMDASH_TOKEN` is all a later run needs when the keyring stays out of reach).
pub async fn login(
    ctx: LoginContext,
    token: SecretString,
    typed_url: Option<String>,
) -> Result<LoginOk, String> {
    let base_url = typed_url.clone().unwrap_or_else(|| ctx.base_url.clone());
    let options = ctx.options.clone();
    let (url, secret) = (base_url.clone(), token.clone());
    // Building the client reads root certificates: off the loop's thread.
    let client = tokio::task::spawn_blocking(move || Client::with_options(&url, secret, options))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|e| e.summary())?;
    if let Err(e) = crate::credentials::verify_token(&client).await {
        return Err(match e.kind {
            ErrorKind::Unauthorized => {
                "The service did not accept this token (401): check it and try again".to_string()
            }
            _ => format!("The token could not be checked: {}", e.summary()),
        });
    }
    let saved_url = match (&typed_url, ctx.config_path.clone()) {
        (Some(url), Some(path)) => Some(save_url(path, &ctx.profile, url).await),
        _ => None,
    };
    let stored = match ctx.keyring.set(&ctx.profile, token).await {
        Ok(()) => match ctx.config_path.clone().filter(|_| typed_url.is_none()) {
            Some(path) => save_url(path, &ctx.profile, &base_url)
                .await
                .map(|_| ctx.keyring.store_name())
                .map_err(|e| {
                    format!("the token is in the keyring, but the base URL was not saved: {e}")
                }),
            None => Ok(ctx.keyring.store_name()),
        },
        Err(e) => Err(e.to_string()),
    };
    Ok(LoginOk {
        client,
        stored,
        saved_url,
    })
}

/// `[profiles.PROFILE] base_url` in the config file (a rewrite that keeps the rest of the
/// file, off the loop's thread); `Ok` is the file's path.
async fn save_url(path: PathBuf, profile: &str, base_url: &str) -> Result<String, String> {
    let (profile, base_url) = (profile.to_string(), base_url.to_string());
    tokio::task::spawn_blocking(move || {
        crate::config::save_profile_base_url(&path, &profile, &base_url)
            .map(|()| path.display().to_string())
            .map_err(|e| e.to_string())
    })
    .await
    .unwrap_or_else(|e| Err(e.to_string()))
}
