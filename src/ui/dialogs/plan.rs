//! The plan dialog: a sentence (what a run does, or why nothing can run), the bad rows with
//! their line, then the rows under a header. Columns that do not fit go, least needed first
//! (the old times, then the note); the last one shown wraps under itself. The sentence and
//! the bad rows wrap too: a bad row's line and reason are readable at any width.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::app::dialogs::Dialog;
use crate::app::dialogs::plan::{PlanMode, PlanView};
use crate::app::keymap::KeyMap;
use crate::app::widgets::scroll::wrap;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

/// The columns dropped when the width is short, first to go first (by header name).
const DROPPED_FIRST: &[&str] = &["old start", "note"];
/// The last column shown wraps in its own width, but is kept only with this many columns.
const LAST_MIN: usize = 16;
/// The narrowest room the last column wraps in (narrower, it is cut).
const WRAP_MIN: usize = 8;
/// A bad row's mark; its wrapped lines hang under the text after it.
const BAD_MARK: &str = "✗ ";

pub fn draw(f: &mut Frame, area: Rect, v: &PlanView, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(140);
    // Inside the borders and the one-column margins.
    let inner_w = usize::from(width.saturating_sub(4)).max(1);
    let (text, style) = match &v.why {
        Some(why) => (why.as_str(), theme.error),
        None => (v.sentence.as_str(), theme.note),
    };
    let sentence = wrap(text, inner_w, inner_w);
    let cols = columns(v.header, &v.rows, inner_w, DROPPED_FIRST, LAST_MIN);
    // Each line of the body: its lines (a wrapped one takes several), made only when shown.
    let item = |k: usize| -> (Vec<String>, Style) {
        match v.bad.get(k) {
            Some(b) => (bad_lines(b, inner_w), theme.error),
            None => {
                let r = &v.rows[k - v.bad.len()];
                (row_lines(r, &cols, inner_w), row_style(v, r, theme))
            }
        }
    };
    let heights: Vec<usize> = v
        .bad
        .iter()
        .map(|b| lines_of(b, inner_w.saturating_sub(fit::width(BAD_MARK))))
        .chain(v.rows.iter().map(|r| row_height(r, &cols, inner_w)))
        .collect();
    // Borders, the sentence, the header and the footer around the lines.
    let body: usize = heights.iter().sum();
    let height = (sentence.len() + body + 4).min(usize::from(u16::MAX)) as u16;
    let m = modal::centered(area, width, height.min(area.height));
    let footer = keys.hint_text(v.hints(), m.width.saturating_sub(4));
    let inner = modal::frame(f, m, &v.title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    let line = |y: usize| Rect::new(inner.x, inner.y + y as u16, inner.width, 1);
    let rows = usize::from(inner.height);
    // The sentence leaves at least the header and a line of the body (when there is room).
    let said = sentence.len().min(rows.saturating_sub(2).max(1));
    for (y, text) in sentence.iter().take(said).enumerate() {
        fit::draw_str(f.buffer_mut(), line(y), text, style);
    }
    if rows < said + 2 {
        return;
    }
    let header: Vec<&str> = cols.iter().map(|&(i, _)| v.header[i]).collect();
    fit::draw_str(
        f.buffer_mut(),
        line(said),
        &row_text(&header, &cols),
        theme.header,
    );
    let shown = rows - said - 1;
    let first = v.scroll.min(last_page_start(&heights, shown));
    let mut y = 0;
    for k in first..heights.len() {
        let (lines, style) = item(k);
        for text in lines {
            if y == shown {
                return;
            }
            fit::draw_str(f.buffer_mut(), line(said + 1 + y), &text, style);
            y += 1;
        }
    }
}

/// The first item of the last screenful: scrolling stops where the end is in sight.
fn last_page_start(heights: &[usize], shown: usize) -> usize {
    let mut used = 0;
    for (i, h) in heights.iter().enumerate().rev() {
        used += h;
        if used > shown {
            return i + 1;
        }
    }
    0
}

/// `text` in lines of `room` columns: whole when it fits (most rows: no wrapping done).
fn wrapped(text: &str, room: usize) -> Vec<String> {
    if fit::width(text) <= room {
        vec![text.to_string()]
    } else {
        wrap(text, room.max(1), room.max(1))
    }
}

/// How many lines [`wrapped`] makes, without making them where the text fits.
fn lines_of(text: &str, room: usize) -> usize {
    if fit::width(text) <= room {
        1
    } else {
        wrapped(text, room).len()
    }
}

/// How many lines a row takes ([`row_lines`], without making them).
fn row_height(cells: &[String], cols: &[(usize, usize)], width: usize) -> usize {
    let Some(&(last, _)) = cols.last() else {
        return 1;
    };
    let room = width.saturating_sub(indent_of(cols));
    if room < WRAP_MIN {
        1
    } else {
        lines_of(&cells[last], room)
    }
}

/// Where the last column starts.
fn indent_of(cols: &[(usize, usize)]) -> usize {
    cols.iter().rev().skip(1).map(|&(_, w)| w + 1).sum()
}

/// `✗ line 14: start: …` wrapped in `width`, the lines after the first under its text.
fn bad_lines(bad: &str, width: usize) -> Vec<String> {
    let mark = fit::width(BAD_MARK);
    wrapped(bad, width.saturating_sub(mark))
        .into_iter()
        .enumerate()
        .map(|(k, l)| {
            let lead = if k == 0 { BAD_MARK } else { "  " };
            format!("{lead}{l}")
        })
        .collect()
}

/// A row: its cells padded to their columns, the last one wrapped under itself (cut at the
/// edge instead where too little room is left for it to be read in pieces).
fn row_lines(cells: &[String], cols: &[(usize, usize)], width: usize) -> Vec<String> {
    let mut shown: Vec<&str> = cols.iter().map(|&(i, _)| cells[i].as_str()).collect();
    let indent = indent_of(cols);
    let room = width.saturating_sub(indent);
    let Some(last) = shown.pop() else {
        return vec![String::new()];
    };
    if room < WRAP_MIN {
        shown.push(last);
        return vec![row_text(&shown, cols)];
    }
    wrapped(last, room)
        .iter()
        .enumerate()
        .map(|(k, part)| {
            if k == 0 {
                let mut first = shown.clone();
                first.push(part);
                row_text(&first, cols)
            } else {
                format!("{}{part}", " ".repeat(indent))
            }
        })
        .collect()
}

/// A report's failed rows stand out; a preview's skipped rows are dimmed.
fn row_style(v: &PlanView, cells: &[String], theme: &Theme) -> ratatui::style::Style {
    match v.mode {
        PlanMode::Report { .. } => match cells.get(2).map(String::as_str) {
            Some("failed" | "in doubt") => theme.error,
            Some("moved") => theme.good,
            _ => theme.dim,
        },
        PlanMode::Preview { .. } if cells.last().is_some_and(|n| n.contains("earlier run")) => {
            theme.dim
        }
        PlanMode::Preview { .. } => ratatui::style::Style::default(),
    }
}

/// The columns shown and their widths: each as wide as its widest cell; dropped in
/// `dropped_first` order while they do not fit (the last shown needs `last_min` columns: it
/// is cut at the edge). Shared by the row-based previews and reports (`:plan`, `:import`).
pub(super) fn columns(
    header: &[&str],
    rows: &[Vec<String>],
    width: usize,
    dropped_first: &[&str],
    last_min: usize,
) -> Vec<(usize, usize)> {
    let mut cols: Vec<(usize, usize)> = (0..header.len())
        .map(|i| {
            let w = rows
                .iter()
                .map(|r| fit::width(&r[i]))
                .chain([fit::width(header[i])])
                .max()
                .unwrap_or(0);
            (i, w)
        })
        .collect();
    // The last column wraps in what is left: it needs only a readable width.
    let total = |c: &[(usize, usize)]| {
        let n = c.len();
        c.iter()
            .enumerate()
            .map(|(k, &(_, w))| if k + 1 == n { w.min(last_min) } else { w } + 1)
            .sum::<usize>()
    };
    for name in dropped_first {
        if total(&cols) <= width {
            break;
        }
        cols.retain(|&(i, _)| header[i] != *name);
    }
    cols
}

/// The cells padded to their widths (the last one as it is: it is cut at the edge).
pub(super) fn row_text(cells: &[&str], cols: &[(usize, usize)]) -> String {
    let mut s = String::new();
    for (k, (cell, &(_, w))) in cells.iter().zip(cols).enumerate() {
        s.push_str(cell);
        if k + 1 < cells.len() {
            let pad = w.saturating_sub(fit::width(cell)) + 1;
            s.extend(std::iter::repeat_n(' ', pad));
        }
    }
    s
}
