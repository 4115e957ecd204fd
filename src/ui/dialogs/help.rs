//! The `?` overlay: the key map and the rest of the help as scrolling text.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::help::HelpView;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::scroll_text;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, h: &HelpView, keys: &KeyMap, theme: &Theme) {
    let hints = format!(
        "{} scroll · {} close",
        keys.first_key(Action::Down),
        keys.first_key(Action::Back),
    );
    scroll_text::draw_modal(f, area, "Help", &hints, &h.text, theme);
}
