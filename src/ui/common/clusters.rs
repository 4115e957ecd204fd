//! Clusters laid out as terminals lay them out, without adding a character.
//!
//! A grapheme cluster of several spacing characters (Devanagari `र्मा`, Tamil `நி`: a
//! consonant and a spacing vowel sign) is one grapheme three or two columns wide to
//! `unicode-width` and ratatui, but terminals (tmux, xterm, VTE, vt100) give each spacing
//! character a cell of its own. Kept in one buffer cell, ratatui believes the cells after it
//! hidden and never rewrites them, so the terminal keeps stale letters there when a dialog
//! closes or a row changes. After a frame is drawn, each such cell is split here into one
//! cell per spacing character (its zero-width marks with it), as the terminal has it: the
//! bytes sent are still exactly the text's own characters, in order.

use ratatui::buffer::Buffer;
use unicode_width::UnicodeWidthChar;

/// Columns a character takes on its own in a terminal (ratatui counts the halfwidth sound
/// marks as one more column than `unicode-width`).
fn columns(c: char) -> usize {
    match c {
        '\u{ff9e}' | '\u{ff9f}' => 1,
        c => c.width().unwrap_or(0),
    }
}

/// `symbol` as the terminal's cells: one piece per spacing character, each with the
/// zero-width characters after it (those before the first go with the first). `None` when
/// the symbol is one cell's worth already, or its pieces would not take exactly `width`.
fn pieces(symbol: &str, width: usize) -> Option<Vec<(&str, usize)>> {
    let spacing = symbol.chars().filter(|c| columns(*c) > 0).count();
    if spacing < 2 {
        return None;
    }
    let mut out: Vec<(&str, usize)> = Vec::with_capacity(spacing);
    let mut start = 0;
    let mut w = 0;
    for (i, c) in symbol.char_indices() {
        let cw = columns(c);
        if cw > 0 && w > 0 {
            out.push((&symbol[start..i], w));
            start = i;
            w = 0;
        }
        w += cw;
    }
    out.push((&symbol[start..], w));
    (out.iter().map(|p| p.1).sum::<usize>() == width).then_some(out)
}

/// Splits every cell holding a cluster of several spacing characters into the cells the
/// terminal gives them, each in the cluster's style.
pub fn split(buf: &mut Buffer) {
    let area = buf.area;
    for y in area.top()..area.bottom() {
        let mut x = area.left();
        while x < area.right() {
            let cell = &buf[(x, y)];
            let symbol = cell.symbol();
            if symbol.is_ascii() {
                x += 1;
                continue;
            }
            let width = unicode_width::UnicodeWidthStr::width(symbol)
                + symbol
                    .chars()
                    .filter(|c| matches!(c, '\u{ff9e}' | '\u{ff9f}'))
                    .count();
            let Some(parts) = pieces(symbol, width) else {
                x += 1;
                continue;
            };
            if usize::from(area.right() - x) < width {
                x += 1;
                continue;
            }
            let parts: Vec<(String, usize)> =
                parts.into_iter().map(|(s, w)| (s.to_string(), w)).collect();
            let style = cell.style();
            // Something drawn later over the cluster's hidden cells (a dialog's border)
            // keeps its cell: the pieces before it are drawn, the rest is covered.
            let blank = |b: &Buffer, at: u16| matches!(b[(at, y)].symbol(), "" | " ");
            let end = x + width as u16;
            let mut at = x;
            for (i, (piece, w)) in parts.into_iter().enumerate() {
                let next = at + w as u16;
                if i > 0 && !(at..next).all(|c| blank(buf, c)) {
                    break;
                }
                buf[(at, y)].set_symbol(&piece).set_style(style);
                for hidden in at + 1..next {
                    buf[(hidden, y)].reset();
                }
                at = next;
            }
            x = at.max(x + 1).min(end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::{Color, Style};

    fn row(buf: &Buffer) -> Vec<String> {
        (0..buf.area.width)
            .map(|x| buf[(x, 0)].symbol().to_string())
            .collect()
    }

    #[test]
    fn a_cluster_of_spacing_characters_takes_one_cell_each_and_adds_nothing() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 8, 1));
        let red = Style::new().fg(Color::Red);
        buf.set_string(0, 0, "वर्मा x", red);
        // ratatui keeps `र्मा` in one cell and blanks the two after it.
        assert_eq!(row(&buf)[1], "र्मा");
        split(&mut buf);
        assert_eq!(row(&buf), ["व", "र्", "म", "ा", " ", "x", " ", " "]);
        assert_eq!(row(&buf).concat().trim_end(), "वर्मा x");
        assert_eq!(buf[(3, 0)].fg, Color::Red);
        // Emoji, CJK and combining accents are one cell's worth already.
        let mut buf = Buffer::empty(Rect::new(0, 0, 8, 1));
        buf.set_string(0, 0, "東e\u{301}👍", Style::new());
        let before = buf.clone();
        split(&mut buf);
        assert_eq!(buf, before);
    }

    #[test]
    fn a_cluster_partly_drawn_over_keeps_what_covers_it() {
        let mut buf = Buffer::empty(Rect::new(0, 0, 6, 1));
        buf.set_string(0, 0, "वर्मा", Style::new());
        buf[(3, 0)].set_symbol("│");
        split(&mut buf);
        assert_eq!(row(&buf), ["व", "र्", "म", "│", " ", " "]);
    }

    #[test]
    fn halfwidth_sound_marks_get_their_cell() {
        assert_eq!(pieces("ｶﾞ", 2), Some(vec![("ｶ", 1), ("ﾞ", 1)]));
        assert_eq!(pieces("नि", 1), None);
        // A width the pieces do not add up to is left alone.
        assert_eq!(pieces("र्मा", 3), Some(vec![("र्", 1), ("म", 1), ("ा", 1)]));
        assert_eq!(pieces("र्मा", 2), None);
    }
}
