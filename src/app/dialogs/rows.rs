//! What the row-based previews and reports share (`:plan`, `:import`): the tone of a line,
//! the columns' widths (worked out once, when the rows arrive, never per frame), the keys
//! that scroll, and Enter that starts the job a preview holds.

use crossterm::event::KeyEvent;

use crate::app::dialogs::{DialogCx, DialogResult, Outcome};
use crate::app::effects::{Effect, RequestId};
use crate::app::jobs::JobSpec;
use crate::app::keymap::{Action, Hint};
use crate::output::display_width;

/// How a line of the body reads (its style).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    Plain,
    /// A note on the columns, a skipped row.
    Dim,
    /// Created though it looks like another (`dupes=warn`).
    Warn,
    Bad,
    Good,
}

/// Each column's widest cell, its header's included: what the view's layout starts from.
pub fn column_widths(header: &[&str], rows: &[Vec<String>]) -> Vec<usize> {
    let mut widths: Vec<usize> = header.iter().map(|h| display_width(h)).collect();
    for r in rows {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(display_width(cell));
        }
    }
    widths
}

/// The scrolling keys over `len` lines of a body (`None`: not one of them).
pub fn scroll(scroll: &mut usize, len: usize, action: Option<Action>) -> Option<Outcome> {
    let last = len.saturating_sub(1);
    match action? {
        Action::Down => *scroll = (*scroll + 1).min(last),
        Action::Up => *scroll = scroll.saturating_sub(1),
        Action::NextPage => *scroll = (*scroll + 10).min(last),
        Action::PrevPage => *scroll = scroll.saturating_sub(10),
        Action::First => *scroll = 0,
        Action::Last => *scroll = last,
        Action::Back => return Some(Outcome::Close),
        _ => return None,
    }
    Some(Outcome::Handled)
}

/// Enter on a preview: starts the job it holds (once), or does nothing when there is none
/// (the reason is on screen).
pub fn start(job: Option<JobSpec>, id: RequestId) -> Outcome {
    match job {
        Some(job) => Outcome::CloseWith(DialogResult::Run(Box::new(Effect::StartJob { id, job }))),
        None => Outcome::Handled,
    }
}

/// The footer when Enter only closes (a report, or a preview that cannot run).
pub const CLOSE_HINTS: &[Hint] = &[
    Hint::new(&[Action::Down], "scroll", 1),
    Hint::new(&[Action::Cancel], "close", 0),
];

/// The keys of a row-based preview or report: Enter does `confirm` (start the job, or close a
/// report), Esc closes, the scrolling keys move over its `len` lines.
pub fn on_key(
    key: &KeyEvent,
    cx: &mut DialogCx,
    at: &mut usize,
    len: usize,
    confirm: impl FnOnce(&mut DialogCx) -> Outcome,
) -> Outcome {
    match cx.keymap.pick(key, &[Action::Confirm, Action::Cancel]) {
        Some(Action::Confirm) => confirm(cx),
        Some(_) => Outcome::Close,
        None => scroll(at, len, cx.keymap.action(key)).unwrap_or(Outcome::Ignored),
    }
}
