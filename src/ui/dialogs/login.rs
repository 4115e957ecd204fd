//! The login dialog: a masked token input, the profile and host it is for, errors.

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::app::dialogs::login::{LoginDialog, LoginField, LoginStage};
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::form_rows::{self, Row};
use crate::ui::common::modal;
use crate::ui::theme::Theme;

pub fn draw(
    f: &mut Frame,
    area: Rect,
    d: &LoginDialog,
    spinner: &str,
    keys: &KeyMap,
    theme: &Theme,
) {
    // The notice wraps at the modal's inner width (borders and padding off).
    let width = modal::centered(area, 72, 12).width.saturating_sub(4);
    let notice = d
        .notice
        .as_deref()
        .map(|n| Row::wrapped(n, width, theme.error))
        .unwrap_or_default();
    // The notice, a blank line either side, and a second line of the "kept in" sentence.
    let extra = if notice.is_empty() {
        0
    } else {
        notice.len() as u16 + 3
    };
    let m = modal::centered(area, 72, 12 + extra);
    if let LoginStage::SessionOnly(text) = &d.stage {
        let rows = Row::wrapped(text, width, theme.note);
        let m = modal::centered(area, 72, rows.len() as u16 + 4);
        let footer = format!("{} continue", keys.first_key(Action::Confirm));
        let inner = modal::frame(f, m, "Logged in", &footer, theme);
        form_rows::draw(f, inner, &rows, theme);
        return;
    }
    let footer = if d.base_url.is_some() {
        format!(
            "{} next / check and log in · {} field · {} skip",
            keys.first_key(Action::Confirm),
            keys.first_key(Action::NextField),
            keys.first_key(Action::Cancel)
        )
    } else {
        format!(
            "{} check and save · {} skip",
            keys.first_key(Action::Confirm),
            keys.first_key(Action::Cancel)
        )
    };
    // Two more rows for the base URL field and the line under it.
    let m = if d.base_url.is_some() {
        modal::centered(area, 72, 14 + extra)
    } else {
        m
    };
    let inner = modal::frame(f, m, "Log in", &footer, theme);
    let masked = d.masked();
    let asking = d.stage == LoginStage::Asking;
    let first = if d.base_url.is_some() {
        format!(
            "Profile '{}' has no base URL and no API token yet.",
            d.profile
        )
    } else {
        format!("No API token for profile '{}' at {}.", d.profile, d.host)
    };
    let mut rows = vec![Row::text(first, theme.dim)];
    let keep = if d.base_url.is_some() {
        "Both are checked with the service; then the URL is saved in the config file and the token kept in the OS keyring (else for this session only)."
    } else if notice.is_empty() {
        "It is checked with the service, then kept in the OS keyring."
    } else {
        "It is checked with the service, then kept in the OS keyring if it can be, else for this session only."
    };
    if !notice.is_empty() {
        rows.push(Row::text("", theme.dim));
        rows.extend(notice);
        rows.push(Row::text("", theme.dim));
    }
    rows.extend(Row::wrapped(keep, width, theme.dim));
    rows.push(Row::text("", theme.dim));
    if let Some(url) = &d.base_url {
        rows.push(Row::Input {
            label: "Base URL",
            input: url,
            focused: asking && d.focus == LoginField::BaseUrl,
        });
        match &d.url_error {
            Some(e) => rows.extend(Row::error(e, inner.width, theme)),
            None => rows.push(Row::text(
                format!(
                    "{:w$}https://…, or http:// to this machine only",
                    "",
                    w = form_rows::LABEL as usize
                ),
                theme.dim,
            )),
        }
    }
    rows.push(Row::Input {
        label: "API token",
        input: &masked,
        focused: asking && d.focus == LoginField::Token,
    });
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
