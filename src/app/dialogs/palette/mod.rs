//! The `:` command palette: a one-line prompt, its completions shown as it is typed (`Tab`
//! puts them in, again for the next one), the commands run before (`↑` `↓`, kept across runs
//! in the state file), and a line saying what a refused command would accept. A command that
//! parses closes the prompt and goes to the app (`App::run_command`).

pub mod complete;
pub mod grammar;
mod run;

use crossterm::event::KeyEvent;

use self::complete::Completions;
use self::grammar::PaletteContext;
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::text_input::{InputOutcome, TextInput};

/// Commands kept in the history (oldest dropped first).
pub const HISTORY_MAX: usize = 100;

/// The palette's keys for the hint line.
pub const PALETTE_HINTS: &[Hint] = &[
    Hint::new(&[Action::Complete], "complete", 0),
    Hint::new(&[Action::HistoryPrev, Action::HistoryNext], "history", 1),
    Hint::new(&[Action::Confirm], "run", 0),
    Hint::new(&[Action::Cancel], "cancel", 0),
];

pub struct PaletteDialog {
    pub input: TextInput,
    pub cx: PaletteContext,
    /// Earlier commands, oldest first.
    history: Vec<String>,
    /// The history entry shown (`↑`), if any.
    history_pos: Option<usize>,
    /// What was typed before `↑` was pressed, back at the end of the history.
    draft: String,
    /// What `Tab` offers for the word being typed.
    pub completions: Completions,
    /// The completion `Tab` put in, while cycling through them.
    pub chosen: Option<usize>,
    /// Why the last line was refused, and what it would accept.
    pub error: Option<String>,
}

impl PaletteDialog {
    pub fn new(cx: PaletteContext, history: Vec<String>) -> Self {
        let mut p = PaletteDialog {
            input: TextInput::default().with_max(500),
            cx,
            history,
            history_pos: None,
            draft: String::new(),
            completions: Completions::default(),
            chosen: None,
            error: None,
        };
        p.refresh_completions();
        p
    }

    fn refresh_completions(&mut self) {
        self.completions = complete::complete(self.input.value(), &self.cx);
        self.chosen = None;
    }

    /// `Tab` (or `Shift-Tab` backwards): the only completion is put in with a space after
    /// it; with several, each press puts in the next.
    fn complete(&mut self, forward: bool) {
        let n = self.completions.items.len();
        if n == 0 {
            return;
        }
        let start = self.completions.start;
        let head = self.input.value()[..start.min(self.input.value().len())].to_string();
        if n == 1 && self.chosen.is_none() {
            let item = &self.completions.items[0];
            let space = if item.ends_with('=') || item.ends_with(',') {
                ""
            } else {
                " "
            };
            self.input.set(format!("{head}{item}{space}"));
            self.refresh_completions();
            return;
        }
        let i = match (self.chosen, forward) {
            (None, true) => 0,
            (None, false) => n - 1,
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
        };
        self.input
            .set(format!("{head}{}", self.completions.items[i]));
        self.chosen = Some(i);
    }

    fn history_step(&mut self, back: bool) {
        if self.history.is_empty() {
            return;
        }
        let pos = match (self.history_pos, back) {
            (None, true) => {
                self.draft = self.input.value().to_string();
                Some(self.history.len() - 1)
            }
            (None, false) => return,
            (Some(0), true) => Some(0),
            (Some(i), true) => Some(i - 1),
            (Some(i), false) if i + 1 < self.history.len() => Some(i + 1),
            (Some(_), false) => None,
        };
        self.history_pos = pos;
        let text = match pos {
            Some(i) => self.history[i].clone(),
            None => std::mem::take(&mut self.draft),
        };
        self.input.set(text);
        self.error = None;
        self.refresh_completions();
    }

    fn run(&mut self) -> Outcome {
        let line = self.input.value().trim().to_string();
        if line.is_empty() {
            return Outcome::Close;
        }
        match grammar::parse(&line, &self.cx) {
            Ok(command) => Outcome::CloseWith(DialogResult::Palette { line, command }),
            Err(e) => {
                self.error = Some(e);
                Outcome::Handled
            }
        }
    }
}

impl Dialog for PaletteDialog {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let asked = [
            Action::Confirm,
            Action::Cancel,
            Action::Complete,
            Action::CompletePrev,
            Action::HistoryPrev,
            Action::HistoryNext,
        ];
        match cx.keymap.pick(key, &asked) {
            Some(Action::Confirm) => return self.run(),
            Some(Action::Cancel) => return Outcome::Close,
            Some(a @ (Action::Complete | Action::CompletePrev)) => {
                self.complete(a == Action::Complete)
            }
            Some(a @ (Action::HistoryPrev | Action::HistoryNext)) => {
                self.history_step(a == Action::HistoryPrev)
            }
            _ => {
                if cx.app_key(key) {
                    return Outcome::Ignored;
                }
                // Backspace on an empty prompt closes it, as in vim and k9s.
                if key.code == crossterm::event::KeyCode::Backspace && self.input.is_empty() {
                    return Outcome::Close;
                }
                if self.input.handle_key(key) == InputOutcome::Changed {
                    self.error = None;
                    self.history_pos = None;
                    self.refresh_completions();
                }
            }
        }
        Outcome::Handled
    }

    fn on_paste(&mut self, text: &str) -> Outcome {
        if self.input.insert_str(text) == InputOutcome::Changed {
            self.error = None;
            self.refresh_completions();
        }
        Outcome::Handled
    }

    fn captures_text(&self) -> bool {
        true
    }

    fn hints(&self) -> &'static [Hint] {
        PALETTE_HINTS
    }
}

/// Adds a command to the history: once (an earlier copy moves to the end), at most
/// `HISTORY_MAX` kept.
pub fn remember(history: &mut Vec<String>, line: &str) {
    history.retain(|l| l != line);
    history.push(line.to_string());
    if history.len() > HISTORY_MAX {
        let extra = history.len() - HISTORY_MAX;
        history.drain(..extra);
    }
}
