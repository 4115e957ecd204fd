//! "Run this?": a user action with `confirm = true` shows what it will run first.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint};

pub struct ConfirmAction {
    pub name: String,
    /// Each program line as it will run (argv quoted for reading).
    pub lines: Vec<String>,
    /// What runs on yes.
    pub run: Effect,
}

impl Dialog for ConfirmAction {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Yes], "run", 0),
            Hint::new(&[Action::No], "cancel", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if cx.app_key(key) {
            return Outcome::Ignored;
        }
        let asked = [Action::Yes, Action::Confirm, Action::No, Action::Cancel];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Yes | Action::Confirm) => {
                Outcome::CloseWith(DialogResult::Run(Box::new(self.run.clone())))
            }
            Some(_) => Outcome::Close,
            None => Outcome::Handled,
        }
    }
}
