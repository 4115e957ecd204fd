//! The login dialog shown when the dashboard starts without a token: a masked input, the
//! token checked against the service, then kept in the OS keyring (or, when the keyring is
//! unreachable, in memory for this session only, with the `CRMDASH_TOKEN` advice).

use crate::app::dialogs::Overlay;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use secrecy::{ExposeSecret, SecretString};

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::NewClient;
use crate::app::effects::{Effect, RequestId};
use crate::app::keymap::{Action, Hint};
use crate::app::message::Message;
use crate::app::widgets::text_input::TextInput;

/// A token on its way to the runtime. `Debug` never shows it; equality compares it (tests).
#[derive(Clone)]
pub struct SecretToken(pub SecretString);

impl std::fmt::Debug for SecretToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretToken(****)")
    }
}

impl PartialEq for SecretToken {
    fn eq(&self, other: &Self) -> bool {
        self.0.expose_secret() == other.0.expose_secret()
    }
}

/// What logging in came to (the runtime's answer).
#[derive(Debug, Clone)]
pub struct LoginOk {
    /// The client with the accepted token (the dialog hands it to the runtime).
    pub client: crate::api::Client,
    /// Storing in the keyring: `Err` says why not (the session goes on in memory).
    pub stored: Result<String, String>,
}

/// How the token lookup the dashboard starts after its first frame (the OS keyring) ended.
#[derive(Debug, Clone)]
pub enum TokenLookup {
    /// A client with the profile's token: requests go out with it from now on.
    Found(crate::api::Client),
    /// No usable token. `reason` answers the requests that waited for the lookup; `problem`
    /// (keyring unreachable, locked, no saved base URL...) is shown in the login dialog.
    Missing {
        reason: String,
        problem: Option<String>,
    },
    /// A token was found but no client could be made with it (an unreadable `ca_file`...):
    /// typing another token would not help, so no dialog, only the error.
    Unusable(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginStage {
    Asking,
    Verifying(RequestId),
}

pub struct LoginDialog {
    pub input: TextInput,
    pub stage: LoginStage,
    pub error: Option<String>,
    /// Why the dialog opened when it is not simply "no token yet" (a keyring problem); stays
    /// while the user types.
    pub notice: Option<String>,
    pub profile: String,
    pub host: String,
}

impl LoginDialog {
    pub fn new(profile: impl Into<String>, host: impl Into<String>) -> LoginDialog {
        LoginDialog {
            input: TextInput::default().with_max(4096),
            stage: LoginStage::Asking,
            error: None,
            notice: None,
            profile: profile.into(),
            host: host.into(),
        }
    }

    /// As many bullets as the token has characters (its length only).
    pub fn masked(&self) -> TextInput {
        let mut m = TextInput::new("•".repeat(self.input.value().chars().count()));
        let before = self.input.value()[..self.input.cursor()].chars().count();
        m.handle_key(&KeyEvent::new(KeyCode::Home, KeyModifiers::NONE));
        for _ in 0..before {
            m.handle_key(&KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
        }
        m
    }

    fn submit(&mut self, cx: &mut DialogCx) -> Outcome {
        match crate::credentials::check_token(self.input.value()) {
            Err(e) => {
                self.error = Some(e.to_string());
                Outcome::Handled
            }
            Ok(token) => {
                let id = cx.request_id();
                self.stage = LoginStage::Verifying(id);
                self.error = None;
                Outcome::Effects(vec![Effect::Login {
                    id,
                    token: SecretToken(token),
                }])
            }
        }
    }
}

impl Dialog for LoginDialog {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Confirm], "confirm", 0),
            Hint::new(&[Action::Cancel], "cancel", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if matches!(self.stage, LoginStage::Verifying(_)) {
            return Outcome::Handled;
        }
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        match cx
            .keymap
            .pick(key, &[Action::Confirm, Action::Submit, Action::Cancel])
        {
            Some(Action::Cancel) => Outcome::Close,
            Some(_) => self.submit(cx),
            // Word movement would reveal where the token's words are: plain editing only.
            None => {
                self.input.handle_key(key);
                self.error = None;
                Outcome::Handled
            }
        }
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        if self.stage == LoginStage::Asking {
            self.input.insert_str(text.trim());
        }
        Outcome::Handled
    }

    fn on_message(&mut self, msg: &Message, _cx: &mut DialogCx) -> Outcome {
        let Message::LoggedIn { id, result } = msg else {
            return Outcome::Ignored;
        };
        if self.stage != LoginStage::Verifying(*id) {
            return Outcome::Ignored;
        }
        self.stage = LoginStage::Asking;
        match result.as_ref() {
            Ok(ok) => {
                self.input.clear();
                let note = match &ok.stored {
                    Ok(store) => format!(
                        "Logged in as profile '{}': token stored in the {store}",
                        self.profile
                    ),
                    Err(e) => format!(
                        "Logged in for this session only (token kept in memory): {e}. Set CRMDASH_TOKEN to avoid typing it again"
                    ),
                };
                Outcome::CloseWith(DialogResult::LoggedIn {
                    note,
                    client: NewClient(ok.client.clone()),
                })
            }
            Err(e) => {
                self.error = Some(e.clone());
                Outcome::Handled
            }
        }
    }

    fn busy(&self) -> bool {
        matches!(self.stage, LoginStage::Verifying(_))
    }

    fn captures_text(&self) -> bool {
        true
    }
}

impl crate::app::App {
    /// The login dialog (the dashboard started without a token).
    pub fn open_login(&mut self) {
        self.open_login_with(None);
    }

    /// The login dialog with the reason it opened (a keyring that could not be read), unless
    /// one is open already.
    pub fn open_login_with(&mut self, notice: Option<String>) {
        if self.overlays.iter().any(|o| matches!(o, Overlay::Login(_))) {
            return;
        }
        let mut d = LoginDialog::new(self.config.profile.clone(), self.config.host.clone());
        d.notice = notice;
        self.overlays.push(Overlay::Login(d));
        self.dirty = true;
    }

    /// The runtime is looking up the token (after the first frame): requests wait for it, and
    /// the status bar says so.
    pub fn await_token(&mut self) {
        self.status.awaiting_token = true;
        self.dirty = true;
    }

    /// How the token lookup ended: the client to use, or why there is none (then the login
    /// dialog, unless typing a token would not help).
    pub(crate) fn on_token_lookup(&mut self, lookup: TokenLookup) -> Vec<Effect> {
        self.status.awaiting_token = false;
        self.dirty = true;
        match lookup {
            TokenLookup::Found(client) => vec![Effect::UseClient(NewClient(client))],
            TokenLookup::Missing { reason, problem } => {
                self.open_login_with(problem);
                vec![Effect::NoClient { reason }]
            }
            TokenLookup::Unusable(reason) => {
                self.status.set_error(self.wall, reason.clone());
                vec![Effect::NoClient { reason }]
            }
        }
    }
}
