//! A message too important for the status bar's few columns, shown whole until dismissed:
//! the address `o` could not open (an SSH session without a display, an opener that fails),
//! with `y` to put it on the clipboard again; why a profile could not be switched to.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint};

pub const COPY_HINTS: &[Hint] = &[
    Hint::new(&[Action::CopyJson], "copy", 0),
    Hint::new(&[Action::Back], "close", 0),
];

pub const CLOSE_HINTS: &[Hint] = &[Hint::new(&[Action::Back], "close", 0)];

pub struct Notice {
    pub title: String,
    pub text: String,
    /// Text to show apart and let `y` copy (a URL).
    pub copy: Option<String>,
}

impl Dialog for Notice {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if let Some(Action::Cancel | Action::Confirm) =
            cx.keymap.pick(key, &[Action::Cancel, Action::Confirm])
        {
            return Outcome::Close;
        }
        match (cx.keymap.action(key), &self.copy) {
            (Some(Action::CopyJson), Some(text)) => {
                Outcome::Effects(vec![Effect::Copy(text.clone())])
            }
            (Some(Action::Back), _) => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn hints(&self) -> &'static [Hint] {
        if self.copy.is_some() {
            COPY_HINTS
        } else {
            CLOSE_HINTS
        }
    }
}
