//! The cursor of a picker's list (views, columns, profiles), moved by the main screen's
//! `down` / `up` / `first` / `last` actions (`j` `k` `g` `G`, arrows, Home, End) and kept on
//! the list; and the first row a scrolled list draws to keep its selection in view.

use crate::app::keymap::Action;

/// Where `down` or `up` takes the cursor in a list of `len` items.
pub fn moved(cursor: usize, len: usize, action: Action) -> usize {
    match action {
        Action::Down => (cursor + 1).min(len.saturating_sub(1)),
        Action::Up => cursor.saturating_sub(1),
        Action::First => 0,
        Action::Last => len.saturating_sub(1),
        _ => cursor,
    }
}

/// The first row to draw so that `selected` is among `visible` rows, moving `offset` as
/// little as it can.
pub fn offset_showing(selected: usize, offset: usize, visible: usize) -> usize {
    let visible = visible.max(1);
    if selected < offset {
        selected
    } else if selected >= offset + visible {
        selected + 1 - visible
    } else {
        offset
    }
}
