//! A pager overlay (`?` help, `L` the write journal): its text, and a footer that says the
//! keys as the hint bar does and where the screen is (`12-30/84`, or `empty`).

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::pager::Pager;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::{modal, scroll_text};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, title: &str, p: &Pager, keys: &KeyMap, theme: &Theme) {
    let m = crate::app::layout::modal_area(area);
    let inner_rows = m.height.saturating_sub(3);
    let position = if p.empty {
        "empty".to_string()
    } else {
        scroll_text::position(&p.text, inner_rows)
    };
    let footer = format!(
        "{} scroll · {} close · {position}",
        keys.pair(Action::Down, Action::Up),
        keys.first_key(Action::Back),
    );
    let inner = modal::frame(f, m, title, &footer, theme);
    scroll_text::draw(f, inner, &p.text, theme);
}
