//! The tab's filter bar: one line per filter field, with inline errors and, for status, the
//! values seen so far.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Block;

use crate::app::keymap::{Action, KeyMap};
use crate::app::resources::FilterKind;
use crate::app::table::tab::TabState;
use crate::ui::common::{fit, text_input};
use crate::ui::theme::Theme;

use crate::app::table::filter::{LABEL_WIDTH, input_and_note_width};

pub fn draw(f: &mut Frame, area: Rect, tab: &TabState, keys: &KeyMap, theme: &Theme) {
    let key = |a: Action| keys.first_key(a);
    let title = Line::from(vec![
        Span::styled(
            format!(" Filter {} ", tab.resource.kind.noun()),
            theme.title,
        ),
        Span::styled(
            format!(
                "· typing filters · {} next field · {} apply · {} close · Ctrl-U clear ",
                key(Action::NextField),
                key(Action::Confirm),
                key(Action::Cancel)
            ),
            theme.dim,
        ),
    ]);
    let (title, _) = fit::line(title, usize::from(area.width.saturating_sub(2)));
    let block = Block::bordered()
        .border_style(theme.border_focus)
        .title(title);
    let inner = block.inner(area);
    f.render_widget(block, area);
    let bar = &tab.filter_bar;
    for (i, field) in bar.fields.iter().enumerate() {
        let y = inner.y + i as u16;
        if y >= inner.y + inner.height {
            break;
        }
        let focused = i == bar.focused;
        let label_style = if focused { theme.key } else { theme.dim };
        fit::draw_str(
            f.buffer_mut(),
            Rect::new(inner.x + 1, y, LABEL_WIDTH.min(inner.width), 1),
            field.field.label,
            label_style,
        );
        let (input_w, note_w) = input_and_note_width(inner.width);
        let input_area = Rect::new(inner.x + 1 + LABEL_WIDTH, y, input_w, 1);
        text_input::draw(f, input_area, &field.input, focused, theme);
        let note_area = Rect::new(input_area.x + input_w + 1, y, note_w, 1);
        let note = if let Some(e) = &field.error {
            if fit::width(e) <= usize::from(note_w) {
                Span::styled(e.as_str(), theme.error)
            } else {
                // Whole under the fields.
                Span::styled("not used: see below", theme.error)
            }
        } else if field.field.kind == FilterKind::Status && focused {
            let seen = bar.status_suggestions();
            if seen.is_empty() {
                Span::styled("free text", theme.dim)
            } else {
                Span::styled(
                    format!("{}: {}", key(Action::NextValue), seen.join(" · ")),
                    theme.dim,
                )
            }
        } else if field.field.kind == FilterKind::WholeText && focused {
            let long = "matches whole addresses only";
            let fits = fit::width(long) <= usize::from(note_w);
            Span::styled(if fits { long } else { "whole addresses only" }, theme.dim)
        } else if field.field.kind == FilterKind::Date && focused {
            Span::styled("e.g. 2026-01-31, yesterday, -7d", theme.dim)
        } else {
            Span::raw("")
        };
        fit::draw_line(f.buffer_mut(), note_area, Line::from(note));
    }
    let below = bar.fields.len() as u16;
    for (i, row) in bar.long_errors(inner.width).into_iter().enumerate() {
        let y = inner.y + below + i as u16;
        if y >= inner.bottom() {
            break;
        }
        let area = Rect::new(inner.x + 1, y, inner.width.saturating_sub(2), 1);
        fit::draw_str(f.buffer_mut(), area, &row, theme.error);
    }
}
