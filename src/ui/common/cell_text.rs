//! One table cell's text written straight into the buffer, the way ratatui's `Table` (cell →
//! `Text` → `Line` → `Span`) would write it, without its per-grapheme work for narrow text.
//! A frame draws ~40 rows of 6-10 cells: going through `Text` costs a grapheme segmentation,
//! width lookups and several whole-area style passes per cell; this is a loop over chars.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

pub use crate::app::table::record::is_narrow;

/// Writes `text` on the first row of `area` with `style`, aligned left or right; text wider
/// than the area is cut at its end with `…` (by grapheme cluster, `fit::cut`). `narrow` must
/// be [`is_narrow`]`(text)`: narrow text is one char per cell; other text (wide, combining or
/// control characters) goes through ratatui's `Line`, so the cells are the same either way.
pub fn draw(
    buf: &mut Buffer,
    area: Rect,
    text: &str,
    narrow: bool,
    style: Style,
    align: Alignment,
) {
    let area = area.intersection(buf.area);
    if area.is_empty() || text.is_empty() {
        return;
    }
    let width = usize::from(area.width);
    if !narrow {
        let text = crate::ui::common::fit::cut(text, width);
        let line = Line::from(Span::styled(text, style)).alignment(align);
        line.render(area, buf);
        return;
    }
    let len = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    if len > width {
        // Cut: the first `width - 1` chars and the ellipsis, filling the area.
        let x = area.x;
        for (x, c) in (x..area.right() - 1).zip(text.chars()) {
            buf[(x, area.y)].set_char(c).set_style(style);
        }
        buf[(area.right() - 1, area.y)]
            .set_symbol(crate::ui::common::fit::ELLIPSIS)
            .set_style(style);
        return;
    }
    let indent = if align == Alignment::Right {
        width - len
    } else {
        0
    };
    // At most `width - indent` chars are written, so every x stays inside the area.
    let x0 = area.x + indent as u16;
    for (x, c) in (x0..area.right()).zip(text.chars()) {
        buf[(x, area.y)].set_char(c).set_style(style);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier};

    /// The reference: what ratatui's `Line` writes into a buffer of the same start, of the
    /// text cut to the area with `…`.
    fn via_line(start: &Buffer, area: Rect, text: &str, style: Style, align: Alignment) -> Buffer {
        let mut buf = start.clone();
        let room = area.intersection(start.area).width as usize;
        let text = crate::ui::common::fit::cut(text, room);
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
                        draw(&mut got, area, text, is_narrow(text), style, align);
                        assert_eq!(got, want, "{text:?} in {area:?}, {align:?}");
                    }
                }
            }
        }
    }

    /// Characters that group, widen, vanish or join, mixed with plain ones.
    const ALPHABET: &[char] = &[
        'a',
        'Z',
        ' ',
        '-',
        'é',
        'Å',
        'ß',
        'Σ',
        'ж',
        '€',
        '–',
        '…',
        '\u{301}',
        '\u{200d}',
        '\u{fe0f}',
        '名',
        '🚀',
        'ل',
        'ا',
        '\u{64e}',
        'व',
        '\u{94d}',
        'ा',
        '\u{ad}',
        '\u{ff9e}',
        '\u{1f1e9}',
        '\t',
    ];

    proptest::proptest! {
        #[test]
        fn any_text_writes_the_same_cells_as_ratatui(
            chars in proptest::collection::vec(proptest::sample::select(ALPHABET), 0..14),
            x in 0u16..6,
            width in 1u16..10,
            right in proptest::bool::ANY,
        ) {
            let text: String = chars.into_iter().collect();
            let start = Buffer::empty(Rect::new(0, 0, 16, 1));
            let area = Rect::new(x, 0, width, 1);
            let align = if right { Alignment::Right } else { Alignment::Left };
            let style = Style::new().fg(Color::Green);
            let want = via_line(&start, area, &text, style, align);
            let mut got = start.clone();
            draw(&mut got, area, &text, is_narrow(&text), style, align);
            proptest::prop_assert_eq!(got, want);
        }
    }
}
