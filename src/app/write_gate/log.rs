//! The write journal read back for `:log` (`L`), and what a dialog's write waits for.

use super::write_id;
use crate::app::dialogs::Overlay;
use crate::app::dialogs::pager::Pager;
use crate::app::effects::{Effect, RequestId};
use crate::app::{App, keymap::Action};
use crate::journal::WriteRecord;

impl App {
    /// What a dialog's write `id` waits for when it is not on the wire yet: its undo window,
    /// or the protected profile's name (`None`: it is being sent, or is no write of the gate's).
    pub fn write_wait(&self, id: RequestId) -> Option<String> {
        if let Some(h) = self.safety.held.iter().find(|h| write_id(&h.effect) == id) {
            return Some(format!(
                "Not sent yet: it waits {} s in its undo window ({} takes it back).",
                self.secs_left(h.send_at),
                self.keymap.first_key(Action::Undo)
            ));
        }
        if self
            .safety
            .awaiting_name
            .as_ref()
            .is_some_and(|e| write_id(e) == id)
        {
            return Some("Not sent yet: it waits for the profile's name to be typed.".into());
        }
        None
    }
}

impl App {
    /// `:log` / `L`: reads the journal (off the loop); the view opens with the answer.
    pub(crate) fn open_write_log(&mut self) -> Vec<Effect> {
        match self.safety.config.journal.clone() {
            Some(path) => vec![Effect::ReadJournal { path }],
            None => {
                self.note("No write journal: crmdash has no data directory here");
                Vec::new()
            }
        }
    }

    pub(crate) fn journal_read(&mut self, result: Result<Vec<WriteRecord>, String>) -> Vec<Effect> {
        let view = Pager::write_log(result, &self.config.zone, self.size.0, self.size.1);
        self.overlays.push(Overlay::WriteLog(Box::new(view)));
        self.dirty = true;
        Vec::new()
    }
}
