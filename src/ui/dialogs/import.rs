//! The import dialog: a sentence (what a run does, or why nothing can run), the notes on the
//! columns, the bad rows with their line, then the rows under a header. Columns that do not
//! fit go, least needed first (the phone, then the name, then the id); the last one shown
//! takes the rest of the width.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;

use super::plan::{columns, row_text};
use crate::app::dialogs::Dialog;
use crate::app::dialogs::import::{ImportView, Tone};
use crate::app::keymap::KeyMap;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

/// The columns dropped when the width is short, first to go first (by header name).
const DROPPED_FIRST: &[&str] = &["phone", "name", "id"];
/// The last column shown is cut at the edge, but kept only with this many columns.
const LAST_MIN: usize = 16;

pub fn draw(f: &mut Frame, area: Rect, v: &ImportView, keys: &KeyMap, theme: &Theme) {
    let width = area.width.saturating_sub(4).min(150);
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
        .notes
        .iter()
        .map(|n| (format!("• {n}"), theme.dim))
        .chain(v.bad.iter().map(|b| (format!("✗ {b}"), theme.error)))
        .chain(v.rows.iter().zip(&v.tones).map(|(r, tone)| {
            let cells: Vec<&str> = cols.iter().map(|&(i, _)| r[i].as_str()).collect();
            (row_text(&cells, &cols), style_of(*tone, theme))
        }));
    for (y, (text, style)) in lines.skip(first).take(shown).enumerate() {
        fit::draw_str(f.buffer_mut(), line(2 + y as u16), &text, style);
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
