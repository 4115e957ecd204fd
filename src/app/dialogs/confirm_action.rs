//! Questions before running or opening many things: "Run this?" (a user action with
//! `confirm = true` shows what it will run first) and "Open 12 contacts in the browser?".
//! Both answer the same way ([`yes_or_no`]).

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint};

/// Opening more records than this in the browser asks first.
pub const OPEN_WITHOUT_ASKING: usize = 5;

/// A yes/no question's keys: yes (or Enter) closes handing `yes()` to the app, no (or Esc)
/// closes; the app's own keys (Ctrl-C, suspend) pass; any other key is swallowed.
pub fn yes_or_no(key: &KeyEvent, cx: &DialogCx, yes: impl FnOnce() -> DialogResult) -> Outcome {
    if cx.app_key(key) {
        return Outcome::Ignored;
    }
    let asked = [Action::Yes, Action::Confirm, Action::No, Action::Cancel];
    match cx.keymap.pick(key, &asked) {
        Some(Action::Yes | Action::Confirm) => Outcome::CloseWith(yes()),
        Some(_) => Outcome::Close,
        None => Outcome::Handled,
    }
}

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
        yes_or_no(key, cx, || DialogResult::Run(Box::new(self.run.clone())))
    }
}

/// "Open 12 contacts in the browser?"
#[derive(Debug)]
pub struct ConfirmOpen {
    pub urls: Vec<String>,
    pub noun: &'static str,
}

impl Dialog for ConfirmOpen {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Yes], "open them", 0),
            Hint::new(&[Action::No], "cancel", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        yes_or_no(key, cx, || {
            DialogResult::OpenUrls(std::mem::take(&mut self.urls))
        })
    }
}
