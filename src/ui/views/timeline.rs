//! The timeline view: one row per project the Projects tab's filter matches, its name, then a bar
//! from start to end in a window of days, weeks or months, a `│` column for today and a date
//! header whose labels carry the year (on the first label and where it changes). Bar glyphs
//! differ by status class (`█` running, `░` planned or on hold, `▓` finished, `▒`
//! cancelled), overdue projects carry `!` in the error style, and open-ended bars end in
//! `▶`, so nothing relies on colour alone (`NO_COLOR`). The legend says today's date and what
//! a column stands for, and wraps rather than cut.

use chrono::Datelike;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::Reading;
use crate::app::App;
use crate::app::layout::{timeline_chart, timeline_split};
use crate::app::pipeline::HEADER_SEP;
use crate::app::table::record::{CellStyle, StatusTone};
use crate::app::timeline::{LEGEND_INDENT, MAX_PAGES, TODAY_MARK, TimelineData, TimelineView};
use crate::insights::pipeline::Coverage;
use crate::insights::timeline::{Bar, Scale, Window};
use crate::ui::common::{fit, frame_box};
use crate::ui::theme::Theme;

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
    // The count first: a long filter is what gets cut (the tab's title shows it too).
    let title = Line::from(vec![
        Span::styled(" Timeline ", theme.title),
        Span::styled(format!("· {count} · {scope} "), theme.dim),
    ]);
    let border = if app.overlays.is_empty() && !app.tab().filter_open {
        theme.border_focus
    } else {
        theme.border
    };
    let inner = frame_box::draw(f.buffer_mut(), area, border, Line::from(title.spans));
    let (header, rows, legend) = timeline_split(inner, app.timeline_legend_rows(inner.width));
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
    let longest = bars.iter().map(|b| fit::width(&b.name)).max().unwrap_or(0);
    let (name_w, chart_x, cells) = timeline_chart(inner, longest);
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
        let name = fit::cut(&bar.name, name_w.saturating_sub(1));
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
            buf.set_string(chart_x + c, y, TODAY_MARK, theme.dim);
        }
        draw_bar(f, chart_x, y, &window, bar, theme);
    }
    if let Some(l) = legend {
        draw_legend(f, l, app, theme);
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

/// Dates above the chart: a label every few columns, at the first day of its column; the
/// first label and the first of a new year carry the year (a label with its year takes the
/// room of two).
fn draw_header(f: &mut Frame, area: Rect, x0: u16, window: &Window, theme: &Theme) {
    let step: u16 = match window.scale {
        Scale::Month | Scale::Quarter => 9,
        _ => 7,
    };
    let buf = f.buffer_mut();
    let mut year = None;
    let mut c = 0u16;
    while c < window.cells {
        let days = u64::from(c) * window.scale.days_per_cell();
        let Some(d) = window.start.checked_add_days(chrono::Days::new(days)) else {
            break;
        };
        let label = match window.scale {
            Scale::Month => d.format("%b %Y").to_string(),
            Scale::Quarter => format!("Q{} {}", d.month0() / 3 + 1, d.year()),
            _ if year != Some(d.year()) => d.format("%d %b %Y").to_string(),
            _ => d.format("%d %b").to_string(),
        };
        let w = label.chars().count() as u16;
        if c + w > window.cells {
            break;
        }
        buf.set_string(x0 + c, area.y, label, theme.header);
        year = Some(d.year());
        // The next grid column with a gap after this label.
        c += (w + 1).div_ceil(step) * step;
    }
}

fn draw_legend(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let items = app
        .timeline_legend()
        .into_iter()
        .map(|(glyph, words)| {
            let style = if glyph == "!" { theme.error } else { theme.dim };
            let mut spans = Vec::new();
            if !glyph.is_empty() {
                spans.push(Span::styled(glyph, style));
                spans.push(Span::raw(" "));
            }
            spans.push(Span::styled(words, theme.dim));
            Line::from(spans)
        })
        .collect();
    let area = Rect {
        x: area.x + LEGEND_INDENT,
        width: area.width.saturating_sub(LEGEND_INDENT),
        ..area
    };
    let rows = fit::packed(items, Span::styled(HEADER_SEP, theme.dim), area.width);
    fit::draw_lines(f.buffer_mut(), area, rows);
}
