//! The plan dialog: a sentence (what a run does, or why nothing can run), the bad rows with
//! their line, then the rows under a header. Columns that do not fit go, least needed first
//! (the old times, then the note); the last one shown takes the rest of the width.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::Dialog;
use crate::app::dialogs::plan::{PlanMode, PlanView};
use crate::app::keymap::KeyMap;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

/// The columns dropped when the width is short, first to go first (by header name).
const DROPPED_FIRST: &[&str] = &["old start", "note"];
/// The last column shown is cut at the edge, but kept only with this many columns.
const LAST_MIN: usize = 16;

pub fn draw(f: &mut Frame, area: Rect, v: &PlanView, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(140);
    // Borders, the sentence, the header and the footer around the lines.
    let height = (v.len() as u16).saturating_add(5);
    let m = modal::centered(area, width, height.min(area.height));
    let footer = keys.hint_text(v.hints(), m.width.saturating_sub(4));
    let inner = modal::frame(f, m, &v.title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    let line = |y: u16| Rect::new(inner.x, inner.y + y, inner.width, 1);
    let (text, style) = match &v.why {
        Some(why) => (why.as_str(), theme.error),
        None => (v.sentence.as_str(), theme.note),
    };
    fit::draw_str(f.buffer_mut(), line(0), text, style);
    if inner.height < 3 {
        return;
    }
    let cols = columns(
        v.header,
        &v.rows,
        usize::from(inner.width),
        DROPPED_FIRST,
        LAST_MIN,
    );
    let header: Vec<&str> = cols.iter().map(|&(i, _)| v.header[i]).collect();
    fit::draw_str(
        f.buffer_mut(),
        line(1),
        &row_text(&header, &cols),
        theme.header,
    );
    let shown = usize::from(inner.height - 2);
    let first = v.scroll.min(v.len().saturating_sub(shown));
    let lines = v
        .bad
        .iter()
        .map(|b| (format!("✗ {b}"), theme.error))
        .chain(v.rows.iter().map(|r| {
            let cells: Vec<&str> = cols.iter().map(|&(i, _)| r[i].as_str()).collect();
            (row_text(&cells, &cols), row_style(v, r, theme))
        }));
    for (y, (text, style)) in lines.skip(first).take(shown).enumerate() {
        fit::draw_str(f.buffer_mut(), line(2 + y as u16), &text, style);
    }
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
    // The last column is cut at the edge: it needs only a readable start.
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
