//! Text cut to the room it has, ending in `…`: status messages, hints, titles, dialog lines
//! and table cells all go through here. Widths are measured per grapheme cluster
//! (`output::text::display_width`), the measure ratatui's buffer places text by, so what
//! layout reserves and what is cut always agree; a cluster is never split.

use std::borrow::Cow;

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use unicode_segmentation::UnicodeSegmentation;

pub use crate::output::display_width as width;

/// The end of a cut text.
pub const ELLIPSIS: &str = "…";

/// `text` in at most `max` columns: whole, or cut at a cluster boundary and ending in `…`.
pub fn cut(text: &str, max: usize) -> Cow<'_, str> {
    if width(text) <= max {
        return Cow::Borrowed(text);
    }
    Cow::Owned(crate::output::truncate_to_width(text, max))
}

/// Columns a line takes, measured like [`width`].
pub fn line_width(line: &Line) -> usize {
    line.spans.iter().map(|s| width(&s.content)).sum()
}

/// `line` in at most `max` columns: whole, or its spans cut where the room ends, the last
/// one kept ending in `…` (in that span's style). Returns whether it was cut.
pub fn line<'a>(line: Line<'a>, max: usize) -> (Line<'a>, bool) {
    let line = safe(line);
    if line_width(&line) <= max {
        return (line, false);
    }
    let Line {
        spans,
        style,
        alignment,
    } = line;
    let mut out: Vec<Span<'a>> = Vec::with_capacity(spans.len());
    let mut used = 0usize;
    // Room for the text before the ellipsis.
    let room = max.saturating_sub(1);
    for span in spans {
        let w = width(&span.content);
        if used + w <= room {
            used += w;
            out.push(span);
            continue;
        }
        let mut kept = String::new();
        for g in span.content.graphemes(true) {
            let gw = width(g);
            if used + gw > room {
                break;
            }
            kept.push_str(g);
            used += gw;
        }
        if max > 0 {
            kept.push_str(ELLIPSIS);
        }
        out.push(Span::styled(kept, span.style));
        break;
    }
    let mut l = Line::from(out).style(style);
    l.alignment = alignment;
    (l, true)
}

/// Emoji sequences drawn as their parts (`output::terminal_safe`), in the spans that have any.
fn safe(mut line: Line<'_>) -> Line<'_> {
    for span in &mut line.spans {
        if let std::borrow::Cow::Owned(s) = crate::output::terminal_safe(&span.content) {
            span.content = s.into();
        }
    }
    line
}

/// Draws `line` on the first row of `area`, cut with `…` when it does not fit.
pub fn draw_line(buf: &mut Buffer, area: Rect, l: Line) -> bool {
    let area = area.intersection(buf.area);
    if area.is_empty() {
        return false;
    }
    let (l, cut) = line(l, usize::from(area.width));
    l.render(Rect { height: 1, ..area }, buf);
    cut
}

/// Draws one line per row of `area`, each cut with `…` (a dialog's lines).
pub fn draw_lines<'a>(buf: &mut Buffer, area: Rect, lines: impl IntoIterator<Item = Line<'a>>) {
    for (y, l) in (area.y..area.bottom()).zip(lines) {
        draw_line(
            buf,
            Rect {
                y,
                height: 1,
                ..area
            },
            l,
        );
    }
}

/// Items set in rows of `width` columns with `sep` between two on a row
/// (`layout::pack`): the rows, each a line to draw (one item wider than a row is cut there).
pub fn packed<'a>(items: Vec<Line<'a>>, sep: Span<'a>, width: u16) -> Vec<Line<'a>> {
    let widths: Vec<usize> = items.iter().map(line_width).collect();
    let rows = crate::app::layout::pack(&widths, width_of(&sep), usize::from(width));
    let mut items = items.into_iter();
    rows.into_iter()
        .map(|r| {
            let mut spans = Vec::new();
            for (k, item) in items.by_ref().take(r.len()).enumerate() {
                if k > 0 {
                    spans.push(sep.clone());
                }
                spans.extend(item.spans);
            }
            Line::from(spans)
        })
        .collect()
}

fn width_of(span: &Span) -> usize {
    width(&span.content)
}

/// A styled text drawn on one row, cut with `…`.
pub fn draw_str(buf: &mut Buffer, area: Rect, text: &str, style: Style) -> bool {
    draw_line(buf, area, Line::from(Span::styled(text, style)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(l: &Line) -> String {
        l.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn cuts_by_grapheme_cluster_with_an_ellipsis() {
        assert_eq!(cut("Ada Lovelace", 20), "Ada Lovelace");
        assert_eq!(cut("Ada Lovelace", 6), "Ada L…");
        // `र्मा` is one cluster three columns wide: it goes whole or not at all.
        assert_eq!(cut("वर्मा & Sons", 4), "व…");
        assert_eq!(cut("वर्मा & Sons", 5), "वर्मा…");
        // Nothing is added to it (its cells are split when the frame is drawn).
        assert_eq!(crate::output::terminal_safe("वर्मा"), "वर्मा");
        assert_eq!(cut("👩👩👧 family", 5), "👩👩…");
        let (l, _) = line(Line::from("👩‍👩‍👧 👍🏽 🏳️‍🌈"), 40);
        assert_eq!(text(&l), "👩👩👧 👍 🏳🌈");
        // Lam-alef: two clusters, two cells (the string's own width says one).
        assert_eq!(width("لا"), 2);
        assert_eq!(cut("", 0), "");
    }

    #[test]
    fn items_are_packed_into_rows_and_never_split() {
        let items = vec![
            Line::from("60 deals"),
            Line::from("totals per currency"),
            Line::from("bar: share"),
        ];
        let rows = packed(items.clone(), Span::raw(" · "), 40);
        let rows: Vec<String> = rows.iter().map(text).collect();
        assert_eq!(rows, ["60 deals · totals per currency", "bar: share"]);
        let one: Vec<String> = packed(items, Span::raw(" · "), 80)
            .iter()
            .map(text)
            .collect();
        assert_eq!(one, ["60 deals · totals per currency · bar: share"]);
        assert!(packed(Vec::new(), Span::raw(" · "), 80).is_empty());
    }

    #[test]
    fn a_line_is_cut_across_spans_and_keeps_styles() {
        let red = Style::new().fg(ratatui::style::Color::Red);
        let l = Line::from(vec![
            Span::raw("page 1/3 · "),
            Span::styled("error: boom", red),
        ]);
        let (whole, cut) = line(l.clone(), 40);
        assert!(!cut);
        assert_eq!(text(&whole), "page 1/3 · error: boom");
        let (short, cut) = line(l, 16);
        assert!(cut);
        assert_eq!(text(&short), "page 1/3 · erro…");
        assert_eq!(short.spans.last().unwrap().style, red);
        assert_eq!(line_width(&short), 16);
    }
}
