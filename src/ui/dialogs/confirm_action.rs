//! "Run this?": the action's name and each program line it will run.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::confirm_action::ConfirmAction;
use crate::app::keymap::{Action, KeyMap};
use crate::ui::common::modal;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, c: &ConfirmAction, keys: &KeyMap, theme: &Theme) {
    let height = (c.lines.len() as u16).saturating_add(6);
    let m = modal::centered(area, area.width.saturating_sub(4).min(100), height);
    let footer = format!(
        "{} run · {} cancel",
        keys.first_key(Action::Yes),
        keys.first_key(Action::No)
    );
    let inner = modal::frame(f, m, &format!("Run {}?", c.name), &footer, theme);
    let mut lines = vec![Line::from(Span::styled("It runs:", theme.dim))];
    lines.extend(c.lines.iter().map(|l| Line::from(format!("  {l}"))));
    f.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
