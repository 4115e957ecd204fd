//! A read-only overlay of scrolling text (`?` help, `L` the write journal): one key handling,
//! one set of hints and one footer for both.

use crossterm::event::{KeyEvent, MouseEvent};

use crate::app::dialogs::{Dialog, DialogCx, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::scroll::ScrollText;

/// The pager's keys: the hint bar and the footer say the same.
pub const HINTS: &[Hint] = &[
    Hint::new(&[Action::Down, Action::Up], "scroll", 1),
    Hint::new(&[Action::Back, Action::Quit], "close", 0),
];

pub struct Pager {
    pub text: ScrollText,
    /// The key that opened it closes it too (`?`, `L`), as `Esc` and `q` do: reading never
    /// quits the app.
    pub closed_by: Action,
    /// Nothing to list: the text only says so (the footer says `empty`, not `1-2/2`).
    pub empty: bool,
}

impl Pager {
    pub fn of(text: ScrollText, closed_by: Action) -> Pager {
        Pager {
            text,
            closed_by,
            empty: false,
        }
    }
}

impl Dialog for Pager {
    fn hints(&self) -> &'static [Hint] {
        HINTS
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if self.text.on_key(key, cx.keymap) {
            return Outcome::Handled;
        }
        match cx.keymap.action(key) {
            Some(Action::Back | Action::Quit) => Outcome::Close,
            Some(a) if a == self.closed_by => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn on_mouse(&mut self, mouse: &MouseEvent) -> Outcome {
        match self.text.on_mouse(mouse) {
            true => Outcome::Handled,
            false => Outcome::Ignored,
        }
    }

    fn on_resize(&mut self, width: u16, height: u16) {
        self.text.reflow_modal(width, height);
    }
}
