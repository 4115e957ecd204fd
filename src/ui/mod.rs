//! Drawing only: `render(&App, &mut Frame)` reads the state and changes nothing.

pub mod common;
pub mod dialogs;
pub mod theme;
pub mod views;

use ratatui::Frame;
use ratatui::layout::Alignment;
use ratatui::text::{Line, Text};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::App;
use crate::app::layout::Areas;
use theme::Theme;

/// Draws the whole screen.
pub fn render(app: &App, f: &mut Frame) {
    draw(app, f);
    common::clusters::split(f.buffer_mut());
}

fn draw(app: &App, f: &mut Frame) {
    let area = f.area();
    let theme = Theme::new(app.config.colors);
    let (min_w, min_h) = app.min_size();
    if area.width < min_w || area.height < min_h {
        let text = Text::from(vec![
            Line::from("Terminal too small"),
            Line::from(format!(
                "{}x{} here; crmdash needs at least {min_w}x{min_h}.",
                area.width, area.height
            )),
            Line::from("Enlarge the window, or press q to quit."),
        ]);
        let top = area.height.saturating_sub(3) / 2;
        let a = ratatui::layout::Rect {
            y: area.y + top,
            height: area.height - top,
            ..area
        };
        f.render_widget(
            Paragraph::new(text)
                .alignment(Alignment::Center)
                .wrap(Wrap { trim: true }),
            a,
        );
        return;
    }
    let tab = app.tab();
    let areas = Areas::of_screen(area, tab);
    common::tabs::draw(f, areas.tabs, app, &theme);
    if let Some(fa) = areas.filter {
        views::filter_bar::draw(f, fa, tab, &app.keymap, &theme);
    }
    match app.pipeline_shown() {
        Some(p) => views::pipeline::draw(f, areas.table, app, p, &theme),
        None => match app.timeline_shown() {
            Some(t) => views::timeline::draw(f, areas.table, app, t, &theme),
            None => common::table::draw(f, areas.table, app, &theme),
        },
    }
    common::status_bar::draw_status(f, areas.status, app, &theme);
    common::status_bar::draw_hint(f, areas.hint, app, &theme);
    for o in &app.overlays {
        dialogs::draw(f, area, o, app, &theme);
    }
}
