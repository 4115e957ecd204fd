//! The cursor of a picker's list (views, columns, profiles), moved by the main screen's
//! `down` / `up` actions (`j` `k`, arrows) and kept on the list.

use crate::app::keymap::Action;

/// Where `down` or `up` takes the cursor in a list of `len` items.
pub fn moved(cursor: usize, len: usize, action: Action) -> usize {
    match action {
        Action::Down => (cursor + 1).min(len.saturating_sub(1)),
        Action::Up => cursor.saturating_sub(1),
        _ => cursor,
    }
}
