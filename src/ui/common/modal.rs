//! A modal's frame: clears what is under it, draws a bordered box with a title and a footer
//! line, and returns the area for its content.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear};

use crate::ui::common::fit;

use crate::ui::theme::Theme;

/// Draws the frame in `area`; returns the content area (inside a one-column margin,
/// above the footer).
pub fn frame(f: &mut Frame, area: Rect, title: &str, footer: &str, theme: &Theme) -> Rect {
    cut_wide_at_left_edge(f, area);
    f.render_widget(Clear, area);
    let title = fit::cut(title, usize::from(area.width.saturating_sub(4)));
    let block = Block::bordered()
        .border_style(theme.border_focus)
        .title(Line::from(Span::styled(format!(" {title} "), theme.title)));
    let inner = block.inner(area);
    f.render_widget(block, area);
    if inner.height == 0 {
        return inner;
    }
    let footer_area = Rect {
        y: inner.y + inner.height - 1,
        height: 1,
        ..inner
    };
    fit::draw_str(
        f.buffer_mut(),
        Rect {
            x: footer_area.x + 1,
            width: footer_area.width.saturating_sub(2),
            ..footer_area
        },
        footer,
        theme.dim,
    );
    Rect {
        x: inner.x + 1,
        y: inner.y,
        width: inner.width.saturating_sub(2),
        height: inner.height.saturating_sub(1),
    }
}

/// A wide cluster left of the box that reaches into it (an emoji just left of the border,
/// a three-column Devanagari cluster two cells left) would spill into its border column, the
/// terminal drawing the whole glyph: blank it, so the border stays where it belongs.
fn cut_wide_at_left_edge(f: &mut Frame, area: Rect) {
    let buf = f.buffer_mut();
    for y in area.y..area.y + area.height {
        for back in 1..=area.x.min(MAX_CLUSTER_WIDTH) {
            let cell = &mut buf[(area.x - back, y)];
            if fit::width(cell.symbol()) > usize::from(back) {
                cell.set_symbol(" ");
            }
        }
    }
}

/// The widest cluster looked for left of a box.
const MAX_CLUSTER_WIDTH: u16 = 8;

/// A box of `width` x `height` centred on the screen `area`, kept within the rows a
/// dialog may use (`layout::dialog_rows`: inside the table's borders).
pub fn centered(area: Rect, width: u16, height: u16) -> Rect {
    let (top, rows) = crate::app::layout::dialog_rows(area);
    let w = width.min(area.width);
    let h = height.min(rows);
    let y = (area.y + (area.height - h) / 2).clamp(top, top + rows - h);
    Rect {
        x: area.x + (area.width - w) / 2,
        y,
        width: w,
        height: h,
    }
}
