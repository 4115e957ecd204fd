//! The plan dialog, and the table every row-based preview and report draws with (`:plan`,
//! `:import`): a sentence (what a run does, or why nothing can run) and notes on the file
//! above; then, under the columns' header (none when there is no row to head), the bad rows
//! with their line and the rows. Columns that do not fit go, least needed first; the last
//! one shown wraps under itself. The sentence, the notes and the bad rows wrap too: a bad
//! row's line and reason are readable whole at any width.
//!
//! The columns' widths come with the view (worked out once, when the rows arrived); a frame
//! measures only the lines it shows, and the screenful before the end when scrolling.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use crate::app::dialogs::Dialog;
use crate::app::dialogs::plan::PlanView;
use crate::app::dialogs::rows::Tone;
use crate::app::keymap::{Hint, KeyMap};
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
/// A note's mark; its wrapped lines hang under the text after it.
const NOTE_MARK: &str = "• ";

/// A row-based preview or report, as drawn.
pub struct Table<'a> {
    pub title: &'a str,
    /// The widest the dialog gets.
    pub max_width: u16,
    /// The sentence, or why nothing can run (`bad`: drawn as an error).
    pub sentence: &'a str,
    pub bad_sentence: bool,
    /// Said of the file before its rows (an import's columns), above the header.
    pub notes: &'a [String],
    /// The bad rows, `line 3: email: ...`, first in the body.
    pub bad: &'a [String],
    pub header: &'a [&'a str],
    pub rows: &'a [Vec<String>],
    pub tones: &'a [Tone],
    /// Each column's widest cell (the view's, worked out once).
    pub widths: &'a [usize],
    /// The first item of the body shown.
    pub scroll: usize,
    pub dropped_first: &'a [&'a str],
    pub last_min: usize,
    pub hints: &'a [Hint],
}

pub fn draw(f: &mut Frame, area: Rect, v: &PlanView, keys: &KeyMap, theme: &Theme) {
    let (sentence, bad_sentence) = match &v.why {
        Some(why) => (why.as_str(), true),
        None => (v.sentence.as_str(), false),
    };
    let t = Table {
        title: &v.title,
        max_width: 140,
        sentence,
        bad_sentence,
        notes: &[],
        bad: &v.bad,
        header: v.header,
        rows: &v.rows,
        tones: &v.tones,
        widths: &v.widths,
        scroll: v.scroll,
        dropped_first: DROPPED_FIRST,
        last_min: LAST_MIN,
        hints: v.hints(),
    };
    draw_table(f, area, &t, keys, theme);
}

/// Draws a row-based preview or report (see the module's words).
pub fn draw_table(f: &mut Frame, area: Rect, t: &Table, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(t.max_width);
    // Inside the borders and the one-column margins.
    let inner_w = usize::from(width.saturating_sub(4)).max(1);
    let text_style = if t.bad_sentence {
        theme.error
    } else {
        theme.note
    };
    let mut top: Vec<(String, Style)> = wrap(t.sentence, inner_w, inner_w)
        .into_iter()
        .map(|l| (l, text_style))
        .collect();
    for n in t.notes {
        top.extend(
            hanging(NOTE_MARK, n, inner_w)
                .into_iter()
                .map(|l| (l, theme.dim)),
        );
    }
    let cols = columns(t.header, t.widths, inner_w, t.dropped_first, t.last_min);
    let headed = !t.rows.is_empty();
    let items = t.bad.len() + t.rows.len();
    // How many lines the body's item `k` takes (measured only for the items looked at).
    let height_of = |k: usize| match t.bad.get(k) {
        Some(b) => lines_of(b, inner_w.saturating_sub(fit::width(BAD_MARK))),
        None => row_height(&t.rows[k - t.bad.len()], &cols, inner_w),
    };
    // Borders, the top lines, the header and the footer around the body; the body is
    // measured up to what the screen can show.
    let chrome = top.len() + usize::from(headed) + 3;
    let room = usize::from(area.height).saturating_sub(chrome);
    let mut body = 0;
    for k in 0..items {
        if body > room {
            break;
        }
        body += height_of(k);
    }
    let height = (chrome + body).min(usize::from(u16::MAX)) as u16;
    let m = modal::centered(area, width, height.min(area.height));
    let footer = keys.hint_text(t.hints, m.width.saturating_sub(4));
    let inner = modal::frame(f, m, t.title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    let line = |y: usize| Rect::new(inner.x, inner.y + y as u16, inner.width, 1);
    let rows = usize::from(inner.height);
    // The top lines leave at least the header and a line of the body (when there is room).
    let said = top
        .len()
        .min(rows.saturating_sub(1 + usize::from(headed)).max(1));
    for (y, (text, style)) in top.iter().take(said).enumerate() {
        fit::draw_str(f.buffer_mut(), line(y), text, *style);
    }
    if rows < said + 1 + usize::from(headed) {
        return;
    }
    if headed {
        let header: Vec<&str> = cols.iter().map(|&(i, _)| t.header[i]).collect();
        fit::draw_str(
            f.buffer_mut(),
            line(said),
            &row_text(&header, &cols),
            theme.header,
        );
    }
    let from = said + usize::from(headed);
    let shown = rows - from;
    let first = t.scroll.min(last_page_start(items, shown, height_of));
    let mut y = 0;
    for k in first..items {
        let (lines, style) = match t.bad.get(k) {
            Some(b) => (hanging(BAD_MARK, b, inner_w), theme.error),
            None => {
                let r = k - t.bad.len();
                let tone = t.tones.get(r).copied().unwrap_or(Tone::Plain);
                (row_lines(&t.rows[r], &cols, inner_w), style_of(tone, theme))
            }
        };
        for text in lines {
            if y == shown {
                return;
            }
            fit::draw_str(f.buffer_mut(), line(from + y), &text, style);
            y += 1;
        }
    }
}

fn style_of(tone: Tone, theme: &Theme) -> Style {
    match tone {
        Tone::Plain => Style::default(),
        Tone::Dim => theme.dim,
        Tone::Warn => theme.pending,
        Tone::Bad => theme.error,
        Tone::Good => theme.good,
    }
}

/// The first item of the last screenful: scrolling stops where the end is in sight
/// (measures the items from the end up, a screenful at most).
fn last_page_start(items: usize, shown: usize, height_of: impl Fn(usize) -> usize) -> usize {
    let mut used = 0;
    for i in (0..items).rev() {
        used += height_of(i);
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
fn hanging(mark: &str, text: &str, width: usize) -> Vec<String> {
    let w = fit::width(mark);
    let pad = " ".repeat(w);
    wrapped(text, width.saturating_sub(w))
        .into_iter()
        .enumerate()
        .map(|(k, l)| {
            let lead = if k == 0 { mark } else { pad.as_str() };
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

/// The columns shown and their widths (`widths`: each column's widest cell); dropped in
/// `dropped_first` order while they do not fit (the last shown needs `last_min` columns:
/// it wraps in what is left).
fn columns(
    header: &[&str],
    widths: &[usize],
    width: usize,
    dropped_first: &[&str],
    last_min: usize,
) -> Vec<(usize, usize)> {
    let mut cols: Vec<(usize, usize)> = widths.iter().copied().enumerate().collect();
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

/// The cells padded to their widths (the last one as it is).
fn row_text(cells: &[&str], cols: &[(usize, usize)]) -> String {
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
