//! What the lists read from the local mirror (Today and `:changes`, related records) share:
//! the read they wait for, its answer taken once, and the cursor moved by `j` `k` `g` `G`.

use crate::app::effects::RequestId;
use crate::app::keymap::Action;
use crate::app::widgets::list_cursor;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MirrorList {
    /// The read waited for; `None` once answered.
    pub pending: Option<RequestId>,
    /// The selected line, an index into the dialog's items.
    pub selected: usize,
}

impl MirrorList {
    pub fn new(id: RequestId) -> MirrorList {
        MirrorList {
            pending: Some(id),
            selected: 0,
        }
    }

    /// `result` when it answers the read waited for (the cursor goes back to the first
    /// line); `None` for another request's answer.
    pub fn answer<'a, T>(&mut self, id: RequestId, result: &'a T) -> Option<&'a T> {
        if self.pending != Some(id) {
            return None;
        }
        self.pending = None;
        self.selected = 0;
        Some(result)
    }

    /// Moves the cursor over `len` lines for `down`, `up`, `first` and `last`; whether the
    /// action was one of them.
    pub fn moved(&mut self, action: Option<Action>, len: usize) -> bool {
        match action {
            Some(a @ (Action::Down | Action::Up | Action::First | Action::Last)) => {
                self.selected = list_cursor::moved(self.selected, len, a);
                true
            }
            _ => false,
        }
    }

    /// The cursor kept on a list now `len` lines long.
    pub fn clamp(&mut self, len: usize) {
        self.selected = self.selected.min(len.saturating_sub(1));
    }

    pub fn busy(&self) -> bool {
        self.pending.is_some()
    }
}
