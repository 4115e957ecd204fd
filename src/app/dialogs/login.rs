//! The login dialog shown when the dashboard starts without a token: a masked input, the
//! token checked against the service, then kept in the OS keyring (or, when the keyring is
//! unreachable, in memory for this session only, with the `CRMDASH_TOKEN` advice). Without a
//! saved base URL it asks for that first (https, or http to loopback only); the URL is saved
//! in the profile once the service accepts the token.

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
    /// The base URL typed in the dialog (none when the profile had one): `Err` says why it
    /// could not be saved in the config file.
    pub saved_url: Option<Result<String, String>>,
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
    /// Logged in, but the keyring could not keep the token: said here, in full, until the
    /// user closes the dialog (the data loads behind it meanwhile).
    SessionOnly(String),
}

/// The dialog's fields: the base URL only when the profile has none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoginField {
    BaseUrl,
    Token,
}

pub struct LoginDialog {
    /// The base URL, asked only when the profile has none saved.
    pub base_url: Option<TextInput>,
    /// An error under the base URL field.
    pub url_error: Option<String>,
    pub focus: LoginField,
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
    /// The dialog for `profile`; an empty `host` (no saved base URL) asks for the URL too.
    pub fn new(profile: impl Into<String>, host: impl Into<String>) -> LoginDialog {
        let host = host.into();
        let ask_url = host.is_empty();
        LoginDialog {
            base_url: ask_url.then(|| TextInput::default().with_max(2048)),
            url_error: None,
            focus: if ask_url {
                LoginField::BaseUrl
            } else {
                LoginField::Token
            },
            input: TextInput::default().with_max(4096),
            stage: LoginStage::Asking,
            error: None,
            notice: None,
            profile: profile.into(),
            host,
        }
    }

    /// The typed base URL, checked (https, or http to loopback only) and normalized; `None`
    /// when the dialog does not ask for one.
    fn checked_url(&mut self) -> Result<Option<String>, ()> {
        let Some(input) = &self.base_url else {
            return Ok(None);
        };
        let typed = input.value().trim();
        if typed.is_empty() {
            self.url_error =
                Some("Type the service's base URL, e.g. https://crm.example.com".into());
            return Err(());
        }
        if !typed.contains("://") {
            self.url_error = Some(format!(
                "Start with https:// (https://{typed}), or http:// for this machine only"
            ));
            return Err(());
        }
        match crate::api::check_base_url(typed) {
            Ok(url) => {
                self.url_error = None;
                Ok(Some(crate::config::normalize_base_url(url.as_str())))
            }
            Err(e) => {
                self.url_error = Some(capitalize(&e.message));
                Err(())
            }
        }
    }

    /// The focused field's input.
    fn focused_input(&mut self) -> &mut TextInput {
        match (self.focus, &mut self.base_url) {
            (LoginField::BaseUrl, Some(url)) => url,
            _ => &mut self.input,
        }
    }

    /// Moves between the base URL and the token (when both are asked).
    fn switch_field(&mut self) {
        if self.base_url.is_some() {
            self.focus = match self.focus {
                LoginField::BaseUrl => LoginField::Token,
                LoginField::Token => LoginField::BaseUrl,
            };
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
        let Ok(base_url) = self.checked_url() else {
            self.focus = LoginField::BaseUrl;
            return Outcome::Handled;
        };
        match crate::credentials::check_token(self.input.value()) {
            Err(e) => {
                self.error = Some(e.to_string());
                self.focus = LoginField::Token;
                Outcome::Handled
            }
            Ok(token) => {
                let id = cx.request_id();
                self.stage = LoginStage::Verifying(id);
                self.error = None;
                if let Some(url) = &base_url {
                    self.host = crate::config::host_label(url);
                }
                Outcome::Effects(vec![Effect::Login {
                    id,
                    token: SecretToken(token),
                    base_url,
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
        const WITH_URL: &[Hint] = &[
            Hint::new(&[Action::Confirm], "next / log in", 0),
            Hint::new(&[Action::NextField], "field", 0),
            Hint::new(&[Action::Cancel], "skip", 0),
        ];
        const DONE: &[Hint] = &[Hint::new(&[Action::Confirm], "continue", 0)];
        match self.stage {
            LoginStage::SessionOnly(_) => DONE,
            _ if self.base_url.is_some() => WITH_URL,
            _ => H,
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if matches!(self.stage, LoginStage::Verifying(_)) {
            return Outcome::Handled;
        }
        if matches!(self.stage, LoginStage::SessionOnly(_)) {
            if cx.app_key(key) {
                return Outcome::Ignored;
            }
            return match cx.keymap.pick(key, &[Action::Confirm, Action::Cancel]) {
                Some(_) => Outcome::Close,
                None => Outcome::Handled,
            };
        }
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        let asked = [
            Action::Submit,
            Action::Cancel,
            Action::NextField,
            Action::PrevField,
            Action::Confirm,
        ];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Cancel) => Outcome::CloseWith(DialogResult::LoginSkipped),
            Some(Action::NextField | Action::PrevField) if self.base_url.is_some() => {
                self.switch_field();
                Outcome::Handled
            }
            // Enter on the URL checks it and moves on to the token.
            Some(Action::Confirm) if self.focus == LoginField::BaseUrl => {
                if self.checked_url().is_ok() {
                    self.focus = LoginField::Token;
                }
                Outcome::Handled
            }
            Some(Action::Submit | Action::Confirm) => self.submit(cx),
            // Word movement would reveal where the token's words are: plain editing only.
            _ => {
                let focus = self.focus;
                self.focused_input().handle_key(key);
                match focus {
                    LoginField::BaseUrl => self.url_error = None,
                    LoginField::Token => self.error = None,
                }
                Outcome::Handled
            }
        }
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        if self.stage == LoginStage::Asking {
            self.focused_input().insert_str(text.trim());
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
                let saved = match &ok.saved_url {
                    Some(Ok(path)) => format!("; base URL saved in {path}"),
                    Some(Err(e)) => format!("; the base URL was not saved: {e}"),
                    None => String::new(),
                };
                let result = |note: String| DialogResult::LoggedIn {
                    note,
                    client: NewClient(ok.client.clone()),
                    host: Some(self.host.clone()),
                };
                match &ok.stored {
                    Ok(store) => Outcome::CloseWith(result(format!(
                        "Logged in as profile '{}': token stored in the {store}{saved}",
                        self.profile
                    ))),
                    // Worth reading whole: the dialog stays to say it; the data loads.
                    Err(e) => {
                        let url = match &ok.saved_url {
                            Some(Ok(path)) => format!(" The base URL is saved in {path}."),
                            Some(Err(e)) => format!(" The base URL was not saved: {e}."),
                            None => String::new(),
                        };
                        let mut text = format!(
                            "Logged in for this session only: the token is kept in memory, because {e}.{url}"
                        );
                        if !e.contains("CRMDASH_TOKEN") {
                            text.push_str(" To skip logging in next time, set CRMDASH_TOKEN in the environment crmdash starts from.");
                        }
                        self.stage = LoginStage::SessionOnly(text);
                        Outcome::Apply(result(
                            "Logged in for this session only (set CRMDASH_TOKEN for next time)"
                                .into(),
                        ))
                    }
                }
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
        if self.login_open() {
            return;
        }
        let mut d = LoginDialog::new(self.config.profile.clone(), self.config.host.clone());
        d.notice = notice;
        self.overlays.push(Overlay::Login(d));
        self.dirty = true;
    }

    /// Whether the login dialog is open.
    pub fn login_open(&self) -> bool {
        self.overlays.iter().any(|o| matches!(o, Overlay::Login(_)))
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
                self.status.set_error(self.wall, self.now, reason.clone());
                vec![Effect::NoClient { reason }]
            }
        }
    }
}

pub(crate) fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
