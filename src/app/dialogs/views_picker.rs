//! The `:views` picker: the saved views, `Enter` opens one, `d` deletes it (pressed twice:
//! nothing is lost by a stray key), `r` renames it in place.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::widgets::list_cursor;
use crate::app::widgets::text_input::{InputOutcome, TextInput};
use crate::config::views::{ViewEdit, check_view_name};

pub const VIEWS_HINTS: &[Hint] = &[
    Hint::new(&[Action::Confirm], "open", 0),
    Hint::new(&[Action::RenameItem], "rename", 1),
    Hint::new(&[Action::DeleteItem], "delete", 1),
    Hint::new(&[Action::Cancel], "close", 0),
];

pub const RENAME_HINTS: &[Hint] = &[
    Hint::new(&[Action::Confirm], "rename", 0),
    Hint::new(&[Action::Cancel], "cancel", 0),
];

pub struct ViewsPicker {
    pub names: Vec<String>,
    pub cursor: usize,
    /// The new name being typed for the view under the cursor.
    pub renaming: Option<TextInput>,
    /// `d` was pressed once on this view: a second press deletes it.
    pub delete_armed: Option<String>,
    /// Why the last rename or open was refused.
    pub error: Option<String>,
    /// Views that cannot be opened as written, and why.
    pub broken: std::collections::BTreeMap<String, String>,
}

impl ViewsPicker {
    pub fn new(names: Vec<String>, broken: std::collections::BTreeMap<String, String>) -> Self {
        ViewsPicker {
            names,
            cursor: 0,
            renaming: None,
            delete_armed: None,
            error: None,
            broken,
        }
    }

    fn selected(&self) -> Option<&String> {
        self.names.get(self.cursor)
    }

    fn on_rename_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        match cx.keymap.pick(key, &[Action::Confirm, Action::Cancel]) {
            Some(Action::Cancel) => {
                self.renaming = None;
                self.error = None;
            }
            Some(Action::Confirm) => {
                let to = self
                    .renaming
                    .as_ref()
                    .map(|t| t.value().trim().to_string())
                    .unwrap_or_default();
                let Some(from) = self.selected().cloned() else {
                    return Outcome::Handled;
                };
                if to == from {
                    self.renaming = None;
                    return Outcome::Handled;
                }
                if let Err(e) = check_view_name(&to) {
                    self.error = Some(e);
                    return Outcome::Handled;
                }
                if self.names.contains(&to) {
                    self.error = Some(format!("a view named '{to}' exists already"));
                    return Outcome::Handled;
                }
                if let Some(e) = self.broken.remove(&from) {
                    self.broken.insert(to.clone(), e);
                }
                self.names[self.cursor] = to.clone();
                self.names.sort();
                self.cursor = self.names.iter().position(|n| *n == to).unwrap_or(0);
                self.renaming = None;
                self.error = None;
                return Outcome::Apply(DialogResult::EditView(ViewEdit::Rename { from, to }));
            }
            _ => {
                if cx.app_key(key) {
                    return Outcome::Ignored;
                }
                if let Some(t) = &mut self.renaming
                    && t.handle_key(key) == InputOutcome::Changed
                {
                    self.error = None;
                }
            }
        }
        Outcome::Handled
    }
}

impl Dialog for ViewsPicker {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        if self.renaming.is_some() {
            return self.on_rename_key(key, cx);
        }
        let asked = [
            Action::Confirm,
            Action::Cancel,
            Action::DeleteItem,
            Action::RenameItem,
        ];
        let action = cx
            .keymap
            .pick(key, &asked)
            .or_else(|| cx.keymap.action(key));
        let armed = self.delete_armed.take();
        match action {
            Some(Action::Confirm) => {
                if let Some(name) = self.selected() {
                    if let Some(e) = self.broken.get(name) {
                        self.error = Some(format!("{e} (fix it in views.toml)"));
                        return Outcome::Handled;
                    }
                    return Outcome::CloseWith(DialogResult::OpenView(name.clone()));
                }
            }
            Some(Action::Cancel | Action::Back) => return Outcome::Close,
            Some(a @ (Action::Down | Action::Up | Action::First | Action::Last)) => {
                self.cursor = list_cursor::moved(self.cursor, self.names.len(), a)
            }
            Some(Action::DeleteItem) => {
                let Some(name) = self.selected().cloned() else {
                    return Outcome::Handled;
                };
                if armed.as_ref() != Some(&name) {
                    self.delete_armed = Some(name);
                    return Outcome::Handled;
                }
                self.names.remove(self.cursor);
                self.cursor = self.cursor.min(self.names.len().saturating_sub(1));
                return Outcome::Apply(DialogResult::EditView(ViewEdit::Delete { name }));
            }
            Some(Action::RenameItem) => {
                if let Some(name) = self.selected() {
                    let mut t = TextInput::new(name.clone()).with_max(64);
                    t.focus();
                    self.renaming = Some(t);
                }
            }
            Some(Action::Quit) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }

    fn captures_text(&self) -> bool {
        self.renaming.is_some()
    }

    fn hints(&self) -> &'static [Hint] {
        if self.renaming.is_some() {
            RENAME_HINTS
        } else {
            VIEWS_HINTS
        }
    }
}
