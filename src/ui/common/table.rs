//! The generic paged table: one widget for every tab, driven by the tab's descriptor. Cells
//! were formatted when the page arrived; a frame only lays out the visible rows, borrowing.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Paragraph, Wrap};

use crate::api::SortDirection;
use crate::app::App;
use crate::app::keymap::Action;
use crate::app::layout::COLUMN_GAP;
use crate::app::resources::Align;
use crate::app::table::tab::TabState;
use crate::ui::common::{cell_text, fit, frame_box, profile_mark};
use crate::ui::theme::Theme;

/// Drawn in the gutter inside the table's left border beside each marked row.
pub const MARK: &str = "*";

fn arrow(d: SortDirection) -> &'static str {
    match d {
        SortDirection::Asc => "↑",
        SortDirection::Desc => "↓",
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let tab = app.tab();
    let noun = tab.resource.kind.noun();
    let mut title = Vec::new();
    // A protected profile's name leads the frame's title, in the warning colour.
    if profile_mark::protected(app)
        && let Some(label) = profile_mark::label(app)
    {
        title.push(Span::styled(
            format!(" {label} "),
            profile_mark::warning(app.config.colors),
        ));
    }
    title.push(Span::styled(
        format!(" {} ", tab.resource.kind.title()),
        theme.title,
    ));
    // The multi-selection's size comes first: it decides what the next action acts on.
    let marked = tab.selection.len();
    if marked > 0 {
        title.push(Span::styled(format!("· {marked} selected "), theme.key));
    }
    // Every filter in force, while the bar that shows them is closed.
    let filters = tab.filter_summary();
    if !tab.filter_open && !filters.is_empty() {
        title.push(Span::styled("· filter ", theme.dim));
        title.push(Span::styled(format!("{filters} "), theme.key));
    }
    title.push(Span::styled(
        format!(
            "· sort {} {}{} · {}/page · times {} ",
            tab.sort_by,
            arrow(tab.direction),
            across_currencies(tab),
            tab.per_page,
            app.config.zone.label()
        ),
        theme.dim,
    ));
    if tab.pending.is_some() && tab.shown.is_some() {
        title.push(Span::styled("· loading… ", theme.spinner));
    }
    // A failed refresh keeps the last good rows, marked stale with the error and their age.
    if let (Some(err), Some(_)) = (&tab.error, &tab.shown) {
        let age = app.age_label().unwrap_or_default();
        title.push(Span::styled(
            format!(
                "· STALE ({age}) · {} retry: {err} ",
                app.keymap.first_key(Action::Refresh)
            ),
            theme.error,
        ));
    }
    let focused = !tab.filter_open && app.overlays.is_empty();
    let border = if profile_mark::protected(app) {
        profile_mark::border(app.config.colors)
    } else if focused {
        theme.border_focus
    } else {
        theme.border
    };
    // Columns a narrow screen leaves out: counted on the top border's right end, with the
    // keys that scroll them into view.
    let inner_width = area.width.saturating_sub(2);
    let columns = tab.columns_shown(inner_width);
    let marker = (columns.hidden > 0 && tab.shown.is_some()).then(|| {
        let left = if columns.scroll > 0 { "‹ " } else { "" };
        let right = if columns.more_right { " ›" } else { "" };
        let keys = app.keymap.pair(Action::ScrollLeft, Action::ScrollRight);
        format!(" {left}+{} columns{right} {keys} ", columns.hidden)
    });
    let marker_w = marker.as_deref().map_or(0, fit::width) as u16;
    let room = usize::from(area.width.saturating_sub(3 + marker_w));
    let (title, _) = fit::line(Line::from(title), room);
    let inner = frame_box::draw(f.buffer_mut(), area, border, title);
    if let Some(m) = &marker
        && area.width > marker_w + 2
    {
        let at = Rect::new(area.right() - 1 - marker_w, area.y, marker_w, 1);
        fit::draw_str(f.buffer_mut(), at, m, theme.key);
    }

    if let (Some(err), None) = (&tab.error, &tab.shown) {
        let retry = app.keymap.first_key(Action::Refresh);
        let text = Text::from(vec![
            Line::from(Span::styled(format!("Could not load {noun}"), theme.error)),
            Line::from(""),
            Line::from(err.as_str()),
            Line::from(""),
            Line::from(Span::styled(format!("Press {retry} to retry."), theme.key)),
        ]);
        draw_message(f, inner, text);
        return;
    }
    let Some(shown) = &tab.shown else {
        let text = Text::from(Line::from(Span::styled(
            format!("Loading {noun}…"),
            theme.spinner,
        )));
        draw_message(f, inner, text);
        return;
    };
    if shown.page.records.is_empty() {
        let filters = shown.spec.filter_summary();
        let msg = if filters.is_empty() {
            format!("No {noun} yet")
        } else {
            format!("No {noun} match {filters}")
        };
        let hint = if filters.is_empty() {
            String::new()
        } else {
            format!(
                "Press {} to change the filters.",
                app.keymap.first_key(Action::Filter)
            )
        };
        let mut lines = vec![
            Line::from(Span::styled(msg, theme.heading)),
            Line::from(""),
            Line::from(Span::styled(hint, theme.dim)),
        ];
        let whole = |key: &str| {
            shown
                .spec
                .kind
                .filters()
                .iter()
                .any(|f| f.key == key && f.kind == crate::resource::FilterKind::WholeText)
        };
        if shown.spec.filters.iter().any(|(k, _)| whole(k)) {
            lines.push(Line::from(Span::styled(
                format!(
                    "email matches whole addresses; {} searches parts in the local mirror",
                    app.keymap.first_key(Action::Search)
                ),
                theme.dim,
            )));
        }
        draw_message(f, inner, Text::from(lines));
        return;
    }
    draw_rows(f, inner, tab, &columns.fitted, theme);
}

/// ` across 4 currencies` when the page's amounts are in several: the server sorts the raw
/// numbers, so an order by value mixes currencies.
fn across_currencies(tab: &TabState) -> String {
    let n = tab.shown.as_ref().map_or(0, |s| s.page.currencies.len());
    if tab.sort_by == "value" && n > 1 {
        format!(" across {n} currencies")
    } else {
        String::new()
    }
}

/// Text centred in `area` (the empty, loading and error states; the chart views' too).
pub(crate) fn draw_message<'a>(f: &mut Frame, area: Rect, text: impl Into<Text<'a>>) {
    let text = text.into();
    let top = area.height.saturating_sub(text.height() as u16) / 2;
    let area = Rect {
        y: area.y + top,
        height: area.height - top,
        ..area
    };
    f.render_widget(
        Paragraph::new(text)
            .alignment(Alignment::Center)
            .wrap(Wrap { trim: true }),
        area,
    );
}

/// The header and the visible rows, cell by cell. The cells are where ratatui's `Table` would
/// put them (the same `Layout` of fixed widths and gaps) and hold what it would write (the
/// selected row's style first, then each cell's text and style); `cell_text` writes them
/// without building a `Table` of `Text`s every frame.
fn draw_rows(f: &mut Frame, area: Rect, tab: &TabState, fitted: &[(usize, u16)], theme: &Theme) {
    if area.is_empty() {
        return;
    }
    // Marked rows: their `*` in a gutter inside the border, the columns right of it.
    let full = area;
    let gutter = tab.gutter().min(area.width);
    let area = Rect {
        x: area.x + gutter,
        width: area.width - gutter,
        ..area
    };
    let cols = tab.resource.columns;
    let places = Layout::horizontal(fitted.iter().map(|(_, w)| Constraint::Length(*w)))
        .flex(Flex::Start)
        .spacing(COLUMN_GAP)
        .split(Rect::new(0, 0, area.width, 1));
    let align = |i: usize| match cols[i].align {
        Align::Right => Alignment::Right,
        Align::Left => Alignment::Left,
    };
    let cell_area = |place: &Rect, y: u16| Rect::new(area.x + place.x, y, place.width, 1);
    let buf = f.buffer_mut();
    for ((i, _), place) in fitted.iter().zip(places.iter()) {
        let c = &cols[*i];
        let cell = cell_area(place, area.y);
        if let Some(own) = c.sorted_by(tab.sort_by) {
            // Sorted by another key the column shows: the header names it, as the title does.
            let label = if own {
                format!("{} {}", c.title, arrow(tab.direction))
            } else {
                format!("{} ({}) {}", c.title, tab.sort_by, arrow(tab.direction))
            };
            let narrow = cell_text::is_narrow(&label);
            cell_text::draw(buf, cell, &label, narrow, theme.sorted_header, align(*i));
        } else {
            let narrow = cell_text::is_narrow(c.title);
            cell_text::draw(buf, cell, c.title, narrow, theme.header, align(*i));
        }
    }
    let rows_visible = area.height.saturating_sub(1) as usize;
    let records = tab.records();
    let visible = records
        .iter()
        .enumerate()
        .skip(tab.offset)
        .take(rows_visible);
    for (y, (index, r)) in (area.y + 1..).zip(visible) {
        if index == tab.selected {
            buf.set_style(Rect::new(full.x, y, full.width, 1), theme.selected);
        }
        // A selected (marked) row: `*` in the gutter, readable without colours.
        if gutter > 0 && tab.selection.contains(&r.id) {
            let mark = Rect::new(full.x, y, 1, 1);
            fit::draw_str(buf, mark, MARK, theme.key);
        }
        for ((i, _), place) in fitted.iter().zip(places.iter()) {
            let cell = &r.cells[*i];
            cell_text::draw(
                buf,
                cell_area(place, y),
                &cell.text,
                cell.narrow,
                theme.cell(cell.style),
                align(*i),
            );
        }
    }
}
