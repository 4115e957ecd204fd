//! The `:views` picker: the saved views, the one under the cursor highlighted, a rename
//! field in its place while renaming.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::app::dialogs::views_picker::{RENAME_HINTS, VIEWS_HINTS, ViewsPicker};
use crate::ui::common::{modal, text_input};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, p: &ViewsPicker, app: &App, theme: &Theme) {
    let message = p.error.clone().or_else(|| {
        p.delete_armed.as_ref().map(|n| {
            format!(
                "Press {} again to delete {n}",
                app.keymap.first_key(crate::app::keymap::Action::DeleteItem)
            )
        })
    });
    // The message wraps under the list (60 columns of text in the 64-wide box).
    let message_rows = message
        .as_ref()
        .map_or(0, |m| crate::ui::common::form_rows::wrapped_rows(m, 60));
    let rows = p.names.len().max(1) as u16 + 4 + message_rows;
    let m = modal::centered(area, 64, rows);
    let hints = if p.renaming.is_some() {
        RENAME_HINTS
    } else {
        VIEWS_HINTS
    };
    let footer = app.keymap.hint_text(hints, m.width.saturating_sub(4));
    let inner = modal::frame(f, m, "Saved views", &footer, theme);
    if inner.height == 0 {
        return;
    }
    let mut lines = Vec::new();
    if p.names.is_empty() {
        lines.push(Line::from(Span::styled(
            "No saved views yet: :save NAME saves this tab's query.",
            theme.dim,
        )));
    }
    for (i, name) in p.names.iter().enumerate() {
        let what = app
            .workspace
            .views
            .get(name)
            .map(|v| {
                let f: Vec<String> = v.filters.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("{} {}", v.resource, f.join(" "))
            })
            .unwrap_or_default();
        let style = if i == p.cursor {
            theme.selected
        } else {
            ratatui::style::Style::new()
        };
        lines.push(Line::from(vec![
            Span::styled(format!(" {name:<20}"), style),
            Span::styled(format!(" {what}"), theme.dim),
        ]));
    }
    let list_h = inner.height.saturating_sub(message_rows);
    f.render_widget(
        Paragraph::new(lines).scroll((
            p.cursor
                .saturating_sub(list_h as usize - 1)
                .min(u16::MAX as usize) as u16,
            0,
        )),
        Rect {
            height: list_h,
            ..inner
        },
    );
    if let Some(t) = &p.renaming {
        let y = inner.y + (p.cursor as u16).min(list_h.saturating_sub(1));
        let a = Rect {
            x: inner.x + 1,
            y,
            width: 21,
            height: 1,
        };
        f.render_widget(ratatui::widgets::Clear, a);
        text_input::draw(f, a, t, true, theme);
    }
    if let Some(msg) = message {
        let h = message_rows.min(inner.height);
        f.render_widget(
            Paragraph::new(Span::styled(msg, theme.error))
                .wrap(ratatui::widgets::Wrap { trim: true }),
            Rect {
                y: inner.y + inner.height - h,
                height: h,
                ..inner
            },
        );
    }
}
