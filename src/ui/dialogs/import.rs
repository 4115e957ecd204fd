//! The import dialog: the shared row table ([`super::plan::draw_table`]) with the notes on
//! the columns above the header. Columns that do not fit go, least needed first (the phone,
//! then the name, then the id); the last one shown (the note, a report's detail) wraps.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::plan::{Table, draw_table};
use crate::app::dialogs::Dialog;
use crate::app::dialogs::import::ImportView;
use crate::app::keymap::KeyMap;
use crate::ui::theme::Theme;

/// The columns dropped when the width is short, first to go first (by header name).
const DROPPED_FIRST: &[&str] = &["phone", "name", "id"];
/// The last column shown wraps in its own width, but is kept only with this many columns.
const LAST_MIN: usize = 12;

pub fn draw(f: &mut Frame, area: Rect, v: &ImportView, keys: &KeyMap, theme: &Theme) {
    let (sentence, bad_sentence) = match &v.why {
        Some(why) => (why.as_str(), true),
        None => (v.sentence.as_str(), false),
    };
    let t = Table {
        title: &v.title,
        max_width: 150,
        sentence,
        bad_sentence,
        notes: &v.notes,
        bad: &v.bad,
        header: v.header,
        rows: &v.rows,
        tones: &v.tones,
        widths: &v.widths,
        scroll: v.scroll,
        dropped_first: DROPPED_FIRST,
        last_min: LAST_MIN,
        hints: v.hints(),
    };
    draw_table(f, area, &t, keys, theme);
}
