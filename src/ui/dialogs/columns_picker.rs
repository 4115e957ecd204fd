//! The `:columns` checklist: shown columns ticked, in their order.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::app::dialogs::columns_picker::{COLUMNS_HINTS, ColumnsPicker};
use crate::ui::common::{modal, picker_row};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, p: &ColumnsPicker, app: &App, theme: &Theme) {
    let h = p.items.len() as u16 + 5;
    let m = modal::centered(area, 56, h);
    let title = format!("Columns of {}", app.tab().resource.kind.noun());
    let footer = app
        .keymap
        .hint_text(COLUMNS_HINTS, m.width.saturating_sub(4));
    let inner = modal::frame(f, m, &title, &footer, theme);
    let mut lines = vec![match &p.error {
        Some(e) => Line::from(Span::styled(e.as_str(), theme.error)),
        None => Line::from(Span::styled("Shown columns, in order:", theme.dim)),
    }];
    for (i, (_, title, on)) in p.items.iter().enumerate() {
        let mark = if *on { "[x]" } else { "[ ]" };
        lines.push(picker_row::row(
            format!(" {mark} {title}"),
            i == p.cursor,
            theme,
        ));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
