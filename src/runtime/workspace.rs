//! The runtime's side of the palette's effects: writing the saved views file, opening a
//! record's web page, switching profile (a client bound to that profile's own base URL with
//! that profile's own token) and `:sync`. Each reports back as a message.

use tokio::sync::mpsc::UnboundedSender;

use super::TermAction;
use super::opener::Opener;
use crate::api::Client;
use crate::app::effects::NewClient;
use crate::app::{Effect, Message};
use crate::config::Settings;
use crate::config::views::{ViewEdit, edit_views};
use crate::credentials::Keyring;

/// What these effects need from the configuration.
#[derive(Clone)]
pub struct WorkspaceContext {
    pub settings: Settings,
    pub keyring: Keyring,
    pub opener: Opener,
}

/// The engine's side of the workspace: the context, when the dashboard has one (tests may not).
#[derive(Default)]
pub(super) struct Workspace {
    cx: Option<WorkspaceContext>,
}

impl Workspace {
    pub fn set_context(&mut self, cx: WorkspaceContext) {
        self.cx = Some(cx);
    }

    pub fn context(&self) -> Option<&WorkspaceContext> {
        self.cx.as_ref()
    }

    /// Runs a views-file or URL effect (`Engine::run` routes the others elsewhere).
    pub fn run(&self, e: Effect, tx: &UnboundedSender<Message>) -> Vec<TermAction> {
        let mut out = Vec::new();
        match e {
            Effect::EditViews { path, edit } => edit_views_file(tx.clone(), path, edit),
            Effect::ReadViews { path } => read_views_file(tx.clone(), path),
            Effect::OpenUrl { url } => {
                let opener = match &self.cx {
                    Some(cx) => cx.opener.clone(),
                    None => Opener::from_settings(None),
                };
                // An SSH session: the address goes on the clipboard (OSC 52 reaches the
                // local terminal) as well as in the status bar.
                if !opener.can_open() {
                    out.push(TermAction::Copy(url.clone()));
                }
                open_url(tx.clone(), opener, url);
            }
            other => debug_assert!(false, "not a workspace effect: {other:?}"),
        }
        out
    }
}

fn notice(tx: &UnboundedSender<Message>, text: String, error: bool) {
    let _ = tx.send(Message::Notice { text, error });
}

/// Writes a views file change off the loop; says so only when it fails.
pub fn edit_views_file(tx: UnboundedSender<Message>, path: std::path::PathBuf, edit: ViewEdit) {
    tokio::task::spawn_blocking(move || {
        // One edit at a time: two edits close together would each read the old file, and the
        // later rename would undo the earlier edit.
        let _one = VIEWS_FILE.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = edit_views(&path, &edit) {
            let _ = tx.send(Message::ViewsNotSaved(e.to_string()));
        }
    });
}

/// Serializes this process's reads and edits of the views file.
static VIEWS_FILE: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Reads the views file off the loop (`Effect::ReadViews`).
pub fn read_views_file(tx: UnboundedSender<Message>, path: std::path::PathBuf) {
    tokio::task::spawn_blocking(move || {
        let file = {
            let _one = VIEWS_FILE.lock().unwrap_or_else(|e| e.into_inner());
            crate::config::views::load_views(&path)
        };
        let _ = tx.send(Message::ViewsRead(Box::new(file)));
    });
}

/// Opens a URL (the opener may take a moment to start: off the loop).
pub fn open_url(tx: UnboundedSender<Message>, opener: Opener, url: String) {
    tokio::task::spawn_blocking(move || match opener.open(&url) {
        Ok(()) => notice(&tx, format!("Opened {url}"), false),
        Err(reason) => {
            let _ = tx.send(Message::UrlNotOpened { url, reason });
        }
    });
}

/// Makes the client of profile `name`: its saved base URL and its keyring token, nothing
/// else (the environment's token belongs to the profile the dashboard started with).
pub fn switch_profile(tx: UnboundedSender<Message>, cx: WorkspaceContext, name: String) {
    tokio::spawn(async move {
        let result = profile_client(&cx, &name).await.map(NewClient);
        let _ = tx.send(Message::ProfileSwitched {
            profile: name,
            result: Box::new(result),
        });
    });
}

async fn profile_client(cx: &WorkspaceContext, name: &str) -> Result<Client, String> {
    let base_url = cx
        .settings
        .profiles
        .get(name)
        .and_then(|p| p.base_url.clone())
        .filter(|u| !u.trim().is_empty())
        .ok_or_else(|| {
            format!(
                "profile '{name}' has no base URL: run `crmdash login --profile {name} --base-url URL`"
            )
        })?;
    let source = crate::credentials::keyring_token(&cx.keyring, name, &cx.settings)
        .await
        .map_err(|e| switch_refusal(name, e))?;
    let options = cx.settings.client_options();
    tokio::task::spawn_blocking(move || Client::with_options(&base_url, source.token, options))
        .await
        .map_err(|e| format!("cannot set up the HTTP client: {e}"))?
        .map_err(|e| e.summary())
}

/// Why a profile's keyring token cannot be had, for a switch in the dashboard: the CLI's
/// advice "or set CRMDASH_TOKEN" does not apply there (the environment's token belongs to the
/// profile the dashboard started with, and is never sent to another profile's host).
fn switch_refusal(name: &str, e: crate::credentials::CredentialError) -> String {
    use crate::credentials::CredentialError;
    let env_note = format!(
        "(CRMDASH_TOKEN serves only the profile the dashboard started with: `crmdash --profile {name}` starts on this one)"
    );
    match e {
        CredentialError::NotLoggedIn { .. } => format!(
            "no token for profile '{name}' in the OS keyring: run `crmdash login --profile {name}` {env_note}"
        ),
        e => {
            let text = e.to_string();
            let text = text
                .strip_suffix(", or set CRMDASH_TOKEN")
                .or_else(|| text.strip_suffix(" or set CRMDASH_TOKEN"))
                .unwrap_or(&text);
            format!("{text} {env_note}")
        }
    }
}
