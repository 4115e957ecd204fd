//! The runtime's part of the write dialogs: logging in from the dashboard (check the token,
//! keep it in the keyring, save the base URL) and the reschedule log's file I/O.

use std::path::PathBuf;

use secrecy::SecretString;

use crate::api::{ApiError, Client, ClientOptions, ContactQuery, DealQuery, ErrorKind, Paging};
use crate::app::login::LoginOk;
use crate::credentials::Keyring;
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

/// One one-item list request (deals when the contacts list refuses the paging), as
/// `crmdash login` does.
async fn verify(client: &Client) -> Result<(), ApiError> {
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

/// Checks the token, then stores it. A refused token is an error; a keyring that cannot
/// store it is not (the session goes on with the token in memory, `stored` says why).
pub async fn login(ctx: LoginContext, token: SecretString) -> Result<LoginOk, String> {
    let client = Client::with_options(&ctx.base_url, token.clone(), ctx.options.clone())
        .map_err(|e| e.summary())?;
    if let Err(e) = verify(&client).await {
        return Err(match e.kind {
            ErrorKind::Unauthorized => {
                "The service did not accept this token (401): check it and try again".to_string()
            }
            _ => format!("The token could not be checked: {}", e.summary()),
        });
    }
    let stored = match ctx.keyring.set(&ctx.profile, token).await {
        Ok(()) => match &ctx.config_path {
            Some(path) => crate::config::save_profile_base_url(path, &ctx.profile, &ctx.base_url)
                .map(|()| ctx.keyring.store_name())
                .map_err(|e| {
                    format!("the token is in the keyring, but the base URL was not saved: {e}")
                }),
            None => Ok(ctx.keyring.store_name()),
        },
        Err(e) => Err(e.to_string()),
    };
    Ok(LoginOk { client, stored })
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
