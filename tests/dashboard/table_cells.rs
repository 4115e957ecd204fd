//! The dashboard draws its table cell by cell (`ui::common::cell_text`) instead of building a
//! ratatui `Table` each frame. Every cell, symbol and style, must be what a `Table` of the same
//! rows writes: checked on every tab, in colour and without, with the selection moved, a
//! scrolled page, and awkward values (wide characters, a multi-line name, long text).

use crate::dashboard_support;

use crossterm::event::KeyCode;
use dashboard_support::{FakeData, Harness, test_config};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Row, Table, Widget};

use crmdash::api::SortDirection;
use crmdash::app::App;
use crmdash::app::ColorMode;
use crmdash::app::layout::{Areas, COLUMN_GAP, shown_columns};
use crmdash::app::resources::Align;
use crmdash::ui::common::fit;
use crmdash::ui::theme::Theme;

fn frame(app: &App) -> Buffer {
    let (w, h) = app.size;
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| crmdash::ui::render(app, f)).unwrap();
    t.backend().buffer().clone()
}

/// The rows as ratatui's `Table` draws them (what the dashboard did before drawing cells),
/// each text first cut to its column with `…`.
fn table_reference(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = Theme::new(app.config.colors);
    let tab = app.tab();
    let cols = tab.resource.columns;
    let fitted = shown_columns(cols, area.width, tab.col_scroll).fitted;
    let width_of = |i: usize| fitted.iter().find(|(c, _)| *c == i).map_or(0, |(_, w)| *w);
    let cut = |s: &str, i: usize| fit::cut(s, usize::from(width_of(i))).into_owned();
    let arrow = |d| match d {
        SortDirection::Asc => "↑",
        SortDirection::Desc => "↓",
    };
    let aligned = |line: Line<'static>, i: usize| match cols[i].align {
        Align::Right => line.alignment(Alignment::Right),
        Align::Left => line,
    };
    let header = Row::new(fitted.iter().map(|(i, _)| {
        let c = &cols[*i];
        let line = match c.sorted_by(tab.sort_by) {
            Some(own) => {
                let label = if own {
                    format!("{} {}", c.title, arrow(tab.direction))
                } else {
                    format!("{} ({}) {}", c.title, tab.sort_by, arrow(tab.direction))
                };
                Line::from(Span::styled(cut(&label, *i), theme.sorted_header))
            }
            None => Line::from(Span::styled(cut(c.title, *i), theme.header)),
        };
        aligned(line, *i)
    }));
    let rows = tab
        .records()
        .iter()
        .enumerate()
        .skip(tab.offset)
        .take(area.height.saturating_sub(1) as usize)
        .map(|(index, r)| {
            let row = Row::new(fitted.iter().map(|(i, _)| {
                let cell = &r.cells[*i];
                let span = Span::styled(cut(&cell.text, *i), theme.cell(cell.style));
                aligned(Line::from(span), *i)
            }));
            if index == tab.selected {
                row.style(theme.selected)
            } else {
                row
            }
        });
    let widths = fitted.iter().map(|(_, w)| Constraint::Length(*w));
    Table::new(rows, widths)
        .header(header)
        .column_spacing(COLUMN_GAP)
        .render(area, buf);
}

fn assert_same_as_table(h: &Harness, what: &str) {
    let got = frame(&h.app);
    let areas = Areas::compute(got.area, None);
    let inner = Block::bordered().inner(areas.table);
    let mut want = got.clone();
    for y in inner.top()..inner.bottom() {
        for x in inner.left()..inner.right() {
            want[(x, y)].reset();
        }
    }
    table_reference(&h.app, inner, &mut want);
    for y in inner.top()..inner.bottom() {
        for x in inner.left()..inner.right() {
            assert_eq!(got[(x, y)], want[(x, y)], "{what}: cell ({x}, {y})");
        }
    }
}

#[test]
fn cells_match_a_ratatui_table() {
    for colors in [ColorMode::None, ColorMode::Full] {
        for size in [(80, 24), (97, 30), (160, 45), (200, 50)] {
            let config = crmdash::app::AppConfig {
                colors,
                ..test_config()
            };
            let mut h = Harness::with(size, FakeData::new(60), config);
            h.answer_all();
            for tab in ['2', '1', '3'] {
                h.ch(tab);
                h.answer_all();
                let what = format!("{colors:?} {size:?} tab {tab}");
                assert_same_as_table(&h, &what);
                for _ in 0..3 {
                    h.key(KeyCode::Down);
                }
                assert_same_as_table(&h, &format!("{what}, row 4"));
                h.key(KeyCode::End);
                assert_same_as_table(&h, &format!("{what}, last row"));
                h.ch('s');
                h.answer_all();
                assert_same_as_table(&h, &format!("{what}, sorted"));
            }
        }
    }
}
