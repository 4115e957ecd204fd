//! The login dialog: a masked token input, the profile and host it is for, errors.

use ratatui::Frame;
use ratatui::layout::Rect;

use super::form_rows::{self, Row};
use crate::app::login::{LoginDialog, LoginStage};
use crate::ui::common::modal;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, d: &LoginDialog, spinner: &str, theme: &Theme) {
    let m = modal::centered(area, 72, 12);
    let inner = modal::frame(f, m, "Log in", "Enter check and save · Esc skip", theme);
    let masked = d.masked();
    let asking = d.stage == LoginStage::Asking;
    let mut rows = vec![
        Row::text(
            format!("No API token for profile '{}' at {}.", d.profile, d.host),
            theme.dim,
        ),
        Row::text(
            "It is checked with the service, then kept in the OS keyring.",
            theme.dim,
        ),
        Row::text("", theme.dim),
        Row::Input {
            label: "API token".into(),
            input: &masked,
            focused: asking,
        },
    ];
    if !asking {
        rows.push(Row::text(
            format!("{spinner} checking the token…"),
            theme.spinner,
        ));
    }
    if let Some(e) = &d.error {
        rows.extend(Row::wrapped(e, inner.width, theme.error));
    }
    form_rows::draw(f, inner, &rows, theme);
}
