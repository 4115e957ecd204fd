//! `:log`: the write journal, newest first.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::write_log::WriteLogView;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::scroll_text;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, v: &WriteLogView, keys: &KeyMap, theme: &Theme) {
    let hints = format!(
        "{} scroll · {} close",
        keys.first_key(Action::Down),
        keys.first_key(Action::Back),
    );
    scroll_text::draw_modal(
        f,
        area,
        "Write journal (newest first)",
        &hints,
        &v.text,
        theme,
    );
}
