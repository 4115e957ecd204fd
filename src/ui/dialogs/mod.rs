//! Drawing of each overlay: one file per dialog, named as its state in `app::dialogs`;
//! `draw` picks by variant.

pub mod columns_picker;
pub mod confirm;
pub mod contact_form;
pub mod detail;
pub mod dupes;
pub mod export;
pub mod help;
pub mod includes;
pub mod login;
pub mod notice;
pub mod palette;
pub mod profiles_picker;
pub mod related;
pub mod reschedule;
pub mod search;
pub mod views_picker;

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, overlay: &Overlay, app: &App, theme: &Theme) {
    let keys = &app.keymap;
    match overlay {
        Overlay::Detail(d) => detail::draw(f, area, d, keys, theme),
        Overlay::Help(h) => help::draw(f, area, h, keys, theme),
        Overlay::Includes(p) => includes::draw(f, area, p, app, theme),
        Overlay::Export(e) => export::draw(f, area, e, keys, theme),
        Overlay::ConfirmQuit(c) => confirm::draw(f, area, c, keys, theme),
        Overlay::ContactForm(c) => contact_form::draw(f, area, c, spinner(app), keys, theme),
        Overlay::Reschedule(r) => reschedule::draw(f, area, r, spinner(app), keys, theme),
        Overlay::Login(l) => login::draw(f, area, l, spinner(app), keys, theme),
        Overlay::Palette(p) => palette::draw(f, area, p, keys, theme),
        Overlay::Views(v) => views_picker::draw(f, area, v, app, theme),
        Overlay::Columns(c) => columns_picker::draw(f, area, c, app, theme),
        Overlay::Profiles(p) => profiles_picker::draw(f, area, p, app, theme),
        Overlay::Notice(n) => notice::draw(f, area, n, keys, theme),
        Overlay::Search(s) => search::draw(f, area, s, spinner(app), keys, theme),
        Overlay::Related(r) => related::draw(f, area, r, spinner(app), keys, theme),
        Overlay::Dupes(d) => dupes::draw(f, area, d, spinner(app), keys, theme),
    }
}

/// The spinner's current frame.
fn spinner(app: &App) -> &'static str {
    const FRAMES: [&str; 4] = ["◐", "◓", "◑", "◒"];
    FRAMES[app.spinner_frame % FRAMES.len()]
}
