//! The quit confirmation.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::confirm::ConfirmQuit;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::modal;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, c: &ConfirmQuit, keys: &KeyMap, theme: &Theme) {
    let m = modal::centered(area, 50, 6);
    let footer = format!(
        "{} quit · {} stay",
        keys.first_key(Action::Yes),
        keys.first_key(Action::No)
    );
    let inner = modal::frame(f, m, "Quit?", &footer, theme);
    let text = vec![Line::from(c.reason.as_str()), Line::from("Quit anyway?")];
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), inner);
}
