//! The detail pane: a record's fields as scrolling text.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::detail::DetailView;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::scroll_text;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, d: &DetailView, keys: &KeyMap, theme: &Theme) {
    let hints = format!(
        "{} scroll · {} copy JSON · {} close",
        keys.first_key(Action::Down),
        keys.first_key(Action::CopyJson),
        keys.first_key(Action::Back),
    );
    scroll_text::draw_modal(f, area, &d.title, &hints, &d.text, theme);
}
