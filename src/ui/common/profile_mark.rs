//! How the screen marks a profile's safety flags: a protected profile's name in a warning
//! colour on the table's frame and the status line, with a text marker that holds under
//! `NO_COLOR` too (`! live (protected)`); a read-only profile says so, quietly.

use ratatui::style::{Color, Modifier, Style};

use crate::app::{App, ColorMode};

/// The warning style: white on red, or bold reverse without colours.
pub fn warning(mode: ColorMode) -> Style {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    match mode {
        ColorMode::None => bold.add_modifier(Modifier::REVERSED),
        ColorMode::Full | ColorMode::Ansi16 => bold.fg(Color::White).bg(Color::Red),
    }
}

/// The border of a protected profile's table: red, or bold without colours.
pub fn border(mode: ColorMode) -> Style {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    match mode {
        ColorMode::None => bold,
        ColorMode::Full | ColorMode::Ansi16 => bold.fg(Color::Red),
    }
}

/// `! live (protected)` for a protected profile, `staging (read-only)` for a read-only one
/// (a protected read-only profile says both); `None` without flags.
pub fn label(app: &App) -> Option<String> {
    let s = app.profile_safety();
    let p = &app.workspace.profile;
    match (s.protected, s.read_only) {
        (true, true) => Some(format!("! {p} (protected, read-only)")),
        (true, false) => Some(format!("! {p} (protected)")),
        (false, true) => Some(format!("{p} (read-only)")),
        (false, false) => None,
    }
}

/// Whether the active profile is protected.
pub fn protected(app: &App) -> bool {
    app.profile_safety().protected
}
