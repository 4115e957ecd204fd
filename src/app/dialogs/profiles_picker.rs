//! `:profile` without a name: the config's profiles, the active one marked; `Enter` switches.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};

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
            Some(Action::Down) => {
                self.cursor = (self.cursor + 1).min(self.profiles.len().saturating_sub(1))
            }
            Some(Action::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(Action::Quit) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }

    fn hints(&self) -> &'static [Hint] {
        PROFILES_HINTS
    }
}
