//! "Quit anyway?": asked once when a draft would be lost or a write is in flight.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};

pub struct ConfirmQuit {
    pub reason: String,
}

impl Dialog for ConfirmQuit {
    fn on_key(&mut self, key: &KeyEvent, _cx: &mut DialogCx) -> Outcome {
        match key.code {
            KeyCode::Char('y') | KeyCode::Char('Y') | KeyCode::Enter => {
                Outcome::CloseWith(DialogResult::Quit)
            }
            // A second Ctrl-C means it.
            KeyCode::Char('c') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                Outcome::CloseWith(DialogResult::Quit)
            }
            KeyCode::Char('n') | KeyCode::Char('N') | KeyCode::Esc => Outcome::Close,
            _ => Outcome::Handled,
        }
    }
}
