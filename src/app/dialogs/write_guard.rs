//! The write gate's questions (`app::write_gate`): a protected profile's name typed before a
//! write, and "send now or drop?" when quitting while a write waits in its undo window.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::text_input::{InputOutcome, TextInput};

/// "Type the profile's name to send": a protected profile's write waits for it.
pub struct TypeProfileName {
    pub profile: String,
    pub input: TextInput,
    /// Set when Enter was pressed with another name.
    pub mismatch: bool,
}

impl TypeProfileName {
    pub fn new(profile: &str) -> TypeProfileName {
        TypeProfileName {
            profile: profile.to_string(),
            input: TextInput::new("").with_max(64),
            mismatch: false,
        }
    }
}

impl Dialog for TypeProfileName {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Confirm], "send", 0),
            Hint::new(&[Action::Cancel], "don't send", 0),
        ];
        H
    }

    fn captures_text(&self) -> bool {
        true
    }

    fn guards_quit(&self) -> bool {
        true
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        match cx.keymap.pick(key, &[Action::Confirm, Action::Cancel]) {
            Some(Action::Confirm) => {
                if self.input.value().trim() == self.profile {
                    return Outcome::CloseWith(DialogResult::ProfileNameTyped(true));
                }
                self.mismatch = true;
                return Outcome::Handled;
            }
            Some(_) => return Outcome::CloseWith(DialogResult::ProfileNameTyped(false)),
            None => {}
        }
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        if self.input.handle_key(key) == InputOutcome::Changed {
            self.mismatch = false;
        }
        Outcome::Handled
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        self.input.insert_str(text);
        self.mismatch = false;
        Outcome::Handled
    }
}

/// Quitting while a write waits in its undo window: send it now, or drop it.
pub struct PendingWriteQuit {
    /// `create`, `reschedule`.
    pub what: &'static str,
}

impl PendingWriteQuit {
    pub fn new(what: &'static str) -> PendingWriteQuit {
        PendingWriteQuit { what }
    }
}

impl Dialog for PendingWriteQuit {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Yes], "send now and quit", 0),
            Hint::new(&[Action::No], "drop it and quit", 0),
            Hint::new(&[Action::Cancel], "stay", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        match cx
            .keymap
            .pick(key, &[Action::Yes, Action::No, Action::Cancel])
        {
            Some(Action::Yes) => Outcome::CloseWith(DialogResult::QuitWithWrites { send: true }),
            Some(Action::No) => Outcome::CloseWith(DialogResult::QuitWithWrites { send: false }),
            Some(_) => Outcome::Close,
            None => Outcome::Handled,
        }
    }
}
