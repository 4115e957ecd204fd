//! `:jobs` (`J`): every long piece of work of this session, running first, with its progress
//! or outcome; `x` stops the one under the cursor. The list itself is the app's
//! (`app::jobs::Jobs`): the dialog keeps only the cursor, and the drawing reads both.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{Dialog, DialogCx, DialogResult, Outcome};
use crate::app::keymap::{Action, Hint};

#[derive(Debug, Default)]
pub struct JobsView {
    /// Index into `Jobs::in_order` (clamped by the app and the drawing).
    pub cursor: usize,
    /// The job under the cursor runs and can be stopped (kept by the app): `x` is offered.
    pub stoppable: bool,
    /// The job under the cursor has a report to open (a plan run's).
    pub has_report: bool,
}

impl Dialog for JobsView {
    fn hints(&self) -> &'static [Hint] {
        const STOP: Hint = Hint::new(&[Action::StopJob], "stop the job", 0);
        const OPEN: Hint = Hint::new(&[Action::Confirm], "its rows", 0);
        const WHOLE: Hint = Hint::new(&[Action::Confirm], "open", 0);
        const CLOSE: Hint = Hint::new(&[Action::Cancel], "close", 0);
        match (self.stoppable, self.has_report) {
            (true, true) => &[STOP, OPEN, CLOSE],
            (true, false) => &[STOP, WHOLE, CLOSE],
            (false, true) => &[OPEN, CLOSE],
            (false, false) => &[WHOLE, CLOSE],
        }
    }

    fn on_key(&mut self, key: &KeyEvent, cx: &mut DialogCx) -> Outcome {
        let asked = [Action::StopJob, Action::Cancel, Action::Confirm];
        match cx.keymap.pick(key, &asked) {
            Some(Action::StopJob) => return Outcome::Apply(DialogResult::StopJob(self.cursor)),
            // Every job opens: its rows when it has a report, else its whole outcome.
            Some(Action::Confirm) => return Outcome::Apply(DialogResult::OpenJob(self.cursor)),
            Some(_) => return Outcome::Close,
            None => {}
        }
        match cx.keymap.action(key) {
            Some(Action::Down) => self.cursor += 1,
            Some(Action::Up) => self.cursor = self.cursor.saturating_sub(1),
            Some(Action::First) => self.cursor = 0,
            Some(Action::Last) => self.cursor = usize::MAX,
            Some(Action::Back | Action::Jobs) => return Outcome::Close,
            _ => return Outcome::Ignored,
        }
        Outcome::Apply(DialogResult::JobsCursor)
    }
}
