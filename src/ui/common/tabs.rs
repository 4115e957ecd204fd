//! The tab bar: each resource's numbered title (`1 Contacts │ 2 …`), placed exactly where mouse hit-testing
//! (`app::layout::tab_ranges`) expects them.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::layout::tab_ranges;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let titles = app.tab_titles();
    let ranges = tab_ranges(&titles);
    let mut spans = Vec::with_capacity(titles.len() * 2);
    for (i, t) in titles.iter().enumerate() {
        let style = if i == app.active.index() {
            theme.tab_active
        } else {
            theme.tab_inactive
        };
        spans.push(Span::styled(format!(" {t} "), style));
        if i + 1 < titles.len() {
            spans.push(Span::styled("│", theme.border));
        }
    }
    debug_assert_eq!(ranges.len(), titles.len());
    crate::ui::common::fit::draw_line(f.buffer_mut(), area, Line::from(spans));
}
