//! The generic paged table: one widget for every tab, driven by the tab's descriptor. Cells
//! were formatted when the page arrived; a frame only lays out the visible rows, borrowing.

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Paragraph, Row, Table, Wrap};

use crate::api::SortDirection;
use crate::app::App;
use crate::app::keymap::Action;
use crate::app::layout::{COLUMN_GAP, fit_columns};
use crate::app::resource::Align;
use crate::app::tab::TabState;
use crate::ui::theme::Theme;

fn arrow(d: SortDirection) -> &'static str {
    match d {
        SortDirection::Asc => "↑",
        SortDirection::Desc => "↓",
    }
}

pub fn draw(f: &mut Frame, area: Rect, app: &App, theme: &Theme) {
    let tab = app.tab();
    let noun = tab.resource.kind.noun();
    let mut title = vec![
        Span::styled(format!(" {} ", tab.resource.kind.title()), theme.title),
        Span::styled(
            format!(
                "· sort {} {} · {}/page ",
                tab.sort_by,
                arrow(tab.direction),
                tab.per_page
            ),
            theme.dim,
        ),
    ];
    if tab.pending.is_some() && tab.shown.is_some() {
        title.push(Span::styled("· loading… ", theme.spinner));
    }
    let focused = !tab.filter_open && app.overlays.is_empty();
    let block = Block::bordered()
        .border_style(if focused {
            theme.border_focus
        } else {
            theme.border
        })
        .title(Line::from(title));
    let inner = block.inner(area);
    f.render_widget(block, area);

    if let Some(err) = &tab.error {
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
        let text = Text::from(vec![
            Line::from(Span::styled(msg, theme.heading)),
            Line::from(""),
            Line::from(Span::styled(hint, theme.dim)),
        ]);
        draw_message(f, inner, text);
        return;
    }
    draw_rows(f, inner, tab, theme);
}

fn draw_message(f: &mut Frame, area: Rect, text: Text) {
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

fn draw_rows(f: &mut Frame, area: Rect, tab: &TabState, theme: &Theme) {
    let cols = tab.resource.columns;
    let fitted = fit_columns(cols, area.width);
    let header = Row::new(fitted.iter().map(|(i, _)| {
        let c = &cols[*i];
        let sorted = c.sort == Some(tab.sort_by);
        let (label, style) = if sorted {
            (
                format!("{} {}", c.title, arrow(tab.direction)),
                theme.sorted_header,
            )
        } else {
            (c.title.to_string(), theme.header)
        };
        let line = Line::from(Span::styled(label, style));
        match c.align {
            Align::Right => line.alignment(Alignment::Right),
            Align::Left => line,
        }
    }));
    let rows_visible = area.height.saturating_sub(1) as usize;
    let records = tab.records();
    let rows = records
        .iter()
        .enumerate()
        .skip(tab.offset)
        .take(rows_visible)
        .map(|(index, r)| {
            let cells = fitted.iter().map(|(i, _)| {
                let cell = &r.cells[*i];
                let line = Line::from(Span::styled(cell.text.as_str(), theme.cell(cell.style)));
                match cols[*i].align {
                    Align::Right => line.alignment(Alignment::Right),
                    Align::Left => line,
                }
            });
            let row = Row::new(cells);
            if index == tab.selected {
                row.style(theme.selected)
            } else {
                row
            }
        });
    let widths = fitted.iter().map(|(_, w)| Constraint::Length(*w));
    let table = Table::new(rows, widths)
        .header(header)
        .column_spacing(COLUMN_GAP);
    f.render_widget(table, area);
}
