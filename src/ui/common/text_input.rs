//! Draws a `TextInput` and, when focused, places the terminal cursor in it.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Span;
use ratatui::widgets::Paragraph;

use crate::app::widgets::text_input::TextInput;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, input: &TextInput, focused: bool, theme: &Theme) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    // One column stays free for the cursor at the end.
    let (shown, cursor) = input.view(area.width.saturating_sub(1).max(1));
    let style = if focused { theme.input } else { theme.dim };
    // A selected suggestion shows as selected: typing replaces it.
    let text_style = if focused && input.is_selected() {
        theme.selected
    } else {
        style
    };
    f.render_widget(
        Paragraph::new(Span::styled(shown, text_style)).style(style),
        area,
    );
    if focused {
        f.set_cursor_position((area.x + cursor.min(area.width - 1), area.y));
    }
}
