//! "Quit anyway?": asked once when a draft would be lost or a write is in flight; and
//! "Quit and stop it?" each time `q` comes while a plan or an import sends.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::RequestId;
use crate::app::keymap::{Action, Hint};

pub struct ConfirmQuit {
    pub reason: String,
    /// The question under the reason (`Quit anyway?`).
    pub question: String,
    /// The runs that sending stops when the answer is yes (a plan, an import): they are
    /// stopped and waited for (briefly) before quitting, never cut off mid-request.
    pub stop: Vec<RequestId>,
}

impl ConfirmQuit {
    /// A draft or a job would be lost: quit anyway?
    pub fn anyway(reason: impl Into<String>) -> ConfirmQuit {
        ConfirmQuit {
            reason: reason.into(),
            question: "Quit anyway?".into(),
            stop: Vec::new(),
        }
    }

    /// What yes does.
    fn yes(&self) -> Outcome {
        if self.stop.is_empty() {
            Outcome::CloseWith(DialogResult::Quit)
        } else {
            Outcome::CloseWith(DialogResult::StopRunsAndQuit(self.stop.clone()))
        }
    }
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
                _ => self.yes(),
            };
        }
        let asked = [Action::Yes, Action::Confirm, Action::No, Action::Cancel];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Yes | Action::Confirm) => self.yes(),
            Some(_) => Outcome::Close,
            None => Outcome::Handled,
        }
    }
}
