//! Related records: the record's name, then its related records under headings.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::Dialog;
use crate::app::dialogs::related::RelatedView;
use crate::app::keymap::KeyMap;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

pub fn draw(
    f: &mut Frame,
    area: Rect,
    v: &RelatedView,
    spinner: &str,
    keys: &KeyMap,
    theme: &Theme,
) {
    let m = modal::centered(area, area.width.saturating_sub(4).min(100), area.height);
    let footer = keys.hint_text(v.hints(), m.width.saturating_sub(4));
    let title = format!("Related to {} {}", v.of.kind.noun(), v.of.label);
    let inner = modal::frame(f, m, &title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut selected_line = 0usize;
    let mut listed = false;
    match &v.result {
        None => lines.push(Line::from(Span::styled(
            format!("{spinner} reading the local mirror"),
            theme.spinner,
        ))),
        Some(Err(e)) => lines.push(Line::from(Span::styled(e.clone(), theme.error))),
        Some(Ok(None)) => lines.push(Line::from(Span::styled(
            "No local mirror yet: run `crmdash sync`, or keep the dashboard open while it syncs in the background.",
            theme.pending,
        ))),
        Some(Ok(Some(r))) if r.unknown => lines.push(Line::from(Span::styled(
            format!(
                "This {} is not in the local mirror yet: the next sync brings it.",
                v.of.kind.noun()
            ),
            theme.dim,
        ))),
        Some(Ok(Some(r))) if r.groups.iter().all(|(_, v)| v.is_empty()) => {
            lines.push(Line::from(Span::styled(
                format!(
                    "Nothing related to this {} in the local mirror.",
                    v.of.kind.noun()
                ),
                theme.dim,
            )))
        }
        Some(Ok(Some(r))) => {
            listed = true;
            let mut index = 0;
            for (heading, items) in &r.groups {
                if items.is_empty() {
                    continue;
                }
                lines.push(Line::from(vec![
                    Span::styled(*heading, theme.heading),
                    Span::styled(format!(" {}", items.len()), theme.dim),
                ]));
                for item in items {
                    let sel = index == v.list.selected;
                    if sel {
                        selected_line = lines.len();
                    }
                    let style = if sel {
                        theme.selected
                    } else {
                        ratatui::style::Style::new()
                    };
                    let note = item.note.map(|n| format!(" ({n})")).unwrap_or_default();
                    lines.push(Line::from(vec![
                        Span::styled(format!("  {}", item.label), style),
                        Span::styled(
                            format!("  {}{note}", item.detail),
                            if sel { style } else { theme.dim },
                        ),
                    ]));
                    index += 1;
                }
            }
        }
    }
    if !listed {
        // A sentence (no mirror, an error, nothing related): wrapped, never cut.
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        return;
    }
    // One record a line, cut with `…` where the dialog ends (a long name, an account's
    // website and its note).
    let rows = inner.height as usize;
    let scroll = selected_line.saturating_sub(rows.saturating_sub(1));
    fit::draw_lines(f.buffer_mut(), inner, lines.into_iter().skip(scroll));
}
