//! The table's border and title, as `Block::bordered().border_style(..).title(..)` draws them,
//! without `Block`'s pass over every cell of its area (it applies its own style to the whole
//! inside first: ~10,000 cells at 200x50, a fifth of a frame's drawing, to change nothing).

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::symbols::border;
use ratatui::text::Line;
use ratatui::widgets::{Block, Widget};

/// Draws a plain border around `area` in `style`, with `title` on the top border from the
/// second column; returns the area inside.
pub fn draw(buf: &mut Buffer, area: Rect, style: Style, title: Line) -> Rect {
    let block = Block::bordered().border_style(style);
    let inner = block.inner(area);
    let area = area.intersection(buf.area);
    if area.width < 2 || area.height < 2 {
        // Degenerate sizes (the dashboard never has them): leave them to ratatui.
        block.title(title).render(area, buf);
        return inner;
    }
    let set = border::PLAIN;
    let (left, top) = (area.left(), area.top());
    let (right, bottom) = (area.right() - 1, area.bottom() - 1);
    for x in left + 1..right {
        buf[(x, top)]
            .set_symbol(set.horizontal_top)
            .set_style(style);
        buf[(x, bottom)]
            .set_symbol(set.horizontal_bottom)
            .set_style(style);
    }
    for y in top + 1..bottom {
        buf[(left, y)]
            .set_symbol(set.vertical_left)
            .set_style(style);
        buf[(right, y)]
            .set_symbol(set.vertical_right)
            .set_style(style);
    }
    for (x, y, symbol) in [
        (left, top, set.top_left),
        (right, top, set.top_right),
        (left, bottom, set.bottom_left),
        (right, bottom, set.bottom_right),
    ] {
        buf[(x, y)].set_symbol(symbol).set_style(style);
    }
    let room = area.width - 2;
    // A title longer than the border is cut with `…`.
    let (title, _) = crate::ui::common::fit::line(title, usize::from(room));
    let width = u16::try_from(crate::ui::common::fit::line_width(&title))
        .unwrap_or(u16::MAX)
        .min(room);
    if width > 0 {
        title.render(Rect::new(left + 1, top, width, 1), buf);
    }
    inner
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::{Color, Modifier};
    use ratatui::text::Span;

    #[test]
    fn draws_what_a_bordered_block_draws() {
        let full = Rect::new(0, 0, 30, 8);
        let mut start = Buffer::empty(full);
        start.set_string(
            0,
            0,
            "leftover text everywhere here!",
            Style::new().fg(Color::Red),
        );
        start.set_string(3, 3, "inside", Style::new().add_modifier(Modifier::BOLD));
        let titles = [
            Line::from(""),
            Line::from(vec![
                Span::styled(" Projects ", Style::new().add_modifier(Modifier::BOLD)),
                Span::styled("· sort name ↑ · 25/page ", Style::new().fg(Color::Gray)),
            ]),
            Line::from("a title far too long to fit on the top border of this box"),
            Line::from(" 名前 🚀 "),
        ];
        let styles = [Style::new(), Style::new().fg(Color::Cyan)];
        let areas = [
            Rect::new(0, 0, 30, 8),
            Rect::new(2, 1, 12, 5),
            Rect::new(1, 1, 2, 2),
            Rect::new(0, 2, 30, 1),
            Rect::new(5, 0, 1, 6),
            Rect::new(28, 6, 10, 10),
        ];
        for area in areas {
            for style in styles {
                for title in &titles {
                    let mut want = start.clone();
                    // What `Block` draws with the title cut to the border with `…`.
                    let on = area.intersection(full);
                    let shown = if on.width >= 2 && on.height >= 2 {
                        let room = usize::from(on.width - 2);
                        crate::ui::common::fit::line(title.clone(), room).0
                    } else {
                        title.clone()
                    };
                    Block::bordered()
                        .border_style(style)
                        .title(shown)
                        .render(area, &mut want);
                    let mut got = start.clone();
                    let inner = draw(&mut got, area, style, title.clone());
                    assert_eq!(got, want, "{area:?} {title:?}");
                    assert_eq!(inner, Block::bordered().inner(area));
                }
            }
        }
    }
}
