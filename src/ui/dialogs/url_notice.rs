//! The address `o` could not open, in full.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::url_notice::{URL_HINTS, UrlNotice};
use crate::app::keymap::KeyMap;
use crate::ui::common::modal;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, n: &UrlNotice, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(100);
    let text_width = width.saturating_sub(4).max(1) as usize;
    let url_rows = (n.url.chars().count() / text_width + 1) as u16;
    let reason_rows = (n.reason.chars().count() / text_width + 1) as u16;
    let m = modal::centered(area, width, url_rows + reason_rows + 5);
    let footer = keys.hint_text(URL_HINTS, m.width.saturating_sub(4));
    let inner = modal::frame(f, m, "Open in the browser", &footer, theme);
    let text = vec![
        Line::from(Span::styled(n.reason.as_str(), theme.dim)),
        Line::from(""),
        Line::from(Span::styled(n.url.as_str(), theme.key)),
    ];
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
}
