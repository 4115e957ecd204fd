//! The detail pane: a record's fields as scrolling text.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::detail::DetailView;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::scroll_text;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, d: &DetailView, keys: &KeyMap, theme: &Theme) {
    let hints = if d.browse {
        // `j`/`k` step through the records: the first scroll keys they leave (the arrows).
        let taken = [Action::DetailNext, Action::DetailPrev].map(|a| keys.keys(a));
        let free = |a: Action| {
            keys.keys(a)
                .iter()
                .find(|k| !taken.iter().any(|t| t.contains(k)))
                .map(|k| k.to_string())
                .unwrap_or_default()
        };
        format!(
            "{}{} scroll · {} record · {} copy JSON · {} close",
            free(Action::Down),
            free(Action::Up),
            keys.pair(Action::DetailNext, Action::DetailPrev),
            keys.first_key(Action::CopyJson),
            keys.first_key(Action::Back),
        )
    } else {
        format!(
            "{} scroll · {} copy JSON · {} close",
            keys.pair(Action::Down, Action::Up),
            keys.first_key(Action::CopyJson),
            keys.first_key(Action::Back),
        )
    };
    scroll_text::draw_modal(f, area, &d.title, &hints, &d.text, theme);
}
