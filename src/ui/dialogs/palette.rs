//! The `:` prompt, at the bottom of the table: the line typed, what `Tab` offers for the word
//! (commands with what they do while the first word is typed), and why a line was refused.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::palette::PaletteDialog;
use crate::app::dialogs::palette::grammar::COMMANDS;
use crate::app::keymap::KeyMap;
use crate::ui::common::{fit, modal, text_input};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, p: &PaletteDialog, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(100);
    let text_width = width.saturating_sub(4).max(1) as usize;
    let (top, rows) = crate::app::layout::dialog_rows(area);
    // Command rows that fit: the box's borders, prompt and footer take four.
    let command_rows = (rows.saturating_sub(5) as usize).max(1);
    let mut lines: Vec<Line> = Vec::new();
    let first_word = p.completions.start == 0
        || p.input.value()[..p.completions.start]
            .trim()
            .trim_start_matches(':')
            .is_empty();
    if first_word {
        let typed = p.input.value().trim().trim_start_matches(':');
        let shown: Vec<&(&str, &str)> = COMMANDS
            .iter()
            .filter(|(c, _)| c.starts_with(typed))
            .collect();
        let fit = if shown.len() > command_rows {
            command_rows - 1
        } else {
            shown.len()
        };
        for (c, what) in shown.iter().take(fit) {
            let chosen = p
                .chosen
                .and_then(|k| p.completions.items.get(k))
                .is_some_and(|s| s.trim_start_matches(':') == *c);
            let style = if chosen { theme.selected } else { theme.key };
            lines.push(Line::from(vec![
                Span::styled(format!("{c:<9}"), style),
                Span::styled(fit::cut(what, text_width.saturating_sub(9)), theme.dim),
            ]));
        }
        if shown.len() > fit {
            lines.push(Line::from(Span::styled(
                format!("… {} more (type to narrow)", shown.len() - fit),
                theme.dim,
            )));
        }
    } else if !p.completions.items.is_empty() {
        let mut spans = Vec::new();
        for (i, item) in p.completions.items.iter().enumerate() {
            if i > 0 {
                spans.push(Span::raw("  "));
            }
            let style = if p.chosen == Some(i) {
                theme.selected
            } else {
                theme.key
            };
            spans.push(Span::styled(item.clone(), style));
        }
        lines.push(Line::from(spans));
    }
    let error_lines = p
        .error
        .as_ref()
        .map(|e| crate::ui::common::form_rows::wrapped_rows(e, text_width))
        .unwrap_or(0);
    let list_rows = if first_word {
        lines.len() as u16
    } else if lines.is_empty() {
        0
    } else {
        // Wrapped inline list: at most three rows.
        let len: usize = p
            .completions
            .items
            .iter()
            .map(|s| s.chars().count() + 2)
            .sum();
        ((len / text_width) as u16 + 1).min(3)
    };
    let h = (4 + list_rows + error_lines).min(rows);
    let m = Rect {
        x: area.x + (area.width - width) / 2,
        y: top + rows - h,
        width,
        height: h,
    };
    let footer = keys.hint_text(
        crate::app::dialogs::palette::PALETTE_HINTS,
        width.saturating_sub(4),
    );
    let inner = modal::frame(f, m, "Command", &footer, theme);
    if inner.height == 0 {
        return;
    }
    let prompt = Rect { height: 1, ..inner };
    f.render_widget(Paragraph::new(Span::styled(":", theme.key)), prompt);
    let field = Rect {
        x: prompt.x + 1,
        width: prompt.width.saturating_sub(1),
        ..prompt
    };
    text_input::draw(f, field, &p.input, true, theme);
    let mut y = inner.y + 1;
    let bottom = inner.y + inner.height;
    if let Some(e) = &p.error
        && y < bottom
    {
        let a = Rect {
            y,
            height: error_lines.min(bottom - y),
            ..inner
        };
        f.render_widget(
            Paragraph::new(Span::styled(e.as_str(), theme.error)).wrap(Wrap { trim: true }),
            a,
        );
        y += a.height;
    }
    if y < bottom && !lines.is_empty() {
        let a = Rect {
            y,
            height: bottom - y,
            ..inner
        };
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), a);
    }
}
