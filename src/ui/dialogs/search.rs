//! The global search dialog: the text field, then the hits grouped by resource with their
//! counts (`Contacts 20+`), the selected one highlighted; what to do when there is no mirror.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use unicode_width::UnicodeWidthStr;

use crate::app::dialogs::Dialog;
use crate::app::dialogs::search::SearchDialog;
use crate::app::keymap::KeyMap;
use crate::ui::common::form_rows::wrap;
use crate::ui::common::{fit, modal, text_input};
use crate::ui::theme::Theme;

pub fn draw(
    f: &mut Frame,
    area: Rect,
    d: &SearchDialog,
    spinner: &str,
    keys: &KeyMap,
    theme: &Theme,
) {
    let m = modal::centered(area, area.width.saturating_sub(4).min(110), area.height);
    let footer = keys.hint_text(d.hints(), m.width.saturating_sub(4));
    let inner = modal::frame(f, m, "Search everything (local mirror)", &footer, theme);
    if inner.height < 3 || inner.width < 10 {
        return;
    }
    let w = inner.width as usize;
    // The field.
    let label = "Find: ";
    f.render_widget(
        Paragraph::new(Span::styled(label, theme.heading)),
        Rect { height: 1, ..inner },
    );
    let lw = label.width() as u16;
    text_input::draw(
        f,
        Rect {
            x: inner.x + lw,
            width: inner.width.saturating_sub(lw),
            height: 1,
            ..inner
        },
        &d.input,
        true,
        theme,
    );
    let mut lines: Vec<Line> = Vec::new();
    let status = if !d.enabled {
        Some((
            "The local mirror is turned off ([cache] enabled = false in the config file): there is nothing to search.".to_string(),
            theme.pending,
        ))
    } else if d.exists == Some(false) {
        Some((
            "No local mirror yet. Run `crmdash sync` in a shell, or keep the dashboard open: it syncs in the background ([cache] sync_every_minutes).".to_string(),
            theme.pending,
        ))
    } else if let Some(e) = &d.error {
        Some((e.clone(), theme.error))
    } else if d.searching() {
        Some((format!("{spinner} searching"), theme.spinner))
    } else if d.input.value().trim().is_empty() {
        Some((
            "Names, emails, phones, accounts, statuses, custom fields of contacts, deals and projects; accents and small typos are forgiven.".to_string(),
            theme.dim,
        ))
    } else if d.results.as_ref().is_some_and(|r| r.is_empty()) {
        Some((format!("Nothing matches “{}”.", d.searched), theme.dim))
    } else {
        None
    };
    // What search cannot see yet stands above what it found (or did not find).
    let waiting = d.not_searchable().map(|text| (text, theme.pending));
    for (text, style) in waiting.into_iter().chain(status) {
        for chunk in wrap(&text, w) {
            lines.push(Line::from(Span::styled(chunk, style)));
        }
    }
    let selected = d.selected;
    let mut index = 0usize;
    let mut selected_line = 0usize;
    if let Some(r) = &d.results {
        for g in &r.groups {
            let count = format!("{}{}", g.hits.len(), if g.more { "+" } else { "" });
            lines.push(Line::from(vec![
                Span::styled(g.resource.title(), theme.heading),
                Span::styled(format!(" {count}"), theme.dim),
            ]));
            for hit in &g.hits {
                let mark = if hit.near { "~ " } else { "  " };
                let label = fit::cut(&hit.label, (w / 2).max(10));
                let rest = w.saturating_sub(mark.width() + fit::width(&label) + 2);
                let detail = fit::cut(&hit.detail, rest);
                let is_sel = index == selected;
                if is_sel {
                    selected_line = lines.len();
                }
                let style = if is_sel {
                    theme.selected
                } else {
                    ratatui::style::Style::new()
                };
                lines.push(Line::from(vec![
                    Span::styled(format!("{mark}{label}"), style),
                    Span::styled(
                        format!("  {detail}"),
                        if is_sel { style } else { theme.dim },
                    ),
                ]));
                index += 1;
            }
        }
    }
    let body = Rect {
        y: inner.y + 2,
        height: inner.height - 2,
        ..inner
    };
    // Keep the selected hit in sight.
    let rows = body.height as usize;
    let scroll = selected_line.saturating_sub(rows.saturating_sub(1));
    // Through `fit`, as every line of record text: cut with `…`, and drawn as the terminal
    // draws it (a Devanagari cluster one cell per letter), so no letter is left behind on
    // screen when the dialog changes or closes.
    fit::draw_lines(f.buffer_mut(), body, lines.into_iter().skip(scroll));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_wrapped() {
        assert_eq!(wrap("a bb ccc dddd", 6), ["a bb", "ccc", "dddd"]);
    }
}
