//! The quit confirmation.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use crate::app::dialogs::confirm::ConfirmQuit;
use crate::app::keymap::{Action, KeyMap};
use crate::app::widgets::scroll::wrap;
use crate::ui::common::modal;
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, c: &ConfirmQuit, keys: &KeyMap, theme: &Theme) {
    const WIDTH: u16 = 50;
    // The reason and the question wrapped inside the borders, a blank line, the footer.
    let inside = usize::from(WIDTH.min(area.width).saturating_sub(2)).max(1);
    let lines = wrap(&c.reason, inside, inside).len() + wrap(&c.question, inside, inside).len();
    let height = u16::try_from(lines).unwrap_or(u16::MAX).saturating_add(4);
    let m = modal::centered(area, WIDTH, height);
    let stay = if c.stop.is_empty() {
        "stay"
    } else {
        "stay, it runs on"
    };
    let footer = format!(
        "{} quit · {} {stay}",
        keys.first_key(Action::Yes),
        keys.first_key(Action::No)
    );
    let inner = modal::frame(f, m, "Quit?", &footer, theme);
    let text = vec![
        Line::from(c.reason.as_str()),
        Line::from(c.question.as_str()),
    ];
    let body = Rect {
        height: inner.height.saturating_sub(1),
        ..inner
    };
    f.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), body);
}
