//! Draws pre-wrapped `ScrollText` (detail pane, help): only the visible lines, borrowed.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::widgets::scroll::ScrollText;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, text: &ScrollText, theme: &Theme) {
    let lines: Vec<Line> = text
        .lines
        .iter()
        .skip(text.offset)
        .take(area.height as usize)
        .map(|l| {
            Line::from(
                l.spans
                    .iter()
                    .map(|(s, tone)| Span::styled(s.as_str(), theme.tone(*tone)))
                    .collect::<Vec<_>>(),
            )
        })
        .collect();
    crate::ui::common::fit::draw_lines(f.buffer_mut(), area, lines);
}

/// "12-30/84" for a footer.
pub fn position(text: &ScrollText, rows: u16) -> String {
    let total = text.lines.len();
    if total == 0 {
        return "0/0".into();
    }
    let first = text.offset + 1;
    let last = (text.offset + rows as usize).min(total);
    format!("{first}-{last}/{total}")
}

/// A modal of scrolling text (the detail pane, help): `hints` are the footer's key hints,
/// followed by the scroll position.
pub fn draw_modal(
    f: &mut Frame,
    area: Rect,
    title: &str,
    hints: &str,
    text: &ScrollText,
    theme: &Theme,
) {
    let m = crate::app::layout::modal_area(area);
    let inner_rows = m.height.saturating_sub(3);
    let footer = format!("{hints} · {}", position(text, inner_rows));
    let inner = crate::ui::common::modal::frame(f, m, title, &footer, theme);
    draw(f, inner, text, theme);
}
