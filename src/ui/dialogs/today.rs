//! Today (`:today`, `t`): the groups with their counts, one record a line; and the palette's
//! `:changes` list with its filter line.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::Dialog;
use crate::app::dialogs::today::{Item, Reading, TodayView};
use crate::app::keymap::KeyMap;
use crate::ui::common::{fit, modal};
use crate::ui::theme::Theme;

/// Today takes the rows of the table's frame (its border rows too), one more above and below
/// than a dialog: a record opened from Today (a dialog of the usual rows) sits inside it, with
/// Today's title and bottom border in sight around it at any size.
pub fn frame_area(area: Rect) -> Rect {
    let m = modal::centered(area, area.width.saturating_sub(4).min(110), area.height);
    if m.y > area.y && m.bottom() < area.bottom() {
        Rect {
            y: m.y - 1,
            height: m.height + 2,
            ..m
        }
    } else {
        m
    }
}

pub fn draw(f: &mut Frame, area: Rect, v: &TodayView, spinner: &str, keys: &KeyMap, theme: &Theme) {
    let m = frame_area(area);
    let footer = keys.hint_text(v.hints(), m.width.saturating_sub(4));
    let title = match (v.list_only, v.since.is_empty()) {
        (true, _) => "Changes".to_string(),
        (false, true) => "Today".to_string(),
        (false, false) => format!("Today · {}", v.since),
    };
    let mut inner = modal::frame(f, m, &title, &footer, theme);
    if inner.height == 0 {
        return;
    }
    // Filtered once a frame (the filter and the list both read it).
    let items = v.items();
    if v.list_only {
        let shown = items.len();
        let filter = Line::from(vec![
            Span::styled("filter: ", theme.dim),
            Span::raw(v.filter()),
            Span::styled(
                format!("  ({shown} of {})", v.all_changes().len()),
                theme.dim,
            ),
        ]);
        fit::draw_lines(f.buffer_mut(), inner, [filter]);
        inner.y += 1;
        inner.height = inner.height.saturating_sub(1);
    }
    let sentence = |text: String, style: Style| vec![Line::from(Span::styled(text, style))];
    let said = match &v.reading {
        Reading::Pending => Some(sentence(
            format!("{spinner} reading the local mirror"),
            theme.spinner,
        )),
        Reading::Failed(e) => Some(sentence(e.clone(), theme.error)),
        Reading::NoMirror => Some(sentence(
            "No local mirror yet: run `crmdash sync`, or keep the dashboard open while it syncs in the background.".into(),
            theme.pending,
        )),
        Reading::Ready if v.list_only && v.all_changes().is_empty() => Some(sentence(
            "No changes yet: the first sync of the mirror is a baseline; later syncs record what changes.".into(),
            theme.dim,
        )),
        Reading::Ready => None,
    };
    if let Some(lines) = said {
        // A sentence: wrapped, never cut.
        f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
        return;
    }
    let mut lines: Vec<Line> = Vec::new();
    let mut selected_line = 0usize;
    let row = |text: &str, detail: &str, sel: bool| {
        let style = if sel { theme.selected } else { Style::new() };
        // A mark besides the colour: the selection shows under NO_COLOR too.
        let mark = if sel { "›" } else { " " };
        Line::from(vec![
            Span::styled(format!("{mark} {text}"), style),
            Span::styled(
                if detail.is_empty() {
                    String::new()
                } else {
                    format!("  {detail}")
                },
                if sel { style } else { theme.dim },
            ),
        ])
    };
    if v.list_only {
        for (i, item) in items.iter().enumerate() {
            if let Item::Change(c) = item {
                if i == v.list.selected {
                    selected_line = lines.len();
                }
                lines.push(row(&c.text, "", i == v.list.selected));
            }
        }
    } else {
        let mut index = 0;
        if items.is_empty() {
            lines.push(Line::from(Span::styled(
                format!("Nothing moved {}.", v.since),
                theme.dim,
            )));
        }
        // Empty groups are left out: the room goes to what moved.
        for g in v.groups.iter().filter(|g| !g.lines.is_empty()) {
            lines.push(Line::from(vec![
                Span::styled(g.kind.title(), theme.heading),
                Span::styled(
                    if g.total > g.lines.len() {
                        format!(" {} · newest {} shown", g.total, g.lines.len())
                    } else {
                        format!(" {}", g.total)
                    },
                    theme.dim,
                ),
            ]));
            for l in &g.lines {
                let sel = index == v.list.selected;
                if sel {
                    selected_line = lines.len();
                }
                lines.push(row(&l.label, &l.text, sel));
                index += 1;
            }
        }
    }
    let rows = inner.height as usize;
    let scroll = selected_line.saturating_sub(rows.saturating_sub(1));
    fit::draw_lines(f.buffer_mut(), inner, lines.into_iter().skip(scroll));
}
