//! Related records (`R` on a row or in a detail pane), from the local mirror: a deal's account and
//! contacts, a contact's or an account's deals. `Enter` opens one above this list; `Esc` or
//! `Backspace` goes back to the record before, so a walk from record to record unwinds as
//! a stack.

use crossterm::event::KeyEvent;

use crate::app::dialogs::mirror_list::MirrorList;
use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::effects::RequestId;
use crate::app::keymap::{Action, Hint};
use crate::app::message::Message;
use crate::app::mirror::{MirrorMessage, RecordRef, RelatedRecords};

pub struct RelatedView {
    pub of: RecordRef,
    /// The read and the cursor (an index into [`RelatedView::items`]).
    pub list: MirrorList,
    /// `Ok(None)`: no mirror; `Ok(Some(_))` with no group: none found.
    pub result: Option<Result<Option<RelatedRecords>, String>>,
}

impl RelatedView {
    pub fn new(of: RecordRef, id: RequestId) -> RelatedView {
        RelatedView {
            of,
            list: MirrorList::new(id),
            result: None,
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
            Hint::new(&[Action::Quit], "close", 1),
        ];
        H
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let n = self.items().len();
        if cx.keymap.pick(key, &[Action::PrevRecord]).is_some() {
            return Outcome::Close;
        }
        let action = cx.keymap.action(key);
        if self.list.moved(action, n) {
            return Outcome::Handled;
        }
        match action {
            Some(Action::Detail) => match self.items().get(self.list.selected) {
                Some(r) => Outcome::Apply(DialogResult::OpenRecord((*r).clone())),
                None => Outcome::Handled,
            },
            Some(Action::Back) => Outcome::Close,
            _ => Outcome::Ignored,
        }
    }

    fn on_message(&mut self, msg: &Message, _cx: &mut DialogCx) -> Outcome {
        let Message::Mirror(MirrorMessage::Related { id, result }) = msg else {
            return Outcome::Ignored;
        };
        match self.list.answer(*id, result) {
            Some(result) => {
                self.result = Some(result.clone());
                Outcome::Handled
            }
            None => Outcome::Ignored,
        }
    }

    fn busy(&self) -> bool {
        self.list.busy()
    }
}
