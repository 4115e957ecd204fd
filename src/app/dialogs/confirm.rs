//! "Quit anyway?": asked once when a draft would be lost or a write is in flight.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::Action;

pub struct ConfirmQuit {
    pub reason: String,
}

impl Dialog for ConfirmQuit {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        // A second Ctrl-C means it.
        if cx.app_key(key) && cx.keymap.action(key) != Some(Action::Suspend) {
            return Outcome::CloseWith(DialogResult::Quit);
        }
        let asked = [Action::Yes, Action::Confirm, Action::No, Action::Cancel];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Yes | Action::Confirm) => Outcome::CloseWith(DialogResult::Quit),
            Some(_) => Outcome::Close,
            None => Outcome::Handled,
        }
    }
}
