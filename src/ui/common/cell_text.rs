//! One table cell's text written straight into the buffer, the way ratatui's `Table` (cell →
//! `Text` → `Line` → `Span`) would write it, without its per-grapheme work for plain ASCII.
//! A frame draws ~40 rows of 6-10 cells: going through `Text` costs a grapheme segmentation,
//! a width lookup and several whole-area style passes per cell; this is a byte loop.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

/// Writes `text` on the first row of `area` with `style`, aligned left or right, cut at the
/// area's edge (a right-aligned text loses its start, as ratatui cuts it). Text that is not
/// printable ASCII (wide, combining or control characters) goes through ratatui's `Line`, so
/// the cells are the same either way.
pub fn draw(buf: &mut Buffer, area: Rect, text: &str, style: Style, align: Alignment) {
    let area = area.intersection(buf.area);
    if area.is_empty() || text.is_empty() {
        return;
    }
    if !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        let line = Line::from(Span::styled(text, style)).alignment(align);
        line.render(area, buf);
        return;
    }
    // Printable ASCII: one byte is one grapheme is one cell.
    let width = usize::from(area.width);
    let len = text.len();
    let right = align == Alignment::Right;
    let (shown, indent) = if len <= width {
        (text, if right { width - len } else { 0 })
    } else if right {
        (&text[len - width..], 0)
    } else {
        (&text[..width], 0)
    };
    // `indent + shown.len() <= width`, which fits in the area's u16 width.
    let x0 = area.x + indent as u16;
    for (i, b) in shown.bytes().enumerate() {
        buf[(x0 + i as u16, area.y)]
            .set_char(char::from(b))
            .set_style(style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier};

    /// The reference: what ratatui's `Line` writes into a buffer of the same start.
    fn via_line(start: &Buffer, area: Rect, text: &str, style: Style, align: Alignment) -> Buffer {
        let mut buf = start.clone();
        Line::from(Span::styled(text, style))
            .alignment(align)
            .render(area, &mut buf);
        buf
    }

    #[test]
    fn writes_the_same_cells_as_ratatui() {
        let full = Rect::new(0, 0, 12, 2);
        let mut start = Buffer::empty(full);
        // A row style already set (the selection), and leftovers to overwrite.
        start.set_style(
            Rect::new(0, 1, 12, 1),
            Style::new().add_modifier(Modifier::REVERSED),
        );
        start.set_string(0, 1, "zzzzzzzzzzzz", Style::new().fg(Color::Blue));
        let styles = [
            Style::new(),
            Style::new().fg(Color::Red).add_modifier(Modifier::DIM),
        ];
        let texts = [
            "",
            "a",
            "Ada Lovelace",
            "Ada Lovelace!",
            "€ 1,200.00",
            "名前テスト",
            "e\u{301}x",
            "tab\there",
            "12",
            "—",
        ];
        for area in [
            Rect::new(2, 1, 5, 1),
            Rect::new(0, 0, 12, 2),
            Rect::new(11, 1, 1, 1),
        ] {
            for text in texts {
                for style in styles {
                    for align in [Alignment::Left, Alignment::Right] {
                        let want = via_line(&start, area, text, style, align);
                        let mut got = start.clone();
                        draw(&mut got, area, text, style, align);
                        assert_eq!(got, want, "{text:?} in {area:?}, {align:?}");
                    }
                }
            }
        }
    }
}
