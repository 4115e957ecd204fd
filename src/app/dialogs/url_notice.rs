//! "Open this address yourself": shown when `o` could not start a browser (an SSH session
//! without a display, an opener that fails). The whole URL is on screen, where the status bar
//! would cut it; `y` puts it on the clipboard (again: the runtime already tried).

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::effects::Effect;
use crate::app::keymap::{Action, Hint};

pub const URL_HINTS: &[Hint] = &[
    Hint::new(&[Action::CopyJson], "copy", 0),
    Hint::new(&[Action::Back], "close", 0),
];

pub struct UrlNotice {
    pub url: String,
    /// Why no browser was started.
    pub reason: String,
}

impl Dialog for UrlNotice {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if let Some(Action::Cancel | Action::Confirm) =
            cx.keymap.pick(key, &[Action::Cancel, Action::Confirm])
        {
            return Outcome::Close;
        }
        match cx.keymap.action(key) {
            Some(Action::CopyJson) => Outcome::Effects(vec![Effect::Copy(self.url.clone())]),
            Some(Action::Back) => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn hints(&self) -> &'static [Hint] {
        URL_HINTS
    }
}
