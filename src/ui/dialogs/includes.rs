//! The includes checklist.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};

use crate::app::App;
use crate::app::dialogs::includes::IncludesPicker;
use crate::app::keymap::Action;
use crate::ui::common::{modal, picker_row};
use crate::ui::theme::Theme;

pub fn draw(f: &mut Frame, area: Rect, p: &IncludesPicker, app: &App, theme: &Theme) {
    let h = p.items.len() as u16 + 5;
    let m = modal::centered(area, 56, h);
    let title = format!("Include with {}", app.tab().resource.kind.noun());
    let keys = &app.keymap;
    let footer = format!(
        "{} toggle · {} apply · {} cancel",
        keys.first_key(Action::Toggle),
        keys.first_key(Action::Confirm),
        keys.first_key(Action::Back)
    );
    let inner = modal::frame(f, m, &title, &footer, theme);
    let mut lines = vec![Line::from(Span::styled(
        "Related records to request:",
        theme.dim,
    ))];
    for (i, (name, on)) in p.items.iter().enumerate() {
        let mark = if *on { "[x]" } else { "[ ]" };
        lines.push(picker_row::row(
            format!(" {mark} {name}"),
            i == p.cursor,
            theme,
        ));
    }
    crate::ui::common::fit::draw_lines(f.buffer_mut(), inner, lines);
}
