//! `:profile` without a name: the config's profiles, the active one marked; `Enter` switches.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::list_cursor;

pub const PROFILES_HINTS: &[Hint] = &[
    Hint::new(&[Action::Confirm], "switch", 0),
    Hint::new(&[Action::Cancel], "close", 0),
];

pub struct ProfilesPicker {
    /// Name and base URL host of each profile.
    pub profiles: Vec<String>,
    pub active: String,
    pub cursor: usize,
}

impl ProfilesPicker {
    pub fn new(profiles: Vec<String>, active: String) -> Self {
        let cursor = profiles.iter().position(|p| *p == active).unwrap_or(0);
        ProfilesPicker {
            profiles,
            active,
            cursor,
        }
    }
}

impl Dialog for ProfilesPicker {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let action = cx
            .keymap
            .pick(key, &[Action::Confirm, Action::Cancel])
            .or_else(|| cx.keymap.action(key));
        match action {
            Some(Action::Confirm) => {
                if let Some(p) = self.profiles.get(self.cursor) {
                    return Outcome::CloseWith(DialogResult::SwitchProfile(p.clone()));
                }
            }
            Some(Action::Cancel | Action::Back) => return Outcome::Close,
            Some(a @ (Action::Down | Action::Up | Action::First | Action::Last)) => {
                self.cursor = list_cursor::moved(self.cursor, self.profiles.len(), a)
            }
            Some(Action::Quit) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }

    fn hints(&self) -> &'static [Hint] {
        PROFILES_HINTS
    }
}
