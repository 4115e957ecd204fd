//! The `:columns` picker: the tab's columns, the shown ones first in their order, then the
//! hidden ones. `Space` shows or hides one, `Shift-↑`/`Shift-↓` (or `K`/`J`) move it,
//! `Enter` applies (at least one column stays), `Esc` leaves them as they were.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};
use crate::app::resources::{ColumnId, Resource};
use crate::app::widgets::list_cursor;

pub const COLUMNS_HINTS: &[Hint] = &[
    Hint::new(&[Action::Toggle], "show/hide", 0),
    Hint::new(&[Action::MoveItemUp, Action::MoveItemDown], "move", 0),
    Hint::new(&[Action::Confirm], "apply", 0),
    Hint::new(&[Action::Cancel], "cancel", 0),
];

pub struct ColumnsPicker {
    /// Every column: id, title, shown.
    pub items: Vec<(ColumnId, &'static str, bool)>,
    pub cursor: usize,
    /// Why `Enter` was refused (every column hidden).
    pub error: Option<String>,
}

impl ColumnsPicker {
    pub fn new(resource: &Resource) -> Self {
        let mut items: Vec<(ColumnId, &'static str, bool)> = resource
            .columns
            .iter()
            .map(|c| (c.id, c.title, true))
            .collect();
        for c in resource.all_columns() {
            if !items.iter().any(|(id, _, _)| *id == c.id) {
                items.push((c.id, c.title, false));
            }
        }
        ColumnsPicker {
            items,
            cursor: 0,
            error: None,
        }
    }

    /// The shown columns, in order.
    pub fn chosen(&self) -> Vec<ColumnId> {
        self.items
            .iter()
            .filter(|(_, _, on)| *on)
            .map(|(id, _, _)| *id)
            .collect()
    }

    fn shift(&mut self, down: bool) {
        let i = self.cursor;
        let j = if down {
            (i + 1).min(self.items.len().saturating_sub(1))
        } else {
            i.saturating_sub(1)
        };
        self.items.swap(i, j);
        self.cursor = j;
    }
}

impl Dialog for ColumnsPicker {
    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let asked = [
            Action::MoveItemUp,
            Action::MoveItemDown,
            Action::Toggle,
            Action::Confirm,
            Action::Cancel,
        ];
        let action = cx
            .keymap
            .pick(key, &asked)
            .or_else(|| cx.keymap.action(key));
        self.error = None;
        match action {
            Some(Action::MoveItemUp) => self.shift(false),
            Some(Action::MoveItemDown) => self.shift(true),
            Some(Action::Toggle) => {
                if let Some(item) = self.items.get_mut(self.cursor) {
                    item.2 = !item.2;
                }
            }
            Some(Action::Confirm) => {
                let chosen = self.chosen();
                if chosen.is_empty() {
                    self.error = Some("Show at least one column".into());
                    return Outcome::Handled;
                }
                return Outcome::CloseWith(DialogResult::SetColumns(chosen));
            }
            Some(Action::Cancel | Action::Back) => return Outcome::Close,
            Some(a @ (Action::Down | Action::Up | Action::First | Action::Last)) => {
                self.cursor = list_cursor::moved(self.cursor, self.items.len(), a)
            }
            Some(Action::Quit) => return Outcome::Ignored,
            _ => {}
        }
        Outcome::Handled
    }

    fn hints(&self) -> &'static [Hint] {
        COLUMNS_HINTS
    }
}
