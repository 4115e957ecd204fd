//! The `i` checklist: which of the tab's relations (the seed's list) each request includes.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};

pub struct IncludesPicker {
    pub items: Vec<(&'static str, bool)>,
    pub cursor: usize,
}

impl IncludesPicker {
    pub fn new(all: &[&'static str], chosen: &[&'static str]) -> Self {
        IncludesPicker {
            items: all.iter().map(|i| (*i, chosen.contains(i))).collect(),
            cursor: 0,
        }
    }

    pub fn chosen(&self) -> Vec<&'static str> {
        let mut v: Vec<&'static str> = self.items.iter().filter(|i| i.1).map(|i| i.0).collect();
        v.sort();
        v
    }
}

impl Dialog for IncludesPicker {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "move", 1),
            Hint::new(&[Action::Toggle], "toggle", 0),
            Hint::new(&[Action::Confirm], "apply", 0),
            Hint::new(&[Action::Back], "close", 0),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        match cx.keymap.pick(key, &[Action::Toggle, Action::Confirm]) {
            Some(Action::Toggle) => {
                if let Some(item) = self.items.get_mut(self.cursor) {
                    item.1 = !item.1;
                }
                return Outcome::Handled;
            }
            Some(_) => return Outcome::CloseWith(DialogResult::SetIncludes(self.chosen())),
            None => {}
        }
        let n = self.items.len().max(1);
        match cx.keymap.action(key) {
            Some(Action::Down) | Some(Action::NextTab) => self.cursor = (self.cursor + 1) % n,
            Some(Action::Up) | Some(Action::PrevTab) => self.cursor = (self.cursor + n - 1) % n,
            Some(Action::Detail) => {
                return Outcome::CloseWith(DialogResult::SetIncludes(self.chosen()));
            }
            Some(Action::Back) | Some(Action::Includes) => return Outcome::Close,
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }
}
