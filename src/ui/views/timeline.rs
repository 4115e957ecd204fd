//! The timeline view: one row per project the Projects tab's filter matches, its name, then a bar
//! from start to end in a window of days, weeks or months, a `│` column for today and a date
//! header. Bar glyphs differ by status class (`█` running, `░` planned or on hold, `▓`
//! finished, `▒` cancelled), overdue projects carry `!` in the error style, and open-ended
//! bars end in `▶`, so nothing relies on colour alone (`NO_COLOR`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Reading;
use crate::app::App;
use crate::app::layout::timeline_split;
use crate::app::table::record::{CellStyle, StatusTone};
use crate::app::timeline::{MAX_PAGES, TimelineData, TimelineView};
use crate::insights::pipeline::Coverage;
use crate::insights::timeline::{Bar, Scale, Window};
use crate::ui::common::frame_box;
use crate::ui::theme::Theme;

const TODAY: &str = "│";

/// The glyph of a bar by its status class.
fn glyph(status: Option<&str>) -> &'static str {
    let s = status.unwrap_or_default().to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| s.contains(w));
    if has(&["cancel", "abandon", "reject", "fail"]) {
        "▒"
    } else if has(&["complete", "done", "closed", "finished"]) {
        "▓"
    } else if has(&["plan", "hold", "draft", "pending", "new"]) {
        "░"
    } else {
        "█"
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, view: &TimelineView, theme: &Theme) {
    let today = app.today();
    let bars = app.timeline_bars();
    let filter = view.spec.filter_summary();
    let scope = if filter.is_empty() {
        "all projects".to_string()
    } else {
        filter
    };
    let count = match view.coverage() {
        Some(c) if c.partial => {
            format!("{} projects (partial: first {} pages)", bars.len(), c.pages)
        }
        Some(Coverage {
            synced_at: Some(at),
            ..
        }) => format!(
            "{} projects (mirror, {})",
            bars.len(),
            crate::app::mirror::clock(at, app.wall, &app.config.zone)
        ),
        Some(_) => format!("{} projects", bars.len()),
        None => "reading…".to_string(),
    };
    let title = Line::from(vec![
        Span::styled(" Timeline ", theme.title),
        Span::styled(
            format!(
                "· {scope} · {count} · {}s · today {today} ",
                view.scale.name()
            ),
            theme.dim,
        ),
    ]);
    let border = if app.overlays.is_empty() && !app.tab().filter_open {
        theme.border_focus
    } else {
        theme.border
    };
    let inner = frame_box::draw(f.buffer_mut(), area, border, Line::from(title.spans));
    let (header, rows, legend) = timeline_split(inner);
    if let Some(text) = reading_state(app, view, theme) {
        crate::ui::common::table::draw_message(f, inner, text);
        return;
    }
    if bars.is_empty() {
        f.render_widget(
            Paragraph::new(Span::styled("No projects match this filter.", theme.dim))
                .alignment(ratatui::layout::Alignment::Center),
            rows,
        );
        return;
    }
    // Marker, name, gap, then the chart.
    let name_w = bars
        .iter()
        .map(|b| crate::ui::common::fit::width(&b.name) + 1)
        .max()
        .unwrap_or(0)
        .clamp(8, 28)
        .min(inner.width as usize / 3);
    let chart_x = inner.x + 2 + name_w as u16 + 1;
    let cells = (inner.x + inner.width).saturating_sub(chart_x);
    if cells == 0 {
        return;
    }
    let window = view.window(today, cells);
    draw_header(f, header, chart_x, &window, theme);
    let selected = view.selected.min(bars.len() - 1);
    let today_col = window.column(today);
    // The page may have changed under a kept offset: keep the selection in sight.
    let height = (rows.height as usize).max(1);
    let offset = view
        .offset
        .min(selected)
        .max((selected + 1).saturating_sub(height));
    for (row, (i, bar)) in bars
        .iter()
        .enumerate()
        .skip(offset)
        .take(rows.height as usize)
        .enumerate()
    {
        let y = rows.y + row as u16;
        let is_sel = i == selected;
        let base = if is_sel { theme.selected } else { Style::new() };
        let buf = f.buffer_mut();
        buf.set_string(inner.x, y, if is_sel { "› " } else { "  " }, base);
        let flag = if bar.overdue { "!" } else { " " };
        let name = crate::ui::common::fit::cut(&bar.name, name_w.saturating_sub(1));
        let name_style = if bar.overdue {
            base.patch(theme.error)
        } else {
            base
        };
        buf.set_string(
            inner.x + 2,
            y,
            format!("{flag}{name:<w$}", w = name_w.saturating_sub(1)),
            name_style,
        );
        if let Some(c) = today_col {
            buf.set_string(chart_x + c, y, TODAY, theme.dim);
        }
        draw_bar(f, chart_x, y, &window, bar, theme);
    }
    if let Some(l) = legend {
        draw_legend(f, l, theme);
    }
}

/// What the view says instead of bars while reading, after a failure or a cancel.
fn reading_state(app: &App, view: &TimelineView, theme: &Theme) -> Option<Vec<Line<'static>>> {
    let r = match &view.data {
        TimelineData::Ready { .. } => return None,
        TimelineData::Loading {
            pages,
            last_page,
            records,
        } => Reading::Loading {
            pages: *pages,
            last_page: *last_page,
            so_far: records.to_string(),
        },
        TimelineData::Failed(e) => Reading::Failed(e),
        TimelineData::Cancelled { pages } => Reading::Cancelled {
            pages: *pages,
            instead: "no bars shown rather than some",
        },
    };
    Some(super::reading_lines(app, theme, "projects", MAX_PAGES, r))
}

fn draw_bar(f: &mut Frame, x0: u16, y: u16, window: &Window, bar: &Bar, theme: &Theme) {
    let tone = if bar.overdue {
        theme.error
    } else {
        theme.cell(CellStyle::Status(StatusTone::of(
            bar.status.as_deref().unwrap_or_default(),
        )))
    };
    let buf = f.buffer_mut();
    let Some(start) = bar.start else {
        buf.set_string(x0, y, "no start date", theme.dim);
        return;
    };
    let Some(span) = window.span(bar) else {
        // Wholly before or after the window: an arrow at that edge.
        if start > window.end() {
            buf.set_string(x0 + window.cells - 1, y, "▷", theme.dim);
        } else {
            buf.set_string(x0, y, "◁", theme.dim);
        }
        return;
    };
    let sym = glyph(bar.status.as_deref());
    for c in span.from..span.to {
        buf.set_string(x0 + c, y, sym, tone);
    }
    if span.cut_left {
        buf.set_string(x0 + span.from, y, "◀", tone);
    }
    if span.cut_right && span.to > span.from {
        let edge = if bar.end.is_none() { "▶" } else { "▷" };
        buf.set_string(x0 + span.to - 1, y, edge, tone);
    } else if bar.overdue && span.to < window.cells {
        buf.set_string(x0 + span.to, y, "!", theme.error);
    }
}

/// Dates above the chart: a label every few columns, at the first day of its column.
fn draw_header(f: &mut Frame, area: Rect, x0: u16, window: &Window, theme: &Theme) {
    let fmt = match window.scale {
        Scale::Day | Scale::Week => "%d %b",
        Scale::Month => "%b %Y",
    };
    let label_w = match window.scale {
        Scale::Month => 9,
        _ => 7,
    };
    let buf = f.buffer_mut();
    let mut c = 0u16;
    while c + label_w - 1 <= window.cells {
        let days = u64::from(c) * window.scale.days_per_cell();
        let Some(d) = window.start.checked_add_days(chrono::Days::new(days)) else {
            break;
        };
        buf.set_string(x0 + c, area.y, d.format(fmt).to_string(), theme.header);
        c += label_w;
    }
}

fn draw_legend(f: &mut Frame, area: Rect, theme: &Theme) {
    let items = [
        ("█", "active"),
        ("░", "planned/on hold"),
        ("▓", "done"),
        ("▒", "cancelled"),
        ("▶", "open end"),
        ("!", "overdue"),
        (TODAY, "today"),
    ];
    let mut spans = Vec::new();
    for (sym, what) in items {
        let style = if sym == "!" { theme.error } else { theme.dim };
        spans.push(Span::styled(sym, style));
        spans.push(Span::styled(format!(" {what}  "), theme.dim));
    }
    crate::ui::common::fit::draw_line(f.buffer_mut(), area, Line::from(spans));
}
