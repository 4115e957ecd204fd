//! Rows of a form dialog (labelled inputs, inline errors, text), laid out top to bottom and
//! scrolled so the focused input stays visible. Shared by the contact and reschedule forms.

use crate::ui::common::fit;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::app::widgets::text_input::TextInput;
use crate::ui::common::{modal, text_input};
use crate::ui::theme::Theme;

/// Width of the label column.
pub const LABEL: u16 = 14;

pub enum Row<'a> {
    Input {
        label: &'static str,
        input: &'a TextInput,
        focused: bool,
    },
    Text(Line<'a>),
}

impl<'a> Row<'a> {
    pub fn text(s: impl Into<String>, style: Style) -> Row<'a> {
        Row::Text(Line::from(Span::styled(s.into(), style)))
    }

    /// The free `key = value` lines after a form's fixed fields: `first` labels the first
    /// one; `focused` is the index of the focused line, if any.
    pub fn extra_lines(
        extra: &'a [TextInput],
        first: &'static str,
        focused: Option<usize>,
    ) -> impl Iterator<Item = Row<'a>> + 'a {
        extra.iter().enumerate().map(move |(i, input)| Row::Input {
            label: if i == 0 { first } else { "" },
            input,
            focused: focused == Some(i),
        })
    }

    /// An error under a field, indented to the inputs, wrapped to `width`.
    pub fn error(msg: &str, width: u16, theme: &Theme) -> Vec<Row<'a>> {
        Row::under(msg, width, theme.error)
    }

    /// A note under a field (an error, the duplicate found), indented to the inputs and
    /// wrapped to `width`, so nothing of it is cut.
    pub fn under(msg: &str, width: u16, style: Style) -> Vec<Row<'a>> {
        let w = width.saturating_sub(LABEL + 2).max(10) as usize;
        wrap(msg, w)
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                let mark = if i == 0 { "↳ " } else { "  " };
                Row::Text(Line::from(vec![
                    Span::raw(" ".repeat(LABEL as usize)),
                    Span::styled(format!("{mark}{l}"), style),
                ]))
            })
            .collect()
    }

    /// Long text as several rows, wrapped at `width` by words.
    pub fn wrapped(s: &str, width: u16, style: Style) -> Vec<Row<'a>> {
        wrap(s, width.max(10) as usize)
            .into_iter()
            .map(|l| Row::text(l, style))
            .collect()
    }
}

/// Word wrap by display width; a line's leading indentation is kept (JSON previews). A word
/// wider than the line (a URL, a path) is broken where the line ends: read whole, never cut.
pub fn wrap(s: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    word_wrap(s, width)
        .into_iter()
        .flat_map(|l| hard_break(l, width))
        .collect()
}

/// `line` in pieces at most `width` columns wide (by characters' display widths).
fn hard_break(line: String, width: usize) -> Vec<String> {
    use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};
    if line.width() <= width {
        return vec![line];
    }
    let mut out = Vec::new();
    let (mut piece, mut w) = (String::new(), 0);
    for c in line.chars() {
        let cw = c.width().unwrap_or(0);
        if w + cw > width && !piece.is_empty() {
            out.push(std::mem::take(&mut piece));
            w = 0;
        }
        piece.push(c);
        w += cw;
    }
    out.push(piece);
    out
}

fn word_wrap(s: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let mut out = Vec::new();
    for para in s.split('\n') {
        let body = para.trim_start_matches(' ');
        let indent = &para[..para.len() - body.len()];
        let para = body;
        let mut line = indent.to_string();
        for word in para.split(' ') {
            let bare = line.len() == indent.len();
            let extra = if bare { 0 } else { 1 };
            if !bare && line.width() + extra + word.width() > width {
                out.push(std::mem::replace(&mut line, indent.to_string()));
            }
            if line.len() > indent.len() {
                line.push(' ');
            }
            line.push_str(word);
        }
        out.push(line);
    }
    out
}

/// How many rows `s` takes word-wrapped at `width` (a word wider than that takes rows of its
/// own, as a wrapping paragraph breaks it): the height to give a box before drawing it.
pub fn wrapped_rows(s: &str, width: usize) -> u16 {
    use unicode_width::UnicodeWidthStr;
    let width = width.max(1);
    wrap(s, width)
        .iter()
        .map(|l| l.width().div_ceil(width).max(1))
        .sum::<usize>() as u16
}

/// Draws the rows in `area`, starting late enough that the focused input is visible.
pub fn draw(f: &mut Frame, area: Rect, rows: &[Row], theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let focus = rows
        .iter()
        .position(|r| matches!(r, Row::Input { focused: true, .. }))
        .unwrap_or(0);
    let h = area.height as usize;
    // Keep the rows under the focused input that belong to it (its error, the duplicate
    // found), at least two, in view when scrolling; the input itself always stays.
    let notes = rows[(focus + 1).min(rows.len())..]
        .iter()
        .take_while(|r| !matches!(r, Row::Input { .. }))
        .count()
        .max(2);
    let skip = (focus + 1 + notes)
        .saturating_sub(h)
        .min(focus)
        .min(rows.len().saturating_sub(h));
    for (n, row) in rows.iter().skip(skip).take(h).enumerate() {
        let r = Rect {
            y: area.y + n as u16,
            height: 1,
            ..area
        };
        match row {
            Row::Text(line) => {
                fit::draw_line(f.buffer_mut(), r, line.clone());
            }
            Row::Input {
                label,
                input,
                focused,
            } => {
                let style = if *focused { theme.key } else { theme.dim };
                let label_area = Rect {
                    width: r.width.min(LABEL),
                    ..r
                };
                fit::draw_str(f.buffer_mut(), label_area, label, style);
                let input_area = Rect {
                    x: r.x + LABEL,
                    width: r.width.saturating_sub(LABEL),
                    ..r
                };
                text_input::draw(f, input_area, input, *focused, theme);
            }
        }
    }
}

/// A small question box on top of a dialog.
pub fn ask(f: &mut Frame, area: Rect, title: &str, lines: &[String], footer: &str, theme: &Theme) {
    let width = 64.min(area.width.saturating_sub(2)).max(20);
    let wrapped: Vec<String> = lines
        .iter()
        .flat_map(|l| wrap(l, width.saturating_sub(4) as usize))
        .collect();
    let m = modal::centered(area, width, wrapped.len() as u16 + 3);
    let inner = modal::frame(f, m, title, footer, theme);
    fit::draw_lines(f.buffer_mut(), inner, wrapped.into_iter().map(Line::from));
}
