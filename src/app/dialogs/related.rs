//! Related records (`R` on a row or in a detail pane), from the local mirror: a deal's account and
//! contacts, a contact's or an account's deals. `Enter` opens one above this list; `Esc` or
//! `Backspace` goes back to the record before, so a walk from record to record unwinds as
//! a stack.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::RequestId;
use crate::app::keymap::{Action, Hint};
use crate::app::message::Message;
use crate::app::mirror::{MirrorMessage, RecordRef, RelatedRecords};

pub struct RelatedView {
    pub of: RecordRef,
    pub pending: Option<RequestId>,
    /// `Ok(None)`: no mirror; `Ok(Some(_))` with no group: none found.
    pub result: Option<Result<Option<RelatedRecords>, String>>,
    /// Index into [`RelatedView::items`].
    pub selected: usize,
}

impl RelatedView {
    pub fn new(of: RecordRef, id: RequestId) -> RelatedView {
        RelatedView {
            of,
            pending: Some(id),
            result: None,
            selected: 0,
        }
    }

    /// Every related record, in the order drawn.
    pub fn items(&self) -> Vec<&RecordRef> {
        match &self.result {
            Some(Ok(Some(r))) => r.groups.iter().flat_map(|(_, v)| v.iter()).collect(),
            _ => Vec::new(),
        }
    }
}

impl Dialog for RelatedView {
    fn hints(&self) -> &'static [Hint] {
        const H: &[Hint] = &[
            Hint::new(&[Action::Down, Action::Up], "select", 0),
            Hint::new(&[Action::Detail], "open", 0),
            Hint::new(&[Action::PrevRecord], "back", 0),
            Hint::new(&[Action::Quit], "quit", 1),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let n = self.items().len();
        if cx.keymap.pick(key, &[Action::PrevRecord]).is_some() {
            return Outcome::Close;
        }
        match cx.keymap.action(key) {
            Some(Action::Down) if n > 0 => self.selected = (self.selected + 1).min(n - 1),
            Some(Action::Up) => self.selected = self.selected.saturating_sub(1),
            Some(Action::First) => self.selected = 0,
            Some(Action::Last) => self.selected = n.saturating_sub(1),
            Some(Action::Detail) => {
                if let Some(r) = self.items().get(self.selected) {
                    return Outcome::Apply(DialogResult::OpenRecord((*r).clone()));
                }
            }
            Some(Action::Back) => return Outcome::Close,
            _ => return Outcome::Ignored,
        }
        Outcome::Handled
    }

    fn on_message(&mut self, msg: &Message, _cx: &mut DialogCx) -> Outcome {
        match msg {
            Message::Mirror(MirrorMessage::Related { id, result }) if self.pending == Some(*id) => {
                self.pending = None;
                self.result = Some(result.clone());
                self.selected = 0;
                Outcome::Handled
            }
            _ => Outcome::Ignored,
        }
    }

    fn busy(&self) -> bool {
        self.pending.is_some()
    }
}
