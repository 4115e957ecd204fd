//! Drawing of each overlay: one file per dialog, named as its state in `app::dialogs`;
//! `draw` picks by variant.

pub mod columns_picker;
pub mod confirm;
pub mod confirm_action;
pub mod contact_form;
pub mod detail;
pub mod dupes;
pub mod export;
pub mod import;
pub mod includes;
pub mod jobs;
pub mod login;
pub mod notice;
pub mod pager;
pub mod palette;
pub mod plan;
pub mod profiles_picker;
pub mod related;
pub mod requests;
pub mod reschedule;
pub mod search;
pub mod today;
pub mod views_picker;
pub mod write_guard;

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::App;
use crate::app::dialogs::Overlay;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, overlay: &Overlay, app: &App, theme: &Theme) {
    let keys = &app.keymap;
    match overlay {
        Overlay::Detail(d) => detail::draw(f, area, d, keys, theme),
        Overlay::Help(h) => pager::draw(f, area, "Help", h, keys, theme),
        Overlay::Includes(p) => includes::draw(f, area, p, app, theme),
        Overlay::Export(e) => export::draw(f, area, e, keys, theme),
        Overlay::ConfirmQuit(c) => confirm::draw(f, area, c, keys, theme),
        Overlay::ContactForm(c) => {
            let waits = match c.stage {
                crate::app::dialogs::contact_form::Stage::Sending { id } => app.write_wait(id),
                _ => None,
            };
            contact_form::draw(f, area, c, spinner(app), waits, keys, theme)
        }
        Overlay::Reschedule(r) => {
            let waits = match r.stage {
                crate::app::dialogs::reschedule::Stage::Sending { id, .. } => app.write_wait(id),
                _ => None,
            };
            reschedule::draw(f, area, r, spinner(app), waits, keys, theme)
        }
        Overlay::Login(l) => login::draw(f, area, l, spinner(app), keys, theme),
        Overlay::Palette(p) => palette::draw(f, area, p, keys, theme),
        Overlay::Views(v) => views_picker::draw(f, area, v, app, theme),
        Overlay::Columns(c) => columns_picker::draw(f, area, c, app, theme),
        Overlay::Profiles(p) => profiles_picker::draw(f, area, p, app, theme),
        Overlay::Notice(n) => notice::draw(f, area, n, keys, theme),
        Overlay::Search(s) => search::draw(f, area, s, spinner(app), keys, theme),
        Overlay::Related(r) => related::draw(f, area, r, spinner(app), keys, theme),
        Overlay::Jobs(v) => jobs::draw(f, area, v, app, theme),
        Overlay::ConfirmOpen(c) => jobs::draw_confirm_open(f, area, c, keys, theme),
        Overlay::TypeName(d) => write_guard::draw_type_name(f, area, d, keys, theme),
        Overlay::PendingQuit(d) => write_guard::draw_pending_quit(f, area, d, keys, theme),
        Overlay::WriteLog(v) => {
            pager::draw(f, area, "Write journal (newest first)", v, keys, theme)
        }
        Overlay::Requests(r) => requests::draw(f, area, r, app, theme),
        Overlay::ConfirmAction(c) => confirm_action::draw(f, area, c, keys, theme),
        Overlay::Today(t) => today::draw(f, area, t, spinner(app), keys, theme),
        Overlay::Dupes(d) => dupes::draw(f, area, d, spinner(app), keys, theme),
        Overlay::Plan(v) => plan::draw(f, area, v, keys, theme),
        Overlay::Import(v) => import::draw(f, area, v, keys, theme),
        Overlay::Unsent(d) => write_guard::draw_unsent(f, area, d, keys, theme),
    }
}

/// The spinner's current frame.
fn spinner(app: &App) -> &'static str {
    const FRAMES: [&str; 4] = ["◐", "◓", "◑", "◒"];
    FRAMES[app.spinner_frame % FRAMES.len()]
}
