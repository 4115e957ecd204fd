//! The profiles list of `:profile`.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use crate::app::App;
use crate::app::dialogs::profiles_picker::{PROFILES_HINTS, ProfilesPicker};
use crate::ui::common::{modal, picker_row};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, p: &ProfilesPicker, app: &App, theme: &Theme) {
    let m = modal::centered(area, 56, p.profiles.len() as u16 + 5);
    let footer = app
        .keymap
        .hint_text(PROFILES_HINTS, m.width.saturating_sub(4));
    let inner = modal::frame(f, m, "Profiles", &footer, theme);
    let mut lines = vec![Line::from(Span::styled(
        "Switch to (profiles: [profiles.NAME] in config.toml):",
        theme.dim,
    ))];
    for (i, name) in p.profiles.iter().enumerate() {
        let mark = if *name == p.active { "●" } else { " " };
        // The safety flags, so a switch to a live profile is never a surprise.
        let flags = match app.profile_safety_of(name) {
            s if s.read_only || s.protected => format!("  [{}]", s.describe()),
            _ => String::new(),
        };
        lines.push(picker_row::row(
            format!(" {mark} {name}{flags}"),
            i == p.cursor,
            theme,
        ));
    }
    f.render_widget(Paragraph::new(lines), inner);
}
