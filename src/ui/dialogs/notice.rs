//! A notice shown whole: its text, and apart from it what `y` copies.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::Dialog;
use crate::app::dialogs::notice::Notice;
use crate::app::keymap::KeyMap;
use crate::ui::common::{form_rows, modal};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, n: &Notice, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(100);
    let text_width = width.saturating_sub(4).max(1) as usize;
    // Each line of the text its own paragraph line, wrapped: read whole, never cut.
    let rows = |s: &str| -> u16 {
        s.split('\n')
            .map(|l| form_rows::wrapped_rows(l, text_width).max(1))
            .sum()
    };
    let copy_rows = n.copy.as_deref().map_or(0, |c| rows(c) + 1);
    let m = modal::centered(area, width, rows(&n.text) + copy_rows + 3);
    let footer = keys.hint_text(n.hints(), m.width.saturating_sub(4));
    let inner = modal::frame(f, m, &n.title, &footer, theme);
    let mut text: Vec<Line> = n
        .text
        .split('\n')
        .map(|l| Line::from(Span::styled(l, theme.dim)))
        .collect();
    if let Some(c) = &n.copy {
        text.push(Line::from(""));
        text.push(Line::from(Span::styled(c.as_str(), theme.key)));
    }
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: false }), inner);
}
