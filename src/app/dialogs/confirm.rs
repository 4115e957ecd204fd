//! "Quit anyway?": asked once when a draft would be lost or a write is in flight.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};

pub struct ConfirmQuit {
    pub reason: String,
}

impl Dialog for ConfirmQuit {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Yes], "quit", 0),
            Hint::new(&[Action::No], "stay", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        // A second Ctrl-C means it.
        if cx.app_key(key) {
            return match cx.keymap.action(key) {
                // Suspend and redraw stay the app's.
                Some(Action::Suspend | Action::Redraw) => Outcome::Ignored,
                _ => Outcome::CloseWith(DialogResult::Quit),
            };
        }
        let asked = [Action::Yes, Action::Confirm, Action::No, Action::Cancel];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Yes | Action::Confirm) => Outcome::CloseWith(DialogResult::Quit),
            Some(_) => Outcome::Close,
            None => Outcome::Handled,
        }
    }
}
