//! Drawing of each overlay. One function per dialog; `draw` picks by variant.

mod confirm;
mod contact_form;
mod export;
mod form_rows;
mod includes;
mod login;
mod reschedule;

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::App;
use crate::app::keymap::Action;
use crate::app::layout::modal_area;
use crate::app::overlay::Overlay;
use crate::ui::common::{modal, scroll_text};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, overlay: &Overlay, app: &App, theme: &Theme) {
    let keys = &app.keymap;
    match overlay {
        Overlay::Detail(d) => {
            let m = modal_area(area);
            let inner_rows = m.height.saturating_sub(3);
            let footer = format!(
                "{} scroll · {} copy JSON · {} close · {}",
                keys.first_key(Action::Down),
                keys.first_key(Action::CopyJson),
                keys.first_key(Action::Back),
                scroll_text::position(&d.text, inner_rows),
            );
            let inner = modal::frame(f, m, &d.title, &footer, theme);
            scroll_text::draw(f, inner, &d.text, theme);
        }
        Overlay::Help(h) => {
            let m = modal_area(area);
            let inner_rows = m.height.saturating_sub(3);
            let footer = format!(
                "{} scroll · {} close · {}",
                keys.first_key(Action::Down),
                keys.first_key(Action::Back),
                scroll_text::position(&h.text, inner_rows),
            );
            let inner = modal::frame(f, m, "Help", &footer, theme);
            scroll_text::draw(f, inner, &h.text, theme);
        }
        Overlay::Includes(p) => includes::draw(f, area, p, app, theme),
        Overlay::Export(e) => export::draw(f, area, e, theme),
        Overlay::ConfirmQuit(c) => confirm::draw(f, area, c, theme),
        Overlay::ContactForm(c) => contact_form::draw(f, area, c, spinner(app), theme),
        Overlay::Reschedule(r) => reschedule::draw(f, area, r, spinner(app), theme),
        Overlay::Login(l) => login::draw(f, area, l, spinner(app), theme),
    }
}

/// The spinner's current frame.
fn spinner(app: &App) -> &'static str {
    const FRAMES: [&str; 4] = ["◐", "◓", "◑", "◒"];
    FRAMES[app.spinner_frame % FRAMES.len()]
}
