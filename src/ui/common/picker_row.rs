//! One row of a picker's list (includes, columns, views, profiles): its text, highlighted
//! under the cursor.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::ui::theme::Theme;

pub fn row(text: String, selected: bool, theme: &Theme) -> Line<'static> {
    let style = if selected {
        theme.selected
    } else {
        Style::new()
    };
    Line::from(Span::styled(text, style))
}
